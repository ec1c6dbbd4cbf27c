"""Attachments without the network: Stream's voiceRecording payload (``VoiceRecordingPayload``: read and written back
exactly, every property, a finished recording's payload, hostile JSON), the attachment helpers, and the next voice
message in a channel's messages (``find_next_item``) with the shared Stream fixture
(Tests/Fixtures/messages/stream-next-item.json)."""

from __future__ import annotations

import gc
import json
import math
import os
import struct
from pathlib import Path
from typing import Any, List

import pytest

from audiofiles import REPO_ROOT, Media

import voicenote
from voicenote import VoiceRecordingPayload, _lifecycle

FIXTURE = REPO_ROOT / "Tests" / "Fixtures" / "messages" / "stream-next-item.json"


def vr(n: int) -> str:
    return f"https://cdn.example.com/vr{n}.ogg"


# --- the payload -------------------------------------------------------------------------------------------------


def test_streams_payload_tests() -> None:
    """Stream's two tests: the four keys decode with no extra data (and write back as read); an extra key lands in
    the extra data."""
    plain = ('{"title":"Recording","asset_url":"https://cdn.example.com/a.aac","file_size":10485760,'
             '"mime_type":"audio/aac"}')
    payload = VoiceRecordingPayload.from_json(plain)
    assert payload.title == "Recording"
    assert payload.asset_url == "https://cdn.example.com/a.aac"
    assert payload.file_size == 10_485_760
    assert payload.mime_type == "audio/aac"
    assert payload.extra_data == {}
    assert payload.to_json() == plain
    assert payload.type is None and payload.duration is None and payload.waveform_data is None

    commented = VoiceRecordingPayload.from_json('{"title":"R","asset_url":"https://x/a.aac","comment":"hi"}')
    assert commented.extra_data == {"comment": "hi"}


def test_every_key_and_a_new_payload_s_order() -> None:
    text = ('{"type":"voiceRecording","title":"note.ogg","asset_url":"https://x/n.ogg","file_size":123,'
            '"mime_type":"audio/ogg","duration":2.5,"waveform_data":[0,0.25,1]}')
    payload = VoiceRecordingPayload.from_json(text)
    assert payload.type == "voiceRecording"
    assert payload.duration == 2.5
    assert payload.waveform_data == [0, 0.25, 1]
    assert payload.to_json() == text
    fresh = VoiceRecordingPayload("https://x/n.ogg", title="note.ogg", file_size=123, mime_type="audio/ogg",
                                  duration=2.5, waveform_data=[0, 0.25, 1])
    assert fresh.to_json() == ('{"type":"voiceRecording","title":"note.ogg","asset_url":"https://x/n.ogg",'
                               '"file_size":123,"mime_type":"audio/ogg","duration":2.5,"waveform_data":[0.0,0.25,1.0]}')
    assert fresh != payload  # equal values, but payloads compare as JSON text: [0,0.25,1] is not [0.0,0.25,1.0]
    assert fresh == VoiceRecordingPayload.from_json(fresh.to_json())
    bare = VoiceRecordingPayload("mxc://example.org/abc")
    assert bare.to_json() == '{"type":"voiceRecording","asset_url":"mxc://example.org/abc"}'
    with_extra = VoiceRecordingPayload("https://x/a", duration=1, extra_data={"z": 1, "a": [True, None]})
    assert with_extra.to_json() == '{"type":"voiceRecording","asset_url":"https://x/a","duration":1.0,"z":1,"a":[true,null]}'
    indented = fresh.to_json(indent=2)
    assert indented.startswith('{\n  "type": "voiceRecording",') and json.loads(indented) == json.loads(fresh.to_json())
    with pytest.raises(voicenote.InvalidArgumentError):
        fresh.to_json(indent=-1)
    with pytest.raises(voicenote.InvalidArgumentError):
        fresh.to_json(indent=17)


NESTED = ('{"zz":{"list":[1,"two",{"三":3.0}],"empty":{}},"asset_url":"https://x/a.ogg",'
          '"max":9223372036854775807,"min":-9223372036854775808,"real":0.1,"e":1e-07,'
          '"text":"quote \\" tab \\t nul \\u0000 é 😀","title":"t","flag":true,"none":null}')


