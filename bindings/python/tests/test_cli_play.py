"""`voicenote play FILE` (Sources/voicenote-cli/PlayCommand.swift): plays a file to its end and exits 0, at a rate, from
a start time, with skip silence and a volume; refuses out-of-range numbers with a one-line error; a missing or corrupt
file or a missing device is one `Error:` line on stderr and a non-zero exit.

Devices are real ALSA PCMs given as configuration text: a file speaker (ALSA's `file` plugin over `null`, which
writes every frame played to a raw file and runs as fast as it is fed), and for the terminal tests a private
PulseAudio server's null sink (tests/pulse.py), which plays in real time. The terminal tests run the tool on a
pseudo-terminal that is its controlling terminal (`setsid -c`), as a shell would, and send it keys and signals."""

from __future__ import annotations

import os
import pty
import random
import re
import select
import shutil
import signal
import subprocess
import termios
import threading
import time
from array import array
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

import pulse
from audiofiles import Media, write_tone
from helpers import TIMEOUT

RATE = 48000


def file_speaker(output: Path, name: str = "vn_spk") -> str:
    """ALSA configuration text defining ``pcm.<name>``: a speaker writing raw S16LE frames to ``output``."""
    return (f'pcm.{name} {{ type file slave.pcm {{ type null }} file "{output}" format raw perm 0644 }}')


def run(cli: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(cli), *arguments], capture_output=True, text=True, timeout=TIMEOUT,
                          stdin=subprocess.DEVNULL)


def play_to_file(cli: Path, note: "Path | str", output: Path, *options: str) -> int:
    """Plays ``note`` (a path or a URL) to a file speaker writing ``output``; checks the exit and the silence of stderr (no progress
    line off a terminal); returns the frames written (mono)."""
    result = run(cli, "play", str(note), "--device", "vn_spk", "--device-config", file_speaker(output), *options)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and result.stdout == ""
    return output.stat().st_size // 2


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    """The only non-empty stderr line of a failed run (and nothing on stdout)."""
    assert result.returncode > 0, f"exit {result.returncode}: {result.stderr}"
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert result.stdout == ""
    return lines[0]


# --- playing to a file speaker ----------------------------------------------------------------------------------------


def test_play_answers_help(cli: Path) -> None:
    result = run(cli, "play", "--help")
    assert result.returncode == 0, result.stderr
    assert "USAGE" in result.stdout.upper() and "--rate" in result.stdout and "--device-config" in result.stdout


@pytest.mark.parametrize("kind", ["wav", "opus", "mp3", "flac", "vorbis", "aac"])
def test_plays_every_frame_at_rate_1(cli: Path, media: Media, tmp_path: Path, kind: str) -> None:
    frames = play_to_file(cli, media.files[kind], tmp_path / "out.raw", "--rate", "1")
    assert frames == pytest.approx(media.wav_seconds * RATE, rel=0.02)


@pytest.mark.parametrize("rate", ["2", "0.5", "2.5"])
def test_a_rate_scales_the_frames_played(cli: Path, media: Media, tmp_path: Path, rate: str) -> None:
    frames = play_to_file(cli, media.files["wav"], tmp_path / "out.raw", "--rate", rate)
    assert frames == pytest.approx(media.wav_seconds * RATE / float(rate), rel=0.02)


def test_start_skips_the_first_seconds(cli: Path, media: Media, tmp_path: Path) -> None:
    frames = play_to_file(cli, media.files["wav"], tmp_path / "out.raw", "--start", "2")
    assert frames == pytest.approx((media.wav_seconds - 2) * RATE, rel=0.02)


def test_start_with_a_rate(cli: Path, media: Media, tmp_path: Path) -> None:
    frames = play_to_file(cli, media.files["opus"], tmp_path / "out.raw", "--start", "1", "--rate", "2")
    assert frames == pytest.approx((media.wav_seconds - 1) * RATE / 2, rel=0.02)


def test_volume_0_plays_silence_of_the_same_length(cli: Path, media: Media, tmp_path: Path) -> None:
    output = tmp_path / "out.raw"
    frames = play_to_file(cli, media.files["wav"], output, "--volume", "0")
    assert frames == pytest.approx(media.wav_seconds * RATE, rel=0.02)
    samples = array("h", output.read_bytes())
    assert max(samples) == 0 and min(samples) == 0


