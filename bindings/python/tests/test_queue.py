"""Queue players (``voicenote.QueuePlayer``, docs/queue.md): a data source answers which location plays after the
current one; the items play back to back, with ``PlayerItemChanged`` and ``PlaybackFinished`` for each, and the
queue stops when the data source has no answer.

Notes are three short Ogg Opus tones of different pitch (audiofiles.make_tones), so the order they were heard in
can be read back from the speaker's output; the speaker is ALSA's ``file`` plugin over ``null`` (as in
test_player.py: not paced, every frame played is written to a raw file). Remote notes come from the repository's
test HTTP server (Tests/Servers/http_server.py), whose request log tells when each request started and ended; each
test has its own media cache (conftest.py).

Every wait is bounded (``helpers.TIMEOUT``) and waits for a condition, never a sleep.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

import pytest

from audiofiles import REPO_ROOT, TONE_FREQUENCIES, TONE_SECONDS, assert_tones_in_order
from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_event, wait_until
from test_player import contexts, file_speaker, frames

import voicenote
from voicenote import (NoteListened, PlaybackFailed, PlaybackFinished, PlayerContextEvent, PlayerItemChanged,
                       PlayerState, QueueLocation, QueuePlayer, _capi, _player, _queue)

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402

RATE = 48000
#: Frames of one tone.
TONE_FRAMES = int(TONE_SECONDS * RATE)
#: The Stream fixture of the next-item provider.
FIXTURE = REPO_ROOT / "Tests" / "Fixtures" / "messages" / "stream-next-item.json"


# --- helpers -------------------------------------------------------------------------------------------------------


def queue_player(output: Path, **options: Any) -> QueuePlayer:
    """A queue player on a file speaker writing ``output``."""
    return QueuePlayer(device="vn_spk", device_config=file_speaker(output), **options)


def playlist(locations: Sequence[Any], calls: Optional[List[str]] = None) -> Callable[[str], Any]:
    """A data source over a list: the location after ``current`` (compared as text), None after the last; each
    ``current`` it is asked about is appended to ``calls``."""
    names = [str(location.location if isinstance(location, QueueLocation) else location) for location in locations]

    def following(current: str) -> Any:
        if calls is not None:
            calls.append(current)
        index = names.index(current) + 1
        return locations[index] if index < len(locations) else None

    return following


def timeline(events: List[Any]) -> List[Any]:
    """The events that are not contexts (nor listened marks), in order, as tuples: ``("changed", location, key)``,
    ``("finished", location)``, ``("failed", status)``; anything else as itself."""
    described: List[Any] = []
    for event in events:
        if isinstance(event, PlayerItemChanged):
            described.append(("changed", event.location, event.key))
        elif isinstance(event, PlaybackFinished):
            described.append(("finished", event.location))
        elif isinstance(event, PlaybackFailed):
            described.append(("failed", event.error.code))
        elif not isinstance(event, (PlayerContextEvent, NoteListened)):  # listened: test_listened.py
            described.append(event)
    return described


def changed(location: str, key: Optional[str] = None) -> Any:
    return ("changed", location, location if key is None else key)


def changes(events: List[Any]) -> List[str]:
    """The locations of the PlayerItemChanged events, in order."""
    return [event.location for event in events if isinstance(event, PlayerItemChanged)]


def queue_ended(items: List[Any], finished: int) -> bool:
    """``finished`` PlaybackFinished came, then a STOPPED context."""
    ends = [i for i, event in enumerate(items) if isinstance(event, PlaybackFinished)]
    return len(ends) >= finished and any(c.state is PlayerState.STOPPED for c in contexts(items[ends[-1]:]))


def wait_queue_end(log: Collector, finished: int, what: str = "the end of the queue") -> List[Any]:
    return log.wait_for(lambda items: queue_ended(items, finished), what=what)


def not_loaded_after_failure(items: List[Any]) -> bool:
    """A PlaybackFailed came, then a NOT_LOADED context (a queue shows it only when it ends)."""
    fails = [i for i, event in enumerate(items) if isinstance(event, PlaybackFailed)]
    return bool(fails) and any(c.state is PlayerState.NOT_LOADED for c in contexts(items[fails[-1]:]))


def expected_timeline(locations: Sequence[str]) -> List[Any]:
    """The timeline of locations played in order, each its own key (paths given absolute, URLs without a key):
    changed, finished for each."""
    result: List[Any] = []
    for location in locations:
        result += [changed(location), ("finished", location)]
    return result


def thread_name() -> str:
    """The calling thread's name as the kernel has it (a library thread has no Python name)."""
    with open("/proc/thread-self/comm", encoding="utf-8", errors="replace") as comm:
        return comm.read().strip()


