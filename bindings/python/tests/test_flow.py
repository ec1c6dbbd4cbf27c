"""The recording flow (``vn_flow``) through the binding: a real recorder on a virtual microphone (ALSA's ``file``
plugin reading 30 s of speech-level tone, unpaced) and a real player on a file speaker; the flow's time is a
:class:`voicenote.ManualClock`, so nothing sleeps: every wait is on an event, bounded."""
from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, List

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_until
from microphones import decoded_samples, run

import voicenote
from voicenote import (AttachmentReady, FlowFailed, FlowKey, FlowState, FlowViewEvent, ManualClock, Publish,
                       RecordingFlow, TakeTooShort, Trimmed)
from voicenote import _capi, _flow


class Rig:
    """A flow over a recorder on a 30 s file microphone and a player on a file speaker, on a manual clock."""

    def __init__(self, folder: Path, microphone: str = "vn_flow_mic", recorder_options: Any = None,
                 **options: Any) -> None:
        self.folder = folder
        tone = folder / "mic.raw"
        if not tone.exists():
            run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(tone),
                 "synth", "30", "sine", "300", "vol", "0.3"])
        config = (f'pcm.vn_flow_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{tone}" '
                  f'format raw }}')
        self.takes = folder / "takes"
        self.recorder = voicenote.Recorder(directory=str(self.takes), device=microphone,
                                           device_config=config if microphone == "vn_flow_mic" else None,
                                           **(recorder_options or {}))
        self.player = voicenote.Player(device="vn_flow_spk", device_config=(
            f'pcm.vn_flow_spk {{ type file slave.pcm {{ type null }} file "{folder}/heard.raw" format raw }}'))
        self.clock = ManualClock()
        self.flow = RecordingFlow(self.recorder, self.player, clock=self.clock, **options)
        self.events = Collector()
        self.flow.subscribe(self.events.add)

    def close(self) -> None:
        self.flow.close()
        self.recorder.close()
        self.player.close()
        self.clock.close()

    def states(self) -> List[FlowState]:
        return [event.view.state for event in self.events.snapshot() if isinstance(event, FlowViewEvent)]

    def wait_state(self, state: FlowState) -> None:
        """Waits until the latest view is in ``state`` (the first view, the current one, counts only as itself)."""

        def latest(items: List[Any]) -> Any:
            views = [e.view.state for e in items if isinstance(e, FlowViewEvent)]
            return views[-1] if views else None

        self.events.wait_for(lambda items: latest(items) is state, what=f"state {state.name}")

    def wait_for(self, kind: type, count: int = 1) -> List[Any]:
        items = self.events.wait_for(lambda items: sum(isinstance(e, kind) for e in items) >= count,
                                     what=f"{count} {kind.__name__}")
        return [e for e in items if isinstance(e, kind)]

    def hold_to_record(self, x: float = 200, y: float = 200) -> None:
        """Presses, lets the minimum press pass on the clock, and waits until the take holds some audio."""
        self.flow.press(x, y)
        self.clock.advance(0.5)
        self.wait_state(FlowState.RECORDING)
        self.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.duration > 0.5 for e in items),
                             what="half a second recorded")

    def take_files(self) -> List[str]:
        return sorted(os.listdir(self.takes)) if self.takes.exists() else []


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path)
    yield made
    made.close()


def test_a_tap_shows_the_tip_and_the_clock_hides_it(rig: Rig) -> None:
    first = rig.events.wait_count(1)[0]
    assert isinstance(first, FlowViewEvent) and first.view.state is FlowState.IDLE  # the current view first
    assert first.view.accessible_description == "Record a voice message: hold to record"
    rig.flow.press(200, 200)
    rig.flow.release()
    rig.wait_state(FlowState.SHOWING_TIP)
    tip = [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent) and e.view.state is FlowState.SHOWING_TIP]
    assert tip[-1].tip_visible
    rig.clock.advance(1.9)
    assert rig.flow.state is FlowState.SHOWING_TIP
    rig.clock.advance(0.1)
    assert rig.flow.state is FlowState.IDLE
    assert rig.take_files() == []


