"""voicenote.convert (and voicenote.aio.convert, `voicenote convert`): notes other encoders wrote, from a path, from
memory, from a URL on a real server and from a file object, written again as Ogg Opus or AAC at another speed with
the pitch kept; lengths and tones read back by FFmpeg (a reference outside the library); refusals leave the
destination as it was."""
from __future__ import annotations

import array
import asyncio
import io
import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from audiofiles import FORMATS, Media, dominant_frequency, write_tone
from helpers import TIMEOUT
from http_server import HTTPTestServer  # Tests/Servers, on the path through conftest.py
from microphones import decoded_samples, run

import voicenote
import voicenote.aio as vaio


@pytest.fixture
def server(media: Media) -> Iterator[HTTPTestServer]:
    """A server over the media folder, stopped by its pid after the test."""
    with HTTPTestServer(media.files["opus"].parent) as running:
        yield running


def seconds(path: Path) -> float:
    return decoded_samples(str(path)) / 48000


@pytest.mark.parametrize("kind", FORMATS)
def test_every_format_becomes_an_opus_note_at_twice_the_speed(kind: str, media: Media, tmp_path: Path) -> None:
    output = tmp_path / "fast.ogg"
    duration = voicenote.convert(media.files[kind], output, rate=2)
    assert duration == pytest.approx(media.wav_seconds / 2, rel=0.02)
    assert seconds(output) == pytest.approx(duration, abs=0.01)
    assert voicenote.info(output)["codec"] == "opus"


def test_the_pitch_is_kept(tmp_path: Path) -> None:
    tone = write_tone(tmp_path / "tone.wav", 3.0, frequency=440.0)
    output = tmp_path / "slow.ogg"
    assert voicenote.convert(tone, output, rate=0.5) == pytest.approx(6.0, rel=0.02)
    pcm = array.array("h", run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(output), "-f", "s16le", "-ac", "1",
                                "-ar", "48000", "-"]))
    assert dominant_frequency(pcm[len(pcm) // 4: len(pcm) * 3 // 4]) == pytest.approx(440, abs=5)


def test_memory_url_and_file_objects_give_the_same_note(media: Media, server: HTTPTestServer, tmp_path: Path) -> None:
    note = media.files["mp3"]
    lengths = [
        voicenote.convert(note, tmp_path / "from-path.ogg", rate=1.5),
        voicenote.convert(note.read_bytes(), tmp_path / "from-memory.ogg", rate=1.5),
        voicenote.convert(server.url(f"/range/{note.name}"), tmp_path / "from-url.ogg", rate=1.5),
        voicenote.convert(io.BytesIO(note.read_bytes()), tmp_path / "from-stream.ogg", rate=1.5),
    ]
    assert max(lengths) - min(lengths) < 0.001
    assert voicenote.waveform(tmp_path / "from-path.ogg") == voicenote.waveform(tmp_path / "from-url.ogg")


def test_aac_with_the_encoder_asked_for(media: Media, tmp_path: Path) -> None:
    output = tmp_path / "copy.aac"
    voicenote.convert(media.files["opus"], output, format="aac", bitrate=48000)
    facts = voicenote.info(output)
    assert facts["codec"] == "aac" and facts["duration"] == pytest.approx(media.wav_seconds, abs=0.1)


def test_refusals_leave_the_destination_alone(media: Media, tmp_path: Path) -> None:
    output = tmp_path / "kept.ogg"
    output.write_text("the old file")
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.convert(media.files["opus"], output, rate=3)
    with pytest.raises(ValueError):
        voicenote.convert(media.files["opus"], output, format="wav")
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.convert(media.files["opus"], output, bitrate=1)
    with pytest.raises(voicenote.FormatError):
        voicenote.convert(media.text_as_ogg, output)
    with pytest.raises(voicenote.NotFoundError):
        voicenote.convert(media.missing, output)
    with pytest.raises(TypeError):
        voicenote.convert(12, output)
    assert output.read_text() == "the old file"
    assert list(tmp_path.iterdir()) == [output]  # no part file left behind


def test_aio_convert_runs_in_the_executor(media: Media, tmp_path: Path) -> None:
    async def main() -> float:
        return await asyncio.wait_for(vaio.convert(media.files["opus"], tmp_path / "fast.ogg", rate=2), TIMEOUT)

    assert asyncio.run(main()) == pytest.approx(media.wav_seconds / 2, rel=0.02)


def test_the_cli_converts(cli: Path, media: Media, tmp_path: Path) -> None:
    output = tmp_path / "fast.ogg"
    result = subprocess.run([str(cli), "convert", str(media.files["m4a"] if "m4a" in media.files else media.files["aac"]),
                             str(output), "--rate", "2", "--json"], capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    line = json.loads(result.stdout)
    assert line["file"] == str(output) and line["duration"] == pytest.approx(media.wav_seconds / 2, rel=0.02)
    refused = subprocess.run([str(cli), "convert", str(media.files["opus"]), str(output), "--rate", "9"],
                             capture_output=True, text=True, timeout=TIMEOUT)
    assert refused.returncode != 0 and "2.5" in refused.stderr
