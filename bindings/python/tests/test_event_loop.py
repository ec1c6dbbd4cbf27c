"""EventLoop: callbacks only inside dispatch() on the calling thread, a pollable fd, independent loops, order,
misuse, and the subscription contract inside dispatch."""

from __future__ import annotations

import os
import select
import selectors
import shutil
import subprocess
import threading
from typing import List

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT, Recorder, wait_event

import voicenote


def _readable(loop: voicenote.EventLoop, timeout: float) -> bool:
    ready, _, _ = select.select([loop.fileno()], [], [], timeout)
    return bool(ready)


def _dispatch_until(loop: voicenote.EventLoop, done, guard=None) -> None:
    """Waits (bounded) for pending events and dispatches them until ``done()``."""
    while not done():
        assert loop.wait(TIMEOUT), "no events became pending within the timeout"
        if guard is not None:
            guard.inside = True
        try:
            loop.dispatch()
        finally:
            if guard is not None:
                guard.inside = False


class Guard:
    """Marks the span of dispatch() calls made by the test."""

    inside = False


def test_callbacks_only_inside_dispatch_on_calling_thread() -> None:
    """Events fired by the source's own thread run only inside dispatch(), on the dispatching thread, in order."""
    n = 500
    guard = Guard()
    seen: List[tuple] = []
    me = threading.get_ident()

    def callback(event: voicenote.TestEvent) -> None:
        seen.append((event.sequence, threading.get_ident(), guard.inside, event.from_library_thread))

    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        source.subscribe(callback)
        source.start(count=n, interval_us=0)
        assert loop.wait(TIMEOUT)
        assert seen == []  # pending, but nothing runs until dispatch
        _dispatch_until(loop, lambda: len(seen) >= n, guard)
        source.stop()
    assert [s[0] for s in seen] == list(range(1, n + 1))
    assert all(thread == me for _, thread, _, _ in seen)
    assert all(inside for _, _, inside, _ in seen)
    assert all(from_thread for _, _, _, from_thread in seen)


def test_dispatch_on_a_worker_thread() -> None:
    """The loop's owner may be any thread: callbacks run on whichever thread dispatches."""
    seen = Recorder()
    result = {}

    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        source.subscribe(lambda e: seen.add(threading.get_ident()))
        source.emit(10)

        def worker() -> None:
            result["ident"] = threading.get_ident()
            result["count"] = loop.dispatch()

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join(TIMEOUT)
        assert not thread.is_alive()
    assert result["count"] == 10
    assert seen.snapshot() == [result["ident"]] * 10


def test_fd_readable_while_pending() -> None:
    """The descriptor is readable exactly while events are pending (select with timeouts, selectors)."""
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        got = Recorder()
        source.subscribe(got.add)
        fd = loop.fileno()
        assert fd >= 0 and loop.fileno() == fd
        assert not _readable(loop, 0)
        assert loop.dispatch() == 0
        assert loop.wait(0) is False

        source.emit(3)
        assert _readable(loop, TIMEOUT)
        assert _readable(loop, 0)  # stays readable until dispatched
        assert got.snapshot() == []
        assert loop.dispatch() == 3
        assert [e.sequence for e in got.snapshot()] == [1, 2, 3]
        assert not _readable(loop, 0)
        assert loop.dispatch() == 0

        # Events from the library thread wake a selector too.
        with selectors.DefaultSelector() as selector:
            selector.register(loop, selectors.EVENT_READ)
            source.start(count=4, interval_us=0)
            total = 0
            while total < 4:
                events = selector.select(timeout=TIMEOUT)
                assert events, "selector timed out"
                total += loop.dispatch()
            source.stop()
            assert total == 4
            assert not selector.select(timeout=0)
        assert [e.sequence for e in got.snapshot()] == list(range(1, 8))


def test_two_loops_are_independent() -> None:
    """Dispatching one loop never runs the other's callbacks nor consumes its readiness."""
    with voicenote.EventLoop() as loop_a, voicenote.EventLoop() as loop_b, \
            voicenote.TestSource(loop_a) as source_a, voicenote.TestSource(loop_b) as source_b:
        assert loop_a.fileno() != loop_b.fileno()
        got_a, got_b = Recorder(), Recorder()
        source_a.subscribe(got_a.add)
        source_b.subscribe(got_b.add)
        source_a.emit(2)
        source_b.emit(3)
        assert _readable(loop_a, TIMEOUT) and _readable(loop_b, TIMEOUT)
        assert loop_a.dispatch() == 2
        assert len(got_a) == 2 and len(got_b) == 0
        assert _readable(loop_b, 0) and not _readable(loop_a, 0)
        assert loop_a.dispatch() == 0
        assert len(got_b) == 0
        assert loop_b.dispatch() == 3
        assert len(got_b) == 3 and len(got_a) == 2


