"""Notes other clients send: any rate from 8 to 48 kHz, lengths that end in the middle of a period, played through
ALSA's `plug` to a 48 kHz device (the usual desktop) and directly at their own rate. The end is heard whole and
`finished` follows; `aplay` on the same device is the reference."""

from __future__ import annotations

import os
import subprocess
from array import array
from pathlib import Path
from typing import Callable

import pytest

from audiofiles import is_tsan_build, loaded_library_path, run
from helpers import TIMEOUT, Recorder as Collector
from test_player import file_speaker, play_to_end

import voicenote
from voicenote import Player

#: Skipped (visibly) in the ThreadSanitizer run: device rates and periods, not the thread contract the TSan run is for; the plain suite runs them.
pytestmark = pytest.mark.skipif(is_tsan_build(loaded_library_path()), reason="device rates and periods, not the thread contract the TSan run is for; the plain suite runs them")

RATES = [8000, 12000, 16000, 22050, 24000, 44100, 48000]
SECONDS = 1.013  # not a whole number of periods at any of these rates


def plug_speaker(output: Path, name: str = "vn_spk") -> str:
    """A 48 kHz S16 mono file speaker behind `plug`, which converts any rate to it."""
    return (f'pcm.{name} {{ type plug slave {{ pcm {{ type file slave.pcm {{ type null }} file "{output}" format raw '
            f'perm 0644 }} format S16_LE rate 48000 channels 1 }} }}')


def samples(path: Path) -> "array[int]":
    data = array("h")
    data.frombytes(path.read_bytes())
    return data


def last_loud(data: "array[int]", loud: int = 2000) -> int:
    """The index after the last sample louder than ``loud``."""
    for index in range(len(data) - 1, -1, -1):
        if abs(data[index]) > loud:
            return index + 1
    return 0


def tone(folder: Path, rate: int) -> Path:
    path = folder / f"tone-{rate}.wav"
    run(["sox", "-n", "-r", str(rate), "-c", "1", "-b", "16", str(path), "synth", str(SECONDS), "sine", "440",
         "gain", "-3"])
    return path


def played(note: Path, speaker: Callable[[Path], str], output: Path) -> "array[int]":
    """The samples a speaker defined by ``speaker(output)`` wrote, after ``note`` played to its end (``finished``
    and no failure)."""
    log = Collector()
    with Player(device="vn_spk", device_config=speaker(output)) as player:
        player.subscribe(log.add)
        play_to_end(player, str(note), log)
    return samples(output)


@pytest.mark.parametrize("rate", RATES)
def test_a_note_ending_mid_period_is_heard_whole_through_plug(tmp_path: Path, rate: int) -> None:
    note = tone(tmp_path, rate)
    heard = played(note, plug_speaker, tmp_path / "out.raw")
    expected = round(SECONDS * 48000)
    # The reference: aplay on the same device.
    reference = tmp_path / "aplay.raw"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".asoundrc").write_text(plug_speaker(reference))
    subprocess.run(["aplay", "-q", "-D", "vn_spk", str(note)], env={**os.environ, "HOME": str(home)},
                   check=True, timeout=TIMEOUT)
    assert abs(last_loud(heard) - last_loud(samples(reference))) <= 48, (last_loud(heard), last_loud(samples(reference)))
    assert last_loud(heard) >= expected - 48, (last_loud(heard), expected)  # within 1 ms of the note's end


@pytest.mark.parametrize("rate", RATES)
def test_a_note_ending_mid_period_is_heard_whole_at_its_own_rate(tmp_path: Path, rate: int) -> None:
    note = tone(tmp_path, rate)
    heard = played(note, file_speaker, tmp_path / "out.raw")
    source = samples(note)[22:]  # the WAV's 44-byte header is 22 samples
    assert len(heard) >= len(source)
    assert heard[:len(source)] == source  # every frame, unchanged; then at most a period of silence
    assert all(value == 0 for value in heard[len(source):])
