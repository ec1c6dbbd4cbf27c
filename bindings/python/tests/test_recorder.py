"""The Recorder with file microphones (ALSA's ``file`` plugin, delivering as fast as it is read), devices and
recovery of empty or hopeless directories. Real-time microphones and crashes are in test_recorder_realtime.py.

Every wait is bounded (``helpers.TIMEOUT``) and waits for a condition, never a sleep.
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, List

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_event
from microphones import EventLog, Speech, decoded_samples, fault_microphone, file_microphone, recordings, take_ended

import voicenote
from voicenote import (MaxDurationReached, MaxDurationWarning, RecorderContext, RecorderContextEvent, RecorderState,
                       RecordingFailed, RecordingFinished, RecordingFormat, SessionKind, TooShort, _capi)

UUID_NAME = re.compile(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}")


def file_recorder(speech: Speech, directory: Path, **options: Any) -> voicenote.Recorder:
    """A recorder on the 48 kHz speech file microphone."""
    return voicenote.Recorder(directory, device="vn_mic", device_config=file_microphone(speech.raw48), **options)


def contexts(events: List[Any]) -> List[RecorderContext]:
    return [event.context for event in events if isinstance(event, RecorderContextEvent)]


# --- a take from start to finish ----------------------------------------------------------------------------------

def test_take_finishes_by_itself_at_max_duration(speech: Speech, tmp_path: Path) -> None:
    """max_duration=2 ends the take at exactly 2 s: warning, reached, finished (path, duration, size, waveform,
    format), then the STOPPED context; the file is Ogg Opus of 2.0 s and its waveform is the event's."""
    directory = tmp_path / "takes"
    with file_recorder(speech, directory, max_duration=2, max_duration_warning=1) as recorder:
        assert recorder.context == RecorderContext(RecorderState.STOPPED, 0.0, 0.0, 0.0, 0, "")
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
        done = log.finished()

        assert done.path.endswith(".ogg") and Path(done.path).parent == directory
        assert UUID_NAME.fullmatch(Path(done.path).stem), done.path
        assert recordings(directory) == [Path(done.path).name]  # renamed: no .part left
        assert done.duration == 2.0
        assert done.size == os.path.getsize(done.path)
        assert done.format is RecordingFormat.OPUS
        assert len(done.waveform) == 100
        assert all(0.0 <= value <= 1.0 for value in done.waveform)
        assert max(done.waveform) > 0.2  # speech, not silence

        info = voicenote.info(done.path)
        assert info["codec"] == "opus"
        assert info["duration"] == pytest.approx(2.0, abs=1e-3)
        assert info["channels"] == 1
        assert decoded_samples(done.path) == 2 * 48000  # exactly the captured frames

        # The waveform sent is what receivers compute from the file (docs/recorder.md): the library analyses the take's own
        # pages as waveform() decodes the file, so they agree within 0.001.
        from_file = voicenote.waveform(done.path)
        assert max(abs(a - b) for a, b in zip(done.waveform, from_file)) <= 0.001
        # Its loudness, measured on the captured audio as it was encoded, is the file's within the codec's error.
        file_loudness = voicenote.analyse(done.path).loudness
        assert done.loudness is not None and file_loudness is not None
        assert abs(done.loudness.integrated_lufs - file_loudness.integrated_lufs) <= 0.5, (done.loudness, file_loudness)
        assert abs(done.loudness.true_peak_dbtp - file_loudness.true_peak_dbtp) <= 1.0, (done.loudness, file_loudness)

        others = [event for event in events if not isinstance(event, RecorderContextEvent)]
        assert [type(event) for event in others] == [MaxDurationWarning, MaxDurationReached, RecordingFinished]
        # Checked per chunk the encoder thread reads from the capture ring (up to 8192 frames, 0.17 s; a file
        # microphone fills it at once), so the warning comes up to one chunk late.
        assert 1.0 - 8192 / 48000 <= others[0].remaining <= 1.0

        steps = contexts(events)
        assert steps[-1] == recorder.context
        assert steps[-1].state is RecorderState.STOPPED
        assert steps[-1].duration == 2.0 and steps[-1].path == done.path
        recording = [c for c in steps if c.state is RecorderState.RECORDING]
        assert len(recording) >= 3 and recording[0].duration == 0.0  # begin's own context comes first
        assert {c.path for c in recording} == {done.path + ".part"}
        assert [c.duration for c in recording] == sorted(c.duration for c in recording)
        assert all(0.0 <= c.average_power <= c.peak_power <= 1.0 for c in recording)
        assert all(c.overruns == 0 for c in steps)

        levels = recorder.levels(1000)
        # One per 0.1 s meter step of captured audio, kept for the whole take (only events coalesce).
        assert len(levels) == 20
        assert all(0.0 <= value <= 1.0 for value in levels)
        assert levels[-1] == pytest.approx(steps[-1].average_power)
        assert recorder.levels(5) == levels[-5:]
        assert recorder.levels(0) == []
        with pytest.raises(voicenote.InvalidArgumentError):
            recorder.levels(-1)
        with pytest.raises(TypeError):
            recorder.levels(2.5)  # type: ignore[arg-type]


