"""Drafts and remembered positions tried as a hurried user, a second process and a hostile local user would: a parked
take survives close at every stage of stopping and SIGKILL at every step of park and restore; two and eight
processes on one key never replace each other's take; records name only files in their own directory and unreadable
ones can be cleared; every file written aside gets a fresh name (a planted symlink or FIFO is never written through
or waited on); the positions' lock and directory are never trusted blindly. Microphones are ALSA's ``file`` plugin
(tests/test_flow.py's ``Rig``); each test has its own drafts and cache directories."""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from audiofiles import is_tsan_build, loaded_library_path, write_tone
from helpers import PACKAGE_ROOT, TIMEOUT, wait_until
from test_flow import Rig, draft_flow, listing, preview_of
from test_player import file_speaker

import voicenote
from voicenote import FlowState, FlowViewEvent

KEY = "!room:example.org"
PROCESSES_NOT_THREADS = pytest.mark.skipif(
    is_tsan_build(loaded_library_path()),
    reason="several processes and their file locks, not the thread contract the TSan run is for; the plain suite runs them")
HEX = KEY.encode().hex()


def drafts_dir(tmp_path: Path) -> Path:
    return tmp_path / "drafts"


def next_flow_state(tmp_path: Path, key: str = KEY) -> FlowState:
    """The state a new flow with ``key`` starts in (PREVIEW: the draft was restored)."""
    rig = draft_flow(tmp_path, key)
    try:
        first = rig.events.wait_count(1)[0]
        assert isinstance(first, FlowViewEvent)
        return first.view.state
    finally:
        rig.close()


def stray_takes(tmp_path: Path) -> List[str]:
    """Takes left in the recorder's own directory (a draft flow records in the drafts directory)."""
    takes = tmp_path / "takes"
    return sorted(os.listdir(takes)) if takes.exists() else []


def leave_at(note: Path, seconds: float, output: Path) -> None:
    """A listener loads ``note``, and once it is loaded (paused) seeks to ``seconds`` and leaves: the player's close
    keeps the position."""
    loaded = threading.Event()
    with voicenote.Player(device="vn_spk", device_config=file_speaker(output)) as player:
        player.subscribe(lambda e: loaded.set() if isinstance(e, voicenote.PlayerContextEvent)
                         and e.context.state is voicenote.PlayerState.PAUSED else None)
        player.load(note, autoplay=False)
        assert loaded.wait(TIMEOUT), "the note did not load"
        player.seek(seconds)


# --- close and park at every stage of stopping ---------------------------------------------------------------------

def test_park_then_close_at_once_keeps_the_take(tmp_path: Path) -> None:
    """What a client does when the user leaves a conversation: park() then close() with no wait between."""
    for attempt in range(3):
        rig = draft_flow(tmp_path, KEY)
        try:
            rig.hold_to_record()
            rig.flow.park()
        finally:
            rig.close()
        assert next_flow_state(tmp_path) is FlowState.PREVIEW, f"attempt {attempt}"
        assert stray_takes(tmp_path) == []
        [draft] = voicenote.flow_drafts(drafts_dir(tmp_path))
        assert draft.path.endswith(".ogg") and Path(draft.path).parent == drafts_dir(tmp_path)
        voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))


