"""The uploader's modes, states and events (``vn_upload_mode``, ``vn_upload_state``, ``vn_upload_event``), and the
types its arguments take."""

from __future__ import annotations

import enum
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Tuple, Union

from . import _capi, _cevents, _enums, _events
from ._payload import VoiceRecordingPayload
from .errors import VoiceNoteError

if TYPE_CHECKING:  # pragma: no cover
    from ._recorder import Recorder

__all__ = ["UploadMode", "UploadState", "UploadEvent", "PostProcessor", "Query", "UploadSource"]


class UploadMode(_enums.NamedIntEnum):
    """How uploads are framed (``vn_upload_mode``). :class:`Uploader` also accepts the names ``"multipart"``,
    ``"raw"``, ``"matrix"`` and ``"tus"`` (any case)."""

    #: ``multipart/form-data`` with one part named ``file`` (Stream's ``POST /channels/{type}/{id}/file``); the
    #: response's ``file`` becomes ``asset_url`` and its ``thumb_url`` is kept.
    MULTIPART = _capi.VN_UPLOAD_MULTIPART
    #: The bare body with its ``Content-Type`` and the file name as the ``filename`` query parameter (Matrix's
    #: ``/_matrix/media/v3/upload``); the response's ``content_uri`` becomes ``asset_url``.
    RAW = _capi.VN_UPLOAD_RAW
    #: Matrix's upload to a content URI created first (MSC2246): the endpoint is the homeserver's base URL; the
    #: ``mxc://`` URI is reserved at once (:attr:`Uploader.content_uri`, before the bytes are sent), then the bytes
    #: go with their length to ``PUT /_matrix/media/v3/upload/{server}/{id}``; ``asset_url`` is that URI.
    MATRIX = _capi.VN_UPLOAD_MATRIX
    #: tus 1.0.0, the resumable-upload protocol: the endpoint is the server's creation URL; the upload is created
    #: (its length deferred for a take sent while it is recorded), its bytes PATCHed at offsets (resumed from the
    #: offset HEAD gives after a failed PATCH), and a failed or cancelled one DELETEd; its URL is ``asset_url`` (and
    #: :attr:`Uploader.content_uri` from the first ``UPLOADING`` event on).
    TUS = _capi.VN_UPLOAD_TUS


class UploadState(enum.IntEnum):
    """Where an upload is (``vn_upload_state``, Stream's ``LocalAttachmentState``)."""

    #: Accepted, not sending yet (a recording's duration and waveform are being read); also before any upload.
    PENDING = _capi.VN_UPLOAD_PENDING
    #: Sending; :attr:`UploadEvent.progress` says how much.
    UPLOADING = _capi.VN_UPLOAD_UPLOADING
    #: Failed or cancelled; the local file is untouched. :meth:`Uploader.retry` sends it again.
    FAILED = _capi.VN_UPLOAD_FAILED
    #: Done: :meth:`Uploader.result` is the uploaded payload.
    UPLOADED = _capi.VN_UPLOAD_UPLOADED


_FINAL = (UploadState.FAILED, UploadState.UPLOADED)


@dataclass(frozen=True)
class UploadEvent:
    """An uploader's event: a change of state, or a progress step; everything copied out of the library."""

    #: The state.
    state: UploadState
    #: ``UPLOADING``: 0 first, then steps of at least 0.05, then 1 once the server answered; ``UPLOADED``: 1;
    #: else 0.
    progress: float
    #: ``FAILED``: why: :class:`~voicenote.CancelledError` after :meth:`Uploader.cancel`,
    #: :class:`~voicenote.TooLargeError` for HTTP 413, ... (the message names the HTTP status); else None.
    error: Optional[VoiceNoteError]
    #: ``UPLOADED``: the payload with the uploaded ``asset_url`` (after the post-processor); else None.
    payload: Optional[VoiceRecordingPayload]


#: ``post_processor(payload) -> payload or None``: rewrites the uploaded payload on the upload thread.
PostProcessor = Callable[[VoiceRecordingPayload], Optional[VoiceRecordingPayload]]
#: Query parameters: a mapping, or ``(name, value)`` pairs (a name may then repeat).
Query = Union[Mapping[str, Any], Iterable[Tuple[str, Any]]]
#: What an upload sends: a file (a path or a ``file://`` URL), the bytes themselves, or a :class:`voicenote.Recorder`
#: whose take is sent while it is recorded.
UploadSource = Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes, bytearray, memoryview, "Recorder"]


# --- events --------------------------------------------------------------------------------------------------------


def _upload_event(state: UploadState) -> Any:
    """The builder of an upload event in ``state``."""

    def build(fields: _cevents.Fields) -> UploadEvent:
        error = fields.failure() if state is UploadState.FAILED else None
        text = fields.get("payload_json", lambda raw: raw, None) if state is UploadState.UPLOADED else None
        payload = VoiceRecordingPayload.from_json(text) if text else None
        return UploadEvent(state, fields.number("progress"), error, payload)

    return build


#: The Python event for a C ``vn_upload_event``; None for a state this binding does not know.
_convert_event = _cevents.converter(_capi.vn_upload_event, {int(state): _upload_event(state) for state in UploadState},
                                    kind="state")


#: The event trampoline (``vn_upload_event_fn``) shared by every uploader subscription.
upload_event_trampoline = _events.event_trampoline(_capi.vn_upload_event_fn, _convert_event, "upload event callback")
