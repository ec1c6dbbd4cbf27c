"""Listening that remembers: positions kept across players and processes (``remember_positions``, a store under
the cache directory, which each test has of its own: conftest.py), and a queue that goes back to the note a jump
interrupted (``return_to_interrupted``, Element's rule). Speakers are ALSA's ``file`` plugin over ``null``: not
paced, so a long note at 0.5x keeps playing long enough to be interrupted."""
from __future__ import annotations

import subprocess
import sys
from array import array
from pathlib import Path
from typing import Any, List

import pytest

from audiofiles import dominant_frequency, write_tone
from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector
from test_player import contexts, file_speaker, finished

import voicenote
from voicenote import PlayerItemChanged, PlayerState, QueuePlayer


@pytest.fixture(scope="module")
def notes(tmp_path_factory: pytest.TempPathFactory) -> List[Path]:
    """A long note (120 s of 440 Hz) and two short ones (2 s of 880 Hz, 2 s of 660 Hz), 48 kHz WAV."""
    folder = tmp_path_factory.mktemp("remember")
    return [write_tone(folder / "long.wav", 120, 440), write_tone(folder / "next.wav", 2, 880),
            write_tone(folder / "jump.wav", 2, 660)]


def player(output: Path, cls: Any = voicenote.Player, **options: Any) -> Any:
    return cls(device="vn_spk", device_config=file_speaker(output), **options)


def wait_state(log: Collector, state: PlayerState) -> voicenote.PlayerContext:
    items = log.wait_for(lambda items: any(c.state is state for c in contexts(items)), what=state.name)
    return [c for c in contexts(items) if c.state is state][-1]


CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
import threading, voicenote
note, output = sys.argv[2], sys.argv[3]
paused = threading.Event()
p = voicenote.Player(device="vn_spk",
                     device_config=f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{output}" format raw }}')
p.subscribe(lambda e: paused.set() if isinstance(e, voicenote.PlayerContextEvent) and e.context.state is
            voicenote.PlayerState.PAUSED else None)
p.load(note, autoplay=False)
paused.wait(30)
p.seek(37.5)
p.close()  # paused at 37.5 s: remembered for the next player, in any process
print("left", voicenote.resume_position(note), flush=True)
"""


def test_a_position_left_in_another_process_is_where_the_next_player_starts(notes: List[Path], tmp_path: Path) -> None:
    long = notes[0]
    assert voicenote.resume_position(long) is None
    child = subprocess.run([sys.executable, "-c", CHILD, str(PACKAGE_ROOT), str(long), str(tmp_path / "child.raw")],
                           capture_output=True, text=True, timeout=TIMEOUT)
    assert child.returncode == 0 and child.stdout.strip() == "left 37.5", child.stdout + child.stderr
    assert voicenote.resume_position(long) == 37.5
    assert voicenote.resume_position(f"file://{long}") == 37.5  # a path and its file:// URL are one location
    log = Collector()
    with player(tmp_path / "out.raw") as again:
        again.subscribe(log.add)
        again.load(long, autoplay=False)
        assert wait_state(log, PlayerState.PAUSED).current_time == pytest.approx(37.5, abs=0.01)
        again.stop()  # a stop forgets it
    assert voicenote.resume_position(long) is None


def test_pausing_writes_the_end_forgets_and_clear_forgets_all(notes: List[Path], tmp_path: Path) -> None:
    long, short = notes[0], notes[1]
    log = Collector()
    with player(tmp_path / "out.raw") as p:
        p.subscribe(log.add)
        p.rate = 0.5
        p.load(long)
        log.wait_for(lambda items: any(c.state is PlayerState.PLAYING and c.current_time > 1 for c in contexts(items)),
                     what="a second played")
        p.pause()
        at = wait_state(log, PlayerState.PAUSED).current_time
        assert voicenote.resume_position(long) == pytest.approx(at, abs=1e-6)
        p.load(short)  # another item: the long one keeps its place, the short one plays to its end
        # Leaving the long note publishes a STOPPED context for it too: wait for the short note's own end.
        # Leaving the long note publishes a STOPPED context for it too: wait for the short note's own end.
        ended = log.wait_for(finished, what="the short note's end")
        assert [e.location for e in ended if isinstance(e, voicenote.PlaybackFinished)] == [str(short)]
    assert voicenote.resume_position(short) is None and voicenote.resume_position(long) == pytest.approx(at, abs=1e-6)
    voicenote.clear_resume_positions()
    assert voicenote.resume_position(long) is None


def test_remember_positions_false_keeps_them_in_the_player(notes: List[Path], tmp_path: Path) -> None:
    log = Collector()
    with player(tmp_path / "out.raw", remember_positions=False) as p:
        p.subscribe(log.add)
        p.load(notes[0], autoplay=False)
        wait_state(log, PlayerState.PAUSED)
        p.seek(12.0)
    assert voicenote.resume_position(notes[0]) is None


def test_a_large_store_is_read_whole(tmp_path: Path) -> None:
    """20,000 positions written by hand: each lookup reads them all, once per call (80,000 took 9.5 s a call when a
    JSON object's members were placed by a linear search; `make bench` measures it)."""
    folder = tmp_path / "xdg-cache" / "voicenote" / "positions"
    folder.mkdir(parents=True)
    count = 20_000
    (folder / "resume-positions.json").write_text(
        "{" + ",".join(f'"/n/{i:07d}.ogg":[{1 + i % 50},{i}]' for i in range(count)) + "}")
    assert voicenote.resume_position(f"/n/{count - 1:07d}.ogg") == 1 + (count - 1) % 50
    assert voicenote.resume_position(f"/n/{count:07d}.ogg") is None


def test_resume_position_checks_its_arguments() -> None:
    for bad in ("", "ftp://host/a.ogg"):
        with pytest.raises((voicenote.InvalidArgumentError, voicenote.UnsupportedError)):
            voicenote.resume_position(bad)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.resume_position("https://host/a.ogg", key="")
    assert voicenote.resume_position("https://host/a.ogg", key="message-9/0") is None


def pitches(output: Path) -> List[int]:
    """The speaker's tones in order: each 0.1 s stretch that is one of the notes' tones (stretches across a change
    of note are neither), repeats merged."""
    samples = array("h", output.read_bytes())
    seen: List[int] = []
    step = 4800
    for start in range(0, len(samples) - step + 1, step):
        frequency = dominant_frequency(samples[start:start + step])
        tone = next((tone for tone in (440, 660, 880) if abs(frequency - tone) < tone * 0.03), None)
        if tone is not None and (not seen or seen[-1] != tone):
            seen.append(tone)
    return seen


@pytest.mark.parametrize("returning", [True, False])
def test_the_queue_returns_to_the_note_a_jump_interrupted(notes: List[Path], tmp_path: Path, returning: bool) -> None:
    long, following, jump = notes
    output = tmp_path / "speaker.raw"
    log = Collector()
    with player(output, QueuePlayer, return_to_interrupted=returning) as queue:
        queue.data_source = lambda current: str(following) if current == str(long) else None
        queue.subscribe(log.add)
        queue.rate = 2.5
        queue.load(long)
        log.wait_for(lambda items: any(c.state is PlayerState.PLAYING and c.current_time > 3 for c in contexts(items)),
                     what="3 s of the long note")
        queue.load(jump)  # the user taps another note while the long one plays
        interrupted = voicenote.resume_position(long)
        assert interrupted is not None and interrupted > 3
        finished = lambda items, name: any(isinstance(e, voicenote.PlaybackFinished) and e.location == name
                                           for e in items)
        if returning:
            items = log.wait_for(lambda items: finished(items, str(following)), what="the next note's end")
            assert [e.location for e in items if isinstance(e, PlayerItemChanged)] == \
                [str(long), str(jump), str(long), str(following)]
            back = [i for i, e in enumerate(items) if isinstance(e, PlayerItemChanged)][2]  # events compare equal
            resumed = [c for c in contexts(items[back:]) if c.state is PlayerState.PLAYING][0]
            # The decoder notices the return a little after it is heard: never before the interrupted place.
            assert interrupted - 0.1 <= resumed.current_time <= interrupted + 2.0
        else:
            items = log.wait_for(lambda items: finished(items, str(jump)), what="the jumped-to note's end")
            assert [e.location for e in items if isinstance(e, PlayerItemChanged)] == [str(long), str(jump)]
    heard = pitches(output)
    # Heard in order: the long note until the jump, the jumped-to note, then (returning) the rest of the long note
    # from where it was left, and the next one. The long note is heard once in all: 120 s at 2.5x.
    assert heard == ([440, 660, 440, 880] if returning else [440, 660]), heard
    seconds = len(output.read_bytes()) / 2 / 48000
    if returning:
        assert seconds == pytest.approx((120 + 2 + 2) / 2.5, abs=0.3)


def test_the_cli_resumes_only_when_asked(cli: Path, notes: List[Path], tmp_path: Path) -> None:
    """`voicenote play --resume` starts where any player left the note (the store is this test's: the CLI inherits
    $XDG_CACHE_HOME); without it the note plays from its start and nothing is remembered."""
    short = notes[1]  # 2 s
    log = Collector()
    with player(tmp_path / "python.raw") as p:
        p.subscribe(log.add)
        p.load(short, autoplay=False)
        wait_state(log, PlayerState.PAUSED)  # loaded: a close during loading leaves no position
        p.seek(1.5)
    assert voicenote.resume_position(short) == 1.5
    for resume, heard in ((False, 2.0), (True, 0.5)):
        output = tmp_path / f"cli-{resume}.raw"
        result = subprocess.run([str(cli), "play", str(short), "--device", "vn_spk", "--device-config",
                                 file_speaker(output), *(["--resume"] if resume else [])],
                                capture_output=True, text=True, timeout=TIMEOUT)
        assert result.returncode == 0, result.stderr
        assert len(output.read_bytes()) / 2 / 48000 == pytest.approx(heard, abs=0.05)
        # Played to its end: the position is forgotten with --resume, untouched without.
        assert voicenote.resume_position(short) == (None if resume else 1.5)
