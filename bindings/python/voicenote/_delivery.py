"""Which thread delivers voicenote events, as the event trampolines record it (:func:`is_delivering`).

Every event callback reaches Python through one trampoline (``_events.event_trampoline``, the test source's), and
each runs its callback between :func:`entered` and :func:`left`. That is the record kept here:

- per thread, how deep it is inside event callbacks now (:func:`is_delivering`);
- per thread, how deep it is inside :meth:`EventLoop.dispatch` (``_loop`` marks it with :func:`dispatching`);
- for the process, which thread is the library's event thread: the one that runs a callback outside any dispatch
  (the library delivers the events of objects made without a loop on one thread, kept for the life of the
  process, and nowhere else), recorded at its first callback (:func:`on_event_thread`).

Nothing here asks the kernel or the library; only the trampolines' record counts.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator, Optional

__all__ = ["is_delivering"]

#: Per thread: ``callbacks`` (event callbacks running now, nested) and ``dispatches`` (dispatch calls running now).
_local = threading.local()
#: ``threading.get_ident()`` of the library's event thread, once it has delivered an event to Python.
_event_thread: Optional[int] = None


def is_delivering() -> bool:
    """Whether the calling thread is inside a voicenote event callback now: a ``subscribe`` callback of any object,
    run by the library's event thread or by :meth:`EventLoop.dispatch` (whatever that callback calls sees True too).

    There, blocking until another event delivered the same way arrives would wait for ever: that event queues
    behind the callback that is running. So a callback reacts to the event it got and returns, e.g.::

        def on_event(event):
            assert voicenote.is_delivering()   # True here: react, and do not wait for the next event

    False on every other thread, and in what is not an event callback: a subscription's ``on_release``, session
    hooks, data sources, post-processors, log handlers. The event trampolines record it around each callback (a
    thread-local count); the kernel's thread names play no part.
    """
    return getattr(_local, "callbacks", 0) > 0


def on_event_thread() -> bool:
    """Whether the calling thread is the library's event thread, where the objects made without a loop deliver their
    events one after another (waiting there for such an event waits for itself), whatever it runs now: a callback,
    or an ``on_release`` after one. Known from that thread's first callback into Python on; no Python code runs on
    it before."""
    return _event_thread is not None and threading.get_ident() == _event_thread


def entered() -> None:
    """Marks the calling thread as running an event callback (a trampoline, before it calls the subscriber)."""
    global _event_thread
    _local.callbacks = getattr(_local, "callbacks", 0) + 1
    if _event_thread is None and getattr(_local, "dispatches", 0) == 0:
        _event_thread = threading.get_ident()


def left() -> None:
    """Ends what :func:`entered` marked (a trampoline, once the subscriber has returned or raised)."""
    _local.callbacks -= 1


@contextlib.contextmanager
def dispatching() -> Iterator[None]:
    """``with dispatching():`` around :meth:`EventLoop.dispatch`'s C call: the callbacks run inside it are the
    loop's, not the library's event thread's."""
    _local.dispatches = getattr(_local, "dispatches", 0) + 1
    try:
        yield
    finally:
        _local.dispatches -= 1