@pytest.fixture
def server(tones: List[Path]) -> Iterator[HTTPTestServer]:
    """The test HTTP server over the tones' folder, stopped after the test."""
    with HTTPTestServer(tones[0].parent) as running:
        yield running


def requests_for(server: HTTPTestServer, path: str) -> List[Dict[str, Any]]:
    return [request for request in server.requests() if request["path"] == path]


# --- back to back --------------------------------------------------------------------------------------------------


def test_three_notes_play_back_to_back(tones: List[Path], tmp_path: Path) -> None:
    """The host loads the first note; the data source answers the second and the third (on the player's thread
    ``vn-player``), then nothing: PlayerItemChanged and PlaybackFinished for each, in order, then STOPPED. The
    speaker heard the three tones in order, without a silence over 50 ms between them."""
    output = tmp_path / "out.raw"
    notes = [str(tone) for tone in tones]
    calls: List[str] = []
    threads: List[str] = []
    order = playlist(notes, calls)

    def data_source(current: str) -> Any:
        threads.append(thread_name())
        return order(current)

    log = Collector()
    with queue_player(output, data_source=data_source) as player:
        assert player.data_source is data_source
        player.subscribe(log.add)
        player.load(notes[0])
        events = wait_queue_end(log, 3)
        assert timeline(events) == expected_timeline(notes)
        # Each item's context comes after its PlayerItemChanged, with its location.
        item_changes = [i for i, event in enumerate(events) if isinstance(event, PlayerItemChanged)]
        for index, note in zip(item_changes, notes):
            following = next(event for event in events[index + 1:] if isinstance(event, PlayerContextEvent))
            assert following.context.location == note
        end = player.context
        assert end.state is PlayerState.STOPPED and end.location == notes[2] and end.current_time == 0.0
    assert set(calls) == set(notes) and calls.index(notes[0]) < calls.index(notes[1]) < calls.index(notes[2])
    assert set(threads) == {"vn-player"}
    assert_tones_in_order(output, TONE_FREQUENCIES)


