"""``Uploader``: sends attachments to Stream-like (multipart) or Matrix-like (raw) endpoints (``vn_uploader``).

The class is the public face and makes the calls of each upload; its parts live beside it: the configuration made
into the C object (``_upload_options``), the post-processor hook (``_upload_hook``), the waits (``_upload_wait``),
the types and events (``_upload_events``)."""

from __future__ import annotations

import ctypes
import os
from typing import Any, Callable, Optional, Union

from . import _capi, _events, _lifecycle, _sources, _upload_hook, _upload_wait
from ._events import Subscription
from ._http import Headers, HTTPOptions
from ._loop import EventLoop
from ._payload import VoiceRecordingPayload
from ._recorder import Recorder
from ._strings import c_text, take_owned
from ._upload_events import (_FINAL, PostProcessor, Query, UploadEvent, UploadMode, UploadSource, UploadState,
                             upload_event_trampoline)
from ._upload_options import create_uploader
from .errors import check, error_for

__all__ = ["Uploader", "UploadMode", "UploadState", "UploadEvent", "PostProcessor", "Query", "UploadSource"]

#: The file name bytes are sent under when none is given.
DEFAULT_FILE_NAME = "voice.ogg"


def _destroy(handle: Any, resources: _upload_hook.Resources) -> None:
    _capi.vn_uploader_destroy(handle)  # cancels a running upload and waits for its thread
    source, resources.source = resources.source, None
    if source is not None:
        _capi.vn_source_destroy(source)


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
        handle, self._endpoint, self._mode = create_uploader(endpoint, headers, query, mode, url_key, ca_file, type,
                                                             max_bytes, http, loop)
        self._loop = loop
        self._resources = _upload_hook.Resources()
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
        return _upload_wait.current_state(self._live_handle())

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
        if function is not None and not callable(function):
            raise TypeError("post_processor must be callable or None")
        _upload_hook.install(handle, function, self._resources)
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
                upload thread, never changed), the bytes themselves (``bytes``, ``bytearray``, ``memoryview``:
                copied now; a retry sends them again), or a :class:`~voicenote.Recorder` whose take is recording or
                paused: the take is sent while it is recorded (its written pages at once, the rest as they are
                written, chunked), so at its stop only the last pages remain; the upload completes with the finished
                take's payload, fails with :class:`~voicenote.CancelledError` when the take is cancelled or dropped
                as too short, and cannot be retried (upload the finished file instead). ``payload``, ``file_name``
                and ``mime_type`` do not apply to it.
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
            BusyError: an upload is running, or the recorder's take is already being sent.
            MisuseError: a recorder with no take running.
            NotFoundError, AccessDeniedError: the file is missing or cannot be read.
            TooLargeError: over the size limit.
            InvalidArgumentError: a directory, a URL of another scheme, an empty path or ``file_name``.
            UnsupportedError: uploads do not take the uploader's type.
            ValueError: the uploader is closed, a NUL byte in a text, or ``file_name``/``mime_type`` with a file.
            TypeError: an argument of the wrong type.
        """
        handle = self._live_handle()
        if isinstance(source, Recorder):
            if payload is not None or file_name is not None or mime_type is not None:
                raise ValueError("payload, file_name and mime_type do not apply to a take sent while it is recorded")
            recorder = source._live_handle()
            self._run_start(lambda: _capi.vn_uploader_upload_recording(handle, recorder))
            self._keep_source(None)
            self._started = True
            return
        if payload is not None and not isinstance(payload, VoiceRecordingPayload):
            raise TypeError(f"payload must be a voicenote.VoiceRecordingPayload or None, not {type(payload).__name__}")
        payload_handle = payload._handle_for_call() if payload is not None else None
        if isinstance(source, (str, os.PathLike)):
            if file_name is not None or mime_type is not None:
                raise ValueError("file_name and mime_type apply to bytes; a file is sent under its own name")
            name = mime = None
        elif isinstance(source, (bytes, bytearray, memoryview)):
            name = c_text(DEFAULT_FILE_NAME if file_name is None else file_name, "file_name")
            mime = None if mime_type is None else c_text(mime_type, "mime_type")
        else:
            raise TypeError("source must be a path (str or os.PathLike), bytes-like data or a Recorder, "
                            f"not {type(source).__name__}")
        _sources.call_with_location(
            source,
            file=lambda path: _capi.vn_uploader_upload_file(handle, path, payload_handle),  # a URL too: refused there
            source=lambda created: _capi.vn_uploader_upload_source(handle, created, name, mime, payload_handle),
            urls_as_paths=True,
            keep=self._keep_source,
            run=self._run_start,
        )
        self._started = True

    def _run_start(self, call: Callable[[], int]) -> None:
        """Runs the C call that starts an upload, forgetting what the last upload's post-processor raised."""
        self._resources.hook_failure = None
        check(call())

    def _keep_source(self, source: Any) -> None:
        """Keeps the byte source the upload just started sends (None for a file), until the next upload or close;
        the one before is no longer used (a new upload started) and is destroyed."""
        previous, self._resources.source = self._resources.source, source
        if previous is not None:
            _capi.vn_source_destroy(previous)

    def wait(self, timeout: Optional[float] = None) -> UploadState:
        """Waits until the upload ends (``UPLOADED`` or ``FAILED``) or ``timeout`` seconds pass; returns the state
        then (``PENDING`` at once before any upload). It ends when the library's wait (``vn_uploader_wait``) does,
        never by polling; on the main thread Ctrl-C interrupts it (``KeyboardInterrupt``; the upload goes on).

        Not from inside this uploader's callbacks or post-processor (it would wait for itself).

        Raises:
            ValueError: the uploader is closed (also by another thread meanwhile), or ``timeout`` is negative.
        """
        seconds = _upload_wait.timeout_arg(timeout)
        return _upload_wait.wait_for_end(self._live_handle, seconds, self._started)

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

    @property
    def content_uri(self) -> Optional[str]:
        """In :attr:`UploadMode.MATRIX`: the ``mxc://`` URI the last upload reserved on the homeserver, known from
        its first ``UPLOADING`` event on, before the bytes are sent (a message can name it at once); None before,
        and in the other modes.

        Raises:
            ValueError: the uploader is closed.
        """
        handle = self._live_handle()
        owned = ctypes.c_void_p()
        rc = _capi.vn_uploader_copy_content_uri(handle, ctypes.byref(owned))
        if rc == _capi.VN_E_NOT_FOUND:
            return None
        check(rc)
        return take_owned(owned.value)

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
        seconds = _upload_wait.timeout_arg(timeout)
        forwarder = None
        if on_progress is not None:
            forwarder = _upload_wait.ProgressForwarder(on_progress)
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