def test_nested_extra_data_round_trips_byte_exact() -> None:
    payload = VoiceRecordingPayload.from_json(NESTED)
    assert payload.to_json() == NESTED
    extra = payload.extra_data
    assert list(extra) == ["zz", "max", "min", "real", "e", "text", "flag", "none"]
    assert extra["max"] == 2**63 - 1 and extra["min"] == -(2**63)
    assert extra["real"] == 0.1 and extra["e"] == 1e-07
    assert extra["zz"] == {"list": [1, "two", {"三": 3.0}], "empty": {}}
    assert extra["text"] == 'quote " tab \t nul \x00 é 😀'
    assert extra["flag"] is True and extra["none"] is None
    # Read into Python and written back: the same text, byte for byte.
    payload.extra_data = extra
    assert payload.to_json() == NESTED
    # The same values given from Python.
    fresh = VoiceRecordingPayload("https://x/a.ogg", extra_data=extra)
    assert fresh.extra_data == extra
    assert json.loads(fresh.to_json()) == {"type": "voiceRecording", "asset_url": "https://x/a.ogg", **extra}
    # Editing a known key keeps every position.
    payload.title = "renamed"
    assert payload.to_json() == NESTED.replace('"title":"t"', '"title":"renamed"')
    # Bytes are read as UTF-8.
    assert VoiceRecordingPayload.from_json(NESTED.encode("utf-8")).to_json() == NESTED


def test_extra_data_replacement_keeps_positions() -> None:
    payload = VoiceRecordingPayload.from_json('{"a":1,"asset_url":"https://x/a","b":2,"c":3}')
    payload.extra_data = {"c": 30, "a": 10, "d": 4}
    assert payload.to_json() == '{"a":10,"asset_url":"https://x/a","c":30,"d":4}'
    payload.extra_data = None
    assert payload.to_json() == '{"asset_url":"https://x/a"}' and payload.extra_data == {}
    with pytest.raises(voicenote.InvalidArgumentError):
        payload.extra_data = {"title": "a known key"}
    with pytest.raises(TypeError):
        payload.extra_data = [1, 2]  # type: ignore[assignment]
    assert payload.to_json() == '{"asset_url":"https://x/a"}'  # a refused change changes nothing


@pytest.mark.parametrize("name, value", [("title", "Recording(2)"), ("mime_type", "audio/aac"), ("type", "audio")])
def test_text_properties_get_set_and_remove(name: str, value: str) -> None:
    payload = VoiceRecordingPayload.from_json('{"type":"voiceRecording","title":"t","asset_url":"https://x/a",'
                                              '"mime_type":"audio/ogg","x":1}')
    key = {"title": "title", "mime_type": "mime_type", "type": "type"}[name]
    before = json.loads(payload.to_json(), object_pairs_hook=list)
    setattr(payload, name, value)
    assert getattr(payload, name) == value
    after = json.loads(payload.to_json(), object_pairs_hook=list)
    assert [k for k, _ in after] == [k for k, _ in before] and dict(after)[key] == value
    setattr(payload, name, "é 😀 \"quoted\"")
    assert getattr(payload, name) == "é 😀 \"quoted\""
    setattr(payload, name, None)
    assert getattr(payload, name) is None and key not in json.loads(payload.to_json())
    setattr(payload, name, value)  # back, at its place among the known keys (Stream's order), before "x"
    assert [k for k, _ in json.loads(payload.to_json(), object_pairs_hook=list)] == [k for k, _ in before]
    with pytest.raises(TypeError):
        setattr(payload, name, 5)
    with pytest.raises(ValueError):
        setattr(payload, name, "nul\0byte")


def test_asset_url_is_required_and_absolute() -> None:
    payload = VoiceRecordingPayload("https://x/a.ogg")
    payload.asset_url = "mxc://example.org/abc"
    assert payload.asset_url == "mxc://example.org/abc"
    for bad in ("relative/path.ogg", "", None):
        with pytest.raises(voicenote.InvalidArgumentError):
            payload.asset_url = bad  # type: ignore[assignment]
    assert payload.asset_url == "mxc://example.org/abc"
    with pytest.raises(voicenote.InvalidArgumentError):
        VoiceRecordingPayload("no-scheme")
    with pytest.raises(TypeError):
        VoiceRecordingPayload(b"https://x/a")  # type: ignore[arg-type]


