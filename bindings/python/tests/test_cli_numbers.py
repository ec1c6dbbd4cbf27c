"""Numbers the `voicenote` tool takes from outside (option values, `COLUMNS`) are range-checked before they size
anything: an out-of-range, huge, infinite or NaN option is a one-line error and a non-zero exit, a `COLUMNS` that is
huge is clamped and one that is not a positive integer is ignored. Never a Swift trap (death by a signal), never a
giant allocation (`COLUMNS=1000000000` once asked for 4 GB and aborted)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from audiofiles import write_tone
from helpers import TIMEOUT
from microphones import Speech, file_microphone

#: The widest line the tool draws (`Terminal.maximumColumns`).
WIDEST = 4096


def run(cli: Path, arguments: List[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), *arguments], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Half a second of a 440 Hz tone, 16-bit mono 48 kHz WAV."""
    return write_tone(tmp_path_factory.mktemp("numbers") / "tone.wav", 0.5)


@pytest.mark.parametrize("columns, width", [
    ("1000000000", WIDEST), ("99999999999999999999999", WIDEST), ("1e300", 80), ("-5", 80), ("0", 80), ("abc", 80),
    ("", 80), ("40", 40),
])
def test_bars_width_from_columns_is_clamped_or_ignored(cli: Path, note: Path, columns: str, width: int) -> None:
    result = run(cli, ["waveform", str(note), "--format", "bars"], env={"COLUMNS": columns})
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.rstrip("\n")) == width


def assert_refused(result: subprocess.CompletedProcess[str], option: str) -> None:
    """A usage error (not a signal, not success) whose first stderr line names the option."""
    assert result.returncode > 0, f"exit {result.returncode}: {result.stderr}"
    first = result.stderr.splitlines()[0]
    assert first.startswith("Error:") and option in first, result.stderr
    assert not result.stdout


@pytest.mark.parametrize("value", ["1048577", "1000000000", "99999999999999999999999", "nan", "1e9", "0", "-1"])
def test_waveform_samples_out_of_range(cli: Path, note: Path, value: str) -> None:
    assert_refused(run(cli, ["waveform", str(note), f"--samples={value}"]), "--samples")


def refused(option: str, value: str, other: str) -> object:
    """A record case: ``option=value`` with a small ``other`` limit, so that an unchecked value would record a short
    take and succeed."""
    return pytest.param([f"{option}={value}", other, "1"], option, id=f"{option}={value}")


@pytest.mark.parametrize("arguments, option", [
    *(refused("--duration", value, "--max-duration") for value in ("1e300", "inf", "nan", "1000001", "0")),
    *(refused("--max-duration", value, "--duration") for value in ("1e300", "inf", "nan", "-1")),
    *(refused("--bitrate", value, "--duration") for value in ("1000000000", "99999999999999999999999", "nan")),
])
def test_record_numbers_out_of_range(cli: Path, speech: Speech, tmp_path: Path, arguments: List[str],
                                     option: str) -> None:
    result = run(cli, ["record", "--device", "vn_mic", "--device-config", file_microphone(speech.raw48),
                       "-o", str(tmp_path / "note.ogg"), "--progress", "none", *arguments])
    assert_refused(result, option)
    assert list(tmp_path.iterdir()) == []


def test_the_longest_duration_is_accepted(cli: Path, speech: Speech, tmp_path: Path) -> None:
    # The limit itself is allowed: --duration 1000000 records until the shorter --max-duration.
    output = tmp_path / "note.ogg"
    result = run(cli, ["record", "--device", "vn_mic", "--device-config", file_microphone(speech.raw48),
                       "-o", str(output), "--progress", "none", "--duration", "1000000", "--max-duration", "0.5"])
    assert result.returncode == 0, result.stderr
    assert output.exists()