STAGES: Dict[str, Callable[[Rig], None]] = {
    "release (stopping to send)": lambda rig: rig.flow.release(),
    "stop (stopping into preview)": lambda rig: (rig.flow.lock(), rig.flow.stop()),
    "deactivate (stopping into preview)": lambda rig: rig.flow.deactivate(),
    "park (stopping to park)": lambda rig: rig.flow.park(),
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_close_while_a_take_is_stopping_keeps_it_as_the_draft(tmp_path: Path, stage: str) -> None:
    """The take's end is on its way when close() comes: the take is whole and stays the conversation's draft —
    unless the flow handed it to the host (AttachmentReady) before close, which makes it the host's."""
    rig = draft_flow(tmp_path, KEY)
    try:
        rig.hold_to_record()
        STAGES[stage](rig)
    finally:
        rig.close()
    sent = [e.take.path for e in rig.events.snapshot() if isinstance(e, voicenote.AttachmentReady)]
    if sent:
        assert os.path.exists(sent[0]) and voicenote.flow_drafts(drafts_dir(tmp_path)) == []
    else:
        assert next_flow_state(tmp_path) is FlowState.PREVIEW
    assert stray_takes(tmp_path) == []


def test_a_sent_take_whose_attachment_never_reached_the_host_stays_the_draft(tmp_path: Path) -> None:
    """A GUI host delivers on its own loop: the take is released (sent) and handed over, but the window closes before
    the loop dispatches AttachmentReady. The host never got the take, so it stays the conversation's draft."""
    Rig(tmp_path).close()  # makes mic.raw
    config = (f'pcm.vn_flow_mic {{ type file slave.pcm {{ type null }} file "/dev/null" '
              f'infile "{tmp_path}/mic.raw" format raw }}')
    with voicenote.Recorder(directory=str(tmp_path / "takes"), device="vn_flow_mic", device_config=config) as recorder, \
            voicenote.Player(device="null", remember_positions=False) as player, \
            voicenote.ManualClock() as clock, voicenote.EventLoop() as loop:
        flow = voicenote.RecordingFlow(recorder, player, clock=clock, loop=loop, draft_key=KEY,
                                       drafts_dir=str(drafts_dir(tmp_path)))
        seen: List[object] = []
        flow.subscribe(seen.append)
        flow.press(0, 0)
        clock.advance(0.5)
        assert wait_until(lambda: loop.dispatch() >= 0 and any(
            isinstance(e, FlowViewEvent) and e.view.duration > 0.5 for e in seen)), "nothing recorded"
        flow.release()  # a held take released: sent
        assert wait_until(lambda: flow.state is FlowState.IDLE), "the take was not handed over"
        flow.close()  # the loop never dispatched AttachmentReady
        assert not any(isinstance(e, voicenote.AttachmentReady) for e in seen)
    assert next_flow_state(tmp_path) is FlowState.PREVIEW


def test_close_while_recording_cancels_and_close_in_preview_or_parked_keeps(tmp_path: Path) -> None:
    rig = draft_flow(tmp_path, KEY)
    try:
        rig.hold_to_record()
    finally:
        rig.close()  # a running take is cancelled, as documented: no draft, no file
    assert voicenote.flow_drafts(drafts_dir(tmp_path)) == []
    assert [name for name in os.listdir(drafts_dir(tmp_path)) if not name.endswith(".lock")] == []
    for leave in ("preview", "parked"):
        rig = draft_flow(tmp_path, KEY)
        try:
            rig.hold_to_record()
            rig.flow.lock()
            rig.flow.stop()
            preview_of(rig)
            if leave == "parked":
                rig.flow.park()
                rig.wait_for(voicenote.Parked)
        finally:
            rig.close()
        assert next_flow_state(tmp_path) is FlowState.PREVIEW, leave
        voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))


def test_the_parked_event_names_the_take_where_it_stays(tmp_path: Path) -> None:
    rig = draft_flow(tmp_path, KEY)
    try:
        rig.hold_to_record()
        rig.flow.park()
        take = rig.wait_for(voicenote.Parked)[0].take
    finally:
        rig.close()
    payload = json.loads(take.payload_json)
    assert os.path.exists(take.path) and Path(take.path).parent == drafts_dir(tmp_path)
    assert payload["asset_url"] == Path(take.path).as_uri() and payload["title"] == Path(take.path).name
    assert voicenote.flow_drafts(drafts_dir(tmp_path))[0].path == take.path


# --- SIGKILL at every step of park and restore ---------------------------------------------------------------------

def parked_take(tmp_path: Path) -> Path:
    """A real parked take in the drafts directory (its record then removed, to be written by each case)."""
    rig = draft_flow(tmp_path, KEY)
    try:
        rig.hold_to_record()
        rig.flow.park()
        path = Path(rig.wait_for(voicenote.Parked)[0].take.path)
    finally:
        rig.close()
    (drafts_dir(tmp_path) / f"{HEX}.json").unlink()
    return path


def write_record(tmp_path: Path, name: str) -> None:
    (drafts_dir(tmp_path) / f"{HEX}.json").write_text(json.dumps({"key": KEY, "file": name, "duration": 0}))


