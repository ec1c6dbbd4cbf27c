"""FFmpeg's log reaches the host through voicenote's log hook, never its stderr — unless the host loaded FFmpeg
itself first, whose log is then the host's to handle.

Each case runs in a child interpreter: FFmpeg's log callback is process-wide and set once.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT

CHILD = """
import ctypes, json, sys
if sys.argv[2] == "host-first":
    ctypes.CDLL("libavutil.so.57", mode=ctypes.RTLD_GLOBAL)  # the host uses FFmpeg before voicenote does
import voicenote
lines = []
if sys.argv[3] == "handler":
    voicenote.set_log_handler(lambda level, message: lines.append([level, message]), voicenote.LOG_DEBUG)
try:
    voicenote.waveform(sys.argv[1])
except voicenote.VoiceNoteError:
    pass
print(json.dumps(lines))
"""


@pytest.fixture(scope="module")
def damaged_flac(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three seconds of FLAC with 3000 bytes of noise in the middle: FFmpeg's decoder complains."""
    directory = tmp_path_factory.mktemp("flac")
    clean = directory / "clean.flac"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", str(clean), "synth", "3", "sine", "440"], check=True,
                   timeout=TIMEOUT)
    data = bytearray(clean.read_bytes())
    noise = random.Random(1)
    start = len(data) * 4 // 10
    data[start:start + 3000] = bytes(noise.randrange(256) for _ in range(3000))
    damaged = directory / "damaged.flac"
    damaged.write_bytes(bytes(data))
    return damaged


def run_child(path: Path, order: str, handler: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT))
    child = subprocess.run([sys.executable, "-c", CHILD, str(path), order, handler], env=env, capture_output=True,
                           text=True, timeout=TIMEOUT)
    assert child.returncode == 0, child.stderr[-2000:]
    return child


def test_ffmpeg_lines_reach_the_log_hook_not_stderr(damaged_flac: Path) -> None:
    child = run_child(damaged_flac, "voicenote-first", "handler")
    lines = json.loads(child.stdout)
    ffmpeg = [message for level, message in lines if message.startswith("FFmpeg: [flac @")]
    assert ffmpeg, lines
    assert any(level == 1 and "decode_frame() failed" in message for level, message in lines), lines
    assert "[flac @" not in child.stderr, child.stderr


def test_the_library_is_quiet_without_a_handler(damaged_flac: Path) -> None:
    child = run_child(damaged_flac, "voicenote-first", "none")
    assert child.stderr == ""


def test_a_host_that_loaded_ffmpeg_first_keeps_its_log(damaged_flac: Path) -> None:
    child = run_child(damaged_flac, "host-first", "handler")
    lines = json.loads(child.stdout)
    assert not [message for _, message in lines if message.startswith("FFmpeg:")], lines
