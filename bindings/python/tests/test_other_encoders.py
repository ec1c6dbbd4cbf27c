"""Voice notes written by other people's encoders and muxers (LAME, GStreamer's MP4 and 3GPP muxers, MP4 headers as
other encoders write them, tags appended by tag editors): `info`, the payload, the waveform and the player agree
on one length, and it is the reference decoder's (ffmpeg, which applies LAME's delay and padding) or the MP4 edit
list's, bounded by what the packets hold."""

from __future__ import annotations

import json
import struct
import subprocess
from array import array
from pathlib import Path
from typing import Callable, Dict, List

import pytest

from audiofiles import is_tsan_build, loaded_library_path, run
from helpers import TIMEOUT, Recorder as Collector
from test_player import file_speaker, play_to_end

import voicenote
from voicenote import Player, VoiceRecordingPayload

#: Skipped (visibly) in the ThreadSanitizer run: file lengths, not the thread contract the TSan run is for.
pytestmark = pytest.mark.skipif(is_tsan_build(loaded_library_path()),
                                reason="file lengths, not the thread contract the TSan run is for; the plain suite runs them")

SECONDS = 3.013  # not a whole number of MP3 or AAC frames at any rate used here


def tone(folder: Path, rate: int) -> Path:
    path = folder / f"tone-{rate}.wav"
    run(["sox", "-n", "-r", str(rate), "-c", "1", "-b", "16", str(path), "synth", str(SECONDS), "sine", "440", "gain", "-3"])
    return path


# Tags as tag editors append them after the audio, built by hand.

def ape() -> bytes:
    item = struct.pack("<II", 6, 0) + b"Title\0" + b"A note"
    block = lambda flags: b"APETAGEX" + struct.pack("<IIII", 2000, len(item) + 32, 1, flags) + bytes(8)
    return block(0xA0000000) + item + block(0x80000000)


def syncsafe(size: int) -> bytes:
    return bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))


def id3v2_with_footer() -> bytes:
    frame = b"TIT2" + struct.pack(">I", 6) + b"\0\0" + b"\3hello"
    return b"ID3\4\0\x10" + syncsafe(len(frame)) + frame + b"3DI\4\0\x10" + syncsafe(len(frame))


def id3v1() -> bytes:
    return b"TAG" + b"A note".ljust(125, b"\0")


def lyrics3v2() -> bytes:
    body = b"LYRICSBEGIN" + b"IND00003110" + b"LYR00005hello"
    return body + b"%06d" % len(body) + b"LYRICS200"


TRAILERS: Dict[str, Callable[[], bytes]] = {
    "ape+id3v2": lambda: ape() + id3v2_with_footer(),
    "lyrics3+ape+id3v1": lambda: lyrics3v2() + ape() + id3v1(),
}


# MP4 boxes, patched as other encoders write them.

def box(data: bytes, path: List[str], start: int = 0, end: int = -1) -> int:
    end = len(data) if end < 0 else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        if kind.decode("latin-1") == path[0]:
            return start if len(path) == 1 else box(data, path[1:], start + 8, start + size)
        start += size
    raise AssertionError(f"no {path[0]} box")


def patched_mp4(source: Path, target: Path, fields: Dict[str, int]) -> Path:
    """``source`` with the movie header's duration (``mvhd``), the edit's duration (``segment``) or its start in
    the media (``media_time``) rewritten."""
    data = bytearray(source.read_bytes())
    places = {"mvhd": box(data, ["moov", "mvhd"]) + 24, "segment": box(data, ["moov", "trak", "edts", "elst"]) + 16,
              "media_time": box(data, ["moov", "trak", "edts", "elst"]) + 20}
    for name, value in fields.items():
        data[places[name]:places[name] + 4] = struct.pack(">I", value)
    target.write_bytes(data)
    return target


# The references.

def ffmpeg_decoded_frames(path: Path) -> int:
    """The frames ffmpeg's CLI decodes (it applies an MP3's LAME delay and padding)."""
    pcm = subprocess.run(["ffmpeg", "-v", "quiet", "-i", str(path), "-f", "s16le", "-ac", "1", "-"],
                         capture_output=True, check=True, timeout=TIMEOUT).stdout
    return len(pcm) // 2


def edit_list_seconds(path: Path) -> float:
    """The audio stream's duration as ffprobe reads it: an MP4's edit list."""
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=duration",
                          "-of", "json", str(path)], capture_output=True, text=True, check=True, timeout=TIMEOUT).stdout
    return float(json.loads(out)["streams"][0]["duration"])