def test_every_state_a_kill_during_park_or_restore_leaves_is_restored(tmp_path: Path) -> None:
    """The steps of park and restore, each a rename (the recorder's .part → .ogg, recovery's .part → .ogg, a record's
    fresh file → its name): a SIGKILL between any two leaves one of these states, and each restores into preview."""
    take = parked_take(tmp_path)
    whole = take.read_bytes()
    part = take.with_name(take.name + ".part")
    states = {
        "record names the running .part, which is still there": lambda: (take.rename(part), write_record(tmp_path, part.name)),
        "record names the .part, the take was finished": lambda: write_record(tmp_path, part.name),
        "record names the .part, a record write was cut": lambda: (
            write_record(tmp_path, part.name), (drafts_dir(tmp_path) / f".{os.urandom(8).hex()}.new").write_text("{")),
        "record names the finished take": lambda: write_record(tmp_path, take.name),
    }
    for name, make in states.items():
        for path in (take, part):
            if path.exists():
                path.unlink()
        take.write_bytes(whole)
        make()
        rig = draft_flow(tmp_path, KEY)
        try:
            view = preview_of(rig)
            assert view.duration > 0.5, name
        finally:
            rig.close()
        [draft] = voicenote.flow_drafts(drafts_dir(tmp_path))
        assert draft.path == str(take) and take.read_bytes()[:4] == b"OggS", name
    voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))
    assert [n for n in os.listdir(drafts_dir(tmp_path)) if not n.endswith(".lock")] == []  # the cut write's leftover too


KILL_CHILD = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
import voicenote
folder, key = sys.argv[2], sys.argv[3]
mic = f'pcm.vn_flow_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{folder}/mic.raw" format raw }}'
recorder = voicenote.Recorder(directory=folder + "/takes", device="vn_flow_mic", device_config=mic)
player = voicenote.Player(device="null", remember_positions=False)
clock = voicenote.ManualClock()
flow = voicenote.RecordingFlow(recorder, player, clock=clock, draft_key=key, drafts_dir=folder + "/drafts")
voicenote.set_log_handler(lambda level, line: print("log:", line, file=sys.stderr, flush=True), voicenote.LOG_INFO)
flow.subscribe(lambda e: print("flow:", e, file=sys.stderr, flush=True) if isinstance(e, voicenote.FlowFailed) else None)
recorder.subscribe(lambda e: print("recorder:", e, file=sys.stderr, flush=True)
                   if isinstance(e, voicenote.RecordingFailed) else None)
second = threading.Event()
recorder.subscribe(lambda e: second.set() if isinstance(e, voicenote.RecorderContextEvent)
                   and e.context.duration >= 1.0 else None)
flow.press(0, 0)
clock.advance(0.5)
second.wait(30)  # bounded; the parent fails on what it finds
print("parking", flush=True)
sys.stdin.readline()
flow.park()
threading.Event().wait(30)  # killed here
"""


@PROCESSES_NOT_THREADS
def test_sigkill_during_park_never_loses_the_take(tmp_path: Path) -> None:
    """A real process killed at random moments of park(): every time, the next flow previews the take."""
    Rig(tmp_path).close()  # makes mic.raw
    chance = random.Random(34)
    for attempt in range(4):
        child = subprocess.Popen([sys.executable, "-c", KILL_CHILD, str(PACKAGE_ROOT), str(tmp_path), KEY],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline() == "parking\n"
            child.stdin.write("\n")
            child.stdin.flush()
            threading.Event().wait(chance.uniform(0.0, 0.03))  # a random moment of park, not a wait for a condition
            child.send_signal(signal.SIGKILL)
            _, said = child.communicate(timeout=TIMEOUT)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(TIMEOUT)
        found = (listing(drafts_dir(tmp_path)), listing(tmp_path / "takes"), said)
        assert next_flow_state(tmp_path) is FlowState.PREVIEW, f"attempt {attempt}: {found}"
        voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))


# --- two and eight processes on one key ----------------------------------------------------------------------------

KEY_CHILD = r"""
import os, sys, threading
sys.path.insert(0, sys.argv[1])
import voicenote
folder, key, name = sys.argv[2], sys.argv[3], sys.argv[4]
mic = f'pcm.vn_flow_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{folder}/mic.raw" format raw }}'
recorder = voicenote.Recorder(directory=folder + "/takes-" + name, device="vn_flow_mic", device_config=mic)
player = voicenote.Player(device="null", remember_positions=False)
clock = voicenote.ManualClock()
flow = voicenote.RecordingFlow(recorder, player, clock=clock, draft_key=key, drafts_dir=folder + "/drafts")
condition = threading.Condition()
events = []
def on(event):
    with condition:
        events.append(event)
        condition.notify_all()
