"""``EventLoop``: manual event delivery for GUI main loops (``vn_event_loop``)."""

from __future__ import annotations

import ctypes
import math
import threading
from typing import Any, Optional

from . import _capi, _delivery, _lifecycle
from .errors import check

__all__ = ["EventLoop"]

_INT_MAX = 2**31 - 1


class EventLoop(_lifecycle.Closing):
    """Collects the events of the objects created with it and runs their callbacks only inside
    :meth:`dispatch`, on the thread that calls it.

    Its file descriptor (:meth:`fileno`) is readable while events are pending, so the loop plugs into
    :mod:`selectors`, :func:`select.select`, asyncio's ``add_reader`` or GLib::

        GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, loop.fileno(), GLib.IOCondition.IN,
                              lambda fd, condition: loop.dispatch() >= 0)

    Loops are independent: dispatching one never runs another one's callbacks.

    Close the objects created with a loop before the loop to be sure every release has run; a loop closed
    first drops their later events. Usable as a context manager; methods raise :class:`ValueError` after
    :meth:`close`.
    """

    def __init__(self) -> None:
        """Creates a loop.

        Raises:
            NoMemoryError, IOFailedError: no eventfd could be made.
        """
        handle = _capi.vn_event_loop_p()
        check(_capi.vn_event_loop_create(ctypes.byref(handle)))
        self._local = threading.local()  # per thread: how deep this thread is inside dispatch()
        self._close_requested = False
        self._own(handle, _capi.vn_event_loop_destroy, handle)

    # -- state ------------------------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._close_requested or not self._finalizer.alive

    def _depth(self) -> int:
        return getattr(self._local, "depth", 0)

    # -- API --------------------------------------------------------------------------------------------------

    def fileno(self) -> int:
        """The pollable descriptor, readable while events are pending. Do not read, write or close it.

        Raises:
            ValueError: the loop is closed.
        """
        return check(_capi.vn_event_loop_fd(self._live_handle()))

    def dispatch(self) -> int:
        """Runs the callbacks of the events pending now, on the calling thread, in order; returns how many ran.

        Events that arrive meanwhile wait for the next call. One thread at a time per loop.

        Raises:
            ValueError: the loop is closed.
            MisuseError: called from inside a callback this loop is dispatching, or while another thread
                dispatches it.
        """
        handle = self._live_handle()
        count = ctypes.c_size_t(0)
        self._local.depth = self._depth() + 1
        try:
            with _delivery.dispatching():
                check(_capi.vn_event_loop_dispatch(handle, ctypes.byref(count)))
        finally:
            self._local.depth -= 1
            if self._local.depth == 0 and self._close_requested:
                # a close() from inside a callback, carried out now that dispatch has returned
                _lifecycle.run_finalizer(self._finalizer)
        return int(count.value)

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Waits until events are pending or ``timeout`` seconds pass; returns whether events are pending.

        For hosts without a main loop of their own. ``None`` waits without limit (the wait cannot be
        interrupted by a signal; prefer a timeout), ``0`` polls. The GIL is released while waiting.

        Raises:
            ValueError: the loop is closed, or ``timeout`` is negative.
            MisuseError: the loop was closed by another thread during the wait.
        """
        if timeout is None:
            timeout_ms = -1
        else:
            if timeout < 0 or math.isnan(timeout):
                raise ValueError("timeout must be None or >= 0")
            timeout_ms = min(_INT_MAX, math.ceil(timeout * 1000))
        pending = ctypes.c_int(0)
        check(_capi.vn_event_loop_wait(self._live_handle(), timeout_ms, ctypes.byref(pending)))
        return bool(pending.value)

    def close(self) -> None:
        """Destroys the loop and drops its pending events. Idempotent.

        Called from inside this loop's :meth:`dispatch` (from a callback), the loop counts as closed at once
        and is destroyed when that dispatch returns.
        """
        if self._depth() > 0:
            self._close_requested = True
            return
        _lifecycle.run_finalizer(self._finalizer)

    def _handle_for_child(self) -> Any:
        """The C handle, for an object that is being created with this loop."""
        return self._live_handle()

    def __repr__(self) -> str:
        return f"<voicenote.EventLoop {'closed' if self.closed else 'open'}>"
