"""What a note may cost (docs/errors.md): a stranger's file whose packets claim more audio than their bytes can hold
is refused before it is decoded; a WAV is read no further than its data chunk (and a little more); notes below
8 kHz convert. Hostile files are built here, small: each shows its bound by what the library answers or reads,
never by how long it took."""
from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from audiofiles import EMPTY_120_MS, constant_flac, ogg_opus_note, write_tone
from helpers import TIMEOUT

import voicenote

#: 8 pages of 255 packets of 120 ms: 245 s claimed, past the 60 s any note may hold whatever its bytes.
PAGES = 8


def refused_everywhere(note: Path, tmp_path: Path) -> None:
    """info, waveform, a batch and convert all answer VN_E_FORMAT, and convert leaves nothing behind."""
    for call in (voicenote.info, voicenote.waveform):
        with pytest.raises(voicenote.FormatError) as refused:
            call(note)
        assert refused.value.name == "VN_E_FORMAT" and "honestly hold" in str(refused.value)
    [result] = list(voicenote.waveforms([note], jobs=1))
    assert isinstance(result.error, voicenote.FormatError) and result.error.name == "VN_E_FORMAT"
    output = tmp_path / "converted.ogg"
    with pytest.raises(voicenote.FormatError):
        voicenote.convert(note, output)
    assert not output.exists() and not list(tmp_path.glob("*.part"))


def test_a_note_of_empty_packets_is_refused(tmp_path: Path) -> None:
    # The reproducer's shape: 2-byte packets (no frame data) that each claim 120 ms; a 20 MiB one claimed 9.4 days.
    note = tmp_path / "empty.ogg"
    note.write_bytes(ogg_opus_note([[EMPTY_120_MS] * 255] * PAGES))
    refused_everywhere(note, tmp_path)


def test_a_note_of_one_byte_frames_is_refused(tmp_path: Path) -> None:
    # 3-byte packets (code 1: two 1-byte 60 ms frames) carry data, but 120 ms in 3 bytes is more than 20 ms a byte.
    note = tmp_path / "thin.ogg"
    note.write_bytes(ogg_opus_note([[bytes([(3 << 3) | 1, 0x55, 0x55])] * 255] * PAGES))
    refused_everywhere(note, tmp_path)


def test_a_short_note_of_empty_packets_is_still_read(tmp_path: Path) -> None:
    # Under the 60 s any note may hold the rule says nothing: one page of empty packets, 30.6 s.
    note = tmp_path / "short.ogg"
    note.write_bytes(ogg_opus_note([[EMPTY_120_MS] * 255]))
    assert voicenote.info(note)["duration"] == pytest.approx(30.6)


@pytest.mark.skipif(shutil.which("opusenc") is None or shutil.which("sox") is None, reason="needs opusenc and sox")
def test_a_genuine_dtx_note_of_long_silence_is_read(tmp_path: Path) -> None:
    # libopus's DTX in silence: 1-byte packets and a comfort-noise frame after every 20; three minutes of it at 60 ms
    # frames is about 80 bytes a second, three times the allowance, and within the rule (at any length).
    wav, note = tmp_path / "quiet.wav", tmp_path / "quiet.opus"
    subprocess.run(["sox", "-q", "-n", "-r", "16000", "-c", "1", "-b", "16", str(wav), "synth", "1", "sine", "300",
                    "pad", "0", "180"], check=True, timeout=TIMEOUT)
    subprocess.run(["opusenc", "--quiet", "--bitrate", "6", "--framesize", "60", "--set-ctl-int", "4016=1",
                    str(wav), str(note)], check=True, timeout=TIMEOUT)
    assert note.stat().st_size < 181 * 100  # it is that sparse
    assert voicenote.info(note)["duration"] == pytest.approx(181, abs=0.1)
    assert len(voicenote.waveform(note)) == 100