def test_event_thread_unaffected_by_loops() -> None:
    """A source without a loop keeps delivering on the event thread while a loop holds events undispatched."""
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as held, voicenote.TestSource() as free:
        held_got, free_got = Recorder(), Recorder()
        held.subscribe(held_got.add)
        free.subscribe(free_got.add)
        held.emit(5)
        free.emit(5)
        free_got.wait_count(5)
        assert len(held_got) == 0
        assert loop.dispatch() == 5


def test_order_across_subscribers_with_loop() -> None:
    """Several subscribers of a loop-delivered source each get a gapless increasing sequence."""
    n = 300
    recorders = [Recorder() for _ in range(3)]
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        for r in recorders:
            source.subscribe(r.add)
        source.start(count=n, interval_us=0)
        _dispatch_until(loop, lambda: all(len(r) >= n for r in recorders))
    for r in recorders:
        assert [e.sequence for e in r.snapshot()] == list(range(1, n + 1))


def test_unsubscribe_and_close_inside_dispatch() -> None:
    """Unsubscribe and close from inside a dispatched callback: no deadlock, releases on the dispatching thread,
    no later callbacks (the rest of the batch is skipped)."""
    me = threading.get_ident()
    calls: List[int] = []
    release_threads: List[int] = []
    holder: List[voicenote.Subscription] = []

    def unsubscribing(event: voicenote.TestEvent) -> None:
        calls.append(event.sequence)
        holder[0].unsubscribe()

    with voicenote.EventLoop() as loop:
        source = voicenote.TestSource(loop)
        holder.append(source.subscribe(unsubscribing, on_release=lambda: release_threads.append(threading.get_ident())))
        source.emit(5)
        assert loop.wait(TIMEOUT)
        assert loop.dispatch() == 1  # the four later events of the ended subscription are dropped, not counted
        assert calls == [1]
        assert release_threads == [me]

        closing_calls: List[int] = []

        def closing(event: voicenote.TestEvent) -> None:
            closing_calls.append(event.sequence)
            source.close()

        source.subscribe(closing, on_release=lambda: release_threads.append(threading.get_ident()))
        other = Recorder()
        source.subscribe(other.add, on_release=lambda: release_threads.append(threading.get_ident()))
        source.emit(5)
        assert loop.wait(TIMEOUT)
        loop.dispatch()
        assert closing_calls == [6]
        assert len(other) == 0  # closed before its turn in the same batch
        assert source.closed
        assert release_threads == [me, me, me]
        assert loop.dispatch() == 0


def test_dispatch_counts_only_callbacks_that_ran() -> None:
    """dispatch() returns how many callbacks ran: events of subscriptions that ended while queued are dropped and
    not counted (fixed in the library by e693bad; before, it returned the batch size)."""
    calls: List[int] = []
    holder: List[voicenote.Subscription] = []

    def unsubscribing(event: voicenote.TestEvent) -> None:
        calls.append(event.sequence)
        holder[0].unsubscribe()

    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        holder.append(source.subscribe(unsubscribing))
        ended = source.subscribe(lambda e: calls.append(-1))
        source.emit(5)
        ended.unsubscribe()  # ended while its 5 events wait in the loop
        assert loop.wait(TIMEOUT)
        count = loop.dispatch()
        assert calls == [1]
        assert count == 1


def test_nested_and_concurrent_dispatch_are_misuse() -> None:
    """dispatch() from inside its own callback, or from another thread while dispatching, is MisuseError."""
    outcomes = {}
    entered = threading.Event()
    tried_other = threading.Event()

    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        def callback(event: voicenote.TestEvent) -> None:
            if event.sequence != 1:
                return
            try:
                loop.dispatch()
            except voicenote.MisuseError as error:
                outcomes["nested"] = error
            entered.set()
            tried_other.wait(TIMEOUT)

        def other() -> None:
            wait_event(entered, "callback running")
            try:
                loop.dispatch()
            except voicenote.MisuseError as error:
                outcomes["other"] = error
            tried_other.set()

        source.subscribe(callback)
        source.emit(2)
        thread = threading.Thread(target=other)
        thread.start()
        assert loop.wait(TIMEOUT)
        assert loop.dispatch() == 2
        thread.join(TIMEOUT)
        assert not thread.is_alive()
        assert loop.dispatch() == 0  # usable again afterwards
    assert isinstance(outcomes.get("nested"), voicenote.MisuseError)
    assert isinstance(outcomes.get("other"), voicenote.MisuseError)