def test_the_hosts_load_is_an_item_change_with_the_absolute_path_as_key(tones: List[Path], tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With a data source set, the host's own load of a relative path is a PlayerItemChanged naming it as given,
    with its absolute path as the key; without one (a plain player again), no PlayerItemChanged comes."""
    monkeypatch.chdir(tones[0].parent)
    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=lambda current: None) as player:
        player.subscribe(log.add)
        player.load(tones[0].name)
        events = wait_queue_end(log, 1)
        assert timeline(events) == [changed(tones[0].name, str(tones[0])), ("finished", tones[0].name)]
        player.data_source = None
        assert player.data_source is None
        player.load(tones[1].name)
        events = wait_queue_end(log, 2)
        assert timeline(events)[2:] == [("finished", tones[1].name)]


def test_the_item_changed_event_and_unknown_event_types() -> None:
    """The event conversion: ITEM_CHANGED gives PlayerItemChanged; a type this binding does not know gives None
    (not delivered); a library that filled a shorter struct gives an empty key."""
    raw = _capi.vn_player_event()
    raw.size = ctypes.sizeof(_capi.vn_player_event)
    raw.type = _capi.VN_PLAYER_EVENT_ITEM_CHANGED
    raw.location = b"/notes/a.ogg"
    raw.key = b"message-1/0"
    assert _player._convert_event(raw) == PlayerItemChanged("/notes/a.ogg", "message-1/0")
    raw.size = _capi.vn_player_event.key.offset
    assert _player._convert_event(raw) == PlayerItemChanged("/notes/a.ogg", "")
    raw.size = ctypes.sizeof(_capi.vn_player_event)
    raw.type = 99
    assert _player._convert_event(raw) is None


# --- the built-in provider over messages ---------------------------------------------------------------------------


def local_messages(tones: List[Path]) -> Dict[str, Any]:
    """The Stream fixture with its voice recordings' asset_urls (vr1, vr2, vr3) rewritten to the tones' paths."""
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    paths = {f"https://cdn.example.com/vr{index + 1}.ogg": str(tone) for index, tone in enumerate(tones)}
    for message in fixture["messages"]:
        for attachment in message.get("attachments", []):
            if attachment.get("asset_url") in paths:
                attachment["asset_url"] = paths[attachment["asset_url"]]
    assert sum(1 for message in fixture["messages"] for attachment in message.get("attachments", [])
               if attachment.get("asset_url") in paths.values()) == 3
    return fixture


@pytest.mark.parametrize("scope, as_text, played", [
    ("subsequent-messages-from-user", False, 3),
    ("consecutive", True, 3),
    ("same-message", False, 2),
])
def test_use_messages_plays_what_find_next_item_names(tones: List[Path], tmp_path: Path, scope: str,
                                                       as_text: bool, played: int) -> None:
    """Over the Stream fixture (asset_urls rewritten to the tones), the player plays from the first voice
    recording the chain find_next_item gives for the scope, then stops; messages as JSON text or as lists and
    dicts."""
    fixture = local_messages(tones)
    user = fixture["current_user_id"]
    chain = [str(tones[0])]
    while (following := voicenote.find_next_item(fixture, chain[-1], user, scope)) is not None:
        chain.append(following)
        assert len(chain) <= 3, chain
    assert chain == [str(tone) for tone in tones[:played]]
    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output) as player:
        player.use_messages(json.dumps(fixture) if as_text else fixture, user, scope)
        assert player.uses_messages and player.data_source is None
        player.subscribe(log.add)
        player.load(chain[0])
        events = wait_queue_end(log, len(chain))
        assert timeline(events) == expected_timeline(chain)
    assert_tones_in_order(output, TONE_FREQUENCIES[:played])


def test_use_messages_refuses_bad_arguments_and_keeps_the_data_source(tones: List[Path]) -> None:
    fixture = local_messages(tones)

    def data_source(current: str) -> None:
        return None

    with QueuePlayer(data_source=data_source) as player:
        with pytest.raises(ValueError) as caught:
            player.use_messages(fixture, "C", "next")
        assert isinstance(caught.value, voicenote.InvalidArgumentError)
        with pytest.raises(TypeError):
            player.use_messages(fixture, "C", 1)  # type: ignore[arg-type]
        with pytest.raises(voicenote.FormatError):
            player.use_messages("{not json", "C", "consecutive")
        with pytest.raises(TypeError):
            player.use_messages(5, "C", "consecutive")  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            player.use_messages(fixture, "C\0", "consecutive")
        assert player.data_source is data_source and not player.uses_messages
        player.use_messages(fixture["messages"], None, "same-message")
        assert player.uses_messages and player.data_source is None
        player.data_source = data_source
        assert player.data_source is data_source and not player.uses_messages
    assert player.data_source is None
    with pytest.raises(ValueError):
        player.use_messages(fixture, "C", "consecutive")


def test_replacing_the_messages_while_an_item_plays_changes_what_follows(tones: List[Path], server: HTTPTestServer,
                                                                        tmp_path: Path) -> None:
    """The first note comes slowly (a throttled download: it plays while it arrives). Its messages name the 660 Hz
    note next; replaced while it plays, by messages naming the 880 Hz note next, that one plays instead."""
    first = server.url(f"/throttle/4000/{tones[0].name}")
    second, third = (server.url(f"/range/{tone.name}") for tone in tones[1:])

    def messages(following: str) -> List[Dict[str, Any]]:
        return [{"id": "m1", "user": {"id": "B"}, "attachments": [{"type": "voiceRecording", "asset_url": first}]},
                {"id": "m2", "user": {"id": "B"}, "attachments": [{"type": "voiceRecording", "asset_url": following}]}]

    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output) as player:
        player.use_messages(messages(second), "C", "subsequent-messages-from-user")
        player.subscribe(log.add)
        player.load(first)
        log.wait_for(lambda items: any(c.state is PlayerState.PLAYING and c.location == first for c in contexts(items)),
                     what="the first note to play")
        player.use_messages(messages(third), "C", "subsequent-messages-from-user")
        replaced = time.monotonic()
        events = wait_queue_end(log, 2)
        assert changes(events) == [first, third]
    # The first note was still arriving (so still playing) when the messages were replaced.
    download = requests_for(server, f"/throttle/4000/{tones[0].name}")[0]
    assert download["completed"] and download["time"] > replaced
    assert_tones_in_order(output, [TONE_FREQUENCIES[0], TONE_FREQUENCIES[2]])


# --- failures ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("missing_at", [0, 1])
def test_a_missing_file_fails_and_the_queue_goes_on(tones: List[Path], tmp_path: Path, missing_at: int) -> None:
    """A missing file in the queue (first, as the host's load, or in the middle): PlayerItemChanged, PlaybackFailed
    with NotFoundError, and the data source is asked what follows it: the rest plays."""
    missing = str(tmp_path / "no-such-note.ogg")
    notes = [str(tone) for tone in tones[:2]]
    notes.insert(missing_at, missing)
    calls: List[str] = []
    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output, data_source=playlist(notes, calls)) as player:
        player.subscribe(log.add)
        player.load(notes[0])
        events = wait_queue_end(log, 2)
        expected = expected_timeline([note for note in notes if note != missing])
        expected[2 * missing_at:2 * missing_at] = [changed(missing), ("failed", _capi.VN_E_NOT_FOUND)]
        assert timeline(events) == expected
        failure = next(event for event in events if isinstance(event, PlaybackFailed)).error
        assert isinstance(failure, voicenote.NotFoundError) and failure.code == _capi.VN_E_NOT_FOUND
        assert player.context.state is PlayerState.STOPPED and player.context.last_status == 0
    assert missing in calls  # asked about the failed item
    assert_tones_in_order(output, TONE_FREQUENCIES[:2])


def test_three_failed_loads_in_a_row_stop_the_queue(tones: List[Path], tmp_path: Path) -> None:
    """A data source that keeps naming new missing files (a channel of broken notes): three failed loads in a row
    end the queue with a PlaybackFailed saying why, after pauses between them; never a storm of loads."""
    calls: List[str] = []

    def missing_forever(current: str) -> str:
        calls.append(current)
        return str(tmp_path / f"missing-{len(calls)}.ogg")

    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=missing_forever) as player:
        player.subscribe(log.add)
        started = time.monotonic()
        player.load(str(tmp_path / "missing-0.ogg"))
        events = log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) and "in a row" in str(e.error)
                                                for e in items) and not_loaded_after_failure(items),
                              what="the queue to stop")
        failures = [e.error for e in events if isinstance(e, PlaybackFailed)]
        assert len(failures) == 4, failures  # three loads, then why the queue stopped
        assert "3 notes in a row failed to load" in str(failures[-1]) and isinstance(failures[-1], voicenote.NotFoundError)
        assert time.monotonic() - started >= 0.7  # 0.25 s, then 0.5 s between the loads: a back-off, not a storm
    assert len(calls) == 2, calls


def test_a_channel_of_broken_notes_costs_a_few_requests_not_one_per_message(
        tones: List[Path], server: HTTPTestServer, tmp_path: Path) -> None:
    first = server.url(f"/range/{tones[0].name}")
    messages = [{"id": "0", "user": {"id": "mallory"}, "attachments": [{"type": "voiceRecording", "asset_url": first}]}]
    messages += [{"id": str(n), "user": {"id": "mallory"},
                  "attachments": [{"type": "voiceRecording", "asset_url": server.url(f"/status/404?n={n}")}]}
                 for n in range(1, 2000)]
    log = Collector()
    with queue_player(tmp_path / "out.raw") as player:
        player.subscribe(log.add)
        player.use_messages(messages, "me", "consecutive")
        player.load(first)
        log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) and "in a row" in str(e.error) for e in items),
                     what="the queue to stop")
    def broken() -> List[str]:
        return [r["path"] for r in server.requests() if r["path"].startswith("/status/")]

    # The server logs a request after its response is sent: the third failure can reach the queue first.
    wait_until(lambda: len(broken()) >= 3)
    assert 3 <= len(broken()) <= 4, broken()  # three failed loads (and maybe one ask-ahead)


def test_answering_the_failed_location_again_ends_the_queue(tones: List[Path], tmp_path: Path) -> None:
    """After the first note, the data source answers a missing file, and asked about that, the missing file again:
    one failure, then the queue ends NOT_LOADED instead of looping."""
    missing = str(tmp_path / "missing.ogg")
    calls: List[str] = []

    def data_source(current: str) -> str:
        calls.append(current)
        return missing

    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=data_source) as player:
        player.subscribe(log.add)
        player.load(tones[0])
        events = log.wait_for(not_loaded_after_failure, what="the end of the queue after the failure")
        assert timeline(events) == expected_timeline([str(tones[0])]) + [changed(missing),
                                                                         ("failed", _capi.VN_E_NOT_FOUND)]
        context = player.context
        assert context.state is PlayerState.NOT_LOADED and context.location == missing
        assert context.last_status == _capi.VN_E_NOT_FOUND
    assert calls.count(missing) == 1


def test_two_missing_files_answering_each_other_end_the_queue(tmp_path: Path) -> None:
    first, second = str(tmp_path / "one.ogg"), str(tmp_path / "two.ogg")
    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=lambda current: second if current == first else first) as player:
        player.subscribe(log.add)
        player.load(first)
        events = log.wait_for(lambda items: sum(isinstance(e, PlaybackFailed) for e in items) == 2
                              and not_loaded_after_failure(items), what="two failures and the end")
        assert timeline(events) == [changed(first), ("failed", _capi.VN_E_NOT_FOUND), changed(second),
                                    ("failed", _capi.VN_E_NOT_FOUND)]
        assert player.context.state is PlayerState.NOT_LOADED


# --- the data source calling into the player ------------------------------------------------------------------------


def test_a_data_source_may_call_into_the_player(tones: List[Path], tmp_path: Path) -> None:
    """A data source that reads the context and sets the rate (on the player's thread, while the player waits for
    it) does not deadlock; the queue plays on at that rate."""
    notes = [str(tone) for tone in tones]
    order = playlist(notes)
    seen: List[str] = []
    holder: Dict[str, QueuePlayer] = {}

    def data_source(current: str) -> Any:
        player = holder["player"]
        seen.append(player.context.location)
        player.rate = 2.0
        return order(current)

    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output, data_source=data_source) as player:
        holder["player"] = player
        player.subscribe(log.add)
        player.load(notes[0])
        events = wait_queue_end(log, 3)
        assert timeline(events) == expected_timeline(notes)
        assert player.rate == 2.0
    assert seen and set(seen) <= set(notes)
    # Asked ahead at once (the notes are short, under 5 s), so all three played at 2x.
    assert frames(output) == pytest.approx(1.5 * TONE_FRAMES, rel=0.05)


def test_a_data_source_may_close_the_player(tones: List[Path], tmp_path: Path) -> None:
    """close() from inside the data source returns; the subscription is released, and the data source once it
    returned (nothing keeps it alive after that)."""
    closed = threading.Event()
    released = threading.Event()
    dropped = threading.Event()

    class Closer:
        player: Optional[QueuePlayer] = None

        def __call__(self, current: str) -> str:
            assert self.player is not None
            self.player.close()
            closed.set()
            return str(tones[1])

    closer = Closer()
    weakref.finalize(closer, dropped.set)
    player = queue_player(tmp_path / "out.raw", data_source=closer)
    closer.player = player
    del closer  # the player (the library, until its release) holds the only reference
    log = Collector()
    player.subscribe(log.add, on_release=released.set)
    player.load(tones[0])
    wait_event(closed, "close() inside the data source to return")
    wait_event(released, "the subscription to be released")
    wait_event(dropped, "the data source to be released")
    assert player.closed and player.data_source is None
    assert not _queue._data_sources
    assert str(tones[1]) not in changes(log.snapshot())
    with pytest.raises(ValueError):
        player.next()


def test_a_raising_data_source_ends_the_queue_and_reaches_the_unraisable_hook(tones: List[Path], tmp_path: Path) -> None:
    """An exception in the data source is no answer (the queue stops after the note) and goes to
    sys.unraisablehook, as does a result of the wrong type."""
    for result, error_type in ((RuntimeError("the data source failed"), RuntimeError), (42, TypeError)):
        reported: List[Any] = []
        previous = sys.unraisablehook
        sys.unraisablehook = reported.append

        def data_source(current: str) -> Any:
            if isinstance(result, BaseException):
                raise result
            return result

        try:
            log = Collector()
            with queue_player(tmp_path / "out.raw", data_source=data_source) as player:
                player.subscribe(log.add)
                player.load(tones[0])
                events = wait_queue_end(log, 1)
                assert timeline(events) == expected_timeline([str(tones[0])])
                assert player.context.state is PlayerState.STOPPED
        finally:
            sys.unraisablehook = previous
        assert reported, "nothing reached sys.unraisablehook"
        assert all(isinstance(report.exc_value, error_type) for report in reported)
        if isinstance(result, BaseException):
            assert reported[0].exc_value is result
        assert "QueuePlayer data source" in repr(reported[0].object)


#: A child that exits while its queue player plays a note over and over, its data source busy on the player's
#: thread: the package's exit hook must close the player cleanly, releasing the data source before finalization.
EXIT_CHILD = r"""
import sys, threading, time
import voicenote

note, config = sys.argv[1], sys.argv[2]
asked = threading.Event()
calls = []

class Again:
    def __call__(self, current):
        calls.append(current)
        if len(calls) >= 3:
            asked.set()
        deadline = time.monotonic() + 0.05
        while time.monotonic() < deadline:  # busy in the hook when the interpreter starts to exit
            pass
        return current  # the same note again: the queue never ends by itself

    def __del__(self):  # not weakref.finalize: its own exit hook turns finalizers off before the package's runs
        print("released", flush=True)

player = voicenote.QueuePlayer(device="vn_spk", device_config=config, data_source=Again())
player.subscribe(lambda event: None)
player.load(note)
if not asked.wait(float(sys.argv[3])):
    print("timed out waiting for the data source", file=sys.stderr)
    sys.exit(3)
print("asked", flush=True)
# Exit without closing the player: the atexit hook must.
"""


def test_the_interpreter_exits_cleanly_while_the_data_source_runs(tones: List[Path], tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([sys.executable, "-c", EXIT_CHILD, str(tones[0]), file_speaker(tmp_path / "out.raw"),
                            str(TIMEOUT)], capture_output=True, text=True, env=env, timeout=2 * TIMEOUT)
    detail = f"rc={child.returncode}\nstdout:\n{child.stdout}\nstderr:\n{child.stderr}"
    assert child.returncode == 0, detail
    assert child.stderr == "", detail
    assert child.stdout == "asked\nreleased\n", detail


# --- next() --------------------------------------------------------------------------------------------------------


def test_next_skips_now_and_keeps_the_position(tones: List[Path], tmp_path: Path) -> None:
    """next() on a paused item: the data source is asked, the next note plays (no PlaybackFinished for the one
    skipped), and the rest of the queue follows. The skipped note's position is kept for a later load."""
    notes = [str(tone) for tone in tones]
    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output, data_source=playlist(notes)) as player:
        player.subscribe(log.add)
        player.load(notes[0], autoplay=False)
        log.wait_for(lambda items: any(c.state is PlayerState.PAUSED for c in contexts(items)), what="PAUSED")
        player.seek(1.0)
        log.wait_for(lambda items: any(c.current_time == pytest.approx(1.0, abs=0.05) and not c.is_seeking
                                       for c in contexts(items)), what="the seek")
        player.next()
        events = wait_queue_end(log, 2)
        assert timeline(events) == [changed(notes[0])] + expected_timeline(notes[1:])
        player.data_source = None
        player.load(notes[0], autoplay=False)
        events = log.wait_for(lambda items: contexts(items)[-1].state is PlayerState.PAUSED
                              and contexts(items)[-1].location == notes[0], what="the skipped note loaded again")
        assert contexts(events)[-1].current_time == pytest.approx(1.0, abs=0.05)
    assert_tones_in_order(output, TONE_FREQUENCIES[1:])


def test_next_without_an_answer_stops(tones: List[Path], tmp_path: Path) -> None:
    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=lambda current: None) as player:
        player.subscribe(log.add)
        player.load(tones[0], autoplay=False)
        log.wait_for(lambda items: any(c.state is PlayerState.PAUSED for c in contexts(items)), what="PAUSED")
        player.next()
        events = log.wait_for(lambda items: contexts(items)[-1].state is PlayerState.STOPPED, what="STOPPED")
        assert timeline(events) == [changed(str(tones[0]))]
        assert player.context.current_time == 0.0