def test_hold_and_release_sends_one_attachment_without_publishing(rig: Rig) -> None:
    rig.hold_to_record()
    recording = [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent) and e.view.state is FlowState.RECORDING]
    assert any(view.levels for view in recording), "live levels while recording"
    assert recording[-1].accessible_description.startswith("Recording, 0:0")
    rig.flow.release()
    ready = rig.wait_for(AttachmentReady)
    rig.wait_state(FlowState.IDLE)
    take = ready[0].take
    assert os.path.exists(take.path) and take.path.endswith(".ogg")
    assert take.duration > 0.5
    assert len(take.waveform) == 100 and all(0.0 <= value <= 1.0 for value in take.waveform)
    payload = json.loads(take.payload_json)
    assert payload["type"] == "voiceRecording" and payload["asset_url"].startswith("file://")
    assert abs(payload["duration"] - take.duration) < 0.01
    assert not any(isinstance(e, Publish) for e in rig.events.snapshot())
    assert sum(isinstance(e, AttachmentReady) for e in rig.events.snapshot()) == 1


def test_without_confirmation_publish_follows(tmp_path: Path) -> None:
    rig = Rig(tmp_path, confirmation_required=False)
    try:
        rig.hold_to_record()
        rig.flow.release()
        published = rig.wait_for(Publish)
        ready = rig.wait_for(AttachmentReady)
        assert published[0].take == ready[0].take
        kinds = [type(e) for e in rig.events.snapshot() if not isinstance(e, FlowViewEvent)]
        assert kinds == [AttachmentReady, Publish]
    finally:
        rig.close()


def test_slide_left_past_the_distance_cancels_and_deletes_the_take(rig: Rig) -> None:
    rig.hold_to_record()
    rig.flow.move(160, 200)
    alphas = rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.slide_to_cancel_alpha < 1
                                                  for e in items), what="alpha below 1")
    assert any(isinstance(e, FlowViewEvent) and 0 < e.view.slide_to_cancel_alpha < 1 for e in alphas)
    rig.flow.move(124, 200)  # 76 px left of the press: past the default 75
    rig.wait_state(FlowState.IDLE)
    # The recorder deletes the file on its own thread after the flow went idle: nothing signals it.
    assert wait_until(lambda: rig.take_files() == []), rig.take_files()
    assert not any(isinstance(e, AttachmentReady) for e in rig.events.snapshot())


def test_lock_stop_preview_play_seek_trim_send(rig: Rig) -> None:
    rig.hold_to_record()
    rig.flow.move(200, 149)  # 51 px up: past the default 50
    rig.wait_state(FlowState.LOCKED)
    rig.flow.release()  # the finger lifts: a locked take keeps running
    assert rig.flow.state is FlowState.LOCKED
    rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.state is FlowState.LOCKED
                                          and e.view.duration > 2.0 for e in items), what="2 s recorded")
    rig.flow.stop()
    rig.wait_state(FlowState.PREVIEW)
    preview = [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent) and e.view.state is FlowState.PREVIEW][-1]
    assert len(preview.waveform) == 100 and preview.trim_end == pytest.approx(preview.duration)
    duration = preview.duration
    rig.flow.play()
    rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.preview_playing for e in items),
                        what="the preview playing")
    rig.flow.pause()
    rig.flow.seek(0.5)
    rig.flow.trim(0.25, 1.25)
    [ended] = rig.wait_for(Trimmed)
    assert ended.error is None and ended.take.duration == pytest.approx(1.0, abs=1e-6)
    trimmed = rig.events.wait_for(
        lambda items: any(isinstance(e, FlowViewEvent) and e.view.state is FlowState.PREVIEW
                          and abs(e.view.duration - 1.0) < 1e-6 for e in items), what="the trimmed preview")
    assert duration > 2.0
    view = [e.view for e in trimmed if isinstance(e, FlowViewEvent) and abs(e.view.duration - 1.0) < 1e-6][-1]
    assert len(view.waveform) == 100
    rig.flow.send()
    take = rig.wait_for(AttachmentReady)[0].take
    assert abs(decoded_samples(take.path) - 48000) <= 1, "the trimmed file decodes to exactly 1 s"
    # ffprobe reads it (its duration counts the pre-skip, as for any opusenc file); opusinfo checks the stream and
    # gives the playback length (pre-skip and end trimming applied).
    probe = json.loads(run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "json", take.path]))
    assert probe["streams"][0]["codec_name"] == "opus"
    checked = subprocess.run(["opusinfo", take.path], capture_output=True, text=True, timeout=TIMEOUT)
    assert checked.returncode == 0 and "WARNING" not in checked.stdout + checked.stderr, checked.stdout + checked.stderr
    assert "Playback length: 0m:01.000s" in checked.stdout, checked.stdout
    rig.wait_state(FlowState.IDLE)