def test_close_loop_inside_dispatch_is_deferred() -> None:
    """close() of the loop from inside its dispatch marks it closed at once and destroys it when dispatch
    returns (the C API forbids destroying a loop inside its own dispatch)."""
    states = []
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        def callback(event: voicenote.TestEvent) -> None:
            loop.close()
            states.append(loop.closed)
            with pytest.raises(ValueError):
                loop.fileno()

        source.subscribe(callback)
        source.emit(2)
        assert loop.wait(TIMEOUT)
        assert loop.dispatch() == 2
        assert loop.closed
        with pytest.raises(ValueError):
            loop.dispatch()
        source.emit(1)  # the source stays valid; its events are dropped
    assert states == [True, True]


def test_loop_closed_before_its_sources() -> None:
    """A loop closed first drops pending and later events; closing the source still releases everything."""
    released = threading.Event()
    loop = voicenote.EventLoop()
    source = voicenote.TestSource(loop)
    got = Recorder()
    source.subscribe(got.add, on_release=released.set)
    source.emit(3)
    loop.close()
    source.emit(3)
    source.start(count=5, interval_us=0)
    source.close()
    assert released.is_set()
    assert len(got) == 0


def test_wait_timeouts_and_misuse() -> None:
    """wait(0) polls, a short timeout returns False, negative timeouts and closed loops raise ValueError."""
    loop = voicenote.EventLoop()
    assert loop.wait(0) is False
    assert loop.wait(0.001) is False
    with pytest.raises(ValueError):
        loop.wait(-1)
    with voicenote.TestSource(loop) as source:
        source.subscribe(lambda e: None)
        source.emit(1)
        # wait(None) has no limit of its own: run it on a helper thread so the test stays bounded.
        result = []
        waiter = threading.Thread(target=lambda: result.append(loop.wait(None)), daemon=True)
        waiter.start()
        waiter.join(TIMEOUT)
        assert not waiter.is_alive(), "wait(None) did not return although an event was pending"
        assert result == [True]
        assert loop.dispatch() == 1
    loop.close()
    loop.close()
    assert loop.closed and "closed" in repr(loop)
    for call in (loop.fileno, loop.dispatch, lambda: loop.wait(0)):
        with pytest.raises(ValueError):
            call()
    with pytest.raises(ValueError):
        voicenote.TestSource(loop)
    with pytest.raises(TypeError):
        voicenote.TestSource(object())  # type: ignore[arg-type]


def test_wait_wakes_when_another_thread_fires() -> None:
    """wait() without a timeout returns once the source's thread fires (GIL released while waiting)."""
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        source.subscribe(lambda e: None)
        source.start(count=1, interval_us=0)
        assert loop.wait(TIMEOUT) is True
        assert loop.dispatch() == 1


GLIB_CHILD = r"""
import sys, threading
from gi.repository import GLib
import voicenote
main = GLib.MainLoop()
seen = []
loop = voicenote.EventLoop()
source = voicenote.TestSource(loop)
def on_event(event):
    seen.append((event.sequence, threading.get_ident()))
    if len(seen) == 50:
        main.quit()
source.subscribe(on_event)
GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, loop.fileno(), GLib.IOCondition.IN,
                      lambda fd, condition: loop.dispatch() >= 0)
GLib.timeout_add_seconds(int(sys.argv[1]), lambda: (seen.append("timeout"), main.quit()))
source.start(count=50, interval_us=100)
main.run()
assert "timeout" not in seen, "GLib main loop timed out"
assert [s for s, _ in seen] == list(range(1, 51)), seen
assert {t for _, t in seen} == {threading.get_ident()}
source.close()
loop.close()
print("ok")
"""


def test_glib_main_loop_integration() -> None:
    """A GLib main loop watches the fd (unix_fd_add) and dispatches on its own thread. Runs under the system
    interpreter, which has python3-gi; skipped where it does not."""
    system_python = shutil.which("python3", path="/usr/bin")
    if not system_python:
        pytest.skip("no /usr/bin/python3")
    probe = subprocess.run([system_python, "-c", "import gi"], capture_output=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip("the system interpreter has no python3-gi")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([system_python, "-c", GLIB_CHILD, str(int(TIMEOUT))], capture_output=True, text=True,
                           env=env, timeout=TIMEOUT + 30)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "ok"
