"""Waiting for an upload: for its end (the library's own blocking wait, ``vn_uploader_wait``) and for the delivery of
its last events (the release of a subscription). Nothing here polls: each wait ends when the library signals.

Python runs signal handlers (Ctrl-C's ``KeyboardInterrupt``) on the main thread only, and only between bytecodes:
not while a C call blocks. So on the main thread the library's wait runs on a helper thread while the main thread
waits on a :class:`threading.Event` the helper sets when the library's wait returns; ``Event.wait`` is
interrupted by signals (Python 3 on POSIX). An interrupted :meth:`Uploader.upload` cancels the upload, which ends
the helper's wait at once. On any other thread the library's wait is called directly.
"""

from __future__ import annotations

import ctypes
import math
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

from . import _capi, _delivery
from ._events import Subscription
from ._upload_events import _FINAL, UploadEvent, UploadState
from .errors import MisuseError, error_for

__all__ = ["timeout_arg", "current_state", "wait_for_end", "ProgressForwarder"]

#: The longest one ``vn_uploader_wait`` takes (its ``int`` milliseconds); a longer timeout waits again.
_MAX_CALL_MS = 2**31 - 1


def timeout_arg(timeout: Optional[float]) -> Optional[float]:
    """A wait's ``timeout`` in seconds (None: no limit).

    Raises:
        ValueError: NaN or negative.
    """
    if timeout is None:
        return None
    seconds = float(timeout)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError("timeout must be None or >= 0 seconds")
    return seconds


def _library_wait(handle: Any, timeout_ms: int) -> Tuple[int, int]:
    """``vn_uploader_wait``: ``(status, state)`` once the upload has ended or ``timeout_ms`` (-1: no limit) passed."""
    state = ctypes.c_int(0)
    rc = _capi.vn_uploader_wait(handle, timeout_ms, ctypes.byref(state))
    return rc, state.value


def _interruptible_wait(handle: Any, timeout_ms: int) -> Tuple[int, int]:
    """:func:`_library_wait`, which Ctrl-C interrupts on the main thread (see the module)."""
    if timeout_ms == 0 or threading.current_thread() is not threading.main_thread():
        return _library_wait(handle, timeout_ms)
    outcome: List[Tuple[int, int]] = []
    returned = threading.Event()

    def wait() -> None:
        try:
            outcome.append(_library_wait(handle, timeout_ms))
        finally:
            returned.set()

    threading.Thread(target=wait, name="voicenote-upload-wait", daemon=True).start()
    returned.wait()  # KeyboardInterrupt here leaves the helper until the upload ends (upload() cancels it)
    return outcome[0]


def current_state(handle: Any) -> UploadState:
    """The state of the last upload now (``PENDING`` before any).

    Raises:
        MisuseError: the uploader is destroyed.
    """
    rc, state = _library_wait(handle, 0)
    if rc < 0:
        raise error_for(rc)
    return UploadState(state)


def wait_for_end(live_handle: Callable[[], Any], seconds: Optional[float], started: bool) -> UploadState:
    """Waits until the upload ends (``UPLOADED`` or ``FAILED``) or ``seconds`` pass (None: no limit) and returns the
    state then; at once before any upload (``started`` false). ``live_handle()`` gives the uploader's handle, or
    raises ValueError once it is closed (also when it was closed during the wait and the library refused it).

    Raises:
        ValueError: the uploader is closed.
        KeyboardInterrupt: Ctrl-C during the wait (on the main thread).
    """
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        timeout_ms = -1
        if deadline is not None:
            timeout_ms = max(0, min(_MAX_CALL_MS, math.ceil((deadline - time.monotonic()) * 1000)))
        rc, value = _interruptible_wait(live_handle(), timeout_ms)
        if rc < 0:
            failure = error_for(rc)
            if isinstance(failure, MisuseError):
                live_handle()  # destroyed meanwhile: ValueError, as for a call after close()
            raise failure
        state = UploadState(value)
        if state in _FINAL or not started or timeout_ms == 0:
            return state
        if deadline is not None and time.monotonic() >= deadline:
            return state


class ProgressForwarder:
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
        """Waits until every event of the upload was delivered (the subscription's release sets ``released``;
        Ctrl-C interrupts the wait on the main thread), unless it cannot be: with an event loop, or on the
        library's event thread itself, where those events queue behind the caller (``on_progress`` runs later)."""
        if not can_wait or _delivery.on_event_thread():
            return
        self.released.wait()