def test_aac_take_waveform_is_close_to_the_files(speech: Speech, tmp_path: Path) -> None:
    """The waveform sent with an AAC take is what receivers compute from the file (its own bytes, decoded alike)."""
    with file_recorder(speech, tmp_path, format="aac", max_duration=2) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        done = log.finished()
        log.wait_end()
    from_file = voicenote.waveform(done.path)
    assert max(abs(a - b) for a, b in zip(done.waveform, from_file)) <= 0.001


def test_aac_take(speech: Speech, tmp_path: Path) -> None:
    """format="aac" writes AAC-LC in ADTS: a .aac file of 2 s."""
    with file_recorder(speech, tmp_path, format="aac", max_duration=2) as recorder:
        assert recorder.format is RecordingFormat.AAC
        log = EventLog(recorder)
        recorder.begin()
        done = log.finished()
        log.wait_end()
    assert done.path.endswith(".aac") and done.format is RecordingFormat.AAC
    assert done.format.extension == ".aac" and done.format.mime_type == "audio/aac"
    assert done.duration == 2.0
    assert done.size == os.path.getsize(done.path)
    assert voicenote.info(done.path)["codec"] == "aac"
    # ADTS carries no priming information: decoders also output the encoder's 1024 priming samples.
    assert abs(decoded_samples(done.path) - 1024 - 2 * 48000) < 1024


def test_a_44100_only_device_gives_a_2_s_file(speech: Speech, tmp_path: Path) -> None:
    """A device that only offers 44.1 kHz records at that rate, labelled as such: 2 s of audio, not 1.84 s."""
    config = file_microphone(speech.raw44, rate=44100)
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=config, max_duration=2) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        done = log.finished()
        log.wait_end()
    assert done.duration == 2.0
    assert voicenote.info(done.path)["duration"] == pytest.approx(2.0, abs=0.021)
    assert abs(decoded_samples(done.path) - 2 * 48000) <= 0.021 * 48000


def test_too_short_takes_are_deleted(speech: Speech, tmp_path: Path) -> None:
    """A take under min_duration is deleted with TooShort(duration); no RecordingFinished."""
    with file_recorder(speech, tmp_path, max_duration=0.5, min_duration=1) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
    assert [event for event in events if not isinstance(event, RecorderContextEvent)] == [
        MaxDurationReached(), TooShort(0.5)], events
    assert recordings(tmp_path) == []


# --- event delivery -----------------------------------------------------------------------------------------------

