"""The subscription contract on the library's event thread, through the Python binding.

- after unsubscribe()/close() returns on another thread, that subscription's callback never runs again;
- release (on_release) runs exactly once per subscription, on the thread that ended it;
- unsubscribe and close from inside a callback do not deadlock and end delivery at once;
- events arrive in order, numbered without gaps;
- misuse is reported (MisuseError / ValueError).
"""

from __future__ import annotations

import collections
import gc
import logging
import threading
from typing import List, Optional

import pytest

from helpers import TIMEOUT, Recorder, wait_event

import voicenote


class SubState:
    """Per-subscription bookkeeping for the contract checks. Written under the GIL only."""

    __slots__ = ("ended", "calls", "releases", "release_thread", "first_event", "violations")

    def __init__(self, violations: List[str]) -> None:
        self.ended = False  # set right after unsubscribe() returned
        self.calls = 0
        self.releases = 0
        self.release_thread: Optional[int] = None
        self.first_event = threading.Event()
        self.violations = violations

    def on_event(self, event: voicenote.TestEvent) -> None:
        if self.ended:
            self.violations.append(f"callback ran after unsubscribe returned (sequence {event.sequence})")
        if self.releases:
            self.violations.append("callback ran after release")
        self.calls += 1
        if self.calls == 1:
            self.first_event.set()

    def on_release(self) -> None:
        self.releases += 1
        self.release_thread = threading.get_ident()


def _cycles(source: voicenote.TestSource, cycles: int, window: int, wait_every: int) -> List[SubState]:
    """Subscribes ``cycles`` times, keeping ``window`` subscriptions live, unsubscribing the oldest each step.
    Every ``wait_every`` cycles (0: never) it waits until the newest subscription got an event, so callbacks are
    known to be in flight while others are being ended."""
    violations: List[str] = []
    states: List[SubState] = []
    live: "collections.deque[tuple[voicenote.Subscription, SubState]]" = collections.deque()
    main = threading.get_ident()

    def end_oldest() -> None:
        subscription, state = live.popleft()
        subscription.unsubscribe()
        state.ended = True
        # release runs on the thread that ended the subscription, before unsubscribe returns
        if state.releases != 1 or state.release_thread != main or not subscription.released:
            violations.append(f"release after unsubscribe: count {state.releases}, thread {state.release_thread}")

    for i in range(cycles):
        state = SubState(violations)
        states.append(state)
        live.append((source.subscribe(state.on_event, on_release=state.on_release), state))
        if wait_every and i % wait_every == 0:
            wait_event(state.first_event, f"first event of subscription {i}")
        if len(live) > window:
            end_oldest()
    while live:
        end_oldest()
    assert not violations, violations[:10]
    assert all(state.releases == 1 for state in states)
    return states


def test_unsubscribe_contract_10k_cycles_paced() -> None:
    """10,000 subscribe/unsubscribe cycles while the source fires from its own thread (paced by the smallest
    interval): no callback after unsubscribe returns, exactly one release each, on the unsubscribing thread."""
    with voicenote.TestSource() as source:
        source.start(count=0, interval_us=1)
        states = _cycles(source, 10_000, window=4, wait_every=20)
        source.stop()
    assert sum(state.calls for state in states) >= 10_000 // 20  # every waited-for subscription got events
    assert all(state.releases == 1 for state in states)


def test_unsubscribe_contract_10k_cycles_flood() -> None:
    """The same with the source firing as fast as it can (interval 0): the event thread is always busy, so
    unsubscribe regularly meets a running callback and must wait for it."""
    with voicenote.TestSource() as source:
        source.start(count=0, interval_us=0)
        states = _cycles(source, 10_000, window=1, wait_every=1000)
    assert all(state.releases == 1 for state in states)
    assert sum(state.calls for state in states) >= 10


def test_release_once_when_source_closes() -> None:
    """close() ends every subscription: each release runs once, before close returns, on the closing thread;
    unsubscribing afterwards is misuse; no callback runs after close returns."""
    violations: List[str] = []
    source = voicenote.TestSource()
    states = [SubState(violations) for _ in range(100)]
    subscriptions = [source.subscribe(s.on_event, on_release=s.on_release) for s in states]
    source.start(count=0, interval_us=1)
    for state in states[:5]:
        wait_event(state.first_event, "events before close")
    source.close()
    for state in states:
        state.ended = True
    main = threading.get_ident()
    assert all(s.releases == 1 and s.release_thread == main for s in states)
    assert all(sub.released for sub in subscriptions)
    for sub in subscriptions[:3]:
        with pytest.raises(voicenote.MisuseError):
            sub.unsubscribe()
    assert not violations
    assert len({sub.id for sub in subscriptions}) == 100 and all(sub.id > 0 for sub in subscriptions)


