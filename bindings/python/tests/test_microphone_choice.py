"""The right microphone, through a private PulseAudio server (tests/pulse.py) with two more sources, PulseAudio's
own sine sources — "vn_default" at 880 Hz, the default source, and "vn_usb" at 440 Hz:

- a source unloaded mid-take (a USB microphone pulled out): the sound server moves the stream to the default source
  and the take goes on to its end, with the first tone, then the other;
- a recorder on the default source follows it when the user changes it between takes;

both through ALSA's pulse plugin and, with a stream role, through libpulse itself.

(Where the device is reached without a sound server, the library's own fallback does it: test_recorder.py, with a
microphone that is unplugged on cue.) Every wait is bounded."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator, List, Optional

import pytest

import pulse
from audiofiles import dominant_frequency
from helpers import TIMEOUT, wait_until
from microphones import EventLog

import voicenote
from voicenote import RecordingFailed, RecordingFinished


@pytest.fixture
def server() -> Iterator[pulse.PulseServer]:
    with pulse.warmed_server() as running:  # a server of its own per test: the tests load and unload sources
        yield running


def samples_of(path: str) -> List[int]:
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "48000",
                          "-"], capture_output=True, check=True, timeout=TIMEOUT).stdout
    return list(memoryview(raw).cast("h"))


def two_microphones(server: pulse.PulseServer) -> str:
    """Loads the two sine sources, vn_default the default; returns vn_usb's module index."""
    server.pactl("load-module", "module-sine-source", "source_name=vn_default", "frequency=880", "rate=48000")
    index = server.pactl("load-module", "module-sine-source", "source_name=vn_usb", "frequency=440", "rate=48000")
    server.pactl("set-default-source", "vn_default")
    return index


@pytest.mark.parametrize("role", [None, "phone"])
def test_a_source_unloaded_mid_take_goes_on_from_the_default_source(server: pulse.PulseServer, tmp_path: Path,
                                                                   role: Optional[str]) -> None:
    index = two_microphones(server)
    usb = f'pcm.vn_rt {{ type pulse server "{server.address}" device "vn_usb" }}'
    with voicenote.Recorder(tmp_path / "takes", device="vn_rt", device_config=usb, max_duration=4,
                            stream_role=role) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        assert wait_until(lambda: recorder.context.duration >= 1.5), "the take did not start"
        server.pactl("unload-module", index)  # the USB microphone is gone
        events = log.wait_end()
    assert not [event for event in events if isinstance(event, RecordingFailed)], events
    finished = [event for event in events if isinstance(event, RecordingFinished)][0]
    assert finished.duration == 4, "the take did not go on to its maximum"
    samples = samples_of(finished.path)
    assert abs(dominant_frequency(samples[24000:48000]) - 440) < 10  # the USB microphone's tone
    assert abs(dominant_frequency(samples[-48000:]) - 880) < 10      # then the default source's


@pytest.mark.parametrize("role", [None, "phone"])
def test_a_recorder_on_the_default_source_follows_it_between_takes(server: pulse.PulseServer, tmp_path: Path,
                                                                  role: Optional[str]) -> None:
    two_microphones(server)
    default = f'pcm.vn_rt {{ type pulse server "{server.address}" }}'
    heard = []
    with voicenote.Recorder(tmp_path / "takes", device="vn_rt", device_config=default, max_duration=1,
                            stream_role=role) as recorder:
        for source in ("vn_default", "vn_usb"):
            server.pactl("set-default-source", source)  # the user's choice in the desktop's sound settings
            log = EventLog(recorder)
            recorder.begin()
            events = log.wait_end()
            finished = [event for event in events if isinstance(event, RecordingFinished)][0]
            heard.append(round(dominant_frequency(samples_of(finished.path)[12000:])))
    assert abs(heard[0] - 880) < 10 and abs(heard[1] - 440) < 10, heard
