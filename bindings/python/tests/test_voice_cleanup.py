"""Voice cleanup on record (docs/recorder.md, "Voice cleanup"): ``Recorder(voice_cleanup=True)``, the
``voice_cleanup`` property between takes, and ``voicenote record --clean``.

The microphone is ALSA's ``file`` plugin reading 2 s of pink noise at about -40 dBFS, then the session's speech with
the noise going on under it. What a take holds is decoded by FFmpeg (not our code) and measured here: the second
second, noise alone, is at least 15 dB lower with cleanup; the speech is still there; off is the captured audio as
before (the same file size and samples as a take with cleanup never turned on); every take is as long as asked."""

from __future__ import annotations

import json
import math
import subprocess
from array import array
from pathlib import Path
from typing import Any, List

import pytest

from helpers import TIMEOUT
from microphones import EventLog, Speech, file_microphone, run

import voicenote

RATE = 48000
SECONDS = 4.0


@pytest.fixture(scope="module")
def noisy(speech: Speech, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Raw S16LE mono at 48 kHz: 2 s of pink noise, then the speech with the noise under it."""
    folder = tmp_path_factory.mktemp("noisy")
    noise, voice, mix = folder / "noise.wav", folder / "voice.wav", folder / "noisy.raw"
    run(["sox", "-R", "-n", "-r", "48000", "-c", "1", "-b", "16", str(noise), "synth", "8", "pinknoise", "vol", "0.02"])
    run(["sox", "-R", "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1", "-r", "48000", str(speech.raw48),
         str(voice), "pad", "2"])
    run(["sox", "-R", "-m", str(voice), str(noise), "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-c", "1",
         str(mix), "trim", "0", "8"])
    return mix


def samples(path: str) -> array:
    """The take's samples, decoded by FFmpeg."""
    raw = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar",
                          str(RATE), "-"], capture_output=True, timeout=TIMEOUT, check=True).stdout
    return array("h", raw)


def level(values: array, start: float, end: float) -> float:
    """RMS level in dBFS from `start` to `end` seconds."""
    part = values[int(start * RATE):int(end * RATE)]
    power = sum(value * value for value in part) / max(1, len(part))
    return 10 * math.log10(power / 32768 ** 2 + 1e-12)


def take(recorder: voicenote.Recorder) -> voicenote.RecordingFinished:
    log = EventLog(recorder)
    recorder.begin()
    log.wait_end()
    return log.finished()


def test_off_by_default_on_and_off_between_takes(noisy: Path, tmp_path: Path) -> None:
    config = file_microphone(noisy)
    with voicenote.Recorder(tmp_path / "plain", device="vn_mic", device_config=config,
                            max_duration=SECONDS) as never_cleaned:
        assert never_cleaned.voice_cleanup is False
        reference = take(never_cleaned)
    with voicenote.Recorder(tmp_path / "takes", device="vn_mic", device_config=config, max_duration=SECONDS,
                            voice_cleanup=True) as recorder:
        assert recorder.voice_cleanup is True
        cleaned = take(recorder)
        recorder.voice_cleanup = False
        assert recorder.voice_cleanup is False
        plain = take(recorder)
        recorder.voice_cleanup = True
        cleaned_again = take(recorder)
    for done in (reference, cleaned, plain, cleaned_again):
        assert done.duration == SECONDS
        assert len(samples(done.path)) == SECONDS * RATE

    raw, off = samples(reference.path), samples(plain.path)
    # Off after a cleaned take is the captured audio as a recorder that never cleaned writes it (FFmpeg's decoder
    # does not dither: equal packets give equal samples).
    assert off == raw and Path(plain.path).stat().st_size == Path(reference.path).stat().st_size
    for done in (cleaned, cleaned_again):
        on = samples(done.path)
        assert level(raw, 1, 2) - level(on, 1, 2) >= 15, (level(raw, 1, 2), level(on, 1, 2))
        assert abs(level(raw, 2.5, 4) - level(on, 2.5, 4)) <= 4, (level(raw, 2.5, 4), level(on, 2.5, 4))
        # The waveform and the loudness are the cleaned take's: the noise-only second shows lower.
        assert sum(done.waveform[25:50]) < sum(reference.waveform[25:50])
        assert done.loudness is not None and done.loudness != reference.loudness


def test_the_setting_is_checked_and_survives_misuse(noisy: Path, tmp_path: Path) -> None:
    recorder = voicenote.Recorder(tmp_path, device="vn_mic", device_config=file_microphone(noisy))
    recorder.voice_cleanup = True
    recorder.voice_cleanup = True  # idempotent
    assert recorder.voice_cleanup is True
    recorder.close()
    with pytest.raises(ValueError):
        recorder.voice_cleanup = False
    with pytest.raises(ValueError):
        _ = recorder.voice_cleanup


def test_cli_record_clean(cli: Path, noisy: Path, tmp_path: Path) -> None:
    """`voicenote record --clean`: the same take length, the noise alone far lower than without it."""
    levels: List[Any] = []
    for flag in ([], ["--clean"]):
        output = tmp_path / f"take{len(flag)}.ogg"
        done = subprocess.run([str(cli), "record", "--device", "vn_mic", "--device-config", file_microphone(noisy),
                               "--duration", str(SECONDS), "-o", str(output), "--progress", "json"] + flag,
                              capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        finished = json.loads(done.stdout.splitlines()[-1])
        assert finished["finished"] == str(output) and finished["duration"] == SECONDS
        levels.append(level(samples(str(output)), 1, 2))
    assert levels[0] - levels[1] >= 15, levels
    assert "--clean" in subprocess.run([str(cli), "record", "--help"], capture_output=True, text=True,
                                       timeout=TIMEOUT).stdout
