"""Cancelling calls that read a URL (``vn_source_cancel``), from any thread."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, List

from . import _capi

__all__ = ["Cancellation"]


class Cancellation:
    """Cancels the calls it is given to — :func:`voicenote.waveform`, :func:`voicenote.info` and
    :func:`voicenote.convert` with ``cancellation=`` — while they read: :meth:`cancel`, from any thread, ends an
    http(s) URL's read waiting for the network within 100 ms, and the next read of a file's path or of bytes (a long
    decode of a local note stops there); the call raises :class:`~voicenote.CancelledError` (its transfer stopped,
    its source destroyed, a conversion's part file removed). A call given a cancellation that is already cancelled
    fails as soon as it reads. A file-like object is read by the host's own ``read``: a call on one runs to its end.
    ``voicenote.aio`` uses one for each call it runs in the executor, so that cancelling the asyncio task cancels the
    call.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles: List[Any] = []
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        with self._lock:
            return self._cancelled

    def cancel(self) -> None:
        """Cancels the reads of the calls given this cancellation, now and later. Idempotent; any thread."""
        with self._lock:  # a handle is removed under the lock before it is destroyed: never cancelled after
            self._cancelled = True
            for handle in self._handles:
                _capi.vn_source_cancel(handle)

    @contextlib.contextmanager
    def reading(self, handle: Any) -> Iterator[None]:
        """While the block runs, :meth:`cancel` cancels the source ``handle``'s reads (at once when it was
        cancelled before)."""
        with self._lock:
            self._handles.append(handle)
            if self._cancelled:
                _capi.vn_source_cancel(handle)
        try:
            yield
        finally:
            with self._lock:
                self._handles.remove(handle)

    def __repr__(self) -> str:
        return f"<voicenote.Cancellation {'cancelled' if self.cancelled else 'active'}>"
