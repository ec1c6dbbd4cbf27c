"""`voicenote record` ended from outside keeps the take: SIGHUP (the terminal went away) and SIGTERM finish the file
as Ctrl-C does, and so does a closed standard output (SIGPIPE, EPIPE), which then fails with one line naming the kept
file. No `.part` is left for `recover`.

The microphone is ALSA's `file` plugin reading speech as fast as it is read; every wait is for the tool's own
progress lines, bounded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cli_progress import Progress, finish, parts
from microphones import Speech, file_microphone

import voicenote


def start(cli: Path, speech: Speech, output: Path, stdout: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen([str(cli), "record", "--device", "vn_mic", "--device-config", file_microphone(speech.raw48),
                             "--max-duration", "0", "-o", str(output), "--progress", "json"],
                            stdout=stdout, stderr=subprocess.PIPE, bufsize=0)


def wait_for_a_growing_part(progress: Progress, directory: Path) -> None:
    """Waits until the take's `.part` exists and has grown: audio reached the disk."""
    progress.until(1.0)
    parts = list(directory.glob("*.part"))
    assert len(parts) == 1, f"expected one .part, found {parts}"
    size = parts[0].stat().st_size
    progress.until(2.0)
    assert parts[0].stat().st_size > size


@pytest.mark.parametrize("number", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_a_signal_finishes_the_take_and_keeps_the_file(cli: Path, speech: Speech, tmp_path: Path,
                                                       number: signal.Signals) -> None:
    output = tmp_path / "note.ogg"
    child = start(cli, speech, output, subprocess.PIPE)
    try:
        assert child.stdout is not None
        wait_for_a_growing_part(Progress(child.stdout.fileno()), tmp_path)
        child.send_signal(number)
    except BaseException:
        child.kill()
        raise
    rest, errors = finish(child)
    assert child.returncode == 0, errors
    finished = json.loads(rest.splitlines()[-1])
    assert finished["finished"] == str(output) and finished["duration"] >= 2
    assert voicenote.info(output)["duration"] == pytest.approx(finished["duration"], abs=0.001)
    assert not parts(tmp_path)


def test_a_closed_stdout_finishes_the_take_and_keeps_the_file(cli: Path, speech: Speech, tmp_path: Path) -> None:
    output = tmp_path / "note.ogg"
    read_end, write_end = os.pipe()
    try:
        child = start(cli, speech, output, write_end)
    finally:
        os.close(write_end)
    try:
        wait_for_a_growing_part(Progress(read_end), tmp_path)
    finally:
        os.close(read_end)  # the next progress line meets EPIPE (and SIGPIPE)
    _, errors = finish(child)
    reason = [line for line in errors.splitlines() if line.strip()]
    # Not killed by SIGPIPE: it fails on purpose, saying where the recording is, since it could not print it.
    assert child.returncode == 1, reason
    assert len(reason) == 1 and "standard output was closed" in reason[0] and str(output) in reason[0]
    assert voicenote.info(output)["duration"] >= 2
    assert not parts(tmp_path)