def test_number_properties_get_set_and_remove() -> None:
    payload = VoiceRecordingPayload("https://x/a")
    assert payload.file_size is None and payload.duration is None and payload.waveform_data is None
    payload.file_size = 2**63 - 1
    assert payload.file_size == 2**63 - 1
    payload.file_size = 0
    assert payload.file_size == 0
    payload.file_size = None
    assert payload.file_size is None and "file_size" not in payload.to_json()
    for bad in (-1, 2**63):
        with pytest.raises(voicenote.InvalidArgumentError):
            payload.file_size = bad
    with pytest.raises(TypeError):
        payload.file_size = 1.5  # type: ignore[assignment]

    payload.duration = 12.345
    assert payload.duration == 12.345
    payload.duration = 0
    assert payload.duration == 0.0
    payload.duration = None
    assert payload.duration is None and "duration" not in payload.to_json()
    for bad in (math.nan, math.inf, -math.inf, -0.5):
        with pytest.raises(voicenote.InvalidArgumentError):
            payload.duration = bad
    with pytest.raises(TypeError):
        payload.duration = "2"  # type: ignore[assignment]

    levels = [0.1, 1 / 3, 1e-300, 0.0, 1.0, 0.30000000000000004]
    payload.waveform_data = levels
    assert payload.waveform_data == levels  # doubles, exactly
    assert VoiceRecordingPayload.from_json(payload.to_json()).waveform_data == levels
    payload.waveform_data = []
    assert payload.waveform_data == [] and '"waveform_data":[]' in payload.to_json()
    payload.waveform_data = None
    assert payload.waveform_data is None and "waveform_data" not in payload.to_json()
    for bad in ([math.nan], [0.5, math.inf]):
        with pytest.raises(voicenote.InvalidArgumentError):
            payload.waveform_data = bad
    with pytest.raises(TypeError):
        payload.waveform_data = ["0.5"]  # type: ignore[list-item]
    assert payload.to_json() == '{"type":"voiceRecording","asset_url":"https://x/a"}'


def test_file_size_is_read_as_stream_reads_it() -> None:
    def size(text: str) -> Any:
        return VoiceRecordingPayload.from_json('{"asset_url":"https://x/a","file_size":' + text + "}").file_size

    assert size("1024") == 1024
    assert size("1024.6") == 1025
    assert size("1e300") == 0
    assert size('"12"') == 0
    assert size("null") == 0
    assert VoiceRecordingPayload.from_json('{"asset_url":"https://x/a","file_size":10.4}').to_json() == \
        '{"asset_url":"https://x/a","file_size":10}'


def test_equality_repr_close_and_context_manager() -> None:
    a = VoiceRecordingPayload.from_json('{"asset_url":"https://x/a","title":"t"}')
    b = VoiceRecordingPayload.from_json('{"asset_url":"https://x/a","title":"t"}')
    c = VoiceRecordingPayload.from_json('{"title":"t","asset_url":"https://x/a"}')
    assert a == b and a != c and a != "not a payload"
    with pytest.raises(TypeError):
        hash(a)
    assert repr(a) == '<voicenote.VoiceRecordingPayload {"asset_url":"https://x/a","title":"t"}>'
    long = VoiceRecordingPayload("https://x/a", waveform_data=[0.5] * 1000)
    assert len(repr(long)) < 300
    with VoiceRecordingPayload("https://x/a") as payload:
        assert not payload.closed
    assert payload.closed and repr(payload) == "<voicenote.VoiceRecordingPayload closed>"
    payload.close()  # idempotent
    for read in (lambda: payload.title, payload.to_json, lambda: payload.extra_data, lambda: payload.waveform_data):
        with pytest.raises(ValueError):
            read()


def test_a_payload_is_freed_when_collected() -> None:
    payload = VoiceRecordingPayload("https://x/a")
    finalizer = payload._finalizer
    tracked = len(_lifecycle._live)
    del payload
    gc.collect()
    assert not finalizer.alive and len(_lifecycle._live) == tracked - 1


