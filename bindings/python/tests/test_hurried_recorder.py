"""A user who taps record and pause at once, and hosts that pass absurd limits: the process never dies, every take
ends as a whole file or as nothing.

Each crash reproducer runs in a child interpreter, so a regression fails its test instead of killing the suite.
Every wait is bounded (``helpers.TIMEOUT``).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT
from microphones import EventLog

import voicenote
from voicenote import RecordingFinished

TAP_RECORD_THEN_PAUSE = """
import sys, voicenote
for _ in range(10):
    r = voicenote.Recorder(sys.argv[1], device="null")
    r.begin(); r.pause(); r.stop(); r.close()
"""


def test_begin_then_pause_at_once_does_not_crash(tmp_path: Path) -> None:
    # The reported reproducer: SIGSEGV in libopusenc in 9 runs of 10, leaving a 0-byte .part.
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT))
    for _ in range(3):
        child = subprocess.run([sys.executable, "-c", TAP_RECORD_THEN_PAUSE, str(tmp_path)], env=env,
                               capture_output=True, text=True, timeout=TIMEOUT)
        assert child.returncode == 0, f"exit {child.returncode}: {child.stderr[-2000:]}"
    assert not list(tmp_path.glob("*.part"))
    for take in tmp_path.glob("*.ogg"):
        assert voicenote.info(take)["codec"] == "opus"


@pytest.mark.parametrize("value", [1e300, 2e14, math.inf, -math.inf, math.nan, -1.0, 1e6 + 1])
@pytest.mark.parametrize("field", ["max_duration", "max_duration_warning", "min_duration"])
def test_absurd_limits_are_refused_with_their_range(tmp_path: Path, field: str, value: float) -> None:
    with pytest.raises(voicenote.InvalidArgumentError, match="0…1000000 seconds"):
        voicenote.Recorder(tmp_path, device="null", **{field: value})


@pytest.mark.parametrize("value", [0.0, 1e-12, math.nan, math.inf, 11.0])
def test_meter_intervals_outside_their_range_are_refused(tmp_path: Path, value: float) -> None:
    with pytest.raises(voicenote.InvalidArgumentError, match="0.01…10"):
        voicenote.Recorder(tmp_path, device="null", meter_interval=value)


@pytest.mark.parametrize("maximum", [1e-300, 1e-10])
def test_a_tiny_maximum_is_one_frame_not_no_limit(tmp_path: Path, maximum: float) -> None:
    # Rounded to 0 frames, a tiny limit meant "unlimited" and recorded until killed.
    with voicenote.Recorder(tmp_path, device="null", max_duration=maximum) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
    [finished] = [event for event in events if isinstance(event, RecordingFinished)]
    assert finished.duration == pytest.approx(1 / 48000)
    assert voicenote.info(finished.path)["duration"] == pytest.approx(1 / 48000, abs=1e-6)
