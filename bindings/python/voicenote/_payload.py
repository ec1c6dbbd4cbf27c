"""``VoiceRecordingPayload``: Stream's ``voiceRecording`` attachment payload (``vn_payload``)."""

from __future__ import annotations

import ctypes
import json
import operator
import os
from collections.abc import Mapping
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _buffers, _capi, _lifecycle
from ._loudness import Loudness
from ._loudness import from_c as loudness_from_c
from ._strings import JSONText, c_text, json_argument, json_bytes, owned_text, take_owned
from .errors import check, invalid_argument

__all__ = ["VoiceRecordingPayload", "is_matrix_voice_message", "matrix_download_url"]

_INT64_MAX = (1 << 63) - 1
_INDENT_MAX = 16
#: The most waveform values a payload holds (``vn_payload_set_waveform``).
_WAVEFORM_MAX = 1 << 20



def _size_arg(value: Any) -> int:
    number = operator.index(value)
    if not 0 <= number <= _INT64_MAX:
        raise invalid_argument(f"file_size must be 0…{_INT64_MAX} bytes or None, not {number}")
    return number


def _duration_arg(value: Any) -> float:
    seconds = _buffers.real(value)
    if seconds < 0:
        raise invalid_argument(f"duration must be 0 or more seconds, or None, not {seconds!r}")
    return seconds  # NaN and infinities go on to the library, which refuses them


def _doubles(values: Iterable[Any]) -> Any:
    levels = [_buffers.real(value) for value in values]
    if len(levels) > _WAVEFORM_MAX:
        raise invalid_argument(f"waveform_data holds {len(levels)} values, over the limit of {_WAVEFORM_MAX}")
    return (ctypes.c_double * len(levels))(*levels)


def _read_matrix(content: Union[JSONText, Mapping[str, Any]]) -> "tuple[Any, bool]":
    """A Matrix content read by the library: the new ``vn_payload`` handle and whether it is marked a voice
    message."""
    data = json_bytes(dict(content)) if isinstance(content, Mapping) else json_argument(content, "content")
    handle = _capi.vn_payload_p()
    voice = ctypes.c_int(0)
    check(_capi.vn_payload_from_matrix_content(data, len(data), ctypes.byref(handle), ctypes.byref(voice)))
    return handle, bool(voice.value)


def is_matrix_voice_message(content: Union[JSONText, Mapping[str, Any]]) -> bool:
    """Whether a Matrix message content is a voice message: ``m.audio`` with an ``mxc://`` url, marked
    ``org.matrix.msc3245.voice`` (other audio is a file to clients).

    Raises:
        FormatError: not an ``m.audio`` content that :meth:`VoiceRecordingPayload.from_matrix_content` reads.
    """
    handle, voice = _read_matrix(content)
    _capi.vn_payload_destroy(handle)
    return voice


def matrix_download_url(mxc_uri: str, homeserver: str) -> str:
    """Where a client downloads ``mxc_uri`` with authenticated media (Matrix 1.11):
    ``<homeserver>/_matrix/client/v1/media/download/<server>/<media id>``. Send ``Authorization: Bearer <access
    token>`` with it, e.g. ``player.load(url, headers={"Authorization": f"Bearer {token}"})``.

    Raises:
        InvalidArgumentError: an ``mxc://`` URI outside the Matrix grammar (the server name a DNS name, IPv4
            address or ``[IPv6]`` literal with an optional port 1–65535, the media id of ``A-Z a-z 0-9 _ -``), or
            a homeserver that is not an http(s) base URL.
    """
    return owned_text(lambda out: _capi.vn_matrix_download_url(c_text(mxc_uri, "mxc_uri"),
                                                                 c_text(homeserver, "homeserver"), out)) or ""


def _parse(data: bytes) -> Any:
    handle = _capi.vn_payload_p()
    check(_capi.vn_payload_parse(data, len(data), ctypes.byref(handle)))
    return handle