def test_discard_deletes_the_preview(rig: Rig) -> None:
    rig.hold_to_record()
    rig.flow.lock()
    rig.flow.stop()
    rig.wait_state(FlowState.PREVIEW)
    kept = [f for f in rig.take_files() if f.endswith(".ogg")]
    assert len(kept) == 1
    rig.flow.discard()
    assert rig.flow.state is FlowState.IDLE
    # Deleted by the flow's worker after discard() returned: nothing signals it.
    assert wait_until(lambda: [f for f in rig.take_files() if f.endswith(".ogg")] == []), rig.take_files()


def test_commands_outside_their_state_are_misuse_and_change_nothing(rig: Rig) -> None:
    for command in (rig.flow.lock, rig.flow.stop, rig.flow.discard, rig.flow.send, rig.flow.confirm, rig.flow.play,
                    rig.flow.pause):
        with pytest.raises(voicenote.MisuseError):
            command()
    with pytest.raises(voicenote.MisuseError):
        rig.flow.trim(0, 1)
    with pytest.raises(voicenote.MisuseError):
        rig.flow.seek(1)
    rig.flow.cancel()  # nothing to cancel: allowed, does nothing
    rig.flow.deactivate()
    rig.flow.move(10, 10)  # pointer input without a press: ignored
    rig.flow.release()
    assert rig.flow.state is FlowState.IDLE
    with pytest.raises(voicenote.InvalidArgumentError):
        rig.flow.press(float("nan"), 0)
    with pytest.raises(ValueError):
        rig.flow.key_down(7)  # not a FlowKey
    assert rig.take_files() == []


def test_toggle_mode_and_keys(tmp_path: Path) -> None:
    rig = Rig(tmp_path, toggle_mode=True, key_inputs=True)
    try:
        rig.flow.key_down(FlowKey.RECORD)
        rig.flow.key_up(FlowKey.RECORD)  # a quick press: a locked take
        rig.wait_state(FlowState.LOCKED)
        locked = [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent) and e.view.state is FlowState.LOCKED]
        assert locked[-1].toggled and "press again to stop" in locked[-1].accessible_description
        rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and e.view.duration > 0.5 for e in items),
                            what="half a second recorded")
        rig.flow.key_down(FlowKey.RECORD)  # the second press stops it into preview
        rig.wait_state(FlowState.PREVIEW)
        rig.flow.key_down(FlowKey.ENTER)
        rig.wait_for(AttachmentReady)
    finally:
        rig.close()


def test_keys_are_ignored_unless_enabled(rig: Rig) -> None:
    rig.flow.key_down(FlowKey.RECORD)
    rig.clock.advance(1)
    assert rig.flow.state is FlowState.IDLE


def test_a_microphone_that_cannot_open_fails_back_to_idle(tmp_path: Path) -> None:
    rig = Rig(tmp_path, microphone="vn_no_such_device")
    try:
        rig.flow.press(0, 0)
        rig.clock.advance(0.5)
        failed = rig.wait_for(FlowFailed)
        assert isinstance(failed[0].error, voicenote.VoiceNoteError)
        rig.wait_state(FlowState.IDLE)
        assert rig.flow.state is FlowState.IDLE
    finally:
        rig.close()


