"""What was heard: a note heard to 90 % or to its end is listened (``NoteListened``, once per note, before its
``PlaybackFinished``), remembered across processes beside the resume positions (``is_listened``, a store each test
has of its own: conftest.py), and "play unplayed" (``QueuePlayer.set_skip_listened``, ``voicenote play --unplayed``)
passes over the listened notes. Speakers are ALSA's ``file`` plugin over ``null`` (unpaced); every wait is bounded."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, List

import pytest

from audiofiles import write_tone
from helpers import TIMEOUT, Recorder as Collector
from test_player import file_speaker

import voicenote
from voicenote import NoteListened, PlaybackFinished, PlayerItemChanged, QueuePlayer

RATE = 48000


@pytest.fixture
def notes(tmp_path: Path) -> List[Path]:
    """Three short notes of different lengths (0.3, 0.5, 0.7 s), so what a speaker heard tells which played."""
    return [write_tone(tmp_path / f"n{index}.wav", seconds, 440 + 220 * index)
            for index, seconds in enumerate((0.3, 0.5, 0.7))]


def heard_seconds(output: Path) -> float:
    return len(output.read_bytes()) / 2 / RATE


def order(events: List[Any]) -> List[Any]:
    """The listened, finished and item events in order."""
    kinds = {NoteListened: "listened", PlaybackFinished: "finished", PlayerItemChanged: "changed"}
    return [(kinds[type(event)], event.location) for event in events if type(event) in kinds]


def test_a_note_heard_to_its_end_is_listened_once_and_every_process_knows(notes: List[Path], tmp_path: Path) -> None:
    note = notes[0]
    assert not voicenote.is_listened(note)
    log = Collector()
    with voicenote.Player(device="vn_spk", device_config=file_speaker(tmp_path / "a.raw")) as player:
        player.subscribe(log.add)
        player.load(note)
        log.wait_for(lambda items: any(isinstance(e, PlaybackFinished) for e in items), what="the end")
        player.play()  # heard again: no second event
        log.wait_for(lambda items: sum(isinstance(e, PlaybackFinished) for e in items) == 2, what="the second end")
    assert order(log.items) == [("listened", str(note)), ("finished", str(note)), ("finished", str(note))]
    listened = [e for e in log.items if isinstance(e, NoteListened)][0]
    assert listened.key == str(note)
    assert voicenote.is_listened(note) and voicenote.is_listened(f"file://{note}")
    # Another process reads the same store (the CLI inherits $XDG_CACHE_HOME from conftest.py).
    assert voicenote.resume_position(note) is None  # the end forgot the position, not the mark
    voicenote.set_listened(note, False)
    assert not voicenote.is_listened(note)
    voicenote.set_listened("https://cdn.example/n.ogg?sig=1", key="message-9")
    assert voicenote.is_listened("https://cdn.example/n.ogg?sig=2", key="message-9")
    voicenote.clear_listened()
    assert not voicenote.is_listened("https://cdn.example/n.ogg", key="message-9")


def test_listened_checks_its_arguments() -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.is_listened("")
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.set_listened("/a.ogg", key="")
    with pytest.raises(voicenote.UnsupportedError):
        voicenote.is_listened("ftp://host/a.ogg")
    with pytest.raises(TypeError):
        voicenote.is_listened(3)  # type: ignore[arg-type]


def test_play_unplayed_passes_over_listened_notes_in_a_queue(notes: List[Path], tmp_path: Path) -> None:
    voicenote.set_listened(notes[1])
    names = [str(note) for note in notes]
    log = Collector()
    output = tmp_path / "queue.raw"
    with QueuePlayer(device="vn_spk", device_config=file_speaker(output),
                     data_source=lambda current: names[names.index(current) + 1] if current != names[-1] else None) as player:
        player.set_skip_listened()
        player.subscribe(log.add)
        player.load(notes[0])
        log.wait_for(lambda items: sum(isinstance(e, PlaybackFinished) for e in items) == 2, what="two notes")
        log.wait_for(lambda items: player.context.state is voicenote.PlayerState.STOPPED, what="the queue's end")
    assert [e for e in order(log.items) if e[0] == "changed"] == [("changed", names[0]), ("changed", names[2])]
    assert heard_seconds(output) == pytest.approx(0.3 + 0.7, abs=0.05)
    assert all(voicenote.is_listened(note) for note in notes)


def test_the_cli_plays_only_unplayed_notes_and_remembers(cli: Path, notes: List[Path], tmp_path: Path) -> None:
    """`voicenote play --unplayed` in another process: the note Python marked is passed over, the others are heard
    and marked for this process to see; run again, nothing is left to play."""
    voicenote.set_listened(notes[0])
    output = tmp_path / "cli.raw"
    command = [str(cli), "play", *map(str, notes), "--unplayed", "--device", "vn_spk", "--device-config",
               file_speaker(output)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert heard_seconds(output) == pytest.approx(0.5 + 0.7, abs=0.05)
    assert all(voicenote.is_listened(note) for note in notes)
    output.unlink()
    again = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    assert again.returncode == 0 and "every note given was listened already" in again.stderr, again.stderr
    assert not output.exists() or heard_seconds(output) == 0
