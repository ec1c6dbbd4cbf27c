"""The Recorder against a real-time microphone: a private PulseAudio server (tests/pulse.py) with speech playing
into its null sink, captured through ALSA's pulse plugin. Each test starts its own server and stops it by pid.

Covers pause/resume (paused time is in neither the file nor the duration), device loss (the server killed
mid-take: the take is kept, then a DeviceError), and docs/recorder.md, "why nothing captured is lost": a process recording is
killed with SIGKILL, its ``.part`` decodes up to the last second, and :func:`voicenote.recover` finishes it. And the
first take on a fresh server: its first frame comes no later than arecord's, and it holds the speech from within
0.3 s of begin.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from array import array
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import pulse
from audiofiles import find_cli, is_tsan_build, loaded_library_path
from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_until
from microphones import EventLog, Speech, decoded_samples, recordings, run

import voicenote
from voicenote import RecorderContextEvent, RecorderState, RecordingFailed, RecordingFinished

RATE = 48000


@pytest.fixture
def server(pulse_microphone: pulse.PulseServer) -> pulse.PulseServer:
    """The real-time microphone of conftest.py's ``pulse_microphone``."""
    return pulse_microphone


def realtime_recorder(server: pulse.PulseServer, directory: Path, **options: Any) -> voicenote.Recorder:
    return voicenote.Recorder(directory, device="vn_rt", device_config=server.alsa_config("vn_rt"), **options)


def test_pause_and_resume_keep_exactly_the_unpaused_audio(server: pulse.PulseServer, tmp_path: Path) -> None:
    """While paused nothing is captured and the .part is whole on disk; the finished file decodes to exactly its
    duration × 48000 samples."""
    with realtime_recorder(server, tmp_path) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        assert recorder.context.state is RecorderState.RECORDING  # begin returns with capture running
        log.wait_duration(0.6)
        recorder.pause()
        paused = recorder.context
        assert paused.state is RecorderState.PAUSED and paused.duration >= 0.6
        with pytest.raises(voicenote.MisuseError):
            recorder.pause()
        assert paused.path.endswith(".ogg.part") and os.path.getsize(paused.path) > 0  # flushed on pause
        # However long the pause lasts, the duration does not move: no context event with another duration
        # arrives within 0.3 s (a bounded wait that is expected to time out).
        since = len(log.events)
        with log.collector.condition:
            moved = log.collector.condition.wait_for(
                lambda: any(isinstance(event, RecorderContextEvent) and event.context.duration != paused.duration
                            for event in log.collector.items[since:]), 0.3)
        assert not moved
        assert recorder.context.duration == paused.duration
        recorder.resume()
        log.wait_duration(paused.duration + 0.6)
        recorder.stop()
        done = log.finished()
        events = log.wait_end()
    assert paused.duration + 0.6 <= done.duration < paused.duration + 3
    assert decoded_samples(done.path) == round(done.duration * RATE)
    states = [event.context.state for event in events if isinstance(event, RecorderContextEvent)]
    assert RecorderState.PAUSED in states and states[-1] is RecorderState.STOPPED
    assert max(done.waveform) > 0.1  # it heard the speech


def test_device_loss_keeps_the_take_then_fails(server: pulse.PulseServer, tmp_path: Path) -> None:
    """SIGKILL to the server mid-take: RecordingFinished with what was captured, then RecordingFailed(DeviceError),
    in that order; then the STOPPED context."""
    with realtime_recorder(server, tmp_path) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        log.wait_duration(0.5)
        server.kill()
        events = log.wait_end()
        log.wait_for(lambda events: any(isinstance(event, RecordingFailed) for event in events), "RecordingFailed")
        assert recorder.context.state is RecorderState.STOPPED
    ends = [event for event in events if isinstance(event, (RecordingFinished, RecordingFailed))]
    assert [type(event) for event in ends] == [RecordingFinished, RecordingFailed]
    done, failed = ends
    assert isinstance(failed.error, voicenote.DeviceError) and isinstance(failed.error, OSError)
    assert failed.error.code == voicenote._capi.VN_E_DEVICE and failed.error.message
    assert done.duration >= 0.5
    assert decoded_samples(done.path) == round(done.duration * RATE)
    assert recordings(tmp_path) == [Path(done.path).name]


CRASH_CHILD = r"""
import json, sys, threading
import voicenote

directory, config, limit, clean = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "clean"
recorder = voicenote.Recorder(directory, device="vn_rt", device_config=config, voice_cleanup=clean)

def on_event(event):
    if isinstance(event, voicenote.RecorderContextEvent):
        context = event.context
        print(json.dumps({"state": context.state.name, "duration": context.duration, "path": context.path}),
              flush=True)

recorder.subscribe(on_event)
recorder.begin()
threading.Event().wait(limit)  # until the parent kills this process; a bounded wait in case it never does
sys.exit(3)
"""