def test_a_take_beginning_stops_a_playing_player(rig: Rig, media: Any) -> None:
    states = Collector()
    rig.player.subscribe(lambda e: states.add(e.context.state) if isinstance(e, voicenote.PlayerContextEvent) else None)
    rig.player.load(str(media.files["opus"]))
    states.wait_for(lambda items: voicenote.PlayerState.PLAYING in items, what="playing")
    rig.hold_to_record()
    assert rig.player.context.state is not voicenote.PlayerState.PLAYING


def test_closed_flow_and_clock_refuse_calls(tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.close()
    assert rig.flow.closed and "closed" in repr(rig.flow)
    with pytest.raises(ValueError):
        rig.flow.press(0, 0)
    with pytest.raises(ValueError):
        _ = rig.flow.state
    with pytest.raises(ValueError):
        rig.clock.advance(1)
    rig.flow.close()  # twice: nothing


def test_the_clock_refuses_time_going_backwards() -> None:
    with ManualClock() as clock:
        with pytest.raises(voicenote.InvalidArgumentError):
            clock.advance(-1)
        with pytest.raises(voicenote.InvalidArgumentError):
            clock.advance(float("inf"))
        clock.advance(0)


def test_bad_options_are_refused(rig: Rig) -> None:
    for options in ({"slide_to_cancel_distance": 0}, {"lock_distance": float("nan")}, {"minimum_press": -1},
                    {"hide_tip_delay": float("inf")}):
        with pytest.raises(voicenote.InvalidArgumentError):
            RecordingFlow(rig.recorder, rig.player, **options)
    with pytest.raises(voicenote.InvalidArgumentError):
        RecordingFlow(rig.recorder, rig.player, waveform_samples=0)
    with pytest.raises(TypeError):
        RecordingFlow(rig.player, rig.recorder)  # type: ignore[arg-type]


def test_an_older_librarys_shorter_event_reads_as_defaults() -> None:
    """A library that filled only part of the struct (an older one): the binding reads the rest as defaults."""
    raw = _capi.vn_flow_event()
    raw.size = _capi.vn_flow_event.view.offset  # up to the view: nothing of it
    raw.type = _capi.VN_FLOW_EVENT_VIEW
    event = _flow._convert_event(raw)
    assert isinstance(event, FlowViewEvent) and event.view.state is FlowState.IDLE and event.view.levels == []
    raw.type = 99  # a kind appended by a newer library
    assert _flow._convert_event(raw) is None
    raw = _capi.vn_flow_event()
    raw.size = ctypes.sizeof(_capi.vn_flow_event)
    raw.type = _capi.VN_FLOW_EVENT_FAILED
    raw.status = _capi.VN_E_DEVICE
    raw.message = b"the microphone went away"
    failed = _flow._convert_event(raw)
    assert isinstance(failed.error, voicenote.DeviceError) and "went away" in str(failed.error)


# --- drafts ---------------------------------------------------------------------------------------------------------

CHILD = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
import voicenote
folder, key, mode = sys.argv[2], sys.argv[3], sys.argv[4]
mic = f'pcm.vn_flow_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{folder}/mic.raw" format raw }}'
recorder = voicenote.Recorder(directory=folder + "/takes", device="vn_flow_mic", device_config=mic)
player = voicenote.Player(device="vn_flow_spk",
                          device_config=f'pcm.vn_flow_spk {{ type file slave.pcm {{ type null }} file "{folder}/heard.raw" format raw }}')
clock = voicenote.ManualClock()
flow = voicenote.RecordingFlow(recorder, player, clock=clock, draft_key=key, drafts_dir=folder + "/drafts")
voicenote.set_log_handler(lambda level, line: print("log:", line, file=sys.stderr, flush=True), voicenote.LOG_INFO)
flow.subscribe(lambda e: print("flow:", e, file=sys.stderr, flush=True) if isinstance(e, voicenote.FlowFailed) else None)
recorder.subscribe(lambda e: print("recorder:", e, file=sys.stderr, flush=True)
                   if isinstance(e, voicenote.RecordingFailed) else None)
two_seconds, idle = threading.Event(), threading.Event()
recorder.subscribe(lambda e: two_seconds.set() if isinstance(e, voicenote.RecorderContextEvent)
                   and e.context.duration >= 2.0 else None)
flow.subscribe(lambda e: idle.set() if isinstance(e, voicenote.Parked) else None)
flow.press(0, 0)
clock.advance(0.5)
two_seconds.wait(30)  # bounded; the test fails on what it prints
print(f"recorded {recorder.context.duration:.3f}", flush=True)
if mode == "park":
    flow.park()
    idle.wait(30)
    flow.close()
    print("parked", flush=True)
else:
    sys.stdin.read()  # killed here
"""


def listing(folder: Path) -> List[str]:
    """What a folder holds, for a failure's message."""
    return sorted(os.listdir(folder)) if folder.exists() else []


def draft_flow(tmp_path: Path, key: str, **options: Any) -> Rig:
    return Rig(tmp_path, draft_key=key, drafts_dir=str(tmp_path / "drafts"), **options)


def preview_of(rig: Rig) -> Any:
    rig.wait_state(FlowState.PREVIEW)
    return [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent) and e.view.state is FlowState.PREVIEW][-1]


