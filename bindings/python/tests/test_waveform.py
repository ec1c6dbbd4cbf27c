"""voicenote.waveform() and voicenote.info() on real files: every kind of source, the CLI and the C sample giving
the same values, and every bad input of docs/errors.md with its exact status."""

from __future__ import annotations

import io
import json
import logging
import math
import subprocess
import struct
import threading
from pathlib import Path
from typing import Any, List

import pytest

from audiofiles import FORMATS, THREE_FRAMES, CProgram, Media, build_c_sample, level_db, read_wav, run
from helpers import TIMEOUT

import voicenote
from voicenote import _capi, _sources


def in_range(values: List[float]) -> bool:
    return all(0.0 <= value <= 1.0 for value in values)


# --- sources ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_kind_of_source_gives_the_same_waveform(media: Media, fmt: str) -> None:
    """A path (str and Path), bytes, bytearray, memoryview, io.BytesIO and an open file give identical values:
    exactly `samples` of them, all in 0…1, not all silent."""
    path = media.files[fmt]
    data = path.read_bytes()
    expected = voicenote.waveform(str(path), 100)
    assert len(expected) == 100
    assert in_range(expected)
    assert max(expected) > 0.3, "speech should not look silent"
    assert voicenote.waveform(path) == expected  # os.PathLike, default samples
    assert voicenote.waveform(data, 100) == expected
    assert voicenote.waveform(bytearray(data), 100) == expected
    assert voicenote.waveform(memoryview(data), samples=100) == expected
    assert voicenote.waveform(io.BytesIO(data), 100) == expected
    with open(path, "rb") as file:
        assert voicenote.waveform(file, 100) == expected
    with open(path, "rb", buffering=0) as raw:  # io.FileIO: readinto without a buffer
        assert voicenote.waveform(raw, 100) == expected


@pytest.mark.parametrize("samples", [1, 7, 100, 1000])
def test_exactly_samples_values(media: Media, samples: int) -> None:
    for fmt in ("opus", "mp3"):
        values = voicenote.waveform(media.files[fmt], samples)
        assert len(values) == samples
        assert in_range(values)


