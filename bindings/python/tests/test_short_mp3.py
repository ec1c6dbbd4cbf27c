"""Issue #35 through the C ABI: a 552-byte MP3 as LAME 3.97 wrote it (MPEG-2 Layer III at 24 kHz: an Info frame at
160 kbit/s, three 24-byte audio frames of 576 samples, a LAME tag whose delay and padding leave 240 samples) has the
length FFmpeg decodes, in `info`, the waveform and a conversion. Made with LAME 3.100 and patched as the Swift codec
tests do (Tests/VoiceNoteCodecTests/ShortMP3Tests.swift), the reference is `ffmpeg -i x.mp3 -f s16le -`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import TIMEOUT

import voicenote


def crc16(data: bytes) -> int:
    """CRC-16 (0x8005 reflected), as the LAME tag's own CRC."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def lame_397_like(folder: Path, frames: int, delay: int, padding: int) -> Path:
    for tool in ("ffmpeg", "lame"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    wav, mp3 = folder / "tone.wav", folder / "tone.mp3"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.01:sample_rate=24000",
                    "-ac", "1", str(wav)], check=True, timeout=TIMEOUT)
    subprocess.run(["lame", "--quiet", "-V9", "-B", "8", "--resample", "24", "-m", "m", str(wav), str(mp3)],
                   check=True, timeout=TIMEOUT)
    data = bytearray(mp3.read_bytes())
    assert len(data) == 192 + 3 * 24 and data[:2] == b"\xff\xf3" and data[2] >> 4 == 8
    data[2] = data[2] & 0x0F | 0xE0  # the Info frame at 160 kbit/s: 480 bytes
    data[192:192] = bytes(480 - 192)
    xing = 4 + 9
    lame = xing + 8 + 4 + 4 + 100 + 4
    assert data[xing:xing + 4] == b"Xing" and data[lame:lame + 4] == b"LAME"
    data[xing + 8:xing + 12] = frames.to_bytes(4, "big")
    data[xing + 12:xing + 16] = len(data).to_bytes(4, "big")
    data[lame + 21:lame + 24] = (delay << 12 | padding).to_bytes(3, "big")
    data[lame + 28:lame + 32] = len(data).to_bytes(4, "big")
    data[lame + 34:lame + 36] = crc16(bytes(data[:lame + 34])).to_bytes(2, "big")
    path = folder / f"lame397-{frames}-{delay}-{padding}.mp3"
    path.write_bytes(bytes(data))
    return path


def ffmpeg_samples(path: Path) -> int:
    decoded = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-f", "s16le", "-"],
                             check=True, capture_output=True, timeout=TIMEOUT).stdout
    return len(decoded) // 2


@pytest.mark.parametrize("frames,delay,padding", [(3, 576, 912), (1, 624, 1200)], ids=["reported", "overlapping"])
def test_a_tiny_lame_mp3_has_the_length_ffmpeg_decodes(tmp_path: Path, frames: int, delay: int, padding: int) -> None:
    note = lame_397_like(tmp_path, frames, delay, padding)
    assert note.stat().st_size == 552
    samples = ffmpeg_samples(note)
    assert samples > 0
    info = voicenote.info(note)
    assert info["codec"] == "mp3" and info["sample_rate"] == 24000 and not info["duration_is_estimate"]
    assert round(info["duration"] * 24000) == samples
    assert len(voicenote.waveform(note)) > 0
    converted = tmp_path / "converted.ogg"
    voicenote.convert(note, converted)
    assert voicenote.info(converted)["duration"] == pytest.approx(samples / 24000, abs=0.0015)