def test_next_after_a_failed_load_asks_about_the_failed_item(tones: List[Path], tmp_path: Path) -> None:
    """A queue whose first item is missing and has no answer ends NOT_LOADED; next() then asks about the failed
    item again, and a ``file://`` answer plays (its key is the path)."""
    missing = str(tmp_path / "missing.ogg")
    answers: Dict[str, str] = {}
    calls: List[str] = []

    def data_source(current: str) -> Optional[str]:
        calls.append(current)
        return answers.get(current)

    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=data_source) as player:
        player.subscribe(log.add)
        player.load(missing)
        log.wait_for(not_loaded_after_failure, what="the failed load to end the queue")
        assert calls == [missing]
        answers[missing] = tones[0].as_uri()
        player.next()
        events = wait_queue_end(log, 1)
        assert timeline(events) == [changed(missing), ("failed", _capi.VN_E_NOT_FOUND),
                                    changed(tones[0].as_uri(), str(tones[0])), ("finished", tones[0].as_uri())]
    assert calls[:2] == [missing, missing]


def test_next_and_data_source_misuse(tones: List[Path]) -> None:
    with QueuePlayer() as player:
        assert player.data_source is None and not player.uses_messages
        with pytest.raises(voicenote.MisuseError):
            player.next()  # no data source
        player.data_source = lambda current: None
        with pytest.raises(voicenote.MisuseError):
            player.next()  # nothing loaded
        player.data_source = lambda current: None  # the one replaced is released (no call of it runs)
        assert len(_queue._data_sources) == 1
        with pytest.raises(TypeError):
            player.data_source = "not callable"  # type: ignore[assignment]
        assert player.data_source is not None
    with pytest.raises(ValueError):
        player.data_source = lambda current: None
    with pytest.raises(TypeError):
        QueuePlayer(data_source=5)  # type: ignore[arg-type]