def test_unsubscribe_waits_for_running_callback() -> None:
    """unsubscribe() from another thread waits until the running callback has returned."""
    entered = threading.Event()
    proceed = threading.Event()
    callback_done = threading.Event()
    result = {}

    def callback(event: voicenote.TestEvent) -> None:
        if entered.is_set():
            return
        entered.set()
        proceed.wait(TIMEOUT)
        callback_done.set()

    with voicenote.TestSource() as source:
        subscription = source.subscribe(callback)
        source.emit(3)
        wait_event(entered, "callback entered")
        calling = threading.Event()

        def unsubscriber() -> None:
            calling.set()
            subscription.unsubscribe()
            result["callback_done_when_returned"] = callback_done.is_set()

        thread = threading.Thread(target=unsubscriber)
        thread.start()
        wait_event(calling, "unsubscriber started")
        proceed.set()
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "unsubscribe did not return"
    assert result["callback_done_when_returned"] is True
    assert subscription.released


def test_unsubscribe_inside_callback() -> None:
    """Unsubscribing from inside the callback does not deadlock, stops delivery at once, and releases on the
    callback's thread after the callback returns."""
    calls = Recorder()
    released = threading.Event()
    info = {}
    holder: List[voicenote.Subscription] = []

    def callback(event: voicenote.TestEvent) -> None:
        calls.add(event.sequence)
        if len(holder) == 1 and "done" not in info:
            info["done"] = True
            holder[0].unsubscribe()  # must not wait for itself
            info["released_inside"] = holder[0].released  # release waits until the callback returns
            info["thread"] = threading.get_ident()

    def on_release() -> None:
        info["release_thread"] = threading.get_ident()
        released.set()

    with voicenote.TestSource() as source:
        subscription = source.subscribe(callback, on_release=on_release)
        holder.append(subscription)
        other = Recorder()
        source.subscribe(other.add)  # a second subscriber keeps receiving
        source.start(count=0, interval_us=1)
        wait_event(released, "release after unsubscribing inside the callback")
        seen = len(calls)
        other.wait_count(50)  # the stream went on long after the unsubscribe
        assert len(calls) == seen
        with pytest.raises(voicenote.MisuseError):
            subscription.unsubscribe()
    assert info["released_inside"] is False
    assert info["release_thread"] == info["thread"] != threading.get_ident()
    assert len(calls) == 1  # only the callback that unsubscribed ran (after it, no further callback)


def test_close_inside_callback() -> None:
    """Closing the source from inside its callback does not deadlock; every subscription is released once and
    no callback runs afterwards."""
    closed = threading.Event()
    first_released = threading.Event()
    calls = Recorder()
    others = Recorder()
    releases = collections.Counter()
    holder: List[voicenote.TestSource] = []

    def callback(event: voicenote.TestEvent) -> None:
        calls.add(event.sequence)
        if not closed.is_set():
            holder[0].close()
            closed.set()

    def release(name: str) -> None:
        releases[name] += 1
        if name == "first":
            first_released.set()

    source = voicenote.TestSource()
    holder.append(source)
    source.subscribe(callback, on_release=lambda: release("first"))
    source.subscribe(others.add, on_release=lambda: release("second"))
    source.start(count=0, interval_us=0)
    wait_event(closed, "close inside the callback")
    wait_event(first_released, "release of the closing subscription")
    assert source.closed
    assert releases == {"first": 1, "second": 1}
    assert len(calls) == 1
    with pytest.raises(ValueError):
        source.emit(1)
    source.close()  # idempotent


def test_stop_and_emit_inside_callback() -> None:
    """stop() and emit() are allowed inside the source's own callbacks."""
    got = Recorder()

    def callback(event: voicenote.TestEvent) -> None:
        got.add(event)
        if event.sequence == 5:
            source.stop()
            source.emit(2)

    with voicenote.TestSource() as source:
        source.subscribe(callback)
        source.start(count=5, interval_us=0)
        items = got.wait_count(7)
    assert [e.sequence for e in items] == list(range(1, 8))
    assert [e.from_library_thread for e in items] == [True] * 5 + [False] * 2


def test_events_in_order_without_gaps() -> None:
    """Three subscribers each get 1..N in order, from the library thread; emitted events continue the count."""
    n = 3000
    recorders = [Recorder() for _ in range(3)]
    with voicenote.TestSource() as source:
        for r in recorders:
            source.subscribe(r.add)
        source.start(count=n, interval_us=0)
        for r in recorders:
            r.wait_count(n)
        assert source.fired == n
        source.stop()
        source.emit(5)
        for r in recorders:
            items = r.wait_count(n + 5)
            assert [e.sequence for e in items] == list(range(1, n + 6))
            assert all(e.from_library_thread for e in items[:n])
            assert not any(e.from_library_thread for e in items[n:])
        assert source.fired == n + 5