@pytest.mark.parametrize("cleanup", ["plain", "clean"])
def test_a_killed_process_loses_at_most_the_last_second(server: pulse.PulseServer, tmp_path: Path,
                                                        cleanup: str) -> None:
    """docs/recorder.md, "why nothing captured is lost": a child process records and reports each context step; once it has
    captured 2.5 s it is killed with SIGKILL. Its .part decodes to at least the last reported duration − 1 s, and
    recover() makes it a finished .ogg of about the same length, leaving no .part. The same with voice cleanup on:
    a cleaned take survives as any take does."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.Popen([sys.executable, "-c", CRASH_CHILD, str(tmp_path), server.alsa_config("vn_rt"),
                              str(2 * TIMEOUT), cleanup], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, text=True)
    steps = Collector()
    stderr: List[str] = []

    def read_steps() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            steps.add(json.loads(line))
        steps.add(None)  # end of output

    def read_errors() -> None:
        assert child.stderr is not None
        stderr.append(child.stderr.read())

    readers = [threading.Thread(target=read_steps, daemon=True), threading.Thread(target=read_errors, daemon=True)]
    for reader in readers:
        reader.start()
    try:
        reported = steps.wait_for(
            lambda items: None in items or any(step["duration"] >= 2.5 for step in items if step), TIMEOUT,
            "the child to capture 2.5 s")
        assert None not in reported, f"the child ended early (rc={child.poll()}): {reported}"
        child.send_signal(signal.SIGKILL)
        assert child.wait(TIMEOUT) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(TIMEOUT)
        for reader in readers:
            reader.join(TIMEOUT)
    last: Dict[str, Any] = [step for step in steps.snapshot() if step][-1]
    assert last["state"] == "RECORDING" and last["duration"] >= 2.5, last
    part = last["path"]
    assert part.endswith(".ogg.part") and os.path.exists(part), (last, stderr)
    assert recordings(tmp_path) == [Path(part).name]

    on_disk = decoded_samples(part) / RATE
    assert on_disk >= last["duration"] - 1.0, (on_disk, last)

    (found,) = voicenote.recover(tmp_path)
    assert found.recovered and found.status == 0 and found.error is None
    assert found.path == part[: -len(".part")]
    assert os.path.exists(found.path) and not os.path.exists(part)
    assert recordings(tmp_path) == [Path(found.path).name]
    assert found.size == os.path.getsize(found.path)
    assert found.duration >= last["duration"] - 1.0
    recovered = decoded_samples(found.path) / RATE
    assert recovered == pytest.approx(found.duration, abs=0.001)
    assert recovered == pytest.approx(on_disk, abs=0.1)
    assert voicenote.info(found.path)["codec"] == "opus"
    assert voicenote.recover(tmp_path) == []  # nothing left to recover


def test_the_first_take_on_a_fresh_server_starts_no_later_than_arecord(speech: Speech, tmp_path: Path) -> None:
    """The first frame of a first take on a fresh server (no warm-up) comes no later than the reference client's,
    `arecord` with the same period, started at the same moment on the same server: what our opening of the PCM
    decides. (On a null sink with default arguments both would come about 1.5 s late and lose that audio; the
    fixture's sink has norewinds=1, see tests/pulse.py and README, performance.)"""
    missing = pulse.available()
    if missing:
        pytest.skip(f"PulseAudio: {missing}")
    if shutil.which("arecord") is None:
        pytest.skip("arecord (alsa-utils) is not installed")
    if is_tsan_build(loaded_library_path()):
        pytest.skip("a timing comparison; ThreadSanitizer slows our event delivery, not arecord")
    server = pulse.PulseServer()  # fresh: no warm-up
    try:
        server.play(speech.long_wav)
        # Both clients connect once the playback stream exists (the case users meet: a note begun while audio
        # plays); when the first frame comes then depends on the client.
        deadline = time.monotonic() + TIMEOUT
        while not playing(server):
            assert time.monotonic() < deadline, f"paplay never connected:\n{server.log}"
        first: Dict[str, float] = {}
        arrived = threading.Event()

        def on_event(event: Any) -> None:
            if isinstance(event, RecorderContextEvent) and event.context.duration > 0 and "ours" not in first:
                first["ours"] = time.monotonic()
                arrived.set()

        # Meter steps of 10 ms: the first context with a duration comes 10 ms of audio after the first frame.
        with realtime_recorder(server, tmp_path, meter_interval=0.01) as recorder:
            recorder.subscribe(on_event)
            reference = server._client(["arecord", "-q", "-D", "pulse", "-f", "S16_LE", "-r", str(RATE), "-c", "1",
                                        "-t", "raw", "--period-time=20000", "--buffer-time=160000"])
            start = time.monotonic()
            recorder.begin()
            assert reference.wait(lambda: reference.output_bytes > 0 or reference.exited(), TIMEOUT), \
                f"arecord got nothing: {reference.stderr}"
            first["arecord"] = time.monotonic()
            assert arrived.wait(TIMEOUT), "the take captured nothing"
            recorder.stop()
        ours, theirs = first["ours"] - start, first["arecord"] - start
        assert ours <= theirs + 0.15, f"our first frame after {ours:.3f} s, arecord's after {theirs:.3f} s"
    finally:
        server.stop()


ENVELOPE_RATE = 16000  # Hz: the rate files are decoded at for their envelopes
WINDOW = ENVELOPE_RATE // 100  # samples: one envelope value per 10 ms
ALIGNED = 150  # windows (1.5 s) of the take aligned with the played speech


def test_a_take_begun_while_speech_plays_on_a_fresh_server_holds_the_audio_from_begin(speech: Speech,
                                                                                    tmp_path: Path) -> None:
    """The first take on a fresh server (no warm-up) holds the audio from within 0.3 s of begin. Speech starts
    playing into the sink; a take begun while it plays records 3 s. Its first 1.5 s are cross-correlated with the
    played file (10 ms RMS envelopes, normalised) to find the speech position its first frame holds, which must be
    within 0.3 s of how long the speech had played when begin was called, counted from paplay's start (loose by
    paplay's own start-up, a few ms). On a null sink with default arguments the take starts about 1.5 s later in
    the speech, as arecord's does (README, performance)."""
    missing = pulse.available()
    if missing:
        pytest.skip(f"PulseAudio: {missing}")
    server = pulse.PulseServer()  # fresh: no warm-up
    try:
        played = time.monotonic()
        server.play(speech.long_wav)
        deadline = played + TIMEOUT
        while not playing(server):
            assert time.monotonic() < deadline, f"paplay never connected:\n{server.log}"
        with realtime_recorder(server, tmp_path) as recorder:
            log = EventLog(recorder)
            begun = time.monotonic()
            recorder.begin()
            log.wait_duration(3.0)
            recorder.stop()
            done = log.finished()
            log.wait_end()
    finally:
        server.stop()
    expected = begun - played  # s of speech played when begin was called

    take = envelope(Path(done.path))
    assert len(take) >= ALIGNED, f"the take holds {len(take) / 100:.2f} s"
    reference = envelope(speech.long_wav, seconds=15)
    # The long WAV repeats one utterance: its period is where its start recurs, and positions compare modulo it.
    period, recurrence = align(reference[:ALIGNED], reference, range(100, len(reference) - ALIGNED))
    assert recurrence > 0.95, f"no period found in the played speech (best {recurrence:.3f} at {period / 100} s)"
    lag, score = align(take[:ALIGNED], reference, range(period))
    position = lag / 100  # s into the speech (modulo the period) that the take's first frame holds
    late = (position - expected + period / 200) % (period / 100) - period / 200
    detail = (f"begin after {expected:.3f} s of speech; the take starts at speech position {position:.3f} s "
              f"(modulo {period / 100:.2f} s; correlation {score:.3f}): {late:+.3f} s")
    assert score > 0.8, "the take's start does not match the played speech: " + detail
    assert abs(late) <= 0.3, detail


def envelope(path: Path, seconds: Optional[float] = None) -> List[float]:
    """RMS per 10 ms of a file's audio (of its first ``seconds``), decoded by FFmpeg to mono at ENVELOPE_RATE
    (an Opus file's pre-skip applied)."""
    limit = ["-t", str(seconds)] if seconds else []
    samples = array("h")
    samples.frombytes(run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), *limit, "-f", "s16le", "-acodec",
                           "pcm_s16le", "-ac", "1", "-ar", str(ENVELOPE_RATE), "-"]))
    if sys.byteorder == "big":
        samples.byteswap()
    return [math.sqrt(sum(value * value for value in samples[start:start + WINDOW]) / WINDOW)
            for start in range(0, len(samples) - WINDOW + 1, WINDOW)]


