"""``Uploader``: sends attachments to Stream-like (multipart) or Matrix-like (raw) endpoints (``vn_uploader``)."""

from __future__ import annotations

import ctypes
import dataclasses
import itertools
import logging
import math
import operator
import os
import threading
import time
from collections.abc import Mapping
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import _capi, _events, _lifecycle, _sources
from ._audio_object import text_arg
from ._events import Subscription
from ._http import Headers, HTTPOptions, options_handle
from ._loop import EventLoop
from ._payload import VoiceRecordingPayload
from ._strings import take_owned
from ._upload_events import (_FINAL, PostProcessor, Query, UploadEvent, UploadMode, UploadSource, UploadState,
                             upload_event_trampoline)
from .errors import MisuseError, VoiceNoteError, check, error_for, invalid_argument

__all__ = ["Uploader", "UploadMode", "UploadState", "UploadEvent", "PostProcessor", "Query", "UploadSource"]

_log = logging.getLogger("voicenote")

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
#: How long one ``vn_uploader_wait`` waits at most, so that a blocking wait sees Ctrl-C (signals run between calls).
_POLL_MS = 100
#: The library's event thread, by the name the kernel has for it.
_EVENT_THREAD_NAME = "vn-events"

#: The file name bytes are sent under when none is given.
DEFAULT_FILE_NAME = "voice.ogg"


def _on_library_event_thread() -> bool:
    """Whether the calling thread is the library's event thread (where a subscriber's callbacks run in turn)."""
    try:
        with open("/proc/thread-self/comm", encoding="utf-8", errors="replace") as comm:
            return comm.read().strip() == _EVENT_THREAD_NAME
    except OSError:
        return False


class _ProgressForwarder:
    """The subscription behind ``upload(on_progress=...)``: calls ``on_progress`` for each UPLOADING event and
    ends itself at the upload's end, so ``released`` is set once every event of that upload was delivered."""

    def __init__(self, on_progress: Callable[[float], Any]) -> None:
        self.on_progress = on_progress
        self.released = threading.Event()
        self.subscription: Optional[Subscription] = None

    def __call__(self, event: UploadEvent) -> None:
        if event.state is UploadState.UPLOADING:
            self.on_progress(event.progress)
        elif event.state in _FINAL:
            self.end()

    def end(self) -> None:
        """Ends the subscription (from inside its callback it does not wait); nothing when it already ended."""
        subscription = self.subscription
        if subscription is None:
            return
        try:
            subscription.unsubscribe()
        except MisuseError:
            pass  # already released: the uploader was closed, or the end event came first

    def wait_delivered(self, can_wait: bool) -> None:
        """Waits (in short steps, so Ctrl-C works) until every event of the upload was delivered, unless it
        cannot be: with an event loop, or on the event thread itself (then ``on_progress`` runs later)."""
        if not can_wait or _on_library_event_thread():
            return
        while not self.released.wait(_POLL_MS / 1000):
            pass


# --- the post-processor hook ---------------------------------------------------------------------------------------


class _Resources:
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

    def __init__(self, function: PostProcessor, resources: _Resources) -> None:
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


# --- the uploader --------------------------------------------------------------------------------------------------


def _destroy(handle: Any, resources: _Resources) -> None:
    _capi.vn_uploader_destroy(handle)  # cancels a running upload and waits for its thread
    source, resources.source = resources.source, None
    if source is not None:
        _capi.vn_source_destroy(source)


def _query_pairs(query: Query) -> Tuple[Tuple[bytes, bytes], ...]:
    items = query.items() if isinstance(query, Mapping) else query
    return tuple((text_arg("a query name", str(name)), text_arg("a query value", str(value))) for name, value in items)


def _timeout_arg(timeout: Optional[float]) -> Optional[float]:
    if timeout is None:
        return None
    seconds = float(timeout)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError("timeout must be None or >= 0 seconds")
    return seconds