# --- URLs ----------------------------------------------------------------------------------------------------------


def test_queue_location_headers_and_key_reach_the_server(tones: List[Path], server: HTTPTestServer,
                                                         tmp_path: Path) -> None:
    """A QueueLocation's headers go with the request (a server that wants a bearer token plays it) and its key
    names the item; the same URL answered as a plain str goes without them (HTTP 401), which ends the queue."""
    protected = server.url(f"/auth/secret/range/{tones[1].name}")
    answers = {str(tones[0]): QueueLocation(protected, headers={"Authorization": "Bearer secret"}, key="message-7/0"),
               protected: protected}
    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=answers.get) as player:
        player.subscribe(log.add)
        player.load(tones[0])
        events = log.wait_for(not_loaded_after_failure, what="the protected note, then the failure")
        assert timeline(events) == expected_timeline([str(tones[0])]) + [
            changed(protected, "message-7/0"), ("finished", protected),
            changed(protected), ("failed", _capi.VN_E_PERMISSION)]
        failure = next(event for event in events if isinstance(event, PlaybackFailed)).error
        assert isinstance(failure, voicenote.AccessDeniedError) and "HTTP 401" in str(failure)
    path = f"/auth/secret/range/{tones[1].name}"
    played = [request for request in requests_for(server, path) if request["status"] in (200, 206)]
    assert played and all(request["headers"].get("authorization") == "Bearer secret" for request in played)
    assert any(request["status"] == 401 and "authorization" not in request["headers"]
               for request in requests_for(server, path))