def test_park_in_preview_then_a_new_flow_restores_and_send_removes_the_draft(tmp_path: Path) -> None:
    rig = draft_flow(tmp_path, "!room:example.org")
    try:
        rig.hold_to_record()
        rig.flow.lock()
        rig.flow.stop()
        kept = preview_of(rig)
        rig.flow.park()
        parked = rig.wait_for(voicenote.Parked)[0].take
        assert rig.flow.state is FlowState.IDLE
        assert parked.path.startswith(str(tmp_path / "drafts")) and os.path.exists(parked.path)
        assert parked.duration == pytest.approx(kept.duration)
        # The record is written by the flow's worker right after the event (close waits for it): nothing signals it.
        assert wait_until(lambda: [(d.key, d.path) for d in voicenote.flow_drafts(tmp_path / "drafts")]
                          == [("!room:example.org", parked.path)]), voicenote.flow_drafts(tmp_path / "drafts")
    finally:
        rig.close()
    again = draft_flow(tmp_path, "!room:example.org")
    try:
        first = again.events.wait_count(1)[0]
        assert isinstance(first, FlowViewEvent) and first.view.state is FlowState.PREVIEW  # restored at once
        assert first.view.duration == pytest.approx(parked.duration, abs=1e-3) and len(first.view.waveform) == 100
        again.flow.send()
        take = again.wait_for(AttachmentReady)[0].take
        assert take.path == parked.path and os.path.exists(take.path)
        # The record is forgotten by the flow's worker right after the event: nothing signals it.
        assert wait_until(lambda: voicenote.flow_drafts(tmp_path / "drafts") == []), voicenote.flow_drafts(tmp_path / "drafts")
    finally:
        again.close()


def test_parking_a_running_take_stops_and_keeps_it(tmp_path: Path) -> None:
    rig = draft_flow(tmp_path, "conversation-1")
    try:
        rig.hold_to_record()
        rig.flow.park()
        parked = rig.wait_for(voicenote.Parked)[0].take
        assert parked.duration > 0.5 and os.path.exists(parked.path)
        rig.wait_state(FlowState.IDLE)
    finally:
        rig.close()
    with voicenote.Recorder(directory=str(tmp_path / "takes")) as recorder, voicenote.Player() as player:
        with RecordingFlow(recorder, player, draft_key="conversation-1", drafts_dir=str(tmp_path / "drafts")) as flow:
            views = Collector()
            flow.subscribe(views.add)
            first = views.wait_count(1)[0]  # the draft is read back on the flow's worker: the first view shows it
            assert first.view.state is FlowState.PREVIEW and flow.state is FlowState.PREVIEW
            flow.discard()
            assert flow.state is FlowState.IDLE
    assert not os.path.exists(parked.path) and voicenote.flow_drafts(tmp_path / "drafts") == []


