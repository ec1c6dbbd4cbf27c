"""Matrix voice messages through the binding: the ``m.room.message`` content built from a recording's payload (as
Element sends one), read back, and the authenticated-media download URL. The waveform field is checked against the
file's own waveform, encoded as Matrix encodes it (voicenote.encode_waveform)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from audiofiles import Media

import voicenote
from voicenote import VoiceRecordingPayload, WaveformEncoding


def uploaded(media: Media) -> VoiceRecordingPayload:
    """The payload of a recording after a raw (Matrix) upload: its asset_url the mxc:// URI."""
    payload = VoiceRecordingPayload.from_recording(media.files["opus"])
    payload.asset_url = "mxc://example.org/AbCdEf_123-x"
    return payload


def test_the_content_is_what_element_sends(media: Media) -> None:
    payload = uploaded(media)
    content = payload.to_matrix_content()
    assert content["msgtype"] == "m.audio" and content["body"] == "Voice message"
    assert content["url"] == "mxc://example.org/AbCdEf_123-x"
    milliseconds = round(payload.duration * 1000)
    assert content["info"] == {"duration": milliseconds, "mimetype": "audio/ogg", "size": payload.file_size}
    audio = content["org.matrix.msc1767.audio"]
    assert audio["duration"] == milliseconds
    assert audio["waveform"] == voicenote.encode_waveform(payload.waveform_data, WaveformEncoding.MATRIX)
    assert all(isinstance(v, int) and 0 <= v <= 1024 for v in audio["waveform"]) and len(audio["waveform"]) == 100
    assert content["org.matrix.msc3245.voice"] == {}
    assert payload.to_matrix_content(body="Sprachnachricht")["body"] == "Sprachnachricht"


def test_read_back_gives_the_payload_and_says_it_is_a_voice_message(media: Media) -> None:
    payload = uploaded(media)
    content = payload.to_matrix_content()
    for form in (content, json.dumps(content), json.dumps(content).encode()):
        read = VoiceRecordingPayload.from_matrix_content(form)
        assert read.asset_url == payload.asset_url and read.title == "Voice message"
        assert read.duration == pytest.approx(payload.duration, abs=0.0005)
        assert read.mime_type == "audio/ogg" and read.file_size == payload.file_size
        assert read.waveform_data == pytest.approx(voicenote.decode_waveform(content["org.matrix.msc1767.audio"]["waveform"],
                                                                        WaveformEncoding.MATRIX), abs=1e-6)
        assert read.waveform_data == pytest.approx(payload.waveform_data, abs=1 / 1024 + 0.01)
    assert voicenote.is_matrix_voice_message(content)
    del content["org.matrix.msc3245.voice"]
    assert not voicenote.is_matrix_voice_message(content)  # plain audio: a file to clients


def test_received_contents_other_clients_send(media: Media) -> None:
    # No msc1767 block (an older client): the duration comes from info; no waveform.
    read = VoiceRecordingPayload.from_matrix_content({"msgtype": "m.audio", "body": "a.ogg", "url": "mxc://h:8448/x",
                                                      "info": {"duration": 2500}})
    assert read.duration == 2.5 and read.waveform_data is None
    for bad in ({"msgtype": "m.text", "body": "hi"}, {"msgtype": "m.audio", "url": "https://host/a.ogg"},
                {"msgtype": "m.audio", "url": "mxc://h/x", "info": {"duration": "long"}},
                {"msgtype": "m.audio", "url": "mxc://h/x", "org.matrix.msc1767.audio": {"waveform": ["a"]}},
                {"msgtype": "m.audio", "url": "mxc://h/x", "info": []}, [1, 2], "not json"):
        with pytest.raises(voicenote.FormatError):
            VoiceRecordingPayload.from_matrix_content(bad if isinstance(bad, str) else json.dumps(bad))


def test_the_content_needs_an_mxc_uri_and_a_duration(media: Media) -> None:
    payload = VoiceRecordingPayload.from_recording(media.files["opus"])  # file:// before upload
    with pytest.raises(voicenote.InvalidArgumentError):
        payload.to_matrix_content()
    no_duration = VoiceRecordingPayload("mxc://example.org/abc")
    with pytest.raises(voicenote.InvalidArgumentError):
        no_duration.to_matrix_content()


def test_the_authenticated_media_url() -> None:
    assert voicenote.matrix_download_url("mxc://example.org/AbC_d-1", "https://matrix.example.org/") == \
        "https://matrix.example.org/_matrix/client/v1/media/download/example.org/AbC_d-1"
    assert voicenote.matrix_download_url("mxc://[::1]:8448/x", "http://127.0.0.1:8008") == \
        "http://127.0.0.1:8008/_matrix/client/v1/media/download/[::1]:8448/x"
    for mxc, homeserver in (("https://h/x", "https://h"), ("mxc://h", "https://h"), ("mxc://h/a/b", "https://h"),
                            ("mxc:///x", "https://h"), ("mxc://h/x?y", "https://h"), ("mxc://h/x", "ftp://h"),
                            ("mxc://h/x", "https://h/?q")):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.matrix_download_url(mxc, homeserver)
