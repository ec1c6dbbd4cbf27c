"""``TestSource``: fires numbered events from a library thread (``vn_test_source``)."""

from __future__ import annotations

import ctypes
from typing import Any, Callable, NamedTuple, Optional

from . import _capi, _delivery, _events, _lifecycle
from ._events import Subscription
from ._loop import EventLoop
from .errors import check

__all__ = ["TestSource"]


def _check_range(name: str, value: int, bits: int) -> int:
    value = int(value)
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must be in 0..{(1 << bits) - 1}, got {value}")
    return value



class TestEvent(NamedTuple):
    """One event of a :class:`voicenote.TestSource`, copied out of the C struct."""

    #: 1 for the source's first event, then 2, 3, ... with no gaps.
    sequence: int
    #: True when the source's own thread fired it (``start``), False when ``emit`` did.
    from_library_thread: bool


TestEvent.__test__ = False  # type: ignore[attr-defined]  # not a pytest test class

_FROM_LIBRARY_THREAD_END = _capi.vn_test_event.from_library_thread.offset + _capi.vn_test_event.from_library_thread.size


def _test_event(user_data: Optional[int], event: Any) -> None:
    entry = _events.entry(user_data)
    if entry is None:
        return
    try:
        _delivery.entered()
        try:
            raw = event[0]
            # The struct only grows; a field past the size the library filled in is absent (an older library).
            from_thread = bool(raw.from_library_thread) if raw.size >= _FROM_LIBRARY_THREAD_END else False
            entry.callback(TestEvent(int(raw.sequence), from_thread))
        finally:
            _delivery.left()
    except BaseException:  # noqa: BLE001 - never raise into C
        _events.report("test event callback")


#: The event trampoline (``vn_test_event_fn``) shared by every test-source subscription.
test_event_trampoline = _capi.vn_test_event_fn(_test_event)


class TestSource(_lifecycle.Closing):
    """A small object whose only job is to fire numbered events, for testing a host's integration with the
    subscription contract (threads, order, unsubscribe and close from inside callbacks, event loops).

    Events run on the library's event thread, or inside :meth:`EventLoop.dispatch` when the source was created
    with a loop. Usable as a context manager; methods raise :class:`ValueError` after :meth:`close`. A source
    that is garbage-collected, or still open when the interpreter exits, is closed then.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, loop: Optional[EventLoop] = None) -> None:
        """Creates a source.

        Args:
            loop: the loop that delivers its events, or None for the library's event thread. The source keeps
                the Python loop object alive.

        Raises:
            ValueError: ``loop`` is closed.
        """
        if loop is not None and not isinstance(loop, EventLoop):
            raise TypeError("loop must be a voicenote.EventLoop or None")
        loop_handle = loop._handle_for_child() if loop is not None else None
        handle = _capi.vn_test_source_p()
        check(_capi.vn_test_source_create(loop_handle, ctypes.byref(handle)))
        self._loop = loop
        self._own(handle, _capi.vn_test_source_destroy, handle)

    @property
    def loop(self) -> Optional[EventLoop]:
        """The loop that delivers this source's events, or None for the library's event thread."""
        return self._loop

    def subscribe(
        self,
        callback: Callable[[TestEvent], Any],
        *,
        on_release: Optional[Callable[[], Any]] = None,
    ) -> Subscription:
        """Calls ``callback(event)`` for each event fired after this returns.

        ``event`` is a :class:`TestEvent` with ``sequence`` and ``from_library_thread``. Exceptions raised by
        ``callback`` are logged on the ``"voicenote"`` logger and ignored.

        Args:
            callback: the event callback.
            on_release: called once when the subscription has ended and no callback of it will run again; on
                the thread that ended it, or on the callback's thread when it ended itself from inside.

        Raises:
            ValueError: the source is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_test_source_subscribe(handle, fn, key, release,
                                                                        ctypes.byref(out)),
            test_event_trampoline,
            callback,
            on_release,
        )

    def start(self, count: int = 0, interval_us: int = 0) -> None:
        """Starts the source's own thread, which fires ``count`` events (0: until :meth:`stop` or
        :meth:`close`), one every ``interval_us`` microseconds (0: as fast as possible).

        Raises:
            ValueError: the source is closed, or an argument is out of range.
            MisuseError: the source is already firing.
        """
        count = _check_range("count", count, 64)
        interval_us = _check_range("interval_us", interval_us, 32)
        check(_capi.vn_test_source_start(self._live_handle(), count, interval_us))

    def stop(self) -> None:
        """Stops the source's thread and waits for it to end. Events already fired are still delivered.

        Raises:
            ValueError: the source is closed.
        """
        check(_capi.vn_test_source_stop(self._live_handle()))

    def emit(self, count: int = 1) -> None:
        """Fires ``count`` events from the calling thread; they are queued and delivered as usual, never
        run inside this call.

        Raises:
            ValueError: the source is closed, or ``count`` is out of range.
        """
        count = _check_range("count", count, 64)
        check(_capi.vn_test_source_emit(self._live_handle(), count))

    @property
    def fired(self) -> int:
        """How many events the source has fired so far.

        Raises:
            ValueError: the source is closed.
        """
        out = ctypes.c_uint64(0)
        check(_capi.vn_test_source_fired(self._live_handle(), ctypes.byref(out)))
        return int(out.value)

    def close(self) -> None:
        """Destroys the source: stops its thread and ends every subscription, waiting for callbacks running
        on other threads (not for the one it is called from) and running each release. Idempotent; allowed
        inside the source's own callbacks."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        where = "event thread" if self._loop is None else "event loop"
        return f"<voicenote.TestSource {'closed' if self.closed else 'open'}, {where}>"