def test_use_messages_sends_the_current_headers_to_the_same_origin_only(tones: List[Path], server: HTTPTestServer,
                                                                         tmp_path: Path) -> None:
    """The host loads a protected URL with its bearer token; the messages name a second one on the same origin
    (fetched with the token: it plays) and a third on another origin (``localhost`` instead of ``127.0.0.1``, the
    same server): fetched without the token, it fails with HTTP 401 and the queue ends."""
    path = "/auth/secret/range/{}"
    first, second = (server.url(path.format(tone.name)) for tone in tones[:2])
    other_origin = f"http://localhost:{server.port}" + path.format(tones[2].name)
    messages = [{"id": f"m{index}", "user": {"id": "B"},
                 "attachments": [{"type": "voiceRecording", "asset_url": url}]}
                for index, url in enumerate((first, second, other_origin))]
    log = Collector()
    with queue_player(tmp_path / "out.raw") as player:
        player.use_messages(messages, "C", "subsequent-messages-from-user")
        player.subscribe(log.add)
        player.load(first, headers={"Authorization": "Bearer secret"})
        events = log.wait_for(not_loaded_after_failure, what="two notes, then the failure")
        assert timeline(events) == expected_timeline([first, second]) + [changed(other_origin),
                                                                         ("failed", _capi.VN_E_PERMISSION)]
    for name in (tones[0].name, tones[1].name):
        requests = requests_for(server, path.format(name))
        assert requests and all(request["headers"].get("authorization") == "Bearer secret" for request in requests)
    refused = requests_for(server, path.format(tones[2].name))
    assert refused and all(request["status"] == 401 and "authorization" not in request["headers"]
                           for request in refused)


