"""An uploader's post-processor hook (``vn_upload_post_processor_fn``): the Python function behind a ``user_data``
key, the trampolines the library calls, and what the uploader's finalizer shares with them (:class:`Resources`)."""

from __future__ import annotations

import itertools
import logging
from typing import Any, Dict, Optional, Tuple

from . import _capi, _events
from ._payload import VoiceRecordingPayload
from ._upload_events import PostProcessor
from .errors import VoiceNoteError, check, error_for

__all__ = ["Resources", "install"]

_log = logging.getLogger("voicenote")


class Resources:
    """What an uploader's finalizer and hooks share without referring to the uploader: the byte source the last
    upload sends (kept for a retry, destroyed after the uploader) and what the post-processor last raised."""

    __slots__ = ("source", "hook_failure")

    def __init__(self) -> None:
        self.source: Any = None
        #: ``(exception, status returned for it)`` of the post-processor in the last upload, or None.
        self.hook_failure: Optional[Tuple[BaseException, int]] = None


class _PostProcessor:
    """One Python post-processor, behind one ``user_data`` key."""

    __slots__ = ("function", "resources")

    def __init__(self, function: PostProcessor, resources: Resources) -> None:
        self.function = function
        self.resources = resources

    def run(self, payload_json: Optional[bytes], out: Any) -> int:
        try:
            payload = VoiceRecordingPayload.from_json(payload_json or b"")
            result = self.function(payload)
            if result is None:
                return _capi.VN_OK
            if not isinstance(result, VoiceRecordingPayload):
                raise TypeError(f"a post-processor returns a VoiceRecordingPayload or None, not {type(result).__name__}")
            copy = _capi.vn_strdup(result.to_json().encode("utf-8"))
            if not copy:
                return _capi.VN_E_NOMEM
            out[0] = copy  # the library frees it
            return _capi.VN_OK
        except BaseException as error:  # noqa: BLE001 - never raise into C; the upload fails instead
            status = error.code if isinstance(error, VoiceNoteError) and error.code < 0 else _capi.VN_E_BUSY
            self.resources.hook_failure = (error, status)
            if isinstance(error, VoiceNoteError):
                _log.debug("voicenote: the upload post-processor failed the upload with %s", error, exc_info=error)
            else:
                _events.report("upload post-processor (the upload fails with VN_E_BUSY)")
            return status


_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL
#: Live post-processor keys; single dict operations under the GIL, so the trampolines need no lock.
_processors: Dict[int, _PostProcessor] = {}
#: Diagnostics for tests: release calls for keys that were not (or no longer) registered.
unknown_releases = 0


def _process(user_data: Optional[int], payload_json: Optional[bytes], out: Any) -> int:
    processor = _processors.get(user_data or 0)
    if processor is None:
        return _capi.VN_OK  # its uploader is going away: keep the payload
    return processor.run(payload_json, out)


def _release_processor(user_data: Optional[int]) -> None:
    global unknown_releases
    if _processors.pop(user_data or 0, None) is None:
        unknown_releases += 1


#: The trampolines (``vn_upload_post_processor_fn`` and its ``vn_release_fn``), alive as long as the module.
post_processor_trampoline = _capi.vn_upload_post_processor_fn(_process)
post_processor_release_trampoline = _capi.vn_release_fn(_release_processor)


def install(handle: Any, function: Optional[PostProcessor], resources: Resources) -> None:
    """Sets ``function`` (None: none) as the uploader's post-processor (``vn_uploader_set_post_processor``); the
    one before is released by the library once no upload uses it.

    Raises:
        VoiceNoteError: the library refused (the uploader is destroyed).
    """
    if function is None:
        check(_capi.vn_uploader_set_post_processor(handle, None, None, None))
        return
    key = next(_keys)
    _processors[key] = _PostProcessor(function, resources)
    rc = _capi.vn_uploader_set_post_processor(handle, post_processor_trampoline, key,
                                              post_processor_release_trampoline)
    if rc < 0:
        failure = error_for(rc)
        _processors.pop(key, None)  # the library does not call release when the call fails
        raise failure
