"""voicenote.is_delivering(): true exactly inside event callbacks, on the library's event thread and inside
EventLoop.dispatch, per thread; and the event thread as the trampolines record it (what upload() asks instead of
the kernel's thread name)."""

from __future__ import annotations

import logging
import threading
from typing import Any, Dict, List

import pytest

from helpers import TIMEOUT, wait_event

import voicenote
from voicenote import _delivery


def test_false_outside_callbacks() -> None:
    assert voicenote.is_delivering() is False
    seen: List[bool] = []
    worker = threading.Thread(target=lambda: seen.append(voicenote.is_delivering()))
    worker.start()
    worker.join(TIMEOUT)
    assert seen == [False]
    assert "is_delivering" in voicenote.__all__


def test_true_inside_callbacks_on_the_event_thread_only() -> None:
    """Inside a callback on the event thread: True there (and in what it calls), while another thread asking at that
    very moment gets False; the event thread is the one recorded; False again in the subscription's on_release."""
    inside: Dict[str, Any] = {}
    other_thread_asked = threading.Event()
    released = threading.Event()
    release_seen: List[bool] = []

    def nested() -> bool:
        return voicenote.is_delivering()

    def callback(event: voicenote.TestEvent) -> None:
        inside["delivering"] = voicenote.is_delivering()
        inside["nested"] = nested()
        inside["event thread"] = _delivery.on_event_thread()
        inside["ident"] = threading.get_ident()
        asker = threading.Thread(target=lambda: inside.setdefault("other thread", voicenote.is_delivering()))
        asker.start()
        asker.join(TIMEOUT)  # asked while this callback runs
        other_thread_asked.set()

    def on_release() -> None:
        release_seen.append(voicenote.is_delivering())
        released.set()

    with voicenote.TestSource() as source:
        subscription = source.subscribe(callback, on_release=on_release)
        source.emit(1)
        wait_event(other_thread_asked, "the callback on the event thread")
        subscription.unsubscribe()
    wait_event(released, "the release")
    assert inside["delivering"] is True and inside["nested"] is True
    assert inside["other thread"] is False
    assert inside["event thread"] is True and inside["ident"] != threading.get_ident()
    assert release_seen == [False]
    assert voicenote.is_delivering() is False and not _delivery.on_event_thread()


def test_true_inside_dispatch_callbacks_on_the_dispatching_thread() -> None:
    """A loop's callbacks run inside dispatch() on this thread: True there, False before and after; this thread is
    never taken for the event thread."""
    seen: List[tuple] = []
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        source.subscribe(lambda event: seen.append((voicenote.is_delivering(), _delivery.on_event_thread(),
                                                    threading.get_ident())))
        source.emit(3)
        assert loop.wait(TIMEOUT)
        assert voicenote.is_delivering() is False
        while len(seen) < 3:
            assert loop.wait(TIMEOUT), "the events never became pending"
            loop.dispatch()
        assert voicenote.is_delivering() is False
    assert seen == [(True, False, threading.get_ident())] * 3


def test_true_in_every_object_s_callbacks() -> None:
    """The shared event trampoline marks them too: a player's first context event, on the event thread and through
    a loop."""
    seen: List[bool] = []
    delivered = threading.Event()

    def on_event(event: Any) -> None:
        seen.append(voicenote.is_delivering())
        delivered.set()

    with voicenote.Player() as player:
        player.subscribe(on_event)
        wait_event(delivered, "the player's first context")
    with voicenote.EventLoop() as loop, voicenote.Player(loop=loop) as player:
        player.subscribe(on_event)
        assert loop.wait(TIMEOUT)
        loop.dispatch()
    assert seen and all(seen), seen


def test_an_exception_in_a_callback_ends_the_mark(caplog: pytest.LogCaptureFixture) -> None:
    """A callback that raises (logged, ignored) leaves the thread's record as it found it."""
    after: List[bool] = []
    done = threading.Event()
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source:
        def broken(event: voicenote.TestEvent) -> None:
            raise RuntimeError("callback failure")

        source.subscribe(broken)
        source.subscribe(lambda event: (after.append(voicenote.is_delivering()), done.set()))
        source.emit(1)
        assert loop.wait(TIMEOUT)
        loop.dispatch()
        assert done.is_set()
        assert voicenote.is_delivering() is False
    assert after == [True]
    errors = [r for r in caplog.records if r.name == "voicenote" and r.levelno >= logging.ERROR]
    assert len(errors) == 1 and isinstance(errors[0].exc_info[1], RuntimeError)
    caplog.clear()