def test_two_keys_never_mix(tmp_path: Path) -> None:
    takes = {}
    for key in ("a", "b"):
        rig = draft_flow(tmp_path, key)
        try:
            rig.hold_to_record()
            rig.flow.park()
            takes[key] = rig.wait_for(voicenote.Parked)[0].take
        finally:
            rig.close()
    assert takes["a"].path != takes["b"].path
    for key in ("b", "a"):
        rig = draft_flow(tmp_path, key)
        try:
            view = preview_of(rig)
            assert view.duration == pytest.approx(takes[key].duration, abs=1e-3)
        finally:
            rig.close()
    voicenote.clear_flow_drafts("a", drafts_dir=tmp_path / "drafts")
    assert [d.key for d in voicenote.flow_drafts(tmp_path / "drafts")] == ["b"]
    assert not os.path.exists(takes["a"].path) and os.path.exists(takes["b"].path)
    voicenote.clear_flow_drafts(drafts_dir=tmp_path / "drafts")
    assert voicenote.flow_drafts(tmp_path / "drafts") == [] and not os.path.exists(takes["b"].path)


def run_child(tmp_path: Path, key: str, mode: str) -> subprocess.Popen:
    Rig(tmp_path).close()  # makes mic.raw
    env = dict(os.environ)
    return subprocess.Popen([sys.executable, "-c", CHILD, str(PACKAGE_ROOT), str(tmp_path), key, mode], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_take_parked_by_another_process_is_restored(tmp_path: Path) -> None:
    child = run_child(tmp_path, "room-7", "park")
    out, err = child.communicate(timeout=TIMEOUT)
    assert child.returncode == 0 and "parked" in out, err
    rig = draft_flow(tmp_path, "room-7")
    try:
        view = preview_of(rig)
        assert view.duration >= 2.0
    finally:
        rig.close()


def test_sigkill_during_a_take_loses_at_most_a_second(tmp_path: Path) -> None:
    child = run_child(tmp_path, "room-9", "kill")
    assert child.stdout is not None
    line = child.stdout.readline()  # bounded: the child gives up after 30 s and prints anyway
    assert line.startswith("recorded "), child.stderr.read() if child.stderr else ""
    recorded = float(line.split()[1])
    child.send_signal(signal.SIGKILL)
    _, said = child.communicate(timeout=TIMEOUT)
    drafts = voicenote.flow_drafts(tmp_path / "drafts")
    assert len(drafts) == 1 and drafts[0].path.endswith(".ogg.part") and drafts[0].duration == 0, \
        (line, drafts, listing(tmp_path / "drafts"), listing(tmp_path / "takes"), said)
    rig = draft_flow(tmp_path, "room-9")
    try:
        view = preview_of(rig)
        assert view.duration >= recorded - 1.0, (view.duration, recorded)
        path = voicenote.flow_drafts(tmp_path / "drafts")[0].path
        assert path.endswith(".ogg") and abs(decoded_samples(path) - round(view.duration * 48000)) <= 1
    finally:
        rig.close()


def test_draft_arguments_are_checked(rig: Rig, tmp_path: Path) -> None:
    with pytest.raises(voicenote.MisuseError):
        rig.flow.park()  # no draft key
    for key in ("", "x" * 101):
        with pytest.raises(voicenote.InvalidArgumentError):
            RecordingFlow(rig.recorder, rig.player, draft_key=key, drafts_dir=str(tmp_path / "d"))
    with pytest.raises(ValueError):
        RecordingFlow(rig.recorder, rig.player, draft_key="a\0b")
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.clear_flow_drafts("", drafts_dir=tmp_path / "d")
    assert voicenote.flow_drafts(tmp_path / "does-not-exist") == []


def test_stream_gesture_numbers_through_the_binding(tmp_path: Path) -> None:
    """Stream's test numbers (distances 100, press at (200, 200)) on a real flow."""
    rig = Rig(tmp_path, slide_to_cancel_distance=100, lock_distance=100)
    try:
        rig.hold_to_record(200, 200)

        def last_view() -> Any:
            return [e.view for e in rig.events.snapshot() if isinstance(e, FlowViewEvent)][-1]

        def move_and_wait(x: float, y: float, check: Any, what: str) -> None:
            rig.flow.move(x, y)
            rig.events.wait_for(lambda items: any(isinstance(e, FlowViewEvent) and check(e.view) for e in items), what=what)

        move_and_wait(150, 200, lambda v: v.slide_to_cancel_alpha == 0.5, "alpha 0.5 at x = 150")
        move_and_wait(100, 200, lambda v: v.slide_to_cancel_alpha == 0.0, "alpha 0 at x = 100")
        move_and_wait(200, 200, lambda v: v.slide_to_cancel_alpha == 1.0, "alpha 1 back at the press point")
        move_and_wait(200, 150, lambda v: v.lock_padding == 50 and v.chevron_alpha == 0.5, "padding 50, alpha 0.5")
        rig.flow.move(200, 50)
        rig.wait_state(FlowState.LOCKED)
        assert last_view().state is FlowState.LOCKED
    finally:
        rig.close()
    cancel = Rig(tmp_path, slide_to_cancel_distance=100, lock_distance=100)
    try:
        cancel.hold_to_record(200, 200)
        cancel.flow.move(50, 200)
        cancel.wait_state(FlowState.IDLE)  # the latest view was RECORDING: this is the cancel
        assert not any(isinstance(e, AttachmentReady) for e in cancel.events.snapshot())
    finally:
        cancel.close()


def test_trim_returns_at_once_and_send_during_it_sends_the_cut_take(rig: Rig) -> None:
    rig.hold_to_record()
    rig.flow.lock()
    rig.flow.stop()
    rig.wait_state(FlowState.PREVIEW)
    rig.flow.trim(0.2, 0.7)
    rig.flow.send()  # during the trim, or just after: the cut take either way
    [ready] = rig.wait_for(AttachmentReady)
    rig.wait_state(FlowState.IDLE)
    assert ready.take.duration == pytest.approx(0.5, abs=1e-6)
    kinds = [type(e) for e in rig.events.snapshot() if isinstance(e, (Trimmed, AttachmentReady))]
    assert kinds == [Trimmed, AttachmentReady]


def test_discard_during_a_trim_deletes_the_take(tmp_path: Path) -> None:
    rig = Rig(tmp_path, recorder_options={"format": voicenote.RecordingFormat.AAC})
    try:
        rig.hold_to_record()
        rig.flow.lock()
        rig.flow.stop()
        rig.wait_state(FlowState.PREVIEW)
        rig.flow.trim(0.1, 0.9)
        rig.flow.discard()
        assert rig.flow.state is FlowState.IDLE
        assert wait_until(lambda: rig.take_files() == []), rig.take_files()
        assert not any(isinstance(e, AttachmentReady) for e in rig.events.snapshot())
    finally:
        rig.close()


def test_a_take_the_recorder_drops_as_too_short_is_an_event(tmp_path: Path) -> None:
    """Through a real capture (ALSA's file plugin): the recorder's minimum drops the take, as it drops one released
    before any audio arrived; the flow says so (a client shows the tip) and goes idle."""
    rig = Rig(tmp_path, recorder_options={"min_duration": 3600})
    try:
        rig.hold_to_record()
        rig.flow.release()
        [short] = rig.wait_for(TakeTooShort)
        rig.wait_state(FlowState.IDLE)
        assert short.duration > 0.5 and rig.take_files() == []
        events = [e for e in rig.events.snapshot() if not isinstance(e, FlowViewEvent)]
        assert events == [short]
    finally:
        rig.close()


def test_asyncio_awaits_a_trim_without_blocking_its_loop(tmp_path: Path) -> None:
    import asyncio
    import voicenote.aio as vaio

    rig = Rig(tmp_path)
    try:
        rig.hold_to_record()
        rig.flow.lock()
        rig.flow.stop()
        rig.wait_state(FlowState.PREVIEW)

        async def cut() -> Any:
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            ticker = asyncio.ensure_future(tick())
            take = await asyncio.wait_for(vaio.trim(rig.flow, 0.1, 0.6), TIMEOUT)
            ticker.cancel()
            with pytest.raises(voicenote.InvalidArgumentError):
                await vaio.trim(rig.flow, 0.0, 100.0)  # past the cut take's end: refused before anything runs
            return take, ticks

        take, ticks = asyncio.run(cut())
        assert take.duration == pytest.approx(0.5, abs=1e-6) and ticks > 0
    finally:
        rig.close()
