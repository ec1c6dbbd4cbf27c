"""`voicenote record --flow`: the recording flow on the keyboard (toggle mode), with keys piped in (one line per
accessible description and trim range on standard error) and on a pseudo-terminal (one line redrawn). The
microphone is ALSA's file plugin reading 30 s of tone, unpaced; previews play to a file speaker."""
from __future__ import annotations

import json
import os
import pty
import queue
import re
import select
import signal
import subprocess
import termios
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest

from helpers import TIMEOUT
from microphones import decoded_samples, run


@pytest.fixture(scope="module")
def devices(tmp_path_factory: pytest.TempPathFactory) -> List[str]:
    """``--device``/``--speaker`` arguments: a 30 s tone microphone and a file speaker."""
    folder = tmp_path_factory.mktemp("flow-cli")
    tone = folder / "mic.raw"
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(tone),
         "synth", "30", "sine", "300", "vol", "0.3"])
    return ["--device", "vn_mic", "--device-config",
            f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{tone}" format raw }}',
            "--speaker", "vn_spk", "--speaker-config",
            f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{folder}/heard.raw" format raw }}']


class Piped:
    """`voicenote record --flow` with keys written to its standard input; its standard error read line by line."""

    def __init__(self, cli: Path, devices: List[str], *options: str) -> None:
        self.process = subprocess.Popen([str(cli), "record", "--flow", *devices, *options], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.seen: List[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.lines.put(raw.decode(errors="replace").rstrip("\n"))

    def wait_line(self, fragment: str) -> str:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            if fragment in line:
                return line
        raise AssertionError(f"no line with {fragment!r} within {TIMEOUT} s; saw {self.seen}")

    def send(self, keys: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(keys)
        self.process.stdin.flush()

    def start_take(self, seconds: int) -> None:
        """Space, then waits until the take has `seconds` of audio."""
        self.wait_line("Record a voice message")
        self.send(b" ")
        self.wait_line(f"Recording, 0:0{seconds}")

    def finish(self) -> "tuple[int, str]":
        out, _ = self.process.communicate(timeout=TIMEOUT)
        return self.process.returncode, out.decode()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=TIMEOUT)


@pytest.fixture
def piped(cli: Path, devices: List[str]) -> Iterator["type[Piped]"]:
    started: List[Piped] = []

    def start(*options: str) -> Piped:
        started.append(Piped(cli, devices, *options))
        return started[-1]

    yield start  # type: ignore[misc]
    for each in started:
        each.close()


LEFT, RIGHT, TAB, ENTER, ESC = b"\x1b[D", b"\x1b[C", b"\t", b"\r", b"\x1b"


def test_space_records_space_previews_arrows_trim_enter_sends(piped, tmp_path: Path) -> None:
    output = tmp_path / "sent.ogg"
    tool = piped("-o", str(output))
    tool.start_take(2)
    tool.send(b" ")
    preview = tool.wait_line("ready to send")
    tool.send(LEFT * 5)  # the end handle, 0.5 s back
    for _ in range(5):
        end_line = tool.wait_line("trim 0.000…")
    end = float(end_line.split("…")[1].split()[0])
    tool.send(TAB + RIGHT * 3)  # the start handle, 0.3 s on
    for _ in range(3):
        start_line = tool.wait_line("trim 0.")
    assert start_line.startswith("trim 0.300…")
    tool.send(ENTER)
    sent = tool.wait_line("sent ")
    status, out = tool.finish()
    assert status == 0, tool.seen
    payload = json.loads(out)
    assert payload["asset_url"] == f"file://{output}" and payload["type"] == "voiceRecording"
    assert payload["duration"] == pytest.approx(end - 0.3, abs=1e-6)
    assert str(output) in sent and "Voice message" in preview
    assert abs(decoded_samples(str(output)) - round((end - 0.3) * 48000)) <= 1
    assert len(payload["waveform_data"]) == 100


def test_escape_cancels_and_q_quits_without_a_file(piped, tmp_path: Path) -> None:
    output = tmp_path / "never.ogg"
    tool = piped("-o", str(output))
    tool.start_take(1)
    tool.send(ESC)
    tool.wait_line("Record a voice message")
    tool.send(b"q")
    status, out = tool.finish()
    assert status == 1 and out == ""
    assert not output.exists()


def test_a_signal_during_a_take_keeps_it(piped) -> None:
    tool = piped()
    tool.start_take(1)
    tool.process.send_signal(signal.SIGTERM)
    kept = tool.wait_line("the take was kept: ")
    status, out = tool.finish()
    assert status == 128 + signal.SIGTERM and out == ""
    path = kept.split("kept: ", 1)[1]
    assert os.path.exists(path) and decoded_samples(path) > 48000
    os.unlink(path)


def test_a_microphone_that_cannot_open_ends_with_its_error(cli: Path) -> None:
    result = subprocess.run([str(cli), "record", "--flow", "--device", "vn_no_such_mic"], input=b" ",
                            capture_output=True, timeout=TIMEOUT)
    assert result.returncode != 0 and result.stdout == b""
    assert b"vn_no_such_mic" in result.stderr or b"device" in result.stderr.lower(), result.stderr


def test_flow_options_are_checked(cli: Path) -> None:
    for extra in (["--flow", "--duration", "3"], ["--speaker", "vn_spk"]):
        result = subprocess.run([str(cli), "record", *extra], capture_output=True, timeout=TIMEOUT)
        assert result.returncode == 64, result.stderr


def test_on_a_terminal_the_line_is_redrawn_and_the_terminal_restored(cli: Path, devices: List[str],
                                                                        tmp_path: Path) -> None:
    master, slave = pty.openpty()
    settings = termios.tcgetattr(slave)
    output = tmp_path / "sent.ogg"
    process = subprocess.Popen(["setsid", "-c", str(cli), "record", "--flow", *devices, "-o", str(output)],
                               stdin=slave, stdout=slave, stderr=slave)
    shown = ""

    def read_until(fragment: str, anywhere: bool = False) -> None:
        """Reads until the line drawn last (or, ``anywhere``, any output) matches ``fragment``, a regular
        expression."""
        nonlocal shown
        deadline = time.monotonic() + TIMEOUT
        while not re.search(fragment, shown if anywhere else shown[shown.rfind("\r"):]):
            left = deadline - time.monotonic()
            assert left > 0, f"no {fragment!r} within {TIMEOUT} s: {shown[-400:]!r}"
            ready, _, _ = select.select([master], [], [], left)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    chunk = b""
                assert chunk, f"the tool exited before {fragment!r}: {shown[-400:]!r}"
                shown += chunk.decode(errors="replace")

    try:
        read_until("Space: record")
        os.write(master, b" ")
        read_until("Space: stop")
        # The file microphone is not paced: the take may run on past 00:01 (to its 60-minute limit, which stops it
        # into preview) before this reads the line, and between two redraws it can pass a whole second, so a redrawn
        # timer at or past 00:01 is looked for in all that was drawn (a run saw 40:05 first). Space in preview does
        # nothing.
        read_until(r"● (?!00:00)\d\d:\d\d", anywhere=True)
        os.write(master, b" ")
        read_until("P: play")
        os.write(master, ENTER)
        read_until(re.escape("sent " + str(output)), anywhere=True)
        assert process.wait(TIMEOUT) == 0, shown[-400:]
        assert output.exists() and termios.tcgetattr(slave) == settings
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)
        os.close(master)
        os.close(slave)
