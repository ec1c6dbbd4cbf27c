"""Virtual microphones and what the recorder tests need around them.

- Speech made at test time (``espeak-ng`` + ``sox``) over a room-like noise floor (pink noise at about −50 dBFS, as
  a real microphone hears it; the Swift recorder tests use the same input), as raw S16LE mono at 48 and 44.1 kHz,
  and a long WAV to play into a PulseAudio sink.
- ALSA configuration text for a file microphone (ALSA's ``file`` plugin over an inline ``null`` slave), which
  delivers as fast as it is read, optionally behind a ``plug`` that only offers one rate.
- :class:`EventLog`: a recorder subscriber the test waits on (bounded).
- :func:`decoded_samples`: a file's length in samples, decoded by FFmpeg (a reference outside the library).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List, Optional, Type

import pytest

from helpers import TIMEOUT, Recorder as Collector

import voicenote

SPEECH = "Hello, this is a voice message for the voicenote tests. One, two, three, four."


@dataclass
class Speech:
    """The speech inputs of one test session."""

    #: 48 kHz mono S16LE raw speech over the noise floor (about 6 s).
    raw48: Path
    #: The same at 44.1 kHz.
    raw44: Path
    #: About 60 s of the speech (repeated) as a 48 kHz mono WAV, to play into a sink.
    long_wav: Path
    #: The first bytes of ``raw48`` (all of it), for comparing with what a take captured.
    pcm48: bytes


def run(command: List[str], timeout: float = TIMEOUT) -> bytes:
    """Runs a tool with a bounded timeout (``TIMEOUT`` unless given); fails the test with its stderr when it fails.
    Returns stdout."""
    result = subprocess.run(command, capture_output=True, timeout=timeout)
    assert result.returncode == 0, f"{command[0]} failed ({result.returncode}): {result.stderr.decode(errors='replace')}"
    return result.stdout


def make_speech(folder: Path) -> Speech:
    """Makes the speech inputs; skips when a tool is missing."""
    for tool in ("espeak-ng", "sox", "ffmpeg"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (needed to make the recorder's input)")
    spoken = folder / "spoken.wav"
    run(["espeak-ng", "-w", str(spoken), SPEECH])
    wav = folder / "speech.wav"
    run(["sox", "-G", str(spoken), "-D", "-r", "48000", "-c", "1", "-b", "16", str(wav)])
    noise = folder / "noise.wav"
    # -R: repeatable noise, so every run records the same input.
    run(["sox", "-R", "-n", "-r", "48000", "-c", "1", "-b", "16", str(noise), "synth", "6.5", "pinknoise", "vol",
         "0.003"])
    raws = {}
    for rate in (48000, 44100):
        raw = folder / f"speech-{rate}.raw"
        run(["sox", "-R", "-m", "-v", "1", str(wav), "-v", "1", str(noise), "-t", "raw", "-e", "signed-integer",
             "-b", "16", "-L", "-c", "1", "-r", str(rate), str(raw)])
        raws[rate] = raw
    long_wav = folder / "speech-long.wav"
    run(["sox", str(wav), str(long_wav), "repeat", "11"])
    return Speech(raws[48000], raws[44100], long_wav, raws[48000].read_bytes())


def file_microphone(infile: Path, rate: Optional[int] = None, name: str = "vn_mic") -> str:
    """ALSA configuration text defining ``pcm.<name>``: a microphone reading raw S16LE mono frames from ``infile``
    as fast as it is read. With ``rate``, a ``plug`` in front that only offers that rate (a device that refuses
    48 kHz)."""
    pcm = f'{{ type file slave.pcm {{ type null }} file "/dev/null" infile "{infile}" format raw }}'
    if rate is None:
        return f"pcm.{name} {pcm}"
    return f"pcm.{name} {{ type plug slave {{ pcm {pcm} rate {rate} }} }}"


FAULT_PLUGIN_SOURCE = Path(__file__).resolve().parents[3] / "Tests" / "Devices" / "pcm_vnfault.c"


def fault_microphone(infile: Path, faults: str, build_dir: Path, can_resume: bool = True, poll_errors: bool = False,
                     open_error: int = 0, name: str = "vn_fault") -> str:
    """ALSA configuration text defining ``pcm.<name>``: a microphone that fails on cue (``Tests/Devices/
    pcm_vnfault.c``, a real ALSA external plugin compiled here with ``cc``): it reads raw S16LE mono frames from
    ``infile`` as fast as they are read and raises the ``faults`` it is given, e.g. ``"xrun@48000 unplug@96000"``
    (see the plugin's header for every kind); with ``poll_errors`` they show in ``snd_pcm_wait`` (POLLERR, as kernel
    drivers report them) rather than in ``snd_pcm_readi``; ``open_error`` (a negative errno) fails the open itself."""
    plugin = build_dir / "libasound_module_pcm_vnfault.so"
    if not plugin.exists():
        flags = run(["pkg-config", "--cflags", "--libs", "alsa"]).decode().split()
        run(["cc", "-O1", "-DPIC", "-shared", "-fPIC", str(FAULT_PLUGIN_SOURCE), "-o", str(plugin), *flags])
    return (f'pcm_type.vnfault {{ lib "{plugin}" }} pcm.{name} {{ type vnfault infile "{infile}" '
            f'faults "{faults}" resume {1 if can_resume else 0} poll_errors {1 if poll_errors else 0} '
            f'open_error {open_error} }}')


def decoded_samples(path: str, rate: int = 48000) -> int:
    """How many mono samples FFmpeg decodes from ``path`` at ``rate`` (Ogg Opus: pre-skip and end trimming
    applied). Works on a ``.part`` file a crash left (FFmpeg decodes up to the last whole page)."""
    pcm = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-ac", "1",
               "-ar", str(rate), "-"])
    return len(pcm) // 2


class EventLog:
    """Subscribes to a recorder and collects its events; every wait is bounded and fails the test on timeout."""

    def __init__(self, recorder: voicenote.Recorder, collector: Optional[Collector] = None) -> None:
        self.collector = collector or Collector()
        self.subscription = recorder.subscribe(self.collector.add)

    @property
    def events(self) -> List[Any]:
        """The events so far."""
        return self.collector.snapshot()

    def of(self, kind: Type[Any]) -> List[Any]:
        """The events so far of one class."""
        return [event for event in self.events if isinstance(event, kind)]

    def wait_for(self, predicate: Callable[[List[Any]], bool], what: str, timeout: float = TIMEOUT) -> List[Any]:
        """Waits until ``predicate(events)`` holds."""
        return self.collector.wait_for(predicate, timeout, what)

    def wait_end(self, timeout: float = TIMEOUT) -> List[Any]:
        """Waits for the end of a take that ends with an event (RecordingFinished, TooShort or RecordingFailed):
        the STOPPED context that follows that event, the last event of every take."""
        return self.wait_for(take_ended, "the take's end and state STOPPED", timeout)

    def wait_stopped(self, after: int, timeout: float = TIMEOUT) -> List[Any]:
        """Waits for a context event with state STOPPED among the events from index ``after`` on (for takes that
        end without an event of their own: cancel)."""
        return self.wait_for(lambda events: any(stopped(event) for event in events[after:]), "state STOPPED",
                             timeout)

    def wait_duration(self, seconds: float, timeout: float = TIMEOUT) -> voicenote.RecorderContext:
        """Waits for a context event of a recording take with at least ``seconds`` captured; returns it."""
        def reached(events: List[Any]) -> bool:
            return any(isinstance(event, voicenote.RecorderContextEvent)
                       and event.context.state == voicenote.RecorderState.RECORDING
                       and event.context.duration >= seconds for event in events)
        events = self.wait_for(reached, f"{seconds} s captured", timeout)
        return next(event.context for event in events if isinstance(event, voicenote.RecorderContextEvent)
                    and event.context.duration >= seconds)

    def finished(self) -> voicenote.RecordingFinished:
        """The take's RecordingFinished, waiting for it."""
        events = self.wait_for(lambda events: any(isinstance(e, voicenote.RecordingFinished) for e in events),
                               "RecordingFinished")
        return next(event for event in events if isinstance(event, voicenote.RecordingFinished))


_TERMINAL = (voicenote.RecordingFinished, voicenote.TooShort, voicenote.RecordingFailed)


def stopped(event: Any) -> bool:
    """Whether ``event`` is a context event with state STOPPED."""
    return isinstance(event, voicenote.RecorderContextEvent) and event.context.state == voicenote.RecorderState.STOPPED


def take_ended(events: List[Any]) -> bool:
    """Whether ``events`` hold a take's terminal event (RecordingFinished, TooShort, RecordingFailed) followed by
    a STOPPED context (see :meth:`EventLog.wait_end`)."""
    ends = [index for index, event in enumerate(events) if isinstance(event, _TERMINAL)]
    return bool(ends) and any(stopped(event) for event in events[ends[0]:])


def recordings(directory: Path) -> List[str]:
    """The take files (``.ogg``, ``.aac`` and ``.part``) in ``directory``, sorted."""
    if not directory.exists():
        return []
    return sorted(p.name for p in directory.iterdir() if p.suffix in (".ogg", ".aac", ".part"))