def test_late_subscriber_sees_consecutive_events() -> None:
    """A subscriber that joins a running stream gets strictly consecutive sequence numbers."""
    early = Recorder()
    with voicenote.TestSource() as source:
        source.subscribe(early.add)
        source.start(count=0, interval_us=1)
        early.wait_count(20)
        late = Recorder()
        source.subscribe(late.add)
        items = late.wait_count(300)
    sequences = [e.sequence for e in items]
    assert sequences[0] > 1
    assert sequences == list(range(sequences[0], sequences[0] + len(sequences)))


def test_callback_exception_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    """An exception in a callback is logged (with its traceback) on the "voicenote" logger; delivery goes on."""
    got = Recorder()

    def callback(event: voicenote.TestEvent) -> None:
        got.add(event.sequence)
        raise KeyError(f"boom {event.sequence}")

    with voicenote.TestSource() as source:
        source.subscribe(callback)
        source.emit(3)
        got.wait_count(3)
    records = [r for r in caplog.records if r.name == "voicenote" and r.levelno == logging.ERROR]
    assert len(records) == 3
    assert all(r.exc_info and r.exc_info[0] is KeyError for r in records)
    caplog.clear()


def test_release_exception_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An exception in on_release is logged too; the subscription is still released."""
    with voicenote.TestSource() as source:
        subscription = source.subscribe(lambda e: None, on_release=lambda: 1 / 0)
        subscription.unsubscribe()
    assert subscription.released
    assert any(r.exc_info and r.exc_info[0] is ZeroDivisionError for r in caplog.records)
    caplog.clear()


def test_misuse() -> None:
    """Unsubscribing twice or an unknown id is MisuseError; starting twice is MisuseError; methods after close
    raise ValueError; bad arguments raise ValueError/TypeError."""
    source = voicenote.TestSource()
    subscription = source.subscribe(lambda e: None)
    subscription.unsubscribe()
    with pytest.raises(voicenote.MisuseError) as caught:
        subscription.unsubscribe()
    assert str(subscription.id) in caught.value.message
    with pytest.raises(voicenote.MisuseError):
        voicenote.unsubscribe(subscription.id)
    with pytest.raises(voicenote.MisuseError) as caught:
        voicenote.unsubscribe(12345)
    assert "12345" in caught.value.message
    with pytest.raises(voicenote.MisuseError):
        voicenote.unsubscribe(0)
    with pytest.raises(ValueError):
        voicenote.unsubscribe(-1)
    with pytest.raises(TypeError):
        source.subscribe(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        source.start(count=-1)
    with pytest.raises(ValueError):
        source.start(interval_us=2**32)
    source.start(count=0, interval_us=10)
    with pytest.raises(voicenote.MisuseError):
        source.start()
    source.stop()
    source.stop()  # stopping a stopped source is fine
    source.close()
    assert source.closed
    for call in (lambda: source.subscribe(lambda e: None), source.start, source.stop,
                 lambda: source.emit(1), lambda: source.fired):
        with pytest.raises(ValueError):
            call()
    source.close()


def test_context_manager_and_repr() -> None:
    """The context manager closes; repr tells the state."""
    with voicenote.TestSource() as source:
        assert "open" in repr(source)
        subscription = source.subscribe(lambda e: None)
        assert "live" in repr(subscription)
    assert source.closed and "closed" in repr(source)
    assert subscription.released and "released" in repr(subscription)


def test_garbage_collected_source_is_closed() -> None:
    """A source dropped without close() is destroyed by its finalizer: its subscriptions are released."""
    released = threading.Event()
    source = voicenote.TestSource()
    source.subscribe(lambda e: None, on_release=released.set)
    source.start(count=0, interval_us=1)
    del source
    gc.collect()
    wait_event(released, "release after the source was collected")


def test_subscribe_inside_callback() -> None:
    """Subscribing from inside a callback works; the new subscriber sees only later events."""
    late = Recorder()
    made = []

    def callback(event: voicenote.TestEvent) -> None:
        if not made:
            made.append(source.subscribe(late.add))

    with voicenote.TestSource() as source:
        source.subscribe(callback)
        source.start(count=0, interval_us=1)
        items = late.wait_count(10)
    assert items[0].sequence > 1


def test_restart_after_finished_run() -> None:
    """A finite run that has finished does not count as firing: start() works again without stop()."""
    got = Recorder()
    with voicenote.TestSource() as source:
        source.subscribe(got.add)
        source.start(count=3, interval_us=0)
        got.wait_count(3)
        source.start(count=3, interval_us=0)
        items = got.wait_count(6)
        assert source.fired == 6
    assert [e.sequence for e in items] == list(range(1, 7))


def test_callback_may_run_before_subscribe_returns() -> None:
    """Subscribing to a source that fires as fast as it can: the library may call back while subscribe() is still
    running, so the binding registers the callable before calling C; every subscriber is served and released."""
    got = Recorder()
    with voicenote.TestSource() as source:
        source.start(count=0, interval_us=0)
        subscriptions = [source.subscribe(got.add) for _ in range(50)]
        got.wait_count(50)
        for subscription in subscriptions:
            subscription.unsubscribe()
    assert all(s.released for s in subscriptions)