def test_event_loop_delivers_only_inside_dispatch(speech: Speech, tmp_path: Path) -> None:
    """With loop=EventLoop(), events run only inside dispatch(), on the thread that calls it, in order."""
    main = threading.get_ident()
    inside = [False]
    seen: List[Any] = []
    ended = threading.Event()
    with voicenote.EventLoop() as loop:
        recorder = file_recorder(speech, tmp_path, max_duration=1, loop=loop,
                                 on_deactivate=lambda kind: ended.set())
        assert recorder.loop is loop
        recorder.subscribe(lambda event: seen.append((event, threading.get_ident(), inside[0])))
        recorder.begin()
        # The take ends by itself on a library thread; its events wait for dispatch.
        wait_event(ended, "the take to end at max_duration")
        assert seen == []
        deadline = time.monotonic() + TIMEOUT
        while not take_ended([event for event, _, _ in seen]):
            assert time.monotonic() < deadline, "timed out dispatching until STOPPED"
            assert loop.wait(TIMEOUT), "no events pending"
            inside[0] = True
            try:
                loop.dispatch()
            finally:
                inside[0] = False
        recorder.close()
    assert all(thread == main and during for _, thread, during in seen)
    kinds = [type(event) for event, _, _ in seen if not isinstance(event, RecorderContextEvent)]
    assert kinds == [MaxDurationReached, RecordingFinished]
    assert isinstance(seen[0][0], RecorderContextEvent) and seen[0][0].context.state is RecorderState.RECORDING