def test_skip_silence_shortens_a_long_pause(cli: Path, media: Media, tmp_path: Path) -> None:
    # Speech, 3 s of silence, speech: skip silence shortens the pause to 0.25 s (docs/player.md).
    gap = tmp_path / "gap.wav"
    padded = tmp_path / "padded.wav"
    subprocess.run(["sox", str(media.files["wav"]), str(padded), "pad", "0", "3"], check=True, timeout=TIMEOUT)
    subprocess.run(["sox", str(padded), str(media.files["wav"]), str(gap)], check=True, timeout=TIMEOUT)
    whole = play_to_file(cli, gap, tmp_path / "whole.raw")
    skipped = play_to_file(cli, gap, tmp_path / "skipped.raw", "--skip-silence")
    assert whole == pytest.approx((2 * media.wav_seconds + 3) * RATE, rel=0.02)
    assert skipped <= whole - 2.5 * RATE


# --- failures ---------------------------------------------------------------------------------------------------------


def test_a_missing_file_is_one_line_naming_it(cli: Path, media: Media, tmp_path: Path) -> None:
    output = tmp_path / "out.raw"
    result = run(cli, "play", str(media.missing), "--device", "vn_spk", "--device-config", file_speaker(output))
    line = one_line(result)
    assert str(media.missing) in line and "VN_E_NOT_FOUND" in line
    assert not output.exists() or output.stat().st_size == 0


