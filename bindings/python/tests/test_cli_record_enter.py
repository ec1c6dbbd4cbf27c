"""Enter stops `voicenote record` in every progress mode, not only the terminal's meter: a newline on standard input
from a pipe finishes the take and keeps the file with `--progress json` and `--progress none` (issue #35). At the end
of standard input (`</dev/null`, a pipe closed without a newline) or with it closed, the take goes on until a signal,
as the help says.

The microphone is ALSA's `file` plugin reading speech as fast as it is read; every wait is for the tool's own
progress lines or the take's growing `.part`, bounded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

from cli_progress import Progress, finish, parts
from helpers import TIMEOUT, wait_until
from microphones import Speech, file_microphone

import voicenote


def start(cli: Path, speech: Speech, output: Path, progress: str, stdin: Any,
          preexec_fn: Callable[[], None] | None = None) -> subprocess.Popen[bytes]:
    """`voicenote record` without a length limit: only Enter or a signal can end it."""
    return subprocess.Popen([str(cli), "record", "--device", "vn_mic", "--device-config", file_microphone(speech.raw48),
                             "--max-duration", "0", "-o", str(output), "--progress", progress],
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
                            preexec_fn=preexec_fn)


def wait_for_audio_on_disk(directory: Path) -> None:
    """Waits (bounded) until the take's `.part` has grown past its headers: capture runs."""
    def grown() -> bool:
        found = parts(directory)
        return bool(found) and found[0].stat().st_size > 4096

    assert wait_until(grown), f"no growing .part within {TIMEOUT} s: {parts(directory)}"


@pytest.mark.parametrize("progress", ["json", "none"])
def test_enter_on_a_pipe_stops_and_keeps_the_file(cli: Path, speech: Speech, tmp_path: Path, progress: str) -> None:
    output = tmp_path / "note.ogg"
    child = start(cli, speech, output, progress, subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    try:
        if progress == "json":
            Progress(child.stdout.fileno()).until(1.0)
        else:
            wait_for_audio_on_disk(tmp_path)
        child.stdin.write(b"stop, please\n")  # other bytes before the newline are ignored
        child.stdin.flush()
    except BaseException:
        child.kill()
        raise
    rest, errors = finish(child)
    assert child.returncode == 0, errors
    last = rest.decode().splitlines()[-1]
    if progress == "json":
        finished = json.loads(last)
        assert finished["finished"] == str(output) and finished["duration"] >= 1.0
        assert voicenote.info(output)["duration"] == pytest.approx(finished["duration"], abs=0.001)
    else:
        assert last.startswith(f"{output}  ")
        assert voicenote.info(output)["duration"] > 0
    assert not parts(tmp_path)


def close_standard_input() -> None:
    os.close(0)


@pytest.mark.parametrize("ending", ["dev-null", "closed-pipe", "closed"])
def test_without_enter_the_take_goes_on_until_a_signal(cli: Path, speech: Speech, tmp_path: Path, ending: str) -> None:
    """The end of standard input is no Enter: the take records on (past what the first polls saw) until SIGINT."""
    output = tmp_path / "note.ogg"
    if ending == "dev-null":
        child = start(cli, speech, output, "json", subprocess.DEVNULL)
    elif ending == "closed":
        child = start(cli, speech, output, "json", subprocess.DEVNULL, preexec_fn=close_standard_input)
    else:
        read_end, write_end = os.pipe()
        os.write(write_end, b"no newline")
        os.close(write_end)
        try:
            child = start(cli, speech, output, "json", read_end)
        finally:
            os.close(read_end)
    assert child.stdout is not None
    try:
        progress = Progress(child.stdout.fileno())
        progress.until(0.5)
        progress.until(2.0)  # the input's end was met long before this
        assert child.poll() is None, "record ended without Enter or a signal"
        child.send_signal(signal.SIGINT)
    except BaseException:
        child.kill()
        raise
    rest, errors = finish(child)
    assert child.returncode == 0, errors
    finished = json.loads(rest.decode().splitlines()[-1])
    assert finished["finished"] == str(output) and finished["duration"] >= 2.0
    assert not parts(tmp_path)