def float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def test_a_finished_recording_s_payload(media: Media) -> None:
    note = media.files["opus"]
    payload = VoiceRecordingPayload.from_recording(note)
    assert payload.type == "voiceRecording"
    assert payload.title == note.name
    assert payload.asset_url == note.as_uri()
    assert payload.file_size == note.stat().st_size
    assert payload.mime_type == "audio/ogg"
    assert payload.duration == pytest.approx(voicenote.info(note)["duration"]) and payload.duration > 0.5
    levels = payload.waveform_data
    assert levels is not None and len(levels) == 100 and all(0 <= level <= 1 for level in levels)
    # The computed float32 levels, written in their shortest form.
    assert [float32(level) for level in levels] == voicenote.waveform(note, 100)

    given = VoiceRecordingPayload.from_recording(str(note), duration=1.5, waveform=[0.1, 0.2])
    assert given.duration == 1.5 and given.waveform_data == [0.1, 0.2]
    assert '"waveform_data":[0.1,0.2]' in given.to_json()
    assert VoiceRecordingPayload.from_recording(note, 0, []).waveform_data == []
    # Nothing to read from a file that is not audio when both are given; else a FormatError.
    assert VoiceRecordingPayload.from_recording(media.text_as_ogg, 1, [0.5]).mime_type == "audio/ogg"
    with pytest.raises(voicenote.FormatError):
        VoiceRecordingPayload.from_recording(media.text_as_ogg)
    with pytest.raises(voicenote.NotFoundError):
        VoiceRecordingPayload.from_recording(media.missing)
    for duration, waveform in ((None, None), (1, None), (None, [0.5])):
        with pytest.raises(voicenote.InvalidArgumentError, match="directory"):
            VoiceRecordingPayload.from_recording(media.directory, duration, waveform)
    for duration in (math.nan, math.inf, -1):
        with pytest.raises(voicenote.InvalidArgumentError):
            VoiceRecordingPayload.from_recording(note, duration, [0.5])


def test_from_recording_refuses_a_directory_even_with_duration_and_waveform(media: Media) -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        VoiceRecordingPayload.from_recording(media.directory, 1, [0.5])


@pytest.mark.parametrize("level", [math.nan, math.inf])
def test_from_recording_refuses_non_finite_levels(media: Media, level: float) -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        VoiceRecordingPayload.from_recording(media.files["opus"], 1, [0.5, level])


@pytest.mark.parametrize("text, error", [
    ("[" * 10_000, voicenote.FormatError),
    ('{"asset_url":"https://x/a","deep":' + "[" * 10_000 + "]" * 10_000 + "}", voicenote.FormatError),
    (b'{"asset_url":"https://x/a","title":"\xff\xfe"}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","title":"\ud800"}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","n":9223372036854775808}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","n":18446744073709551616}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","n":1e400}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","a":1,"a":2}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","x":"' + "y" * (1 << 20) + '"}', voicenote.TooLargeError),
    ("[]", voicenote.FormatError),
    ("{}", voicenote.FormatError),
    ("", voicenote.FormatError),
    ('{"asset_url":"relative/path.ogg"}', voicenote.FormatError),
    ('{"asset_url":7}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","title":5}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","duration":"long"}', voicenote.FormatError),
    ('{"asset_url":"https://x/a","waveform_data":[0.1,"x"]}', voicenote.FormatError),
    ('{"asset_url":"https://x/a"}\0', voicenote.FormatError),
], ids=["deep-array", "deep-value", "invalid-utf8", "lone-surrogate", "2**63", "2**64", "1e400", "duplicate-keys",
        "over-1MiB", "array", "empty-object", "empty", "relative-url", "url-number", "title-number",
        "duration-text", "waveform-text", "trailing-nul"])
def test_hostile_payload_json_raises_the_right_class(text: Any, error: type) -> None:
    with pytest.raises(error) as caught:
        VoiceRecordingPayload.from_json(text)
    assert isinstance(caught.value, ValueError)  # FormatError and TooLargeError are ValueErrors too


def test_a_payload_of_one_wide_object_reads_whole() -> None:
    """A payload whose extra data is one object of 20,000 keys (1 MiB of ~95,000 took 14 s when each member was placed
    by a linear search; `make bench` measures the time, this checks the result): every key, in order, and the JSON
    unchanged."""
    keys = 20_000
    wide = "{" + ",".join(f'"k{i}":{i % 10}' for i in range(keys)) + "}"
    text = '{"type":"voiceRecording","asset_url":"https://cdn.example/a.ogg","x":' + wide + "}"
    assert len(text) < 1 << 20
    payload = VoiceRecordingPayload.from_json(text)
    extra = payload.extra_data["x"]
    assert list(extra) == [f"k{i}" for i in range(keys)] and extra["k17123"] == 3
    assert payload.to_json() == text
    payload.extra_data = {f"e{i}": 0 for i in range(keys)}  # replaced whole: the old key goes, the new ones in order
    assert list(payload.extra_data) == [f"e{i}" for i in range(keys)]