def edit_list_frames(path: Path, rate: int) -> int:
    """The edit list's length where the packets hold it (GStreamer writes it in 1/1800 s, so it may say a sample
    less than they hold); what they hold after the edit's start otherwise (ffmpeg decodes to their end)."""
    return min(round(edit_list_seconds(path) * rate), ffmpeg_decoded_frames(path))


def assert_one_length(path: Path, expected_frames: int, tmp_path: Path) -> None:
    """`info`, the payload and the player agree on ``expected_frames`` at the file's rate (LAME may resample)."""
    info = voicenote.info(path)
    rate = info["sample_rate"]
    assert not info["duration_is_estimate"], info
    assert round(info["duration"] * rate) == expected_frames, (info["duration"] * rate, expected_frames)
    payload = VoiceRecordingPayload.from_recording(path)
    assert payload.duration == pytest.approx(info["duration"], abs=1e-6)
    output = tmp_path / f"{path.name}.raw"
    log = Collector()
    with Player(device="vn_spk", device_config=file_speaker(output)) as player:
        player.subscribe(log.add)
        play_to_end(player, str(path), log)
    heard = array("h")
    heard.frombytes(output.read_bytes())
    # The device plays at the note's rate; the last period is completed with silence (at most 1/20 s here). The
    # note's own end may be quiet for up to a frame (an encoder's padding), never longer.
    last = max((index for index, value in enumerate(heard) if value != 0), default=-1) + 1
    assert expected_frames - 1200 <= last <= expected_frames, (last, expected_frames)
    assert expected_frames <= len(heard) <= expected_frames + rate // 20, (len(heard), expected_frames)


@pytest.mark.parametrize("lame_args", [["-V", "4"], ["-b", "64", "--cbr"], ["-t", "-b", "32", "--cbr"]],
                         ids=["vbr", "cbr-info", "cbr-no-tag"])
@pytest.mark.parametrize("rate", [44100, 22050, 16000])
@pytest.mark.parametrize("trailer", [None, *TRAILERS], ids=["untagged", *TRAILERS])
def test_lame_mp3s_with_tags_after_the_audio(tmp_path: Path, lame_args: List[str], rate: int, trailer: str) -> None:
    note = tmp_path / "note.mp3"
    run(["lame", "--quiet", *lame_args, str(tone(tmp_path, rate)), str(note)])
    expected = ffmpeg_decoded_frames(note)
    untagged_waveform = voicenote.waveform(note)
    if trailer:
        note.write_bytes(note.read_bytes() + TRAILERS[trailer]())
    assert_one_length(note, expected, tmp_path)
    assert voicenote.waveform(note) == untagged_waveform


@pytest.mark.parametrize("muxer,suffix", [("mp4mux", "m4a"), ("3gppmux", "3gp")])
@pytest.mark.parametrize("rate", [12000, 16000])
def test_aac_muxed_by_gstreamer(tmp_path: Path, muxer: str, suffix: str, rate: int) -> None:
    adts = tmp_path / "note.aac"
    run(["ffmpeg", "-v", "error", "-i", str(tone(tmp_path, rate)), "-c:a", "aac", "-b:a", "24k", str(adts)])
    note = tmp_path / f"note.{suffix}"
    run(["gst-launch-1.0", "-q", "filesrc", f"location={adts}", "!", "aacparse", "!", muxer, "!", "filesink",
         f"location={note}"])
    assert_one_length(note, edit_list_frames(note, rate), tmp_path)


@pytest.mark.parametrize("fields", [{}, {"mvhd": 3060}, {"media_time": 2112, "segment": 2950}, {"media_time": 4096},
                                    {"segment": 3400, "mvhd": 3400}],
                         ids=["ffmpeg", "movie-header-longer", "apple-priming", "edit-past-the-data", "edit-longer"])
def test_mp4_edit_lists(tmp_path: Path, fields: Dict[str, int]) -> None:
    rate = 12000
    written = tmp_path / "written.m4a"
    run(["ffmpeg", "-v", "error", "-i", str(tone(tmp_path, rate)), "-c:a", "aac", "-b:a", "24k", str(written)])
    note = patched_mp4(written, tmp_path / "note.m4a", fields)
    assert_one_length(note, edit_list_frames(note, rate), tmp_path)
