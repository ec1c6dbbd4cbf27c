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


def content_with(url: str = "mxc://example.org/abc", **fields: object) -> str:
    return json.dumps({"msgtype": "m.audio", "body": "Voice message", "url": url, **fields})


#: URIs a received content may name: the Matrix grammar's server names (DNS name, IPv4, [IPv6], a port 1-65535)
#: and media ids ([A-Za-z0-9_-]+).
GOOD_URIS = ["mxc://example.org/AbC_d-1", "mxc://[::1]:8448/abc", "mxc://[2001:db8::8:800:200c:417a]/abc",
             "mxc://127.0.0.1:65535/abc", "mxc://localhost/abc", "mxc://h/x", "mxc://a-b.example:1/x"]
#: Everything else: dot segments (the reproducer's mxc://../config reached another endpoint with the token),
#: spaces, ports out of range, percent-escapes, empty parts, anything after the media id.
BAD_URIS = ["mxc://../config", "mxc://./config", "mxc://server/../x", "mxc://server/..", "mxc://server/.",
            "mxc://a b/c", "mxc://server/a b", "mxc://example.org:99999/x", "mxc://example.org:0/x",
            "mxc://example.org:/x", "mxc://%2e%2e/config", "mxc://server/%2e%2e", "mxc://server/a%2Fb",
            "mxc:///x", "mxc://server/", "mxc://", "mxc://server", "mxc://example..org/x", "mxc://.example/x",
            "mxc://example.org./x", "mxc://-a.example/x", "mxc://a_b.example/x", "mxc://[::1/x",
            "mxc://[::1]x/y", "mxc://[fe80::1%eth0]/x", "mxc://[example.org]/x", "mxc://::1/x", "mxc://256.0.0.1/x",
            "mxc://user@example.org/x", "mxc://example.org/x?y", "mxc://example.org/x#y", "mxc://h/a/b",
            "mxc://h\n/x", "mxc://h/x\n", "mxc://h/x\t", "mxc://\u00e9.example/x"]


@pytest.mark.parametrize("mxc", GOOD_URIS)
def test_uris_of_the_matrix_grammar_are_read(mxc: str) -> None:
    assert VoiceRecordingPayload.from_matrix_content(content_with(mxc)).asset_url == mxc
    server, media_id = mxc[len("mxc://"):].split("/")
    assert voicenote.matrix_download_url(mxc, "https://hs.example") == \
        f"https://hs.example/_matrix/client/v1/media/download/{server}/{media_id}"


@pytest.mark.parametrize("mxc", BAD_URIS)
def test_other_uris_are_refused_before_any_request(mxc: str) -> None:
    with pytest.raises(voicenote.FormatError) as read:
        VoiceRecordingPayload.from_matrix_content(content_with(mxc))
    assert read.value.name == "VN_E_FORMAT"
    with pytest.raises(voicenote.InvalidArgumentError) as download:
        voicenote.matrix_download_url(mxc, "https://hs.example")
    assert download.value.name == "VN_E_INVALID_ARG"
    payload = VoiceRecordingPayload(mxc)  # a payload of one's own: sending it to Matrix is refused too
    payload.duration = 1
    with pytest.raises(voicenote.InvalidArgumentError):
        payload.to_matrix_content()


@pytest.mark.parametrize("fields", [
    {"body": "Hi\x00 there, click evil.example"}, {"body": "\x00"}, {"body": "end\x00"},
    {"info": {"mimetype": "audio/ogg\x00; x"}}, {"url": "mxc://example.org/abc\x00x"},
], ids=["body", "body-only-nul", "body-end", "mimetype", "url"])
def test_a_nul_in_a_received_content_is_refused(fields: dict) -> None:
    """C gets the title NUL-terminated: a body with a NUL would read cut short there while to_json() kept it all."""
    with pytest.raises(voicenote.FormatError) as caught:
        VoiceRecordingPayload.from_matrix_content(content_with(**fields))
    assert caught.value.name == "VN_E_FORMAT"
    assert "NUL" in str(caught.value) or "mxc" in str(caught.value)
    with pytest.raises(voicenote.FormatError):
        voicenote.is_matrix_voice_message(content_with(**fields))