def test_repeated_keys_in_a_payload() -> None:
    """A key written twice byte for byte is refused (jansson's duplicate check), also at the end of a wide object;
    keys that differ in bytes but are canonically equivalent (é as one code point, and e + U+0301) are one key, as
    Swift compares strings: the first one's place and spelling, the last one's value."""
    wide = ",".join(f'"k{i}":0' for i in range(50_000))
    for text in ('{"asset_url":"https://x/a","a":1,"b":2,"a":3}', '{"asset_url":"https://x/a","x":{' + wide + ',"k0":1}}',
                 '{"asset_url":"https://x/a","asset_url":"https://x/b"}'):
        with pytest.raises(voicenote.FormatError) as caught:
            VoiceRecordingPayload.from_json(text)
        assert caught.value.name == "VN_E_FORMAT"
    payload = VoiceRecordingPayload.from_json('{"asset_url":"https://x/a","\u00e9":1,"y":2,"e\u0301":3}')
    assert list(payload.extra_data.items()) == [("\u00e9", 3), ("y", 2)]


def test_hostile_extra_data_raises_the_right_class() -> None:
    payload = VoiceRecordingPayload("https://x/a")
    with pytest.raises(voicenote.FormatError):
        payload.extra_data = {"n": 2**63}
    with pytest.raises(voicenote.FormatError):
        payload.extra_data = {"n": -(2**63) - 1}
    with pytest.raises(voicenote.FormatError):
        payload.extra_data = {"n": math.nan}
    deep: Any = []
    for _ in range(100):
        deep = [deep]
    with pytest.raises(voicenote.FormatError):
        payload.extra_data = {"deep": deep}
    with pytest.raises(voicenote.TooLargeError):
        payload.extra_data = {"x": "y" * (1 << 20)}
    payload.extra_data = {"n": 2**63 - 1, "m": -(2**63)}
    assert payload.extra_data == {"n": 2**63 - 1, "m": -(2**63)}
    with pytest.raises(TypeError):
        VoiceRecordingPayload.from_json(12)  # type: ignore[arg-type]


# --- the helpers ---------------------------------------------------------------------------------------------------


def test_attachment_and_mime_types_by_file_name() -> None:
    types = {"a.ogg": "audio", "/x/y/photo.JPG": "image", "clip.mp4": "video", "doc.pdf": "file",
             "noextension": "file", ".hidden": "file", Path("/tmp/n.opus"): "audio"}
    for name, kind in types.items():
        assert voicenote.attachment_type_for(name) == kind, name
    mimes = {"a.ogg": "audio/ogg", "a.opus": "audio/ogg", "a.aac": "audio/aac", "a.m4a": "audio/mp4",
             "a.mp3": "audio/mpeg", "a.wav": "audio/wav", "a.flac": "audio/flac", "A.OGG": "audio/ogg",
             "a.xyz": "application/octet-stream", "a": "application/octet-stream", "x.png": "image/png"}
    for name, mime in mimes.items():
        assert voicenote.mime_type_for(name) == mime, name
    with pytest.raises(ValueError):
        voicenote.mime_type_for("a\0.ogg")


def test_attachment_type_of_a_received_attachment() -> None:
    assert voicenote.attachment_type_of({"type": "image", "og_scrape_url": "https://x"}) == "linkPreview"
    assert voicenote.attachment_type_of({"asset_url": "https://x"}) == "unknown"
    assert voicenote.attachment_type_of({"type": 7}) == "unknown"
    assert voicenote.attachment_type_of({"type": "poll"}) == "poll"
    assert voicenote.attachment_type_of('{"type":"voiceRecording","asset_url":"https://x/a.ogg"}') == "voiceRecording"
    assert voicenote.attachment_type_of(b'{"type":"giphy"}') == "giphy"
    for bad in ("[]", "not json", b'{"type":"\xff"}'):
        with pytest.raises(voicenote.FormatError):
            voicenote.attachment_type_of(bad)
    with pytest.raises(voicenote.TooLargeError):
        voicenote.attachment_type_of({"type": "file", "x": "y" * (1 << 20)})
    with pytest.raises(TypeError):
        voicenote.attachment_type_of(5)  # type: ignore[arg-type]