flow.subscribe(on)
flow.press(0, 0)
clock.advance(0.5)
with condition:
    recorded = condition.wait_for(lambda: any(isinstance(e, voicenote.FlowViewEvent) and e.view.duration >= 0.5
                                              for e in events), 60)
flow.lock()
flow.stop()
with condition:
    previewing = condition.wait_for(lambda: flow.state is voicenote.FlowState.PREVIEW, 60)
print("preview" if recorded and previewing else f"not in preview: {flow.state.name}", flush=True)
sys.stdin.readline()
def described():
    return [type(e).__name__ + (f"({e.error!r})" if hasattr(e, "error") else "") +
            (f"({e.view.state.name})" if hasattr(e, "view") else "") for e in events]
try:
    flow.park()
except voicenote.BusyError:
    busy = [e for e in events if isinstance(e, voicenote.FlowFailed) and isinstance(e.error, voicenote.BusyError)]
    print("busy", flow.state.name, len(busy), flush=True)
else:
    with condition:
        condition.wait_for(lambda: any(isinstance(e, voicenote.Parked) for e in events), 30)
    take = next((e.take for e in events if isinstance(e, voicenote.Parked)), None)
    print("parked", take.path if take else "NONE", described(), flush=True)
flow.close()
recorder.close()
player.close()
"""


@PROCESSES_NOT_THREADS
@pytest.mark.parametrize("count", [2, 8])
def test_processes_on_one_key_never_replace_each_others_take(tmp_path: Path, count: int) -> None:
    """Several windows of a client on one conversation: one take is the key's draft; every other process is told
    (a BusyError event when its take began, BusyError from park) and its take stays in its own flow, never replaced;
    the draft left is whole and restores."""
    Rig(tmp_path).close()  # makes mic.raw
    children = [subprocess.Popen([sys.executable, "-c", KEY_CHILD, str(PACKAGE_ROOT), str(tmp_path), KEY, str(i)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for i in range(count)]
    outcomes = []
    try:
        for child in children:
            assert child.stdout is not None
            line = child.stdout.readline()
            assert line == "preview\n", child.stderr.read() if child.stderr else line
        for child in reversed(children):  # each parks in turn, the first-started last
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write("\n")
            child.stdin.flush()
            outcomes.append(child.stdout.readline().split(maxsplit=2))
        for child in children:
            child.communicate(timeout=TIMEOUT)
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait(TIMEOUT)
    parked = [outcome for outcome in outcomes if outcome[0] == "parked"]
    busy = [outcome for outcome in outcomes if outcome[0] == "busy"]
    assert len(parked) == 1 and len(busy) == count - 1, outcomes
    assert all(state == "PREVIEW" and int(told) == 1 for _, state, told in busy), busy
    [draft] = voicenote.flow_drafts(drafts_dir(tmp_path))
    assert draft.path == parked[0][1] and os.path.exists(draft.path)
    assert next_flow_state(tmp_path) is FlowState.PREVIEW


# --- records name only their own files, and can always be cleared --------------------------------------------------

def test_a_record_naming_another_file_neither_moves_nor_deletes_it(tmp_path: Path) -> None:
    documents = tmp_path / "Documents"
    documents.mkdir()
    drafts_dir(tmp_path).mkdir(mode=0o700)
    for key in ("room-a", "room-b"):
        victim = documents / f"{key}.ogg"
        victim.write_text("years of work")
        for named in ({"path": str(victim)}, {"file": f"../Documents/{key}.ogg"}, {"file": str(victim)}):
            record = drafts_dir(tmp_path) / f"{key.encode().hex()}.json"
            record.write_text(json.dumps({"key": key, **named, "duration": 3.0}))
            assert next_flow_state(tmp_path, key) is FlowState.IDLE
            voicenote.clear_flow_drafts(key, drafts_dir(tmp_path))
            record.write_text(json.dumps({"key": key, **named, "duration": 3.0}))
            voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))
            assert victim.read_text() == "years of work" and not record.exists()


@pytest.mark.parametrize("kind", ["damaged", "FIFO", "oversized"])
def test_an_unreadable_record_is_cleared_by_its_key_and_by_clearing_all(tmp_path: Path, kind: str) -> None:
    """A record that cannot be read is not restored (the flow starts idle) and never blocks: clearing its key, or
    every draft, deletes it."""
    folder = drafts_dir(tmp_path)
    folder.mkdir(mode=0o700)
    record = folder / f"{HEX}.json"
    for key in (KEY, None):
        if kind == "damaged":
            record.write_text('{"key":"' + KEY + '","file":"x.ogg","dur')
        elif kind == "FIFO":
            os.mkfifo(record)
        else:
            record.write_text('{"key":"' + KEY + '","file":"x.ogg","duration":1,"pad":"' + "x" * 20000 + '"}')
        assert next_flow_state(tmp_path) is FlowState.IDLE
        assert voicenote.flow_drafts(folder) == []
        voicenote.clear_flow_drafts(key, folder)
        assert not record.exists() and not record.is_fifo(), key


# --- files written aside: fresh names; planted symlinks and FIFOs ---------------------------------------------------

def test_no_write_aside_place_follows_a_planted_symlink_or_opens_a_planted_fifo(tmp_path: Path) -> None:
    """At every name the stores once wrote aside to (``<record>.json.new``, ``resume-positions.json.new``,
    ``<take>.trim.part``), another process plants a symlink to a victim file and, in a second round, a FIFO: the
    record, the position and the trim are written (to fresh names, renamed over their targets), the victim is
    untouched and nothing waits on the FIFO."""
    victim = tmp_path / "victim"
    positions = Path(os.environ["XDG_CACHE_HOME"]) / "voicenote" / "positions"
    positions.mkdir(parents=True, exist_ok=True, mode=0o700)
    note = write_tone(tmp_path / "note.wav", 4, 440)
    for plant in ("symlink", "fifo"):
        victim.write_text("VICTIM")
        rig = draft_flow(tmp_path, KEY)
        places = [drafts_dir(tmp_path) / f"{HEX}.json.new", positions / "resume-positions.json.new"]
        try:
            rig.hold_to_record()
            rig.flow.lock()
            rig.flow.stop()
            view = preview_of(rig)
            take = Path(voicenote.flow_drafts(drafts_dir(tmp_path))[0].path)
            places.append(take.with_name(take.name + ".trim.part"))
            for place in places:
                if place.exists() or place.is_symlink():
                    place.unlink()
                if plant == "symlink":
                    place.symlink_to(victim)
                else:
                    os.mkfifo(place)
            rig.flow.trim(0.1, view.duration - 0.1)  # the take rewritten beside itself
            rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.state is FlowState.PREVIEW
                                                  and abs(e.view.duration - (view.duration - 0.2)) < 1e-3
                                                  for e in items), what="the trimmed preview")
            rig.flow.park()  # the record rewritten
            rig.wait_for(voicenote.Parked)
            leave_at(note, 1.5, tmp_path / "out.raw")  # the position written
            assert voicenote.resume_position(note) == pytest.approx(1.5, abs=0.05)
        finally:
            rig.close()
        assert victim.read_text() == "VICTIM", plant
        assert next_flow_state(tmp_path) is FlowState.PREVIEW
        for place in places:
            place.unlink()
        voicenote.clear_flow_drafts(None, drafts_dir(tmp_path))
        voicenote.clear_resume_positions()


def test_the_positions_lock_held_by_another_process_never_blocks_a_player(tmp_path: Path) -> None:
    """A position is a cache: pause and close return while another process holds the store's lock (the write is
    skipped), and positions are kept again once it lets go."""
    note = write_tone(tmp_path / "note.wav", 4, 440)
    positions = Path(os.environ["XDG_CACHE_HOME"]) / "voicenote" / "positions"
    positions.mkdir(parents=True, exist_ok=True, mode=0o700)
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys; f = open(sys.argv[1], 'a'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.readline()",
                               str(positions / "resume-positions.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        done = threading.Event()

        def listen() -> None:
            leave_at(note, 2.0, tmp_path / "out.raw")
            done.set()

        thread = threading.Thread(target=listen, daemon=True)
        thread.start()
        assert done.wait(TIMEOUT), "pause()/close() waited for another process's lock"
        assert voicenote.resume_position(note) is None  # skipped, not waited for
    finally:
        holder.kill()
        holder.wait(TIMEOUT)
    leave_at(note, 2.0, tmp_path / "out.raw")
    assert voicenote.resume_position(note) == pytest.approx(2.0, abs=0.05)


POSITIONS_CHILD = r"""
import sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[4]]
from test_stores_never_lose import leave_at
leave_at(Path(sys.argv[2]), 1.25, Path(sys.argv[3]))
print("ok", flush=True)
"""


@PROCESSES_NOT_THREADS
def test_eight_processes_keep_their_positions_in_one_store(tmp_path: Path) -> None:
    notes = [write_tone(tmp_path / f"note{i}.wav", 3, 440 + 10 * i) for i in range(8)]
    children = [subprocess.Popen([sys.executable, "-c", POSITIONS_CHILD, str(PACKAGE_ROOT), str(note),
                                  str(tmp_path / f"out{i}.raw"), str(Path(__file__).parent)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for i, note in enumerate(notes)]
    for child in children:
        out, err = child.communicate(timeout=TIMEOUT)
        assert child.returncode == 0 and out == "ok\n", err
    assert [voicenote.resume_position(note) for note in notes] == [pytest.approx(1.25, abs=0.05)] * 8


VICTIM_CHILD = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
import voicenote
note = sys.argv[2]
loaded = threading.Event()
with voicenote.Player(device="null") as p:
    p.subscribe(lambda e: loaded.set() if isinstance(e, voicenote.PlayerContextEvent)
                and e.context.state is voicenote.PlayerState.PAUSED else None)
    p.load(note, autoplay=False)
    loaded.wait(10)
    p.seek(1.0)
try:
    with voicenote.Recorder(device="null") as recorder:  # the default directory, under the same fallback
        recorder.begin()
        recorder.cancel()
    print("recorded", flush=True)
except voicenote.VoiceNoteError as error:
    print("done", type(error).__name__, flush=True)
"""


