"""Attachment types, MIME types, the local check before an upload, and recording display names (the header's
"Attachment types and names")."""

from __future__ import annotations

import operator
import os
from collections.abc import Mapping
from typing import Any, Union

from . import _capi
from ._strings import c_text, json_argument, json_bytes, owned_text
from .errors import check, invalid_argument

__all__ = ["attachment_type_for", "mime_type_for", "attachment_type_of", "check_local_attachment",
           "recording_display_name", "DEFAULT_MAX_BYTES"]

#: The size limit of an attachment when none is given: 100 MiB.
DEFAULT_MAX_BYTES = 100 * 1024 * 1024

_INT64_MAX = (1 << 63) - 1
_INT32_MAX = (1 << 31) - 1

Path = Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes]


def _static(raw: bytes) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def attachment_type_for(path: Path) -> str:
    """The attachment type of a file by its extension: ``"image"``, ``"video"`` or ``"audio"`` when its MIME type's
    major type is that, else ``"file"`` (``"note.ogg"`` → ``"audio"``, ``"photo.JPG"`` → ``"image"``).

    Only the name is looked at; the file need not exist.

    Raises:
        ValueError: a NUL byte in the path.
        TypeError: not a path.
    """
    return _static(_capi.vn_attachment_type_for_file(c_text(path, "path", path=True)))


def mime_type_for(path: Path) -> str:
    """The MIME type voicenote sends a file as, by its extension (any case): ogg/opus ``audio/ogg``, aac
    ``audio/aac``, m4a ``audio/mp4``, mp3 ``audio/mpeg``, wav ``audio/wav``, flac ``audio/flac``, common image and
    video types, else ``application/octet-stream``.

    Raises:
        ValueError: a NUL byte in the path.
        TypeError: not a path.
    """
    return _static(_capi.vn_mime_type_for_file(c_text(path, "path", path=True)))


def attachment_type_of(attachment: Union[Mapping[str, Any], str, bytes, bytearray, memoryview]) -> str:
    """The type of an attachment as received: its ``type``; ``"linkPreview"`` for one with an ``og_scrape_url``;
    ``"unknown"`` without a ``type`` string. Other types come back as they are (``"poll"``).

    Args:
        attachment: the attachment object, as a mapping or as JSON text (``str`` or UTF-8 bytes).

    Raises:
        FormatError: not a JSON object (or invalid JSON).
        TooLargeError: over 1 MiB.
        TypeError: none of the accepted kinds, or a value :mod:`json` cannot write.
    """
    if isinstance(attachment, Mapping):
        data = json_bytes(dict(attachment))
    else:
        data = json_argument(attachment, "attachment")
    return owned_text(lambda out: _capi.vn_attachment_type_of_json(data, len(data), out)) or ""


def check_local_attachment(path_or_url: Path, type: str = "voiceRecording", max_bytes: int = 0) -> None:
    """Checks a local file before upload, as Stream does; returns when it may be uploaded.

    Args:
        path_or_url: a path, or a ``file://`` URL.
        type: the attachment type it would be uploaded as: ``"voiceRecording"``, ``"audio"``, ``"image"``,
            ``"video"`` or ``"file"``.
        max_bytes: the size limit, or 0 for the default (:data:`DEFAULT_MAX_BYTES`, 100 MiB).

    Raises:
        NotFoundError: the file does not exist.
        AccessDeniedError: it cannot be read.
        TooLargeError: it is over the limit.
        UnsupportedError: uploads do not take ``type``.
        InvalidArgumentError: a URL of another scheme, a directory, an empty location, a negative ``max_bytes``.
        ValueError: a NUL byte in a text.
        TypeError: an argument of the wrong type.
    """
    location = c_text(path_or_url, "path", path=True)
    limit = operator.index(max_bytes)
    if not 0 <= limit <= _INT64_MAX:
        raise invalid_argument(f"max_bytes must be 0 (the default) … {_INT64_MAX}, not {limit}")
    check(_capi.vn_attachment_check_local(location, c_text(type, "type"), limit))


def recording_display_name(index: int) -> str:
    """The display name of the ``index``-th recording of a message being composed (Stream's
    ``AudioRecordingNameFormatter``): 0 is ``"Recording"``, n ≥ 1 is ``"Recording(n)"``.

    Raises:
        InvalidArgumentError: a negative index (or one beyond 2**31-1).
        TypeError: not an integer.
    """
    number = operator.index(index)
    if number > _INT32_MAX:
        raise invalid_argument(f"index must be 0…{_INT32_MAX}, not {number}")
    number = max(number, -1)  # a negative index reaches the library, which refuses it
    return owned_text(lambda out: _capi.vn_recording_display_name(number, out)) or ""