def test_a_flac_of_maximal_constant_frames_is_refused(tmp_path: Path) -> None:
    # 65,535 samples of silence in 13 bytes a frame at 8 kHz: 630 ms a byte, FLAC's bound is 100; 400 frames claim
    # 55 minutes in 5 KiB.
    note = tmp_path / "constant.flac"
    note.write_bytes(constant_flac(400))
    refused_everywhere(note, tmp_path)


@pytest.mark.skipif(shutil.which("opusenc") is None, reason="needs opusenc")
def test_a_chained_note_whose_second_link_claims_too_much_is_refused(tmp_path: Path) -> None:
    # A real first link, then 2-byte packets that each claim 120 ms: libopusfile decodes chained notes, and the links
    # after the first may hold 20 ms a byte of their pages.
    first = tmp_path / "first.opus"
    subprocess.run(["opusenc", "--quiet", "--serial", "1", str(write_tone(tmp_path / "first.wav", 1.0)), str(first)],
                   check=True, timeout=TIMEOUT)
    note = tmp_path / "chained.opus"
    note.write_bytes(first.read_bytes() + ogg_opus_note([[EMPTY_120_MS] * 255] * PAGES, serial=2))
    refused_everywhere(note, tmp_path)


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="needs ffmpeg")
def test_ten_minutes_of_flac_silence_are_read(tmp_path: Path) -> None:
    # The sparsest honest FLAC: 8 kHz, frames of 4,608 samples (the streamable subset's largest) in 12 bytes.
    note = tmp_path / "silence.flac"
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", "600",
                    "-c:a", "flac", "-frame_size", "4608", str(note)], check=True, timeout=TIMEOUT)
    assert note.stat().st_size < 600 * 40  # it is that sparse
    assert voicenote.info(note)["duration"] == pytest.approx(600)
    assert len(voicenote.waveform(note)) == 100


class FurthestRead(io.RawIOBase):
    """A file read through, remembering the furthest byte any read reached."""

    def __init__(self, path: Path) -> None:
        self.file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.furthest = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = self.file.readinto(buffer)
        self.furthest = max(self.furthest, self.file.tell())
        return count

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self.file.seek(offset, whence)

    def tell(self) -> int:
        return self.file.tell()

    def close(self) -> None:
        self.file.close()
        super().close()


def test_a_wav_is_read_no_further_than_its_data(tmp_path: Path) -> None:
    # 1 s of audio, then a sparse tail to 1 GiB: FFmpeg's WAV demuxer walked the zeros 8 bytes at a time (32 s).
    note = write_tone(tmp_path / "tail.wav", 1.0)
    data_end = note.stat().st_size
    with open(note, "r+b") as file:
        file.truncate(1 << 30)
    with FurthestRead(note) as reader:
        assert voicenote.info(reader)["duration"] == pytest.approx(1.0)
        # the data chunk, the 64 KiB FFmpeg may look at after it, and one read buffer
        assert reader.furthest <= data_end + 64 * 1024 + 64 * 1024
    assert voicenote.waveform(note)[0] > 0.5


@pytest.mark.parametrize("rate", [4000, 5512, 7000])
@pytest.mark.parametrize("suffix", ["ogg", "aac"])
def test_notes_below_8_khz_convert(rate: int, suffix: str, tmp_path: Path) -> None:
    note = write_tone(tmp_path / f"low-{rate}.wav", 1.0, 300, rate=rate)
    output = tmp_path / f"converted.{suffix}"
    duration = voicenote.convert(note, output, format=suffix if suffix == "aac" else "opus")
    # ADTS has no edit list: the AAC note also holds the encoder's priming and the last frame's padding, 2 frames
    # of 1024 samples at 8 kHz at most.
    assert duration == pytest.approx(1.0, abs=0.05) if suffix == "ogg" else 1.0 <= duration <= 1.0 + 2 * 1024 / 8000
    assert voicenote.info(output)["duration"] == pytest.approx(duration)