def align(chunk: List[float], reference: List[float], lags: range) -> Tuple[int, float]:
    """The lag ``k`` in ``lags`` at which ``chunk`` best matches ``reference[k:k + len(chunk)]``, and their
    normalised (Pearson) correlation there."""
    n = len(chunk)
    mean = sum(chunk) / n
    centred = [value - mean for value in chunk]
    norm = math.sqrt(sum(value * value for value in centred))
    best, best_score = lags.start, -1.0
    for k in lags:
        window = reference[k:k + n]
        if len(window) < n:
            break
        window_mean = sum(window) / n
        spread = math.sqrt(sum((value - window_mean) ** 2 for value in window))
        if norm == 0 or spread == 0:
            continue
        score = sum(c * w for c, w in zip(centred, window)) / (norm * spread)  # sum(centred) is 0
        if score > best_score:
            best, best_score = k, score
    return best, best_score


def playing(server: pulse.PulseServer) -> bool:
    """Whether a playback stream is connected to the server's sink (``pactl list short sink-inputs``)."""
    listed = subprocess.run(["pactl", f"--server={server.address}", "list", "short", "sink-inputs"],
                            capture_output=True, text=True, timeout=TIMEOUT)
    return listed.returncode == 0 and listed.stdout.strip() != ""


def _returns_within(call: Callable[[], Any], timeout: float = TIMEOUT) -> Any:
    """Runs `call` on a thread and waits for it at most `timeout` seconds; fails (naming the call) when it hangs."""
    outcome: Dict[str, Any] = {}

    def run_call() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # re-raised on the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run_call, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"{call} did not return within {timeout} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_a_suspended_microphone_never_hangs_stop_and_keeps_what_was_captured(server: pulse.PulseServer,
                                                                             tmp_path: Path) -> None:
    """The sound server suspends the source mid-take (an idle or muted device): the stream stays connected and
    delivers nothing. Stop returns (ALSA's snd_pcm_wait would poll the pulse plugin's descriptor for ever) and the
    take holds the audio captured before the suspend."""
    with realtime_recorder(server, tmp_path) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        log.wait_duration(0.5)
        server.suspend()
        _returns_within(recorder.stop)
        done = log.finished()
    assert done.duration >= 0.5
    assert decoded_samples(done.path) == round(done.duration * RATE)