class ReadSeekOnly:
    """A decrypting-stream stand-in: only read() and seek(), no readinto, tell or seekable."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._position = 0
        self.reads = 0

    def read(self, size: int = -1) -> bytes:
        self.reads += 1
        end = len(self._data) if size < 0 else self._position + size
        chunk = self._data[self._position:end]
        self._position += len(chunk)
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence != 0:
            raise io.UnsupportedOperation("only absolute seeks")
        self._position = offset
        return offset


@pytest.mark.parametrize("fmt", ["aac", "mp3", "wav", "flac", "vorbis"])
def test_minimal_file_like_with_unknown_size(media: Media, fmt: str) -> None:
    """read() + seek() only: the size is unknown (-1) and read() is used instead of readinto()."""
    path = media.files[fmt]
    stream = ReadSeekOnly(path.read_bytes())
    # Without a size FFmpeg may not know the length in advance: then the values come from re-bucketed blocks,
    # within 1e-3 of the two-pass answer (exact up to 65536 frames).
    assert voicenote.waveform(stream, 50) == pytest.approx(voicenote.waveform(path, 50), abs=1e-3)
    assert stream.reads > 0
    facts, expected = voicenote.info(ReadSeekOnly(path.read_bytes())), voicenote.info(path)
    for key in ("codec", "sample_rate", "channels"):
        assert facts[key] == expected[key]


def test_opus_file_like_with_unknown_size(media: Media) -> None:
    path = media.files["opus"]
    assert voicenote.waveform(ReadSeekOnly(path.read_bytes()), 50) == voicenote.waveform(path, 50)


def test_stream_position_is_restored_and_offsets_are_absolute(media: Media) -> None:
    data = media.files["opus"].read_bytes()
    stream = io.BytesIO(data)
    stream.seek(123)
    assert voicenote.waveform(stream, 20) == voicenote.waveform(data, 20)
    assert stream.tell() == 123
    voicenote.info(stream)
    assert stream.tell() == 123


def test_wrong_source_types(media: Media) -> None:
    with pytest.raises(TypeError):
        voicenote.waveform(12345)
    with pytest.raises(TypeError, match="binary"):
        with open(media.files["wav"], "r", encoding="latin-1") as text:
            voicenote.waveform(text)
    with pytest.raises(TypeError):
        voicenote.waveform(media.files["wav"], 10.0)
    with pytest.raises(ValueError, match="null byte"):
        voicenote.waveform("speech\0.ogg")


def test_waveform_from_many_threads_at_once(media: Media) -> None:
    """Host sources on several threads at once: each call has its own key and hooks on its own thread."""
    data = media.files["opus"].read_bytes()
    expected = voicenote.waveform(data, 64)
    results: List[Any] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(3):
            values = voicenote.waveform(io.BytesIO(data), 64)
            with lock:
                results.append(values)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
        assert not thread.is_alive(), "a waveform call did not finish"
    assert results == [expected] * 12


# --- stream facts -------------------------------------------------------------------------------------------------


def test_info_opus(media: Media) -> None:
    facts = voicenote.info(media.files["opus"])
    assert set(facts) == {"duration", "duration_is_estimate", "codec", "sample_rate", "channels", "bitrate"}
    assert facts["codec"] == "opus"
    assert facts["sample_rate"] == 48000
    assert facts["channels"] == 1
    assert facts["duration_is_estimate"] is False
    assert abs(facts["duration"] - media.wav_seconds) <= 0.05
    assert facts["bitrate"] > 0
    assert isinstance(facts["duration"], float) and isinstance(facts["bitrate"], int)


def test_info_of_adts_counts_its_frames(media: Media) -> None:
    """ADTS AAC: the frames counted from their headers, exact, as the decoder outputs them."""
    facts = voicenote.info(media.files["aac"])
    assert facts["codec"] == "aac" and facts["duration_is_estimate"] is False
    decoded = subprocess.run(["ffmpeg", "-nostdin", "-v", "quiet", "-i", str(media.files["aac"]), "-f", "s16le",
                              "-ac", "1", "-"], capture_output=True, check=True).stdout
    assert round(facts["duration"] * facts["sample_rate"]) == len(decoded) // 2


def test_an_mp3_without_a_xing_tag_is_counted_from_its_frames(media: Media) -> None:
    """MP3 without a Xing header: its frames are counted, so the length is exact and is what ffmpeg decodes."""
    facts = voicenote.info(media.files["mp3"])
    assert facts["codec"] == "mp3" and facts["duration_is_estimate"] is False
    assert facts["sample_rate"] == 48000 and facts["channels"] == 1 and facts["bitrate"] > 0
    decoded = subprocess.run(["ffmpeg", "-nostdin", "-v", "quiet", "-i", str(media.files["mp3"]), "-f", "s16le",
                              "-ac", "1", "-"], capture_output=True, check=True).stdout
    assert round(facts["duration"] * facts["sample_rate"]) == len(decoded) // 2


def test_info_estimated_durations(media: Media, tmp_path: Path) -> None:
    """An MP3 without a Xing header whose end is neither a frame nor a tag (damaged) cannot be counted: its duration
    is estimated from the bitrate, and flagged so."""
    damaged = tmp_path / "damaged.mp3"
    damaged.write_bytes(media.files["mp3"].read_bytes() + b"\x55" * 300)
    facts = voicenote.info(damaged)
    assert facts["codec"] == "mp3"
    assert facts["duration_is_estimate"] is True
    assert abs(facts["duration"] - media.wav_seconds) < 0.5
    assert facts["bitrate"] > 0


@pytest.mark.parametrize("fmt, codec", [("wav", "pcm_s16le"), ("flac", "flac"), ("vorbis", "vorbis")])
def test_info_exact_durations(media: Media, fmt: str, codec: str) -> None:
    facts = voicenote.info(media.files[fmt])
    assert facts["codec"] == codec
    assert facts["duration_is_estimate"] is False
    assert facts["sample_rate"] == 48000
    assert facts["channels"] == 1
    assert abs(facts["duration"] - media.wav_seconds) <= 0.05


@pytest.mark.parametrize("fmt", FORMATS)
def test_info_of_every_kind_of_source(media: Media, fmt: str) -> None:
    path = media.files[fmt]
    data = path.read_bytes()
    expected = voicenote.info(path)
    assert voicenote.info(data) == expected
    assert voicenote.info(memoryview(data)) == expected
    assert voicenote.info(io.BytesIO(data)) == expected


# --- the CLI, the C sample and Python agree -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def c_sample(tmp_path_factory: pytest.TempPathFactory) -> CProgram:
    return build_c_sample(tmp_path_factory.mktemp("c-sample"))


def printed(level: float) -> float:
    """What the CLI and the C sample print for a level: rounded to 4 decimals in float32 (×10000, half away from
    zero), divided in double."""
    scaled = struct.unpack("f", struct.pack("f", level * 10000.0))[0]
    return math.floor(scaled + 0.5) / 10000.0


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_python_and_c_agree(media: Media, cli: Path, c_sample: CProgram, fmt: str) -> None:
    path = media.files[fmt]
    ours = voicenote.waveform(path, 100)
    from_cli = json.loads(run([str(cli), "waveform", str(path), "--samples", "100"]).stdout)
    from_c = json.loads(c_sample.run(str(path), "100").stdout)
    assert len(from_cli) == len(from_c) == 100
    for index, (mine, theirs, c_value) in enumerate(zip(ours, from_cli, from_c)):
        assert abs(mine - theirs) <= 5e-5 + 1e-9, f"value {index}: Python {mine}, CLI {theirs}"
        assert abs(mine - c_value) <= 5e-5 + 1e-9, f"value {index}: Python {mine}, C {c_value}"
    # Both print the same rounding of the same float32 values.
    assert from_cli == from_c == [printed(value) for value in ours]


def test_cli_info_agrees(media: Media, cli: Path) -> None:
    for fmt in FORMATS:
        path = media.files[fmt]
        theirs = json.loads(run([str(cli), "info", str(path), "--json"]).stdout)
        ours = voicenote.info(path)
        for key in ours:
            assert theirs[key] == ours[key], f"{fmt}: {key}"


# --- bad input (docs/errors.md) -----------------------------------------------------------------------------------------


def test_empty_file_is_a_format_error(media: Media) -> None:
    with pytest.raises(voicenote.FormatError):
        voicenote.waveform(media.empty)
    with pytest.raises(voicenote.FormatError):
        voicenote.info(media.empty)
    with pytest.raises(voicenote.FormatError):
        voicenote.waveform(b"")
    with pytest.raises(voicenote.FormatError):
        voicenote.waveform(io.BytesIO())


def test_text_named_ogg_is_a_format_error(media: Media) -> None:
    with pytest.raises(voicenote.FormatError) as caught:
        voicenote.waveform(media.text_as_ogg)
    assert caught.value.code == _capi.VN_E_FORMAT and caught.value.name == "VN_E_FORMAT"
    with pytest.raises(voicenote.FormatError):
        voicenote.info(media.text_as_ogg)
    with pytest.raises(voicenote.FormatError):
        voicenote.waveform(io.BytesIO(media.text_as_ogg.read_bytes()))


def test_wav_named_ogg_decodes_by_content(media: Media) -> None:
    assert voicenote.waveform(media.wav_as_ogg) == voicenote.waveform(media.files["wav"])
    assert voicenote.info(media.wav_as_ogg)["codec"] == "pcm_s16le"


def test_missing_file_is_not_found(media: Media) -> None:
    with pytest.raises(voicenote.NotFoundError) as caught:
        voicenote.waveform(media.missing)
    assert isinstance(caught.value, FileNotFoundError)
    assert caught.value.code == _capi.VN_E_NOT_FOUND
    with pytest.raises(FileNotFoundError):
        voicenote.info(media.missing)


def test_directory_is_an_invalid_argument(media: Media) -> None:
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.waveform(media.directory)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.info(media.directory)


def test_samples_zero_or_negative_is_an_invalid_argument(media: Media) -> None:
    data = media.files["wav"].read_bytes()
    for source in (media.files["wav"], data, io.BytesIO(data)):
        with pytest.raises(voicenote.InvalidArgumentError) as caught:
            voicenote.waveform(source, 0)
        assert caught.value.code == _capi.VN_E_INVALID_ARG
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.waveform(source, -1)


class Failing(io.RawIOBase):
    """A stream whose read raises once it would go past ``fail_after`` bytes (or whose seek raises)."""

    def __init__(self, data: bytes, fail_after: int = 0, fail_seek: bool = False) -> None:
        self._inner = io.BytesIO(data)
        self._size = len(data)
        self._fail_after = fail_after
        self._fail_seek = fail_seek
        self.error: BaseException = RuntimeError("the decryption key is wrong")

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        position = self._inner.tell()
        if position + len(buffer) > self._fail_after and position < self._size:
            raise self.error
        return self._inner.readinto(buffer)

    def seek(self, offset: int, whence: int = 0) -> int:
        if self._fail_seek and whence == 0:
            raise self.error
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        return self._inner.tell()


@pytest.mark.parametrize("fail_after", [0, 100, 20000])
@pytest.mark.parametrize("fmt", ["opus", "mp3", "aac"])
def test_failing_read_is_an_io_error_with_the_cause(media: Media, caplog: pytest.LogCaptureFixture,
                                                    fmt: str, fail_after: int) -> None:
    caplog.set_level(logging.DEBUG, logger="voicenote")
    data = media.files[fmt].read_bytes()
    stream = Failing(data, fail_after)
    with pytest.raises(voicenote.IOFailedError) as caught:
        voicenote.waveform(stream)
    assert caught.value.code == _capi.VN_E_IO and caught.value.name == "VN_E_IO"
    assert caught.value.__cause__ is stream.error
    assert any(record.exc_info and record.exc_info[1] is stream.error for record in caplog.records), \
        "the stream's exception is logged"
    assert stream.tell() == 0, "the position is restored after a failure too"
    stream = Failing(data, fail_after)
    with pytest.raises(voicenote.IOFailedError) as caught:
        voicenote.info(stream)
    assert caught.value.__cause__ is stream.error


def test_failing_seek_is_an_io_error_with_the_cause(media: Media) -> None:
    stream = Failing(media.files["opus"].read_bytes(), fail_after=1 << 30, fail_seek=True)
    with pytest.raises(voicenote.IOFailedError) as caught:
        voicenote.waveform(stream)
    assert caught.value.__cause__ is stream.error


def test_keyboard_interrupt_in_read_propagates_as_itself(media: Media) -> None:
    stream = Failing(media.files["opus"].read_bytes(), fail_after=100)
    stream.error = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        voicenote.waveform(stream)


def test_text_returned_by_read_is_an_io_error(media: Media) -> None:
    class TextRead(ReadSeekOnly):
        def read(self, size: int = -1) -> Any:
            return "not bytes"

    with pytest.raises(voicenote.IOFailedError) as caught:
        voicenote.waveform(TextRead(b""))
    assert isinstance(caught.value.__cause__, TypeError)


def test_more_samples_than_frames_leaves_empty_buckets_zero(media: Media) -> None:
    """A 3-frame WAV with samples=10: bucket i holds frames [⌊3i/10⌋, ⌊3(i+1)/10⌋); the empty ones are exactly 0,
    the others the level of their one frame."""
    values = voicenote.waveform(media.three_frames, 10)
    assert len(values) == 10
    frames = len(THREE_FRAMES)
    for index, value in enumerate(values):
        start, end = index * frames // 10, (index + 1) * frames // 10
        if start == end:
            assert value == 0.0, f"bucket {index} holds no frame"
        else:
            assert end - start == 1
            expected = (level_db(THREE_FRAMES[start], 32767) + 50) / 50
            assert abs(value - expected) <= 1e-4, f"bucket {index}"
    assert [index for index, value in enumerate(values) if value != 0.0] == [3, 6, 9]


def test_file_waveform_equals_pcm_waveform(media: Media) -> None:
    """The WAV decoded by the library and the same PCM handed over directly give the same values, within the
    re-bucketing error the library documents for inputs over 65536 frames (under 1e-3)."""
    samples, channels = read_wav(media.files["wav"])
    from_file = voicenote.waveform(media.files["wav"], 100)
    from_pcm = voicenote.waveform_from_pcm(samples, channels, 100)
    assert max(abs(a - b) for a, b in zip(from_file, from_pcm)) <= 1e-3


def test_short_file_waveform_is_exact(media: Media) -> None:
    """Up to 65536 frames the streamed answer is the exact two-pass one (docs/waveform.md)."""
    short = media.folder / "short.wav"
    run(["sox", str(media.files["wav"]), str(short), "trim", "0", "1.2"])
    samples, channels = read_wav(short)
    assert len(samples) <= 65536
    assert voicenote.waveform(short, 100) == voicenote.waveform_from_pcm(samples, channels, 100)


@pytest.mark.parametrize("fmt", ["wav", "flac"])
def test_long_lossless_file_waveform_is_exact(media: Media, fmt: str) -> None:
    samples, channels = read_wav(media.files["wav"])
    from_file = voicenote.waveform(media.files[fmt], 100)
    from_pcm = voicenote.waveform_from_pcm(samples, channels, 100)
    assert max(abs(a - b) for a, b in zip(from_file, from_pcm)) <= 1e-6


def test_no_host_source_is_left_behind(media: Media) -> None:
    data = media.files["aac"].read_bytes()
    voicenote.waveform(io.BytesIO(data), 10)
    with pytest.raises(voicenote.FormatError):
        voicenote.waveform(io.BytesIO(b"junk" * 100), 10)
    assert not _sources._streams
