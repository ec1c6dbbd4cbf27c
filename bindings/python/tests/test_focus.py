"""Audio focus through the C API: recorders join a group, and a group is an object of its own. (Players join with
the player; the group's rules between players and recorders are tested in Swift, VoiceNoteCoreTests and
RecorderFocusTests.)"""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from microphones import EventLog, Speech, file_microphone

import voicenote
from voicenote import RecordingFinished, _capi


def test_a_recorder_in_its_own_group_records(speech: Speech, tmp_path: Path) -> None:
    with voicenote.FocusGroup() as group:
        with voicenote.Recorder(tmp_path, device="vn_mic", device_config=file_microphone(speech.raw48),
                                max_duration=0.5, focus_group=group) as recorder:
            log = EventLog(recorder)
            recorder.begin()
            events = log.wait_end()
    assert [event for event in events if isinstance(event, RecordingFinished)]


def test_group_arguments_are_checked(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        voicenote.Recorder(tmp_path, device="null", focus_group="default")  # type: ignore[arg-type]
    group = voicenote.FocusGroup()
    group.close()
    assert group.closed
    with pytest.raises(ValueError):
        voicenote.Recorder(tmp_path, device="null", focus_group=group)
    group.close()  # idempotent


def test_the_c_functions_refuse_misuse() -> None:
    assert _capi.vn_focus_group_create(None) == _capi.VN_E_INVALID_ARG
    _capi.vn_focus_group_destroy(None)  # a no-op
    options = _capi.vn_recorder_options_p()
    assert _capi.vn_recorder_options_create(ctypes.byref(options)) == 0
    group = _capi.vn_focus_group_p()
    assert _capi.vn_focus_group_create(ctypes.byref(group)) == 0
    assert _capi.vn_recorder_options_set_focus_group(options, group) == 0
    assert _capi.vn_recorder_options_set_focus_group(options, None) == 0  # the default group
    _capi.vn_focus_group_destroy(group)
    assert _capi.vn_recorder_options_set_focus_group(options, group) == _capi.VN_E_MISUSE
    assert _capi.vn_recorder_options_set_focus_group(None, None) == _capi.VN_E_MISUSE
    _capi.vn_recorder_options_destroy(options)