class VoiceRecordingPayload(_lifecycle.Closing):
    """Stream's ``voiceRecording`` attachment payload: ``type``, ``title``, ``asset_url``, ``file_size`` (bytes),
    ``mime_type``, ``duration`` (seconds), ``waveform_data`` (levels 0…1) and any other key as ``extra_data``.

    ::

        payload = voicenote.VoiceRecordingPayload.from_json(attachment_json)
        player.load(payload.asset_url, duration_hint=payload.duration)
        payload.title = "Recording(1)"
        message["attachments"][0] = json.loads(payload.to_json())

    A payload read and written back keeps every key in its place and every value exact (64-bit integers, reals in
    their shortest form); editing a key keeps its place, a key added goes at the end. Absent values read as None.
    Payload JSON is at most 1 MiB and nests at most 64 levels.

    Not thread-safe: one thread uses a payload at a time. Usable as a context manager; methods raise
    :class:`ValueError` after :meth:`close`. A payload that is garbage-collected, or still open when the
    interpreter exits, is freed then. Payloads compare equal when their JSON texts are equal.
    """

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(
        self,
        asset_url: str,
        title: Optional[str] = None,
        file_size: Optional[int] = None,
        mime_type: Optional[str] = None,
        duration: Optional[float] = None,
        waveform_data: Optional[Iterable[float]] = None,
        extra_data: Optional[Mapping[str, Any]] = None,
    ) -> None:
        """Makes a payload with ``type`` ``"voiceRecording"``; its keys are written in the order ``type``,
        ``title``, ``asset_url``, ``file_size``, ``mime_type``, ``duration``, ``waveform_data``, then the extra data.

        Args:
            asset_url: an absolute URL (``scheme:…``: ``https://…``, ``mxc://…``, ``file://…``).
            title: the title (usually the file name), or None.
            file_size: the size in bytes, 0…2**63-1, or None.
            mime_type: the MIME type, e.g. ``"audio/ogg"``, or None.
            duration: the duration in seconds (0 or more), or None.
            waveform_data: the levels (0…1; at most 1048576 values), or None.
            extra_data: other keys (a JSON object as a mapping), or None.

        Raises:
            InvalidArgumentError: a relative ``asset_url``, a NaN or infinite number, a negative size or duration,
                or a known key in ``extra_data``.
            FormatError: ``extra_data`` holds a value beyond int64 or double, or invalid text.
            TooLargeError: ``extra_data`` makes the payload larger than 1 MiB.
            TypeError: an argument of the wrong type.
            ValueError: a NUL byte in a text.
        """
        url = c_text(asset_url, "asset_url")
        given = {"title": title, "file_size": file_size, "mime_type": mime_type, "duration": duration,
                 "waveform_data": waveform_data}
        handle = _capi.vn_payload_p()
        check(_capi.vn_payload_create(url, ctypes.byref(handle)))
        self._own(handle, _capi.vn_payload_destroy, handle)
        try:
            # The library puts each known key at its place in Stream's order, whatever order they are set in.
            for key, value in given.items():
                if value is not None:
                    setattr(self, key, value)
            if extra_data is not None:
                self.extra_data = extra_data
        except BaseException:
            self.close()
            raise

    @classmethod
    def _adopt(cls, handle: Any) -> "VoiceRecordingPayload":
        """A payload object owning the ``vn_payload`` handle ``handle``."""
        payload = cls.__new__(cls)
        payload._own(handle, _capi.vn_payload_destroy, handle)
        return payload

    @classmethod
    def from_json(cls, text: JSONText) -> "VoiceRecordingPayload":
        """Reads a payload from JSON text (a ``str``, or UTF-8 bytes). Only ``asset_url`` is required.

        Raises:
            FormatError: invalid JSON or UTF-8, nesting deeper than 64 levels, duplicate keys, numbers beyond int64
                or double, not a JSON object, a missing or relative ``asset_url``, or a known key of the wrong type
                (``title``, ``mime_type`` and ``type`` strings, ``duration`` a number, ``waveform_data`` an array
                of numbers). Also a ``ValueError``.
            TooLargeError: over 1 MiB.
            TypeError: neither text nor bytes.
        """
        return cls._adopt(_parse(json_argument(text, "text")))

    @classmethod
    def from_recording(
        cls,
        path: Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes],
        duration: Optional[float] = None,
        waveform: Optional[Iterable[float]] = None,
    ) -> "VoiceRecordingPayload":
        """The payload of a finished recording before upload: ``title`` the file name, ``asset_url`` its ``file://``
        URL, ``file_size`` from disk, ``mime_type`` from the extension, and the duration and waveform.

        Args:
            path: the recording.
            duration: its duration in seconds (:class:`~voicenote.RecordingFinished` has it), or None to read it
                from the file.
            waveform: its levels (the recorder's 100 values; stored as float32), or None to compute 100 from the
                file (which decodes it).

        Raises:
            NotFoundError: the file does not exist.
            AccessDeniedError: it cannot be read.
            InvalidArgumentError: a directory, a negative, NaN or infinite duration or level.
            FormatError: it must be read and is not audio.
            ValueError: a NUL byte in the path.
            TypeError: an argument of the wrong type.
        """
        path_arg = c_text(path, "path", path=True)
        seconds = -1.0 if duration is None else _duration_arg(duration)
        if waveform is None:
            levels: Any = None
            count = 0
        else:
            floats = _buffers.float_array(waveform)
            if len(floats) > _WAVEFORM_MAX:
                raise invalid_argument(f"waveform holds {len(floats)} values, over the limit of {_WAVEFORM_MAX}")
            count = len(floats)
            levels = (ctypes.c_float * count).from_buffer(floats) if count else (ctypes.c_float * 0)()
        handle = _capi.vn_payload_p()
        rc = _capi.vn_payload_from_recording(path_arg, seconds, levels, count, ctypes.byref(handle))
        del levels  # lets the array be resized again
        check(rc)
        return cls._adopt(handle)

    @classmethod
    def from_matrix_content(cls, content: Union[JSONText, Mapping[str, Any]]) -> "VoiceRecordingPayload":
        """Reads a received Matrix ``m.audio`` message content (JSON text, or the decoded dict): ``asset_url`` its
        ``url`` (an ``mxc://`` URI: :func:`~voicenote.matrix_download_url` gives where to fetch it), ``title`` its
        ``body``, the MIME type and size from ``info``, the duration in seconds and the waveform decoded to 0…1
        from ``org.matrix.msc1767.audio``. :func:`~voicenote.is_matrix_voice_message` tells a voice message.

        Raises:
            FormatError: not an ``m.audio`` content with an ``mxc://`` url as :func:`~voicenote.matrix_download_url`
                takes it, fields of the wrong types, or a ``body`` or ``info.mimetype`` with a NUL character.
            TooLargeError: over 1 MiB.
            TypeError: neither text, bytes nor a mapping.
        """
        return cls._adopt(_read_matrix(content)[0])

    def to_matrix_content(self, body: Optional[str] = None) -> Dict[str, Any]:
        """The content of a Matrix voice message (``m.room.message``) for this payload, as Element sends one:
        ``msgtype`` ``m.audio``, ``body``, ``url``, ``info`` (duration in ms, MIME type, size),
        ``org.matrix.msc1767.audio`` (duration, waveform as 100 integers 0…1024) and ``org.matrix.msc3245.voice``.
        The payload's ``asset_url`` must be the ``mxc://`` URI of the uploaded audio (an :class:`~voicenote.Uploader`
        in raw mode gives it) and its duration set.

        Args:
            body: what clients without voice messages show (default "Voice message").

        Raises:
            InvalidArgumentError: ``asset_url`` is not an ``mxc://`` URI, or the duration is missing.
            ValueError: the payload is closed, or a NUL byte in ``body``.
        """
        handle = self._live_handle()
        body_arg = c_text(body, "body") if body is not None else None
        return json.loads(owned_text(lambda out: _capi.vn_payload_to_matrix_content(handle, body_arg, out)) or "{}")

    # -- JSON -------------------------------------------------------------------------------------------------

    def to_json(self, indent: int = 0) -> str:
        """The payload as JSON text: its keys in their order, absent values left out.

        Args:
            indent: 0 for compact text, else spaces per level (at most 16).

        Raises:
            InvalidArgumentError: ``indent`` outside 0…16.
            ValueError: the payload is closed.
        """
        spaces = _buffers.count_arg("indent", indent, 0, _INDENT_MAX)
        handle = self._live_handle()
        return owned_text(lambda out: _capi.vn_payload_to_json(handle, spaces, out)) or ""

    # -- text fields ------------------------------------------------------------------------------------------

    def _text(self, field: int) -> Optional[str]:
        handle = self._live_handle()
        return owned_text(lambda out: _capi.vn_payload_copy_field(handle, field, out))

    def _set_text(self, field: int, name: str, value: Optional[str]) -> None:
        handle = self._live_handle()
        check(_capi.vn_payload_set_field(handle, field, None if value is None else c_text(value, name)))

    @property
    def type(self) -> Optional[str]:
        """``type``: ``"voiceRecording"`` for a new payload; None when the JSON had none. Set None to remove it.

        Raises:
            TypeError, ValueError: (setting) not a ``str`` or None, a NUL byte; or the payload is closed.
        """
        return self._text(_capi.VN_PAYLOAD_TYPE)

    @type.setter
    def type(self, value: Optional[str]) -> None:
        self._set_text(_capi.VN_PAYLOAD_TYPE, "type", value)

    @property
    def title(self) -> Optional[str]:
        """``title`` (the file name, or Stream's ``Recording(n)``), or None. Set None to remove it.

        Raises:
            TypeError, ValueError: (setting) not a ``str`` or None, a NUL byte; or the payload is closed.
        """
        return self._text(_capi.VN_PAYLOAD_TITLE)

    @title.setter
    def title(self, value: Optional[str]) -> None:
        self._set_text(_capi.VN_PAYLOAD_TITLE, "title", value)

    @property
    def asset_url(self) -> str:
        """``asset_url``: the absolute URL of the audio (always present).

        Raises:
            InvalidArgumentError: (setting) a relative URL or None.
            TypeError, ValueError: (setting) not a ``str``, a NUL byte; or the payload is closed.
        """
        return self._text(_capi.VN_PAYLOAD_ASSET_URL) or ""

    @asset_url.setter
    def asset_url(self, value: str) -> None:
        self._set_text(_capi.VN_PAYLOAD_ASSET_URL, "asset_url", value)

    @property
    def mime_type(self) -> Optional[str]:
        """``mime_type``, e.g. ``"audio/ogg"``, or None. Set None to remove it.

        Raises:
            TypeError, ValueError: (setting) not a ``str`` or None, a NUL byte; or the payload is closed.
        """
        return self._text(_capi.VN_PAYLOAD_MIME_TYPE)

    @mime_type.setter
    def mime_type(self, value: Optional[str]) -> None:
        self._set_text(_capi.VN_PAYLOAD_MIME_TYPE, "mime_type", value)

    # -- numbers ----------------------------------------------------------------------------------------------

    @property
    def file_size(self) -> Optional[int]:
        """``file_size`` in bytes (read as Stream reads it: an integer, or a real rounded; 0 for any other value),
        or None. Set None to remove it.

        Raises:
            InvalidArgumentError: (setting) outside 0…2**63-1.
            TypeError: (setting) not an integer or None.
            ValueError: the payload is closed.
        """
        value = ctypes.c_int64(-1)
        check(_capi.vn_payload_get_file_size(self._live_handle(), ctypes.byref(value)))
        return None if value.value < 0 else int(value.value)

    @file_size.setter
    def file_size(self, value: Optional[int]) -> None:
        size = -1 if value is None else _size_arg(value)
        check(_capi.vn_payload_set_file_size(self._live_handle(), size))

    @property
    def duration(self) -> Optional[float]:
        """``duration`` in seconds, or None. Set None to remove it.

        Raises:
            InvalidArgumentError: (setting) negative, NaN or infinite.
            TypeError: (setting) not a number or None.
            ValueError: the payload is closed.
        """
        value = ctypes.c_double(-1.0)
        check(_capi.vn_payload_get_duration_s(self._live_handle(), ctypes.byref(value)))
        return None if value.value < 0 else float(value.value)

    @duration.setter
    def duration(self, value: Optional[float]) -> None:
        seconds = -1.0 if value is None else _duration_arg(value)
        check(_capi.vn_payload_set_duration_s(self._live_handle(), seconds))

    @property
    def waveform_data(self) -> Optional[List[float]]:
        """``waveform_data``: the levels, exactly as in the JSON (read and written as doubles), or None when the
        payload has none (``[]`` for an empty array). Set None to remove it.

        Raises:
            InvalidArgumentError: (setting) a NaN or infinite value, or more than 1048576 values.
            TypeError: (setting) not an iterable of numbers or None.
            ValueError: the payload is closed.
        """
        handle = self._live_handle()
        count = ctypes.c_size_t(0)
        check(_capi.vn_payload_get_waveform(handle, None, 0, ctypes.byref(count)))
        if count.value == 0:
            # No count tells an empty array from none: the JSON does.
            return [] if "waveform_data" in json.loads(self.to_json()) else None
        out = (ctypes.c_double * count.value)()
        check(_capi.vn_payload_get_waveform(handle, out, count.value, ctypes.byref(count)))
        return [float(value) for value in out[: min(count.value, len(out))]]

    @waveform_data.setter
    def waveform_data(self, values: Optional[Iterable[float]]) -> None:
        handle = self._live_handle()
        if values is None:
            check(_capi.vn_payload_set_waveform(handle, None, 0))
            return
        levels = _doubles(values)
        check(_capi.vn_payload_set_waveform(handle, levels, len(levels)))

    @property
    def loudness(self) -> Optional[Loudness]:
        """The note's loudness, carried in the extra data (``voicenote_loudness``, docs/attachments.md) so a receiver
        levels the note without measuring it; None when the payload has none or one that is not a plausible loudness
        (a stranger's figures never set a gain). Set None to remove it.

        Raises:
            InvalidArgumentError: (setting) figures that are not a plausible loudness (NaN, a range below 0, ...).
            TypeError: (setting) not a :class:`~voicenote.Loudness` or None.
            ValueError: the payload is closed.
        """
        value = _capi.vn_loudness()
        check(_capi.vn_payload_get_loudness(self._live_handle(), ctypes.byref(value)))
        return loudness_from_c(value)

    @loudness.setter
    def loudness(self, value: Optional[Loudness]) -> None:
        handle = self._live_handle()
        if value is None:
            check(_capi.vn_payload_set_loudness(handle, None))
            return
        if not isinstance(value, Loudness):
            raise TypeError(f"loudness must be a voicenote.Loudness or None, not {type(value).__name__}")
        check(_capi.vn_payload_set_loudness(handle, ctypes.byref(value._c())))

    @property
    def transcript(self) -> Optional[Any]:
        """The note's transcript carried in the extra data (``voicenote_transcript``; from a Matrix content, its
        ``org.voicenote.transcript``), a :class:`~voicenote.Transcript`, or None when there is none or a malformed
        one. Set one (None removes it): :meth:`to_matrix_content` then puts its text in the ``body`` fallback and
        in MSC1767's ``org.matrix.msc1767.text``.

        Raises:
            TooLargeError: (setting) the payload would pass 1 MiB. TypeError: (setting) not a Transcript or None.
            ValueError: the payload is closed.
        """
        from ._transcript import Transcript

        owned = ctypes.c_void_p()
        status = _capi.vn_payload_copy_transcript(self._live_handle(), ctypes.byref(owned))
        if status == _capi.VN_E_NOT_FOUND:
            return None
        check(status)
        return Transcript.from_json(take_owned(owned.value) or "{}")

    @transcript.setter
    def transcript(self, value: Optional[Any]) -> None:
        from ._transcript import Transcript

        handle = self._live_handle()
        if value is None:
            check(_capi.vn_payload_set_transcript(handle, None))
            return
        if not isinstance(value, Transcript):
            raise TypeError(f"transcript must be a voicenote.Transcript or None, not {type(value).__name__}")
        text = json.dumps({"recogniser": value.recogniser, "text": value.text,
                           "words": [{"text": w.text, "start": w.start, "end": w.end, "confidence": w.confidence}
                                     for w in value.words]})
        check(_capi.vn_payload_set_transcript(handle, text.encode("utf-8")))

    # -- extra data -------------------------------------------------------------------------------------------

    @property
    def extra_data(self) -> Dict[str, Any]:
        """Every key that is not a known one, in order, as a dict (``{}`` when none; integers of any size and
        reals exactly, through :mod:`json`). Setting it replaces them: a key kept stays in its place, a key dropped
        goes, a new key is added at the end; None (or ``{}``) removes them all.

        Raises:
            InvalidArgumentError: (setting) a known key (``title``, ``duration``...).
            FormatError: (setting) a number beyond int64 or double, NaN, nesting deeper than 64 levels.
            TooLargeError: (setting) the payload would be over 1 MiB.
            TypeError: (setting) not a mapping or None, or a value :mod:`json` cannot write.
            ValueError: the payload is closed.
        """
        handle = self._live_handle()
        text = owned_text(lambda out: _capi.vn_payload_copy_extra_data(handle, out))
        return json.loads(text or "{}")

    @extra_data.setter
    def extra_data(self, value: Optional[Mapping[str, Any]]) -> None:
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"extra_data must be a mapping (a JSON object) or None, not {type(value).__name__}")
        data = None if value is None else json_bytes(dict(value))
        check(_capi.vn_payload_set_extra_data(self._live_handle(), data))

    # -- object -----------------------------------------------------------------------------------------------

    def _handle_for_call(self) -> Any:
        """The C handle, for a call that copies the payload (an upload)."""
        return self._live_handle()

    def close(self) -> None:
        """Frees the payload. Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VoiceRecordingPayload):
            return NotImplemented
        return self.to_json() == other.to_json()

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.VoiceRecordingPayload closed>"
        text = self.to_json()
        if len(text) > 200:
            text = text[:197] + "..."
        return f"<voicenote.VoiceRecordingPayload {text}>"