@PROCESSES_NOT_THREADS
def test_another_users_tmp_fallback_is_refused(tmp_path: Path) -> None:
    """With no HOME and no XDG_*, the stores fall back to /tmp/voicenote-<uid>; when another user made it (here root,
    for an unprivileged victim: anyone may write it, and a symlink is planted in it), the victim's player writes
    nothing through it and its recorder refuses to keep takes there."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to act as a second local user (CI runs as root)")
    uid = 65534
    fallback = Path(f"/tmp/voicenote-{uid}")
    if fallback.exists() or fallback.is_symlink():
        pytest.skip(f"{fallback} exists already on this machine")
    shared = Path(tempfile.mkdtemp(prefix="vn-victim-"))  # the victim's, readable by it (tmp_path is root's, 0700)
    os.chown(shared, uid, uid)
    victim = shared / "victim-file"
    victim.write_text("the victim's own file\n")
    os.chown(victim, uid, uid)
    note = write_tone(shared / "note.wav", 3, 440)
    os.chmod(note, 0o644)
    try:
        fallback.mkdir()  # the attacker's (root's here): not the victim's, and anyone may write in it
        fallback.chmod(0o777)
        (fallback / "positions").mkdir(mode=0o777)
        (fallback / "positions" / "resume-positions.json").symlink_to(victim)
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_") and k != "HOME"}
        library = os.environ.get("VOICENOTE_LIBRARY")
        if library:
            env["VOICENOTE_LIBRARY"] = library
        result = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-c",
                                 VICTIM_CHILD, str(PACKAGE_ROOT), str(note)], env=env, capture_output=True, text=True,
                                timeout=TIMEOUT)
        assert result.returncode == 0 and result.stdout.strip() == "done AccessDeniedError", result.stdout + result.stderr
        assert victim.read_text() == "the victim's own file\n"
    finally:
        shutil.rmtree(fallback, ignore_errors=True)
        shutil.rmtree(shared, ignore_errors=True)