def test_a_corrupt_file_is_a_format_error(cli: Path, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.opus"
    corrupt.write_bytes(random.Random(20240611).randbytes(64 * 1024))
    output = tmp_path / "out.raw"
    line = one_line(run(cli, "play", str(corrupt), "--device", "vn_spk", "--device-config", file_speaker(output)))
    assert "VN_E_FORMAT" in line and str(corrupt) in line


def test_a_text_file_is_a_format_error(cli: Path, media: Media, tmp_path: Path) -> None:
    line = one_line(run(cli, "play", str(media.text_as_ogg), "--device", "vn_spk",
                        "--device-config", file_speaker(tmp_path / "out.raw")))
    assert "VN_E_FORMAT" in line


def test_a_missing_device_is_one_line(cli: Path, media: Media) -> None:
    line = one_line(run(cli, "play", str(media.files["wav"]), "--device", "vn_no_such_device"))
    assert "VN_E_DEVICE" in line and "vn_no_such_device" in line


@pytest.mark.parametrize("arguments, option", [
    (["--rate", "3"], "--rate"), (["--rate", "0.25"], "--rate"), (["--rate", "nan"], "--rate"),
    (["--rate", "inf"], "--rate"), (["--start=-1"], "--start"), (["--start", "inf"], "--start"),
    (["--start", "nan"], "--start"), (["--start", "1e300"], "--start"), (["--volume", "1.5"], "--volume"),
    (["--volume=-0.1"], "--volume"), (["--volume", "nan"], "--volume"),
])
def test_numbers_out_of_range_are_refused(cli: Path, media: Media, tmp_path: Path, arguments: List[str],
                                          option: str) -> None:
    output = tmp_path / "out.raw"
    result = run(cli, "play", str(media.files["wav"]), "--device", "vn_spk", "--device-config", file_speaker(output),
                 *arguments)
    # A usage error: its reason is the first line (ArgumentParser adds the usage after it, as for every command).
    assert result.returncode > 0, f"exit {result.returncode}: {result.stderr}"
    first = result.stderr.splitlines()[0]
    assert first.startswith("Error:") and option in first and "must be" in first, result.stderr
    assert not output.exists()


def test_rate_3_names_the_range(cli: Path, media: Media) -> None:
    result = run(cli, "play", str(media.files["wav"]), "--rate", "3")
    assert result.returncode != 0
    assert result.stderr.splitlines()[0] == "Error: --rate must be 0.5…2.5"


# --- on a terminal: the position line, keys and signals ---------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[pulse.PulseServer]:
    """A private PulseAudio server with a null sink: a speaker that plays in real time."""
    missing = pulse.available()
    if missing:
        pytest.skip(f"PulseAudio: {missing}")
    if shutil.which("setsid") is None:
        pytest.skip("setsid (util-linux) is not installed")
    running = pulse.PulseServer()
    try:
        running.warm()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def long_note(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 s of a tone: long enough that no terminal test reaches its end."""
    return write_tone(tmp_path_factory.mktemp("long") / "tone.wav", 20)


class Terminal:
    """`voicenote play` on a pseudo-terminal that is its controlling terminal; what it draws is collected."""

    def __init__(self, cli: Path, note: Path, server: pulse.PulseServer, *options: str) -> None:
        self.master, self.slave = pty.openpty()
        self.settings = termios.tcgetattr(self.slave)
        config = f'pcm.vn_rt {{ type pulse server "{server.address}" device "{server.sink}" }}'
        # setsid -c: a new session whose controlling terminal is standard input (the pty), as under a shell; it
        # execs the tool itself, so the pid is the tool's.
        self.process = subprocess.Popen(["setsid", "-c", str(cli), "play", str(note), "--device", "vn_rt",
                                         "--device-config", config, *options],
                                        stdin=self.slave, stdout=self.slave, stderr=self.slave)
        self.output = ""

    def read_until(self, predicate: Callable[[str], bool], what: str, timeout: float = TIMEOUT) -> None:
        """Collects output until ``predicate(output)`` holds; fails after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not predicate(self.output):
            left = deadline - time.monotonic()
            assert left > 0, f"no {what} within {timeout} s; the terminal shows: {self.output[-600:]!r}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: the tool exited and closed the terminal
                    chunk = b""
                assert chunk or predicate(self.output), f"the tool exited before {what}: {self.output[-600:]!r}"
                self.output += chunk.decode(errors="replace")

    def line(self) -> str:
        """The position line as last drawn."""
        return self.output.rsplit("\r", 1)[-1]

    def wait_line(self, pattern: str, what: str) -> re.Match[str]:
        """Waits until the last drawn line matches ``pattern``."""
        self.read_until(lambda _: re.search(pattern, self.line()) is not None, what)
        match = re.search(pattern, self.line())
        assert match is not None
        return match

    def send(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def wait_exit(self) -> int:
        return self.process.wait(TIMEOUT)

    def wait_stopped(self) -> bool:
        """Waits (bounded) until the tool is stopped by job control or has exited; returns whether it is stopped."""
        found: List[Optional[os.waitid_result]] = [None]

        def wait() -> None:
            found[0] = os.waitid(os.P_PID, self.process.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT)

        waiter = threading.Thread(target=wait, daemon=True)
        waiter.start()
        waiter.join(TIMEOUT)
        assert found[0] is not None, f"the tool neither stopped nor exited within {TIMEOUT} s"
        return found[0].si_code == os.CLD_STOPPED

    def restored(self) -> bool:
        """Whether the terminal's settings are those it had before the tool started."""
        return termios.tcgetattr(self.slave) == self.settings

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        os.close(self.master)
        os.close(self.slave)


@pytest.fixture
def terminal(cli: Path, long_note: Path, server: pulse.PulseServer) -> Iterator[Callable[..., Terminal]]:
    started: List[Terminal] = []

    def start(*options: str) -> Terminal:
        started.append(Terminal(cli, long_note, server, *options))
        return started[-1]

    yield start
    for each in started:
        each.close()


#: The position line: state, elapsed / duration, rate, bar.
LINE = r"^(▶|❚❚|…|■) (\d\d):(\d\d\.\d) / ~?(\d\d):(\d\d\.\d)  ([\d.]+)×  [━─]+"


def seconds(match: re.Match[str], first: int) -> float:
    return int(match.group(first)) * 60 + float(match.group(first + 1))


def test_keys_pause_seek_change_the_rate_and_quit(terminal: Callable[..., Terminal]) -> None:
    tool = terminal()
    playing = tool.wait_line(r"^▶ 00:00\.[1-9] / 00:20\.0  1×", "progress while playing")
    assert re.search(LINE, playing.string)
    tool.send(b" ")
    paused = tool.wait_line(r"^❚❚ ", "the paused line")
    at = seconds(re.search(LINE, paused.string), 2)
    assert at < 5
    tool.send(b"\x1b[C")  # →: 5 s on (while paused)
    moved = tool.wait_line(r"^❚❚ 00:0[5-9]", "the position 5 s on")
    assert seconds(re.search(LINE, moved.string), 2) == pytest.approx(at + 5, abs=0.15)
    tool.send(b"\x1b[D")  # ←: back 5 s
    tool.wait_line(rf"^❚❚ 00:0{int(at)}\.", "the position 5 s back")
    tool.send(b"+")
    tool.wait_line(r"  1\.5×  ", "the rate 1.5")
    tool.send(b"++")
    tool.wait_line(r"  2\.5×  ", "the rate 2.5")
    tool.send(b"+")  # the last preset: stays
    tool.send(b"-")
    tool.wait_line(r"  2×  ", "the rate 2")
    tool.send(b" ")
    tool.wait_line(r"^▶ .*  2×  ", "playing again at 2×")
    tool.send(b"q")
    assert tool.wait_exit() == 0
    assert tool.restored()


@pytest.mark.parametrize("number, status", [
    (signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGQUIT, 131),
])
def test_a_signal_stops_and_restores_the_terminal(terminal: Callable[..., Terminal], number: int,
                                                  status: int) -> None:
    tool = terminal()
    tool.wait_line(r"^▶ 00:00\.[1-9]", "progress while playing")
    assert not tool.restored()  # keys are read one at a time, without echo
    tool.process.send_signal(number)
    assert tool.wait_exit() == status
    assert tool.restored()


def test_ctrl_c_typed_on_the_terminal(terminal: Callable[..., Terminal]) -> None:
    tool = terminal()
    tool.wait_line(r"^▶ 00:00\.[1-9]", "progress while playing")
    tool.send(b"\x03")  # the terminal turns it into SIGINT for its foreground process group
    assert tool.wait_exit() == 130
    assert tool.restored()


def test_ctrl_z_pauses_gives_the_terminal_back_and_fg_plays_on(terminal: Callable[..., Terminal]) -> None:
    tool = terminal()
    tool.wait_line(r"^▶ 00:00\.[1-9]", "progress while playing")
    tool.send(b"\x1a")
    assert tool.wait_stopped()
    assert tool.restored()
    shown = len(tool.output)
    tool.process.send_signal(signal.SIGCONT)
    tool.read_until(lambda output: "▶" in output[shown:], "playing after SIGCONT")
    assert not tool.restored()
    tool.send(b"q")
    assert tool.wait_exit() == 0
    assert tool.restored()


def test_keys_work_after_an_outside_sigstop_and_sigcont(terminal: Callable[..., Terminal]) -> None:
    # SIGSTOP cannot be caught: the terminal stays as the tool set it, and SIGCONT takes the keyboard again.
    tool = terminal()
    tool.wait_line(r"^▶ 00:00\.[1-9]", "progress while playing")
    tool.process.send_signal(signal.SIGSTOP)
    assert tool.wait_stopped()
    tool.process.send_signal(signal.SIGCONT)
    tool.send(b" ")
    tool.wait_line(r"^❚❚ ", "the paused line after SIGCONT")
    tool.send(b"q")
    assert tool.wait_exit() == 0
    assert tool.restored()


def test_a_file_that_fails_on_a_terminal_ends_the_line_first(cli: Path, server: pulse.PulseServer,
                                                             tmp_path: Path) -> None:
    missing = tmp_path / "missing.ogg"
    tool = Terminal(cli, missing, server)
    try:
        assert tool.wait_exit() == 1
        tool.read_until(lambda output: "VN_E_NOT_FOUND" in output, "the error")
        error = [line for line in tool.output.replace("\r\n", "\n").split("\n") if "VN_E_NOT_FOUND" in line]
        assert error and error[0].startswith("Error: ") and str(missing) in error[0]
        assert tool.restored()
    finally:
        tool.close()
