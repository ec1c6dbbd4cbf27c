"""Where encoded audio comes from: a path, an http(s) URL, bytes in memory, or a binary file-like object
(``vn_source``).

:func:`classify` sorts a Python argument into one of the three; :func:`call_with_source` makes a short-lived
``vn_source`` for bytes or a stream, runs one C call on it and destroys it.

A stream becomes a host source (``vn_source_create_callbacks``): the library calls one module-level ``CFUNCTYPE``
trampoline per hook (read, seek, release) with an integer ``user_data`` key into :data:`_streams`. The hooks run
synchronously on the thread of the call that reads the source (the GIL is released during the C call and taken
back by the trampoline). An exception raised by the stream is never raised into C: it is logged (DEBUG, logger
``"voicenote"``), the hook reports failure (the library then fails with ``VN_E_IO``), every later hook of that
call fails at once, and the call raises :class:`~voicenote.IOFailedError` with the stream's exception as
``__cause__``. A ``KeyboardInterrupt`` or ``SystemExit`` raised by the stream is re-raised as itself.
"""

from __future__ import annotations

import ctypes
import io
import itertools
import logging
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import _capi
from ._http import HTTPOptions, options_handle, text_bytes
from .errors import VoiceNoteError, error_for

__all__ = ["AudioSource", "PATH", "URL", "MEMORY", "STREAM", "classify", "path_bytes", "memory_pointer",
           "call_with_source"]

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


def path_bytes(path: Any) -> bytes:
    """The path as the bytes the file system uses (``os.fsencode``).

    Raises:
        ValueError: it contains a NUL byte (C would see a shorter path).
    """
    encoded = os.fsencode(path)
    if b"\0" in encoded:
        raise ValueError("embedded null byte in path")
    return encoded


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


def call_with_source(source: Any, kind: str, call: Callable[[Any], int], http: Optional[HTTPOptions] = None) -> None:
    """Makes a ``vn_source`` of ``kind`` (:data:`URL`, :data:`MEMORY` or :data:`STREAM`) for ``source``, runs
    ``call(handle)`` (one ``vn_`` call returning a status), destroys the source and raises what failed. A URL is
    fetched with ``http`` (None: the defaults).

    A stream's position is restored afterwards when it could be read with ``tell()`` before.

    Raises:
        VoiceNoteError: the subclass for the status ``call`` returned; with a stream that raised, an
            :class:`~voicenote.IOFailedError` (usually) whose ``__cause__`` is the stream's exception.
        BaseException: a ``KeyboardInterrupt``/``SystemExit`` the stream raised, as itself.
    """
    handle = _capi.vn_source_p()
    failure: Optional[VoiceNoteError] = None
    if kind in (URL, MEMORY):
        if kind == URL:
            url = text_bytes(source, "URL")
            with options_handle(http) as options:
                rc = _capi.vn_source_create_url(url, options, ctypes.byref(handle))
        else:
            pointer, size = memory_pointer(source)
            rc = _capi.vn_source_create_memory(pointer, size, ctypes.byref(handle))
            del pointer
        if rc < 0:
            raise error_for(rc)
        try:
            rc = call(handle)
            failure = error_for(rc) if rc < 0 else None
        finally:
            _capi.vn_source_destroy(handle)
        if failure is not None:
            raise failure
        return

    size, start = _measure(source)
    host = _HostStream(source)
    key = next(_keys)
    _streams[key] = host
    rc = _capi.vn_source_create_callbacks(read_trampoline, seek_trampoline, size, key, release_trampoline,
                                          ctypes.byref(handle))
    if rc < 0:
        _streams.pop(key, None)  # the library does not call release when create fails
        raise error_for(rc)
    try:
        rc = call(handle)
        failure = error_for(rc) if rc < 0 else None
    finally:
        _capi.vn_source_destroy(handle)  # runs release, which drops the key
        if _streams.pop(key, None) is not None:
            _log.error("voicenote: vn_source_destroy did not release the host source %r", source)
    error = host.error
    if error is not None and not isinstance(error, Exception):
        raise error  # KeyboardInterrupt, SystemExit: not a failure of the stream
    if start is not None:
        try:
            source.seek(start, io.SEEK_SET)
        except Exception:  # noqa: BLE001
            if failure is None and error is None:
                raise
    if failure is not None:
        if error is not None:
            raise failure from error
        raise failure
    if error is not None:
        _log.warning("voicenote: the byte source %r raised, but the library recovered", source, exc_info=error)