def test_a_take_begun_on_a_suspended_microphone_stops_cancels_and_closes(server: pulse.PulseServer,
                                                                        tmp_path: Path) -> None:
    """Nothing ever arrives: stop (nothing captured: too short, no file), cancel and close each return, and the
    flow's release ends its take the same way, telling its host the take was too short (no audio at all)."""
    server.suspend()
    with realtime_recorder(server, tmp_path) as recorder:
        for end in (recorder.stop, recorder.cancel):
            recorder.begin()
            _returns_within(end)
            assert recorder.context.state is RecorderState.STOPPED
        recorder.begin()
        _returns_within(recorder.close)
    assert recordings(tmp_path) == []
    with realtime_recorder(server, tmp_path / "flow") as recorder, \
            voicenote.Player(device="null", remember_positions=False) as player, \
            voicenote.ManualClock() as clock, \
            voicenote.RecordingFlow(recorder, player, clock=clock) as flow:
        events = Collector()
        flow.subscribe(events.add)
        flow.press(10, 10)
        clock.advance(0.6)
        assert wait_until(lambda: flow.state is voicenote.FlowState.RECORDING), flow.state  # begun on its worker
        _returns_within(flow.release)
        seen = events.wait_for(lambda items: any(isinstance(e, voicenote.TakeTooShort) for e in items),
                               what="the take-too-short event")
        [short] = [e for e in seen if isinstance(e, voicenote.TakeTooShort)]
        assert short.duration == 0
        assert wait_until(lambda: flow.state is voicenote.FlowState.IDLE)
        _returns_within(flow.close)
    assert recordings(tmp_path / "flow") == []


def test_the_cli_ends_on_sigint_while_the_microphone_is_suspended(server: pulse.PulseServer, tmp_path: Path) -> None:
    """`voicenote record` from a suspended source: SIGINT ends it at once, as it ends arecord and parec."""
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    server.suspend()
    child = subprocess.Popen([str(cli), "record", "--device", "vn_rt", "--device-config", server.alsa_config("vn_rt"),
                              "-o", str(tmp_path / "note.ogg"), "--progress", "json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout is not None
        first = child.stdout.readline()  # the recording context: capture runs
        assert b"recording" in first.lower(), first
        child.send_signal(signal.SIGINT)
        _, errors = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(TIMEOUT)
    assert child.returncode is not None and child.returncode != -signal.SIGKILL, errors
    assert not list(tmp_path.glob("*.part"))