def test_callback_exceptions_are_logged(speech: Speech, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A subscriber that raises is logged and the others still get every event."""
    with file_recorder(speech, tmp_path, max_duration=0.5) as recorder:
        recorder.subscribe(lambda event: 1 / 0)
        log = EventLog(recorder)
        recorder.begin()
        log.finished()
        log.wait_end()
    assert any("recorder event callback" in record.getMessage() for record in caplog.records)
    caplog.clear()


# --- misuse and errors ------------------------------------------------------------------------------------------

def test_misuse_when_stopped_and_begin_twice(speech: Speech, tmp_path: Path) -> None:
    """pause/resume/stop/cancel when stopped and begin while recording are MisuseError; state stays right."""
    with file_recorder(speech, tmp_path, max_duration=300) as recorder:
        for action in (recorder.pause, recorder.resume, recorder.stop, recorder.cancel):
            with pytest.raises(voicenote.MisuseError) as caught:
                action()
            assert isinstance(caught.value, RuntimeError)
        recorder.begin()
        with pytest.raises(voicenote.MisuseError):
            recorder.begin()
        with pytest.raises(voicenote.MisuseError):
            recorder.resume()
        assert recorder.context.state is RecorderState.RECORDING
        recorder.cancel()
        assert recorder.context.state is RecorderState.STOPPED
        with pytest.raises(voicenote.MisuseError):
            recorder.stop()


def test_unknown_device_is_a_device_error(tmp_path: Path) -> None:
    """begin on a device ALSA does not know raises DeviceError (also an OSError) and leaves no file."""
    with voicenote.Recorder(tmp_path / "takes", device="vn_no_such_device") as recorder:
        with pytest.raises(voicenote.DeviceError) as caught:
            recorder.begin()
        assert isinstance(caught.value, OSError)
        assert caught.value.code == _capi.VN_E_DEVICE
        assert recorder.context.state is RecorderState.STOPPED
    assert recordings(tmp_path / "takes") == []


def test_refusing_activate_hook_is_busy_and_opens_no_device(tmp_path: Path) -> None:
    """on_activate returning False makes begin raise BusyError without opening the device: this device cannot open
    (its infile is missing), so had begin opened it, the error would be DeviceError."""
    config = file_microphone(tmp_path / "missing.raw")
    asked: List[Any] = []
    told: List[Any] = []
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=config,
                            on_activate=lambda kind: asked.append(kind) or False,
                            on_deactivate=told.append) as recorder:
        with pytest.raises(voicenote.BusyError) as caught:
            recorder.begin()
        assert caught.value.__cause__ is None
        assert asked == [SessionKind.RECORDING] and told == []
        assert recorder.context.state is RecorderState.STOPPED
    # The control: the same device without the hook.
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=config) as plain:
        with pytest.raises(voicenote.DeviceError):
            plain.begin()
    assert recordings(tmp_path) == []


def test_raising_activate_hook_refuses(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An exception in on_activate is logged and counts as a refusal: BusyError with it as __cause__."""
    def activate(kind: SessionKind) -> bool:
        raise RuntimeError("the host is in a call")

    config = file_microphone(tmp_path / "missing.raw")
    with voicenote.Recorder(tmp_path, device="vn_mic", device_config=config, on_activate=activate) as recorder:
        with pytest.raises(voicenote.BusyError) as caught:
            recorder.begin()
        assert isinstance(caught.value.__cause__, RuntimeError)
        # The next refusal does not carry the old cause.
        with pytest.raises(voicenote.BusyError):
            recorder.begin()
    assert sum("session activate hook" in record.getMessage() for record in caplog.records) == 2
    caplog.clear()


def test_session_hooks_bracket_the_device(speech: Speech, tmp_path: Path) -> None:
    """activate runs on the thread that calls begin; deactivate after the device closed, here on the library
    thread that ended the take at max_duration, before RecordingFinished is delivered."""
    calls = Collector()
    main = threading.get_ident()
    with file_recorder(speech, tmp_path, max_duration=0.5,
                       on_activate=lambda kind: calls.add(("activate", kind, threading.get_ident())) or True,
                       on_deactivate=lambda kind: calls.add(("deactivate", kind, threading.get_ident()))) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        log.finished()
        got = calls.wait_count(2)
    assert [(name, kind) for name, kind, _ in got] == [("activate", SessionKind.RECORDING),
                                                       ("deactivate", SessionKind.RECORDING)]
    assert got[0][2] == main and got[1][2] != main


def test_cancel_deletes_the_take(speech: Speech, tmp_path: Path) -> None:
    """cancel stops and deletes the .part: no file, no RecordingFinished, context STOPPED without a path."""
    with file_recorder(speech, tmp_path, max_duration=300) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        part = log.wait_duration(0.5).path
        assert part.endswith(".ogg.part") and os.path.exists(part)
        index = len(log.events)
        recorder.cancel()
        assert not os.path.exists(part)
        events = log.wait_stopped(after=index)
        assert recorder.context.state is RecorderState.STOPPED and recorder.context.path == ""
    assert not any(isinstance(event, (RecordingFinished, RecordingFailed)) for event in events)
    assert recordings(tmp_path) == []


def test_close_while_recording_finishes_the_file(speech: Speech, tmp_path: Path) -> None:
    """close() of a recording recorder finishes the take synchronously (the .ogg exists, no .part), releases the
    subscriptions and delivers nothing after it returns."""
    recorder = file_recorder(speech, tmp_path, max_duration=300)
    released = threading.Event()
    log = EventLog(recorder)
    recorder.subscribe(lambda event: None, on_release=released.set)
    recorder.begin()
    part = log.wait_duration(1.0).path
    recorder.close()
    assert recorder.closed and released.is_set() and log.subscription.released
    kept = part[: -len(".part")]
    assert os.path.exists(kept) and not os.path.exists(part)
    assert recordings(tmp_path) == [Path(kept).name]
    assert decoded_samples(kept) >= 48000
    count = len(log.events)
    recorder.close()  # idempotent
    assert len(log.events) == count
    assert voicenote.recover(tmp_path) == []  # nothing was left for recovery


def test_close_inside_a_callback(speech: Speech, tmp_path: Path) -> None:
    """close() from inside the recorder's own callback (on the event thread) finishes the take; that callback was
    the last."""
    recorder = file_recorder(speech, tmp_path, max_duration=300)
    closed = threading.Event()
    released = threading.Event()
    seen = Collector()

    def on_event(event: Any) -> None:
        seen.add(event)
        if isinstance(event, RecorderContextEvent) and event.context.duration >= 0.5 and not closed.is_set():
            recorder.close()
            closed.set()

    recorder.subscribe(on_event, on_release=released.set)
    recorder.begin()
    wait_event(closed, "close inside the callback")
    wait_event(released, "the subscription's release")
    last = seen.snapshot()[-1]
    assert isinstance(last, RecorderContextEvent) and last.context.duration >= 0.5
    assert recordings(tmp_path) == [Path(last.context.path[: -len(".part")]).name]


def test_methods_after_close_raise_value_error(tmp_path: Path) -> None:
    recorder = voicenote.Recorder(tmp_path)
    assert "open" not in repr(recorder) and "opus" in repr(recorder)
    recorder.close()
    assert repr(recorder) == "<voicenote.Recorder closed>"
    for call in (recorder.begin, recorder.pause, recorder.resume, recorder.stop, recorder.cancel,
                 lambda: recorder.context, lambda: recorder.levels(1), lambda: recorder.subscribe(print)):
        with pytest.raises(ValueError, match="closed Recorder"):
            call()


def test_bad_options(tmp_path: Path) -> None:
    """Out-of-range options are InvalidArgumentError from the library (or before ctypes would wrap them); wrong
    types are TypeError; nothing is leaked when creation fails."""
    invalid = [dict(bitrate=5), dict(bitrate=2**40), dict(complexity=11), dict(frame_ms=7), dict(meter_interval=0),
               dict(duration_interval=61), dict(max_duration=-1), dict(min_duration=float("inf")), dict(device=""),
               dict(directory="")]
    for options in invalid:
        options.setdefault("directory", tmp_path)
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.Recorder(**options, on_activate=lambda kind: True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown recording format"):
        voicenote.Recorder(tmp_path, format="mp3")
    with pytest.raises(ValueError, match="null byte"):
        voicenote.Recorder(tmp_path, device="vn\0mic")
    with pytest.raises(TypeError):
        voicenote.Recorder(tmp_path, bitrate="32000")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        voicenote.Recorder(tmp_path, on_deactivate=5)  # type: ignore[arg-type]
    loop = voicenote.EventLoop()
    loop.close()
    with pytest.raises(ValueError):
        voicenote.Recorder(tmp_path, loop=loop)
    # Defaults are valid and open nothing.
    with voicenote.Recorder() as recorder:
        assert recorder.context.state is RecorderState.STOPPED and recorder.format is RecordingFormat.OPUS


EXIT_CHILD = r"""
import sys, threading
import voicenote
captured = threading.Event()
recorder = voicenote.Recorder(sys.argv[1], device="vn_mic", device_config=sys.argv[2], max_duration=300)
def on_event(event):
    if isinstance(event, voicenote.RecorderContextEvent) and event.context.duration >= 0.5:
        captured.set()
recorder.subscribe(on_event)
recorder.begin()
if not captured.wait(float(sys.argv[3])):
    sys.exit(3)
print(recorder.context.path, flush=True)
# Exit without closing: the atexit hook must finish the take.
"""


def test_exit_while_recording_finishes_the_take(speech: Speech, tmp_path: Path) -> None:
    """A process that exits while recording (nothing closed) keeps the take: the exit hook finishes it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([sys.executable, "-c", EXIT_CHILD, str(tmp_path), file_microphone(speech.raw48),
                            str(TIMEOUT)], capture_output=True, text=True, env=env, timeout=2 * TIMEOUT)
    detail = f"rc={child.returncode}\nstdout:\n{child.stdout}\nstderr:\n{child.stderr}"
    assert child.returncode == 0, detail
    assert "Traceback" not in child.stderr and "Fatal Python error" not in child.stderr, detail
    part = child.stdout.strip()
    assert part.endswith(".ogg.part"), detail
    assert recordings(tmp_path) == [Path(part[: -len(".part")]).name]


# --- devices and recovery -----------------------------------------------------------------------------------------

# --- devices that fail (a real ALSA plugin raising -EPIPE, -ESTRPIPE, -ENODEV on cue) -----------------------------

@pytest.mark.parametrize("poll_errors", [False, True])
def test_overruns_and_suspends_are_counted_and_never_end_a_take(speech: Speech, tmp_path: Path,
                                                                poll_errors: bool) -> None:
    config = fault_microphone(speech.raw48, "xrun@24000 suspend@48000 xrun@72000", tmp_path, can_resume=False,
                              poll_errors=poll_errors)
    with voicenote.Recorder(tmp_path / "takes", device="vn_fault", device_config=config, max_duration=2) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
        done = log.finished()
        assert done.duration == 2.0 and decoded_samples(done.path) == 2 * 48000
        assert not [event for event in events if isinstance(event, RecordingFailed)]
        # ≥: a consumer stalled for a whole device buffer would add dropped periods to the two overruns.
        assert max(context.overruns for context in contexts(events)) >= 2


@pytest.mark.parametrize("poll_errors", [False, True])
def test_a_device_unplugged_mid_take_keeps_the_take_then_fails(speech: Speech, tmp_path: Path,
                                                               poll_errors: bool) -> None:
    config = fault_microphone(speech.raw48, "unplug@48000", tmp_path, poll_errors=poll_errors)
    with voicenote.Recorder(tmp_path / "takes", device="vn_fault", device_config=config, max_duration=5) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
        ends = [event for event in events if isinstance(event, (RecordingFinished, RecordingFailed))]
        assert [type(event) for event in ends] == [RecordingFinished, RecordingFailed]
        assert isinstance(ends[1].error, voicenote.DeviceError) and "(error -19)" in str(ends[1].error)
        assert 1.0 <= ends[0].duration < 5.0
        assert decoded_samples(ends[0].path) == round(ends[0].duration * 48000)
        assert recorder.context.state is RecorderState.STOPPED


def test_a_source_lost_mid_take_goes_on_from_the_fallback(speech: Speech, tmp_path: Path) -> None:
    """The microphone unplugged at 1 s; the fallback (another file microphone) takes over: SourceChanged names it
    and the loss, the take reaches its maximum with no failure."""
    config = fault_microphone(speech.raw48, "unplug@48000", tmp_path)
    with voicenote.Recorder(tmp_path / "takes", device="vn_fault", device_config=config, max_duration=3,
                            fallback_device="vn_mic", fallback_device_config=file_microphone(speech.raw48)) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
    changed = [event for event in events if isinstance(event, voicenote.SourceChanged)]
    assert len(changed) == 1 and changed[0].device == "vn_mic", events
    assert isinstance(changed[0].lost, voicenote.DeviceError) and "(error -19)" in str(changed[0].lost)
    assert not [event for event in events if isinstance(event, RecordingFailed)], events
    finished = [event for event in events if isinstance(event, RecordingFinished)]
    assert len(finished) == 1 and finished[0].duration == 3
    # With fallback_device=None the same loss finishes the take, as for a fixed device.
    with voicenote.Recorder(tmp_path / "takes2", device="vn_fault", device_config=config, max_duration=3,
                            fallback_device=None) as recorder:
        log = EventLog(recorder)
        recorder.begin()
        events = log.wait_end()
    assert [type(e) for e in events if isinstance(e, (RecordingFinished, RecordingFailed))] == [RecordingFinished,
                                                                                             RecordingFailed]


def test_a_device_that_refuses_access_is_a_permission_error(speech: Speech, tmp_path: Path) -> None:
    config = fault_microphone(speech.raw48, "", tmp_path, open_error=-errno.EACCES)
    with voicenote.Recorder(tmp_path / "takes", device="vn_fault", device_config=config) as recorder:
        with pytest.raises(voicenote.AccessDeniedError):
            recorder.begin()
        assert recorder.context.state is RecorderState.STOPPED
    assert recordings(tmp_path / "takes") == []


def test_devices_lists_alsa_null() -> None:
    """ALSA's own "null" device is listed, with a description, for capture and playback."""
    found = voicenote.devices()
    assert all(isinstance(device, voicenote.Device) for device in found)
    null = [device for device in found if device.name == "null"]
    assert len(null) == 1, [device.name for device in found]
    assert null[0].description and null[0].capture and null[0].playback


def test_recover_empty_and_missing_directories(tmp_path: Path) -> None:
    assert voicenote.recover(tmp_path) == []
    assert voicenote.recover(str(tmp_path)) == []
    with pytest.raises(voicenote.NotFoundError) as caught:
        voicenote.recover(tmp_path / "missing")
    assert isinstance(caught.value, FileNotFoundError)


def test_recover_reports_a_part_without_audio(tmp_path: Path) -> None:
    """A .part file holding no audio is reported with VN_E_FORMAT and left in place; the call succeeds."""
    junk = tmp_path / "5F0C7C1E-0000-4000-8000-000000000000.ogg.part"
    junk.write_bytes(b"not an ogg stream at all" * 10)
    (found,) = voicenote.recover(tmp_path)
    assert not found.recovered
    assert found.status == _capi.VN_E_FORMAT and isinstance(found.error, voicenote.FormatError)
    assert found.path == str(junk) and found.duration == 0.0 and found.size == 0
    assert junk.exists()


def test_context_struct_is_read_with_its_size() -> None:
    """get_context refuses a context whose size is too small (the binding always sets it)."""
    handle = _capi.vn_recorder_p()
    assert _capi.vn_recorder_create(None, ctypes.byref(handle)) == 0
    try:
        raw = _capi.vn_recorder_context()
        raw.size = 8
        assert _capi.vn_recorder_get_context(handle, ctypes.byref(raw)) == _capi.VN_E_INVALID_ARG
        raw.size = ctypes.sizeof(raw)
        assert _capi.vn_recorder_get_context(handle, ctypes.byref(raw)) == 0
        assert raw.state == _capi.VN_RECORDER_STOPPED and raw.path is None
    finally:
        _capi.vn_recorder_destroy(handle)


def test_null_and_destroyed_recorder_handles() -> None:
    """The raw API: NULL or destroyed handles are VN_E_MISUSE, NULL out-pointers VN_E_INVALID_ARG, destroy(NULL) a
    no-op; create sets *out = NULL on failure."""
    misuse, invalid = _capi.VN_E_MISUSE, _capi.VN_E_INVALID_ARG
    context = _capi.vn_recorder_context()
    context.size = ctypes.sizeof(context)
    owned = ctypes.c_void_p()
    levels = (ctypes.c_float * 4)()
    noop = _capi.vn_recorder_event_fn(lambda user_data, event: None)
    options = _capi.vn_recorder_options_p()
    assert _capi.vn_recorder_options_create(None) == invalid
    assert _capi.vn_recorder_options_create(ctypes.byref(options)) == 0
    try:
        for rc in (_capi.vn_recorder_options_set_directory(None, b"/tmp"),
                   _capi.vn_recorder_options_set_device(None, b"null", None),
                   _capi.vn_recorder_options_set_format(None, 0),
                   _capi.vn_recorder_options_set_encoder(None, 32000, 10, 20.0),
                   _capi.vn_recorder_options_set_intervals(None, 0.1, 0.5),
                   _capi.vn_recorder_options_set_limits(None, 1.0, 0.0, 0.0),
                   _capi.vn_recorder_options_set_event_loop(None, None),
                   _capi.vn_recorder_options_set_session_hooks(None, None, None, None)):
            assert rc == misuse
        assert _capi.vn_recorder_options_set_directory(options, None) == invalid
        assert _capi.vn_recorder_options_set_device(options, b"", None) == invalid
        assert _capi.vn_recorder_options_set_format(options, 7) == invalid
        assert _capi.vn_recorder_options_set_session_hooks(options, None, None, None) == 0
        assert _capi.vn_recorder_create(options, None) == invalid
    finally:
        _capi.vn_recorder_options_destroy(options)
    _capi.vn_recorder_options_destroy(None)
    out = _capi.vn_recorder_p()
    assert _capi.vn_recorder_create(options, ctypes.byref(out)) == misuse  # destroyed options
    assert not out

    for handle_kind in ("null", "destroyed"):
        handle = None
        if handle_kind == "destroyed":
            handle = _capi.vn_recorder_p()
            assert _capi.vn_recorder_create(None, ctypes.byref(handle)) == 0
            _capi.vn_recorder_destroy(handle)
        for rc in (_capi.vn_recorder_begin(handle), _capi.vn_recorder_pause(handle),
                   _capi.vn_recorder_resume(handle), _capi.vn_recorder_stop(handle),
                   _capi.vn_recorder_cancel(handle),
                   _capi.vn_recorder_subscribe(handle, noop, None, None, None),
                   _capi.vn_recorder_get_context(handle, ctypes.byref(context)),
                   _capi.vn_recorder_copy_path(handle, ctypes.byref(owned)),
                   _capi.vn_recorder_levels(handle, 4, levels, 4, None)):
            assert rc == misuse, handle_kind
        assert owned.value is None
    _capi.vn_recorder_destroy(None)
    assert _capi.vn_devices_enumerate(None, None) == invalid