def test_check_local_attachment(media: Media, tmp_path: Path) -> None:
    note = media.files["opus"]
    voicenote.check_local_attachment(note)
    voicenote.check_local_attachment(note.as_uri())
    voicenote.check_local_attachment(str(note), type="image")
    voicenote.check_local_attachment(note, max_bytes=note.stat().st_size)
    with pytest.raises(voicenote.UnsupportedError):
        voicenote.check_local_attachment(note, type="giphy")
    with pytest.raises(voicenote.UnsupportedError):
        voicenote.check_local_attachment(note, type="linkPreview")
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.check_local_attachment("https://cdn.example.com/a.ogg")
    with pytest.raises(voicenote.TooLargeError):
        voicenote.check_local_attachment(note, max_bytes=10)
    with pytest.raises(FileNotFoundError):  # a voicenote.NotFoundError
        voicenote.check_local_attachment(media.missing)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.check_local_attachment(media.directory)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.check_local_attachment(note, max_bytes=-1)
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.ogg"
        locked.write_bytes(b"x")
        locked.chmod(0)
        with pytest.raises(voicenote.AccessDeniedError):
            voicenote.check_local_attachment(locked)


def test_recording_display_names() -> None:
    assert voicenote.recording_display_name(0) == "Recording"
    assert voicenote.recording_display_name(1) == "Recording(1)"
    assert voicenote.recording_display_name(12) == "Recording(12)"
    for bad in (-1, -(2**40), 2**31):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.recording_display_name(bad)
    with pytest.raises(TypeError):
        voicenote.recording_display_name(1.0)  # type: ignore[arg-type]


# --- the next voice message ----------------------------------------------------------------------------------------


def fixture_forms() -> List[Any]:
    """The shared fixture as JSON text, as UTF-8 bytes and as Python objects."""
    text = FIXTURE.read_text(encoding="utf-8")
    return [text, text.encode("utf-8"), json.loads(text)]


@pytest.mark.parametrize("form", [0, 1, 2], ids=["json-text", "json-bytes", "python-objects"])
def test_the_stream_fixture(form: int) -> None:
    """Every case of the fixture's _comment."""
    comment = json.loads(FIXTURE.read_text(encoding="utf-8"))["_comment"]
    assert "vr3 -> none" in comment
    messages = fixture_forms()[form]
    user = json.loads(FIXTURE.read_text(encoding="utf-8"))["current_user_id"]
    assert user == "C"
    find = voicenote.find_next_item
    assert find([], vr(1), user, "same-message") is None  # no messages
    assert find({"messages": []}, vr(1), user, "consecutive") is None
    assert find(messages, "https://cdn.example.com/unknown.ogg", user, "same-message") is None
    assert find(messages, vr(1), user, "same-message") == vr(2)
    assert find(messages, vr(2), user, "same-message") is None
    assert find(messages, vr(1), user, "subsequent-messages-from-user") == vr(2)
    assert find(messages, vr(2), user, "subsequent-messages-from-user") == vr(3)
    assert find(messages, vr(3), user, "subsequent-messages-from-user") is None
    assert find(messages, "", user, "consecutive") is None
    # The messages as a bare array work as the object with a "messages" array does.
    bare = json.loads(FIXTURE.read_text(encoding="utf-8"))["messages"]
    assert find(bare, vr(2), user, "subsequent-messages-from-user") == vr(3)
    # The current user's own note has no next; nobody's is the current user's with None.
    assert find(messages, vr(1), "B", "same-message") is None
    assert find(messages, vr(1), None, "same-message") == vr(2)


def message(author: str, attachments: List[Any]) -> dict:
    return {"id": "x", "user": {"id": author},
            "attachments": [{"type": kind, "asset_url": url} for kind, url in attachments]}