def test_queue_location_checks_its_arguments(tmp_path: Path) -> None:
    assert QueueLocation("https://example.org/a.ogg", key="k").has_url_options
    assert not QueueLocation(tmp_path / "a.ogg").has_url_options
    for options in ({"headers": {"A": "b"}}, {"key": "k"}, {"http": voicenote.HTTPOptions()}):
        with pytest.raises(ValueError):
            QueueLocation(str(tmp_path / "a.ogg"), **options)
    with pytest.raises(TypeError):
        QueueLocation(b"/a.ogg")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        QueueLocation("https://example.org/a.ogg", key=5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        QueueLocation("https://example.org/a.ogg", http={"headers": {}})  # type: ignore[arg-type]


def test_a_queue_of_urls_fetches_the_next_one_ahead(tones: List[Path], server: HTTPTestServer,
                                                    tmp_path: Path) -> None:
    """Three Ogg Opus URLs, the second served slowly (throttled, so it plays while it arrives). The second note is
    shorter than 5 s, so the queue asks ahead as soon as it plays and starts downloading the third: the third's
    request starts while the second's response is still being sent, so before the second's PlaybackFinished
    (which needs its last byte), and the load at the end takes that download (one request for the third)."""
    paths = [f"/range/{tones[0].name}", f"/throttle/6000/{tones[1].name}", f"/range/{tones[2].name}"]
    urls = [server.url(path) for path in paths]
    output = tmp_path / "out.raw"
    log = Collector()
    with queue_player(output, data_source=playlist(urls)) as player:
        player.subscribe(lambda event: log.add((time.monotonic(), event)))
        player.load(urls[0])
        stamped = log.wait_for(lambda items: queue_ended([event for _, event in items], 3), what="the three URLs")
    events = [event for _, event in stamped]
    assert timeline(events) == [item for url in urls for item in (changed(url), ("finished", url))]
    second_finished = next(at for at, event in stamped if event == PlaybackFinished(urls[1]))
    second = requests_for(server, paths[1])
    third = requests_for(server, paths[2])
    assert len(third) == 1, third
    assert third[0]["start"] < second_finished
    # Stronger: a response of the second URL was still running when the third was requested.
    assert any(request["start"] < third[0]["start"] < request["time"] for request in second), (second, third)
    assert_tones_in_order(output, TONE_FREQUENCIES)


@pytest.mark.parametrize("sent, state", [(4000, PlayerState.LOADING), (12000, PlayerState.PLAYING)])
def test_next_wakes_a_read_stalled_on_the_network(tones: List[Path], server: HTTPTestServer, tmp_path: Path,
                                                  sent: int, state: PlayerState) -> None:
    """The first URL sends a few kB and then nothing (with a stall timeout of 60 s, so only a woken read ends the
    wait), stalling the player while it loads or while it plays: next() skips at once to the local note after it,
    with no failure, instead of waiting for the network."""
    url = server.url(f"/stall/{sent}/{tones[0].name}")
    log = Collector()
    with queue_player(tmp_path / "out.raw", data_source=playlist([url, str(tones[1])])) as player:
        player.subscribe(log.add)
        player.load(url, http=voicenote.HTTPOptions(stall_timeout=60))
        log.wait_for(lambda events: any(isinstance(event, PlayerContextEvent) and event.context.state == state
                                        for event in events), what=f"the stalled URL {state.name}")
        skipped_at = time.monotonic()
        player.next()
        log.wait_for(lambda events: any(isinstance(event, PlayerItemChanged) and event.location == str(tones[1])
                                        for event in events), what="the skip to the local note")
        assert time.monotonic() - skipped_at < 10
        log.wait_for(lambda events: PlaybackFinished(str(tones[1])) in events, what="the local note's end")
    assert not any(isinstance(event, PlaybackFailed) for event in log.items), log.items
