"""Where encoded audio comes from: a path, an http(s) URL, bytes in memory, or a binary file-like object
(``vn_source``).

:func:`call_with_location` is the one way a location becomes a C call, for every object that takes one (the
player's load, the waveform and the stream facts, the uploader's start): it sorts the Python argument
(:func:`classify`) and makes the call the object has for that kind: a path call, a call on the bytes themselves,
or a call on a ``vn_source`` made for the URL, the bytes or the stream (destroyed after the call; the object may
hold the source itself).

A stream becomes a host source (``vn_source_create_callbacks``): the library calls one module-level ``CFUNCTYPE``
trampoline per hook (read, seek, release) with an integer ``user_data`` key into :data:`_streams`. The key lives
until the library's release: at once when the call's source is destroyed, or, for an object that holds the source
(a player), when it lets it go. The hooks run synchronously on the thread that reads the source (the caller's, or
the player's own; the GIL is released during the C call and taken back by the trampoline). An exception raised by
the stream is never raised into C: it is logged (DEBUG, logger ``"voicenote"``), the hook reports failure (the
library then fails with ``VN_E_IO``), every later hook of that source fails at once, and a call that read the
stream itself raises :class:`~voicenote.IOFailedError` with the stream's exception as ``__cause__``. A
``KeyboardInterrupt`` or ``SystemExit`` raised by the stream is re-raised as itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import itertools
import logging
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import _capi
from ._cancellation import Cancellation
from ._http import HTTPOptions, options_handle
from ._strings import c_text
from .errors import VoiceNoteError, check, error_for

__all__ = ["AudioSource", "PATH", "URL", "MEMORY", "STREAM", "classify", "require_url",
           "memory_pointer", "call_with_location"]

_log = logging.getLogger("voicenote")

#: What the waveform and info functions accept: a path, encoded bytes, or a binary file-like object.
AudioSource = Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes, bytearray, memoryview, Any]

PATH = "path"
URL = "url"
MEMORY = "memory"
STREAM = "stream"


def classify(source: Any) -> str:
    """Sorts ``source`` into :data:`URL` (a ``str`` starting with ``http://`` or ``https://``), :data:`PATH`
    (another ``str`` or an ``os.PathLike``), :data:`MEMORY` (``bytes``,
    ``bytearray``, ``memoryview`` or another object with the buffer protocol that has no ``read``) or
    :data:`STREAM` (an object with callable ``read`` and ``seek``).

    Raises:
        TypeError: none of these, or a text stream (``io.TextIOBase``).
    """
    if isinstance(source, str) and source[:8].lower().startswith(("http://", "https://")):
        return URL
    if isinstance(source, (str, os.PathLike)):
        return PATH
    if isinstance(source, (bytes, bytearray, memoryview)):
        return MEMORY
    if callable(getattr(source, "read", None)) and callable(getattr(source, "seek", None)):
        if isinstance(source, io.TextIOBase):
            raise TypeError("a text stream was given; open the file in binary mode ('rb')")
        return STREAM
    try:
        memoryview(source).release()
    except TypeError:
        raise TypeError(
            "source must be a path (str or os.PathLike), bytes-like encoded audio, or a binary file-like object "
            f"with read() and seek(), not {type(source).__name__}"
        ) from None
    return MEMORY


def require_url(location: Any) -> None:
    """Refuses a location that is not an http(s) URL, for the options only URLs take.

    Raises:
        ValueError: ``location`` is a path, bytes or a stream.
        TypeError: as :func:`classify`.
    """
    if classify(location) != URL:
        raise ValueError("headers, key and http apply to http:// and https:// URLs only")


def memory_pointer(data: Any) -> Tuple[Any, int]:
    """A ``(pointer, size)`` pair for ``const void *data, size_t size`` that stays valid while the returned
    pointer object is referenced. ``bytes`` and writable C-contiguous buffers are passed without a copy; read-only
    or non-contiguous ones (a ``memoryview`` of ``bytes``) are copied once."""
    if isinstance(data, bytes):
        return (data if data else None), len(data)
    view = memoryview(data)
    try:
        if view.readonly or not view.c_contiguous:
            copy = view.tobytes()
            return (copy if copy else None), len(copy)
        raw = view.cast("B")
        size = raw.nbytes
        if size == 0:
            return None, 0
        return (ctypes.c_char * size).from_buffer(raw), size
    finally:
        view.release()


# --- host sources -------------------------------------------------------------------------------------------------


class _HostStream:
    """One Python stream read by one C call: the hooks' state."""

    __slots__ = ("stream", "readinto", "error")

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        readinto = getattr(stream, "readinto", None)
        self.readinto: Optional[Callable[[Any], Optional[int]]] = readinto if callable(readinto) else None
        #: The first exception a hook caught; after it every hook fails at once.
        self.error: Optional[BaseException] = None

    def fail(self, error: BaseException, what: str) -> int:
        self.error = error
        try:
            _log.debug("voicenote: %s of the byte source %r raised; the call fails with VN_E_IO", what,
                       self.stream, exc_info=error)
        except BaseException:  # noqa: BLE001 - nothing may propagate into C, not even a failing log handler
            pass
        return -1

    def read(self, buffer: Optional[int], capacity: int) -> int:
        if self.error is not None:
            return -1
        try:
            if capacity == 0:
                return 0
            target = (ctypes.c_char * capacity).from_address(buffer or 0)
            if self.readinto is not None:
                view = memoryview(target).cast("B")
                try:
                    count = self.readinto(view)
                finally:
                    try:
                        view.release()
                    except BufferError:
                        pass  # the stream kept an export of the buffer; it must not use it after returning
                if count is None:
                    raise BlockingIOError("readinto() returned None (a non-blocking stream with no data ready)")
                count = int(count)
            else:
                data = self.stream.read(capacity)
                if data is None:
                    raise BlockingIOError("read() returned None (a non-blocking stream with no data ready)")
                if not isinstance(data, (bytes, bytearray, memoryview)):
                    raise TypeError(f"read() returned {type(data).__name__}, not bytes (a text stream?)")
                data = bytes(data)
                count = len(data)
                if 0 < count <= capacity:
                    ctypes.memmove(target, data, count)
            if not 0 <= count <= capacity:
                raise ValueError(f"read returned {count} bytes for a request of {capacity}")
            return count
        except BaseException as error:  # noqa: BLE001 - never raise into C
            return self.fail(error, "read")

    def seek(self, offset: int) -> int:
        if self.error is not None:
            return -1
        try:
            self.stream.seek(offset, io.SEEK_SET)
            return 0
        except BaseException as error:  # noqa: BLE001 - never raise into C
            return self.fail(error, "seek")


_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL
#: Live user_data keys of host sources; single dict operations under the GIL, so the hooks need no lock.
_streams: Dict[int, _HostStream] = {}
#: Diagnostics for tests: release calls for keys that were not (or no longer) registered.
unknown_releases = 0


def _read(user_data: Optional[int], buffer: Optional[int], capacity: int) -> int:
    host = _streams.get(user_data or 0)
    return -1 if host is None else host.read(buffer, capacity)


def _seek(user_data: Optional[int], offset: int) -> int:
    host = _streams.get(user_data or 0)
    return -1 if host is None else host.seek(offset)


def _release(user_data: Optional[int]) -> None:
    global unknown_releases
    if _streams.pop(user_data or 0, None) is None:
        unknown_releases += 1


#: The trampolines, alive as long as the module.
read_trampoline = _capi.vn_source_read_fn(_read)
seek_trampoline = _capi.vn_source_seek_fn(_seek)
release_trampoline = _capi.vn_release_fn(_release)


def _measure(stream: Any) -> Tuple[int, Optional[int]]:
    """``(size in bytes or -1, the position to restore or None)``, from ``tell()`` and ``seek(0, SEEK_END)``."""
    try:
        start = int(stream.tell())
    except Exception:  # noqa: BLE001 - a stream without tell: size unknown, position not restored
        return -1, None
    try:
        end = stream.seek(0, io.SEEK_END)
        size = int(end) if end is not None else int(stream.tell())
    except Exception:  # noqa: BLE001
        size = -1
    return size, start


# --- locations to C calls -----------------------------------------------------------------------------------------

#: ``run(call)``: makes the C call (``call() -> status``) and raises what failed.
Runner = Callable[[Callable[[], int]], Any]


def _check_call(call: Callable[[], int]) -> None:
    check(call())


def call_with_location(
    location: Any,
    file: Callable[[bytes], int],
    source: Callable[[Any], int],
    *,
    memory: Optional[Callable[[Any, int], int]] = None,
    urls_as_paths: bool = False,
    holds_source: bool = False,
    keep: Optional[Callable[[Any], Any]] = None,
    http: Optional[HTTPOptions] = None,
    run: Runner = _check_call,
    cancellation: Optional[Cancellation] = None,
) -> None:
    """Makes the C call an object has for ``location`` (:func:`classify` tells its kind) and raises what failed.

    - a path: ``file(path)``, with the path as the file system's bytes (:func:`~voicenote._strings.c_text`);
    - an http(s) URL: ``file(url)`` when ``urls_as_paths`` (the library tells a URL from a path), else
      ``source(handle)`` on a URL source fetched with ``http`` (None: the defaults);
    - bytes: ``memory(pointer, size)`` when given (the bytes are not copied; they stay valid during the call), else
      ``source(handle)`` on a memory source (a copy);
    - a binary file-like object: ``source(handle)`` on a host source reading it (:class:`_HostStream`). With
      ``holds_source`` (the object keeps reading it after the call, as a player does) the stream is read from its
      start and lives until the library's release; else it is read during the call only, its position is restored
      afterwards (when ``tell()`` worked), and its failures are raised as the call's (see the module).

    A source handle is destroyed after the call (the object holds what it needs), unless ``keep`` is given (it
    implies ``holds_source``): then a call that succeeded hands ``keep`` the handle (None for a path or memory call),
    which owns it from then on.

    Args:
        run: ``run(call)`` makes the call (``call() -> status``) and raises what failed; the default raises
            the :class:`~voicenote.VoiceNoteError` subclass for a negative status.
        cancellation: cancels the call while it reads (:class:`~voicenote.Cancellation`): a URL's read waiting for
            the network, or the next read of a path or bytes (then read through a file or memory source).

    Raises:
        TypeError: ``location`` is none of the kinds (:func:`classify`).
        ValueError: a NUL byte in the path or URL.
        VoiceNoteError: what ``run`` raised, or the subclass for a source that could not be made; for a stream read
            during the call that raised, usually an :class:`~voicenote.IOFailedError` whose ``__cause__`` is the
            stream's exception.
        BaseException: a ``KeyboardInterrupt``/``SystemExit`` the stream raised, as itself.
    """
    kind = classify(location)
    # Given a cancellation, a path and bytes are read through a source too, so cancel() ends a long local decode
    # at its next read (vn_source_cancel).
    cancellable = cancellation is not None and keep is None and not holds_source
    if kind == PATH and cancellable:
        handle = _capi.vn_source_p()
        check(_capi.vn_source_create_file(c_text(location, "path", path=True), ctypes.byref(handle)))
        _call_on_source(handle, source, keep, run, cancellation)
        return
    if kind == PATH or (kind == URL and urls_as_paths):
        path = c_text(location, "path", path=True)
        run(lambda: file(path))
        if keep is not None:
            keep(None)
        return
    if kind == MEMORY and memory is not None and not cancellable:
        pointer, size = memory_pointer(location)
        held = [pointer]
        del pointer
        try:
            run(lambda: memory(held[0], size))
        finally:
            held.clear()  # lets a bytearray be resized again, also while a traceback keeps this call
        if keep is not None:
            keep(None)
        return
    if kind == STREAM:
        if holds_source or keep is not None:
            _call_holding_stream(location, source, keep, run)
        else:
            _call_reading_stream(location, source, run)
        return
    handle = _capi.vn_source_p()
    if kind == URL:
        url = c_text(location, "URL")
        with options_handle(http) as options:
            check(_capi.vn_source_create_url(url, options, ctypes.byref(handle)))
    else:
        pointer, size = memory_pointer(location)
        rc = _capi.vn_source_create_memory(pointer, size, ctypes.byref(handle))
        del pointer  # copied by the library
        check(rc)
    _call_on_source(handle, source, keep, run, cancellation)


def _call_on_source(handle: Any, source: Callable[[Any], int], keep: Optional[Callable[[Any], Any]],
                    run: Runner, cancellation: Optional[Cancellation] = None) -> None:
    """``run(source(handle))``, cancellable by ``cancellation`` while it runs; then the handle is destroyed, or
    handed to ``keep`` when the call succeeded."""
    try:
        with cancellation.reading(handle) if cancellation is not None else contextlib.nullcontext():
            run(lambda: source(handle))
    except BaseException:
        _capi.vn_source_destroy(handle)
        raise
    if keep is not None:
        keep(handle)
    else:
        _capi.vn_source_destroy(handle)


def _host_source(stream: Any, size: int) -> Tuple[Any, int, _HostStream]:
    """A host source reading ``stream``: its handle, its key in :data:`_streams` and its hooks' state.

    Raises:
        VoiceNoteError: the library could not make it (then nothing is registered).
    """
    host = _HostStream(stream)
    key = next(_keys)
    _streams[key] = host
    handle = _capi.vn_source_p()
    rc = _capi.vn_source_create_callbacks(read_trampoline, seek_trampoline, size, key, release_trampoline,
                                          ctypes.byref(handle))
    if rc < 0:
        _streams.pop(key, None)  # the library does not call release when create fails
        raise error_for(rc)
    return handle, key, host


def _call_holding_stream(stream: Any, source: Callable[[Any], int], keep: Optional[Callable[[Any], Any]],
                         run: Runner) -> None:
    """A stream the object reads on its own thread after the call (a player): read from its start; its key lives
    until the library's release (the object lets the source go, or a refused call releases it at the destroy)."""
    size, start = _measure(stream)
    if start is not None:
        try:
            stream.seek(start, io.SEEK_SET)
        except Exception:  # noqa: BLE001 - the object reads from the start anyway
            pass
    handle, _, _ = _host_source(stream, size)
    _call_on_source(handle, source, keep, run)


def _call_reading_stream(stream: Any, source: Callable[[Any], int], run: Runner) -> None:
    """A stream read during the call only: released when the call's source is destroyed, its position restored
    afterwards, a failure raised with the stream's exception as its cause."""
    size, start = _measure(stream)
    handle, key, host = _host_source(stream, size)
    failure: Optional[VoiceNoteError] = None
    try:
        run(lambda: source(handle))
    except VoiceNoteError as refused:
        failure = refused
    finally:
        _capi.vn_source_destroy(handle)  # runs release, which drops the key
        if _streams.pop(key, None) is not None:
            _log.error("voicenote: vn_source_destroy did not release the host source %r", stream)
    error = host.error
    if error is not None and not isinstance(error, Exception):
        raise error  # KeyboardInterrupt, SystemExit: not a failure of the stream
    if start is not None:
        try:
            stream.seek(start, io.SEEK_SET)
        except Exception:  # noqa: BLE001
            if failure is None and error is None:
                raise
    if failure is not None:
        if error is not None:
            raise failure from error
        raise failure
    if error is not None:
        _log.warning("voicenote: the byte source %r raised, but the library recovered", stream, exc_info=error)