def test_the_consecutive_scope() -> None:
    messages = [
        message("A", [("voiceRecording", "a1")]),
        message("B", [("image", "i1"), ("voiceRecording", "b1")]),
        message("C", [("voiceRecording", "c1")]),
        message("A", [("voiceRecording", "a2")]),
        message("B", [("image", "i2")]),
        message("A", [("voiceRecording", "a3")]),
    ]
    text = json.dumps(messages)
    for given in (messages, text):
        assert voicenote.find_next_item(given, "a1", "C", "consecutive") == "b1"  # across authors, other types skipped
        assert voicenote.find_next_item(given, "b1", "C", "consecutive") == "a2"  # the current user's note skipped
        assert voicenote.find_next_item(given, "a2", "C", "consecutive") is None  # a message with none ends the run
        assert voicenote.find_next_item(given, "c1", "C", "consecutive") is None  # the current user's has no next
        assert voicenote.find_next_item(given, "a1", "C", "subsequent-messages-from-user") is None  # one ahead only


def test_the_newest_message_with_the_url_counts() -> None:
    messages = [
        message("A", [("voiceRecording", "same"), ("voiceRecording", "old-next")]),
        message("B", [("voiceRecording", "same"), ("voiceRecording", "new-next")]),
    ]
    assert voicenote.find_next_item(messages, "same", "C", "same-message") == "new-next"
    assert voicenote.find_next_item(messages, "same", "B", "same-message") is None


def test_unicode_urls_and_ids_from_python_objects() -> None:
    messages = [message("ü", [("voiceRecording", "https://cdn.example.com/é.ogg"),
                              ("voiceRecording", "https://cdn.example.com/😀.ogg")])]
    assert voicenote.find_next_item(messages, "https://cdn.example.com/é.ogg", "ß", "same-message") == \
        "https://cdn.example.com/😀.ogg"
    assert voicenote.find_next_item(messages, "https://cdn.example.com/é.ogg", "ü", "same-message") is None


def test_an_unknown_scope_is_a_value_error() -> None:
    with pytest.raises(voicenote.InvalidArgumentError, match="same-message, subsequent-messages-from-user, consecutive") \
            as caught:
        voicenote.find_next_item([], "x", None, "next")
    assert isinstance(caught.value, ValueError)
    with pytest.raises(TypeError):
        voicenote.find_next_item([], "x", None, 1)  # type: ignore[arg-type]


def test_no_current_location_gives_none_in_python_as_in_c() -> None:
    messages = [{"id": "1", "user": {"id": "a"}, "attachments": [{"type": "voiceRecording", "asset_url": "u1"},
                                                                 {"type": "voiceRecording", "asset_url": "u2"}]}]
    for scope in ("same-message", "subsequent-messages-from-user", "consecutive"):
        assert voicenote.find_next_item(messages, None, None, scope) is None
    with pytest.raises(voicenote.FormatError):  # the messages are still checked
        voicenote.find_next_item("[", None, None, "consecutive")


def test_bad_message_lists() -> None:
    for bad in ("{}", "[1]", '[{"attachments":{}}]', '[{"attachments":[7]}]', "[", '[{"id":"a","id":"b"}]',
                b"[\xff]"):
        with pytest.raises(voicenote.FormatError):
            voicenote.find_next_item(bad, "u", None, "same-message")
    # Missing keys are absent, not errors; a user without an id is nobody.
    lenient = [{"attachments": [{"type": "voiceRecording", "asset_url": "u"}]}, {"user": {}}]
    assert voicenote.find_next_item(lenient, "u", None, "subsequent-messages-from-user") is None
    with pytest.raises(ValueError):
        voicenote.find_next_item([], "nul\0", None, "same-message")
    with pytest.raises(TypeError):
        voicenote.find_next_item(5, "u", None, "same-message")  # type: ignore[arg-type]


@pytest.mark.one_thread
def test_ten_megabytes_of_messages() -> None:
    messages = []
    size = 0
    while size < 10 << 20:
        messages.append(message("A", [("voiceRecording", f"https://cdn.example.com/{len(messages)}.ogg"),
                                      ("image", "https://cdn.example.com/i.png")]))
        size += len(json.dumps(messages[-1])) + 2
    text = json.dumps(messages)
    assert len(text) >= 10 << 20
    count = len(messages)
    for given in (messages, text):
        assert voicenote.find_next_item(given, "https://cdn.example.com/7.ogg", "C", "consecutive") == \
            "https://cdn.example.com/8.ogg"
        assert voicenote.find_next_item(given, f"https://cdn.example.com/{count - 1}.ogg", "C", "consecutive") is None