class Uploader(_lifecycle.Closing):
    """Uploads attachments to an http(s) endpoint, one at a time, on a library thread: Stream's
    ``POST /channels/{type}/{id}/file`` (multipart) or Matrix's ``/_matrix/media/v3/upload`` (raw).

    ::

        with voicenote.Uploader(f"https://chat.stream-io-api.com/channels/messaging/{cid}/file",
                                query={"api_key": key},
                                headers={"Authorization": jwt, "Stream-Auth-Type": "jwt"}) as uploader:
            payload = uploader.upload(finished.path, on_progress=lambda fraction: print(f"{fraction:.0%}"),
                                      payload=voicenote.VoiceRecordingPayload.from_recording(
                                          finished.path, finished.duration, finished.waveform))
            message["attachments"] = [json.loads(payload.to_json())]

    :meth:`upload` blocks until the end and returns the uploaded payload or raises the failure; :meth:`start`,
    :meth:`wait` and :meth:`result` are the same in steps, with :meth:`subscribe` for the events. HTTP statuses
    raise as everywhere: 401/403 :class:`~voicenote.AccessDeniedError`, 404/410 :class:`~voicenote.NotFoundError`,
    413 :class:`~voicenote.TooLargeError`, others :class:`~voicenote.NetworkError` (the message names ``HTTP nnn``);
    a response that is not a JSON object with the URL is a :class:`~voicenote.FormatError`. A failure or a cancel
    never deletes or changes the local file.

    Events run on the library's event thread, or inside :meth:`EventLoop.dispatch` when the uploader was made with
    a ``loop``; every method may be called from any thread (:meth:`wait` and :meth:`upload` not from the uploader's
    own callbacks and post-processor). Usable as a context manager; methods raise :class:`ValueError` after
    :meth:`close`. An uploader that is garbage-collected, or still open when the interpreter exits, is closed then
    (a running upload is cancelled).
    """

    def __init__(
        self,
        endpoint: str,
        headers: Optional[Headers] = None,
        query: Optional[Query] = None,
        mode: Union[UploadMode, str, int] = "multipart",
        url_key: Optional[str] = None,
        ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
        type: str = "voiceRecording",
        max_bytes: Optional[int] = None,
        post_processor: Optional[PostProcessor] = None,
        http: Optional[HTTPOptions] = None,
        loop: Optional[EventLoop] = None,
    ) -> None:
        """Creates an uploader; nothing is sent until :meth:`upload` or :meth:`start`.

        Args:
            endpoint: the http(s) URL uploads go to.
            headers: request headers (Stream: ``Authorization`` and ``Stream-Auth-Type: jwt``; Matrix:
                ``Authorization: Bearer …``), as a mapping or ``(name, value)`` pairs; added to those of ``http``.
            query: query parameters added to the endpoint's (Stream: ``api_key``), as a mapping or ``(name,
                value)`` pairs; both parts are percent-encoded.
            mode: ``"multipart"`` (Stream) or ``"raw"`` (Matrix), or an :class:`UploadMode`.
            url_key: the key of the response's JSON object that holds the uploaded URL; None for the mode's:
                ``file`` (multipart) or ``content_uri`` (raw).
            ca_file: a PEM file of certificate authorities to trust instead of the system's (replaces ``http``'s).
            type: the attachment type uploaded (the payload's ``type``): ``"voiceRecording"``, ``"audio"``,
                ``"image"``, ``"video"`` or ``"file"``.
            max_bytes: the largest body sent (1 or more); None for the library's 100 MiB.
            post_processor: ``post_processor(payload) -> VoiceRecordingPayload or None``, see
                :attr:`post_processor`.
            http: :class:`HTTPOptions` (headers, a CA file, timeouts) to start from; None for the defaults.
            loop: the :class:`EventLoop` that delivers the events, or None for the library's event thread. The
                uploader keeps the Python loop object alive; close the uploader before the loop.

        Raises:
            InvalidArgumentError: ``endpoint`` is not an http(s) URL; a bad header, query name, ``url_key``,
                timeout or ``max_bytes``.
            UnsupportedError: uploads do not take ``type``.
            NotFoundError: ``ca_file`` does not exist.
            ValueError: an unknown mode, a NUL byte in a text, or ``loop`` is closed.
            TypeError: an argument of the wrong type.
        """
        if http is not None and not isinstance(http, HTTPOptions):
            raise TypeError("http must be a voicenote.HTTPOptions or None")
        if loop is not None and not isinstance(loop, EventLoop):
            raise TypeError("loop must be a voicenote.EventLoop or None")
        if post_processor is not None and not callable(post_processor):
            raise TypeError("post_processor must be callable or None")
        url = text_arg("endpoint", endpoint)
        upload_mode = UploadMode.parse(mode)
        options_given = http is not None or headers is not None or ca_file is not None
        http_options = http or HTTPOptions()
        if headers is not None:
            http_options = dataclasses.replace(
                http_options, headers=http_options.header_pairs() + HTTPOptions(headers).header_pairs())
        if ca_file is not None:
            http_options = dataclasses.replace(http_options, ca_file=ca_file)
        pairs = _query_pairs(query) if query is not None else ()
        key_arg = None if url_key is None else text_arg("url_key", url_key)
        type_arg = text_arg("type", type)
        limit = None
        if max_bytes is not None:
            limit = operator.index(max_bytes)
            if not _INT64_MIN <= limit <= _INT64_MAX:
                raise invalid_argument(f"max_bytes must be 1…{_INT64_MAX} or None, not {limit}")
        loop_handle = loop._handle_for_child() if loop is not None else None

        options = _capi.vn_upload_options_p()
        handle = _capi.vn_uploader_p()
        check(_capi.vn_upload_options_create(ctypes.byref(options)))
        try:
            check(_capi.vn_upload_options_set_mode(options, int(upload_mode)))
            if options_given:
                with options_handle(http_options) as http_handle:
                    check(_capi.vn_upload_options_set_http(options, http_handle))
            for name, value in pairs:
                check(_capi.vn_upload_options_add_query(options, name, value))
            if key_arg is not None:
                check(_capi.vn_upload_options_set_url_key(options, key_arg))
            check(_capi.vn_upload_options_set_attachment_type(options, type_arg))
            if limit is not None:
                check(_capi.vn_upload_options_set_max_bytes(options, limit))
            if loop_handle is not None:
                check(_capi.vn_upload_options_set_event_loop(options, loop_handle))
            check(_capi.vn_uploader_create(url, options, ctypes.byref(handle)))
        finally:
            _capi.vn_upload_options_destroy(options)
        self._endpoint = url.decode("utf-8")
        self._mode = upload_mode
        self._loop = loop
        self._resources = _Resources()
        self._post_processor: Optional[PostProcessor] = None
        self._started = False
        self._own(handle, _destroy, handle, self._resources)
        if post_processor is not None:
            try:
                self.post_processor = post_processor
            except BaseException:
                self.close()
                raise

    # -- state ------------------------------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        """The URL uploads go to (without the query parameters added)."""
        return self._endpoint

    @property
    def mode(self) -> UploadMode:
        """How uploads are framed."""
        return self._mode

    @property
    def loop(self) -> Optional[EventLoop]:
        """The loop that delivers this uploader's events, or None for the library's event thread."""
        return self._loop

    @property
    def state(self) -> UploadState:
        """The state of the last upload (``PENDING`` before any).

        Raises:
            ValueError: the uploader is closed.
        """
        state = ctypes.c_int(0)
        check(_capi.vn_uploader_wait(self._live_handle(), 0, ctypes.byref(state)))
        return UploadState(state.value)

    @property
    def post_processor(self) -> Optional[PostProcessor]:
        """``post_processor(payload) -> VoiceRecordingPayload or None`` (Stream's
        ``UploadedAttachmentPostProcessor``), or None: rewrites the uploaded payload before it is reported.

        It runs synchronously on the upload thread (``vn-upload``), after the server answered and before the
        ``UPLOADED`` event, with the payload carrying the uploaded ``asset_url``; it returns the payload to report
        (the same object changed, or another), or None to keep it as it is. Setting it replaces the one before,
        from the next upload that reaches its end.

        An exception fails the upload: a :class:`~voicenote.VoiceNoteError` with its own status (raise
        ``voicenote.BusyError(...)`` to refuse; logged at DEBUG), any other exception with ``VN_E_BUSY``, logged
        on the ``"voicenote"`` logger at ERROR. :meth:`upload` and :meth:`result` then raise the failure's
        exception with the hook's exception as ``__cause__``.

        Raises:
            TypeError: (setting) not callable or None.
            ValueError: the uploader is closed.
        """
        return self._post_processor

    @post_processor.setter
    def post_processor(self, function: Optional[PostProcessor]) -> None:
        handle = self._live_handle()
        if function is None:
            check(_capi.vn_uploader_set_post_processor(handle, None, None, None))
            self._post_processor = None
            return
        if not callable(function):
            raise TypeError("post_processor must be callable or None")
        key = next(_keys)
        _processors[key] = _PostProcessor(function, self._resources)
        rc = _capi.vn_uploader_set_post_processor(handle, post_processor_trampoline, key,
                                                  post_processor_release_trampoline)
        if rc < 0:
            failure = error_for(rc)
            _processors.pop(key, None)  # the library does not call release when the call fails
            raise failure
        self._post_processor = function

    # -- subscriptions ----------------------------------------------------------------------------------------

    def subscribe(
        self,
        callback: Callable[[UploadEvent], Any],
        *,
        on_release: Optional[Callable[[], Any]] = None,
    ) -> Subscription:
        """Calls ``callback(event)`` for each event after this returns, in order: an :class:`UploadEvent` for
        every state change (``PENDING``, ``UPLOADING`` with progress 0, steps of at least 0.05 and 1, then
        ``FAILED`` or ``UPLOADED``). Exceptions raised by ``callback`` are logged on the ``"voicenote"`` logger and
        ignored.

        Args:
            callback: the event callback.
            on_release: called once when the subscription has ended and no callback of it will run again.

        Raises:
            ValueError: the uploader is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_uploader_subscribe(handle, fn, key, release, ctypes.byref(out)),
            upload_event_trampoline,
            callback,
            on_release,
        )

    # -- uploads ----------------------------------------------------------------------------------------------

    def start(self, source: UploadSource, payload: Optional[VoiceRecordingPayload] = None,
              file_name: Optional[str] = None, mime_type: Optional[str] = None) -> None:
        """Starts an upload and returns at once (state ``PENDING``, then events); :meth:`wait` and :meth:`result`
        tell how it ended.

        Args:
            source: a file (a path, ``str`` or ``os.PathLike``, or a ``file://`` URL; checked now, read by the
                upload thread, never changed), or the bytes themselves (``bytes``, ``bytearray``, ``memoryview``:
                copied now; a retry sends them again).
            payload: the payload to complete (e.g. :meth:`VoiceRecordingPayload.from_recording` with the
                recorder's duration and waveform; copied): its ``asset_url`` becomes the uploaded one, and a
                missing ``title``, ``file_size`` or ``mime_type`` is filled in. None: made from the file (for a
                ``voiceRecording`` its duration and waveform are read from it, so a file that is not audio fails
                with a :class:`~voicenote.FormatError`), or for bytes from their name, size and MIME type.
            file_name: for bytes: the name they are sent under (default ``"voice.ogg"``). A file is sent under its
                own name.
            mime_type: for bytes: their MIME type; None for the one of ``file_name``'s extension. A file is sent
                with the MIME type of its extension.

        Raises:
            BusyError: an upload is running.
            NotFoundError, AccessDeniedError: the file is missing or cannot be read.
            TooLargeError: over the size limit.
            InvalidArgumentError: a directory, a URL of another scheme, an empty path or ``file_name``.
            UnsupportedError: uploads do not take the uploader's type.
            ValueError: the uploader is closed, a NUL byte in a text, or ``file_name``/``mime_type`` with a file.
            TypeError: an argument of the wrong type.
        """
        handle = self._live_handle()
        if payload is not None and not isinstance(payload, VoiceRecordingPayload):
            raise TypeError(f"payload must be a voicenote.VoiceRecordingPayload or None, not {type(payload).__name__}")
        payload_handle = payload._handle_for_call() if payload is not None else None
        if isinstance(source, (str, os.PathLike)):
            if file_name is not None or mime_type is not None:
                raise ValueError("file_name and mime_type apply to bytes; a file is sent under its own name")
            location = _sources.path_bytes(source)
            self._resources.hook_failure = None
            check(_capi.vn_uploader_upload_file(handle, location, payload_handle))
            self._keep_source(None)
        elif isinstance(source, (bytes, bytearray, memoryview)):
            name = text_arg("file_name", DEFAULT_FILE_NAME if file_name is None else file_name)
            mime = None if mime_type is None else text_arg("mime_type", mime_type)
            pointer, size = _sources.memory_pointer(source)
            created = _capi.vn_source_p()
            rc = _capi.vn_source_create_memory(pointer, size, ctypes.byref(created))
            del pointer  # copied by the library
            check(rc)
            self._resources.hook_failure = None
            rc = _capi.vn_uploader_upload_source(handle, created, name, mime, payload_handle)
            if rc < 0:
                failure = error_for(rc)
                _capi.vn_source_destroy(created)
                raise failure
            self._keep_source(created)
        else:
            raise TypeError("source must be a path (str or os.PathLike) or bytes-like data, "
                            f"not {type(source).__name__}")
        self._started = True

    def _keep_source(self, source: Any) -> None:
        """Keeps the byte source the upload just started sends (None for a file), until the next upload or close;
        the one before is no longer used (a new upload started) and is destroyed."""
        previous, self._resources.source = self._resources.source, source
        if previous is not None:
            _capi.vn_source_destroy(previous)

    def wait(self, timeout: Optional[float] = None) -> UploadState:
        """Waits until the upload ends (``UPLOADED`` or ``FAILED``) or ``timeout`` seconds pass; returns the state
        then (``PENDING`` at once before any upload). Waits in steps of 0.1 s, so Ctrl-C interrupts it.

        Not from inside this uploader's callbacks or post-processor (it would wait for itself).

        Raises:
            ValueError: the uploader is closed (also by another thread meanwhile), or ``timeout`` is negative.
        """
        seconds = _timeout_arg(timeout)
        deadline = None if seconds is None else time.monotonic() + seconds
        state = ctypes.c_int(0)
        while True:
            step = _POLL_MS
            if deadline is not None:
                step = max(0, min(_POLL_MS, math.ceil((deadline - time.monotonic()) * 1000)))
            check(_capi.vn_uploader_wait(self._live_handle(), step, ctypes.byref(state)))
            current = UploadState(state.value)
            if current in _FINAL or not self._started:
                return current
            if deadline is not None and time.monotonic() >= deadline:
                return current

    def result(self) -> VoiceRecordingPayload:
        """The outcome of the last upload: the uploaded payload, or its failure raised.

        Raises:
            VoiceNoteError: the failure's subclass with the library's message (:class:`~voicenote.CancelledError`
                after :meth:`cancel`; for a failing post-processor with its exception as ``__cause__``).
            MisuseError: no upload has ended.
            ValueError: the uploader is closed.
        """
        handle = self._live_handle()
        owned = ctypes.c_void_p()
        rc = _capi.vn_uploader_copy_result(handle, ctypes.byref(owned))
        if rc < 0:
            failure = error_for(rc)
            take_owned(owned.value)
            hook_failure = self._resources.hook_failure
            if hook_failure is not None and hook_failure[1] == rc:
                raise failure from hook_failure[0]
            raise failure
        return VoiceRecordingPayload.from_json(take_owned(owned.value) or "")

    def upload(self, source: UploadSource, on_progress: Optional[Callable[[float], Any]] = None,
               payload: Optional[VoiceRecordingPayload] = None, file_name: Optional[str] = None,
               mime_type: Optional[str] = None, timeout: Optional[float] = None) -> VoiceRecordingPayload:
        """Uploads and returns the uploaded payload (its ``asset_url`` the server's URL), blocking until the end
        (:meth:`start`, :meth:`wait`, :meth:`result`).

        Args:
            source, payload, file_name, mime_type: as for :meth:`start`.
            on_progress: ``on_progress(fraction)``, called on the event thread for each progress step: 0 first,
                then steps of at least 0.05, then 1 once the server answered. Every call has run when this returns,
                except with a ``loop`` (they run inside :meth:`EventLoop.dispatch`) or when this is called on the
                library's event thread (from another voicenote callback; they run after it returns). It may call
                :meth:`cancel`. Exceptions are logged and ignored.
            timeout: seconds the upload may take; None for no limit. When they pass, the upload is cancelled and
                :class:`TimeoutError` raised.

        Raises:
            CancelledError: :meth:`cancel` was called (from any thread, or from ``on_progress``).
            AccessDeniedError, NotFoundError, TooLargeError, NetworkError, FormatError: the server refused or
                failed (the message names the HTTP status), the connection dropped, the response had no URL, or a
                voice recording to be read is not audio; or as :meth:`start`.
            TimeoutError: ``timeout`` passed (the upload was cancelled).
            KeyboardInterrupt: Ctrl-C during the wait; the upload was cancelled.
            ValueError: the uploader is closed (also when another thread closes it during the upload).
        """
        if on_progress is not None and not callable(on_progress):
            raise TypeError("on_progress must be callable or None")
        seconds = _timeout_arg(timeout)
        forwarder = None
        if on_progress is not None:
            forwarder = _ProgressForwarder(on_progress)
            forwarder.subscription = self.subscribe(forwarder, on_release=forwarder.released.set)
        try:
            self.start(source, payload=payload, file_name=file_name, mime_type=mime_type)
        except BaseException as error:
            if not isinstance(error, Exception):
                # Ctrl-C (or an exit) raised inside start() once the library had begun the upload: cancel it, as
                # during the wait. A refused start (an Exception) began nothing, and BUSY is another call's upload.
                self._cancel_and_settle()
            if forwarder is not None:
                forwarder.end()
            raise
        try:
            try:
                if self.wait(seconds) not in _FINAL:
                    raise TimeoutError(f"the upload did not end within {seconds} s; it was cancelled")
            except BaseException:
                self._cancel_and_settle()
                raise
        finally:
            if forwarder is not None:
                forwarder.wait_delivered(self._loop is None)
        return self.result()

    def _cancel_and_settle(self) -> None:
        """Cancels the running upload and waits for its end (an interrupted or timed-out :meth:`upload`)."""
        if self.closed:
            return
        self.cancel()
        self.wait()

    def cancel(self) -> None:
        """Cancels the running upload: it ends ``FAILED`` with :class:`~voicenote.CancelledError` (unless it already
        ended); nothing when none runs. Any thread, also inside callbacks (e.g. ``on_progress``).

        Raises:
            ValueError: the uploader is closed.
        """
        check(_capi.vn_uploader_cancel(self._live_handle()))

    def retry(self) -> None:
        """Sends the last upload again (the same file, or the same bytes), after it failed or was cancelled; returns
        at once like :meth:`start` (then :meth:`wait` and :meth:`result`).

        Raises:
            MisuseError: the last upload did not fail (or there was none).
            ValueError: the uploader is closed.
        """
        handle = self._live_handle()
        self._resources.hook_failure = None
        check(_capi.vn_uploader_retry(handle))
        self._started = True

    def close(self) -> None:
        """Destroys the uploader: a running upload is cancelled; no event is delivered and no post-processor runs
        after this returns, and every subscription is released. Also allowed inside the uploader's own callbacks
        and post-processor. Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.Uploader closed>"
        return f"<voicenote.Uploader {self._mode.name.lower()} {self._endpoint}>"
