"""Every count the binding sizes a buffer from is checked before the buffer exists: an absurd count raises at once
and allocates nothing. (``waveform(path, samples=2*10**8)`` once built an 800 MB ctypes array and only then got
the library's refusal.) tracemalloc sees the ctypes arrays and lists the binding allocates, so the peak it traces
during a refused call shows whether anything was sized from the count."""

from __future__ import annotations

import array
import io
import re
import tracemalloc
from pathlib import Path
from typing import Any, Callable, Tuple, Type

import pytest

from audiofiles import write_tone
from helpers import HEADER

import voicenote
from voicenote import _capi

#: Far above what a refused call allocates, and below the smallest buffer a refused count would size (4 MiB).
LITTLE = 1 << 20

#: Counts just past the limit, absurd, and too large for any array.
ABSURD = [voicenote.MAX_SAMPLES + 1, 2 * 10**8, 2**62]


def traced_failure(call: Callable[[], Any], error: Type[BaseException]) -> Tuple[BaseException, int]:
    """Runs ``call``, which must raise ``error``; returns the exception and the peak of traced memory meanwhile."""
    tracemalloc.start()
    try:
        with pytest.raises(error) as caught:
            call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return caught.value, peak


@pytest.fixture(scope="module")
def wav(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A quarter second of a 440 Hz tone, 16-bit mono 48 kHz WAV."""
    return write_tone(tmp_path_factory.mktemp("limits") / "tone.wav", 0.25)


def test_limits_are_the_headers() -> None:
    if not HEADER.exists():
        pytest.skip(f"header not reachable at {HEADER}")
    text = HEADER.read_text()
    for name, value in (("VN_WAVEFORM_MAX_SAMPLES", voicenote.MAX_SAMPLES),
                        ("VN_WAVEFORM_MAX_DECODED", voicenote.MAX_DECODED)):
        assert int(re.search(rf"#define\s+{name}\s+(\d+)", text).group(1)) == value == getattr(_capi, name)


@pytest.mark.parametrize("kind", ["path", "bytes", "stream"])
@pytest.mark.parametrize("samples", ABSURD)
def test_waveform_refuses_absurd_samples_before_allocating(wav: Path, kind: str, samples: int) -> None:
    data = wav.read_bytes()
    source = {"path": wav, "bytes": data, "stream": io.BytesIO(data)}[kind]
    error, peak = traced_failure(lambda: voicenote.waveform(source, samples), voicenote.InvalidArgumentError)
    assert peak < LITTLE
    assert isinstance(error, ValueError) and error.code == _capi.VN_E_INVALID_ARG
    assert f"samples must be 1…{voicenote.MAX_SAMPLES}" in str(error)


@pytest.mark.parametrize("points", ABSURD)
def test_waveform_from_pcm_refuses_absurd_points_before_converting_the_samples(points: int) -> None:
    # A lazy iterable of ten million samples: converting it first would allocate tens of megabytes.
    error, peak = traced_failure(lambda: voicenote.waveform_from_pcm(range(10**7), points=points),
                                 voicenote.InvalidArgumentError)
    assert peak < LITTLE and "points must be" in str(error)


def test_waveform_from_pcm_accepts_the_largest_count() -> None:
    assert len(voicenote.waveform_from_pcm(array.array("h", [1000] * 8), points=voicenote.MAX_SAMPLES)) == \
        voicenote.MAX_SAMPLES


@pytest.mark.parametrize("count", ABSURD)
def test_resample_refuses_absurd_counts_before_allocating(count: int) -> None:
    error, peak = traced_failure(lambda: voicenote.resample([0.25, 0.5, 0.75], count), voicenote.InvalidArgumentError)
    assert peak < LITTLE and "count must be 1…" in str(error)


@pytest.mark.parametrize("count", ABSURD)
def test_recorder_levels_refuses_absurd_counts_before_allocating(tmp_path: Path, count: int) -> None:
    with voicenote.Recorder(tmp_path, device="vn_no_such_device") as recorder:
        error, peak = traced_failure(lambda: recorder.levels(count), voicenote.InvalidArgumentError)
        assert peak < LITTLE and "count must be 0…" in str(error)
        assert recorder.levels(voicenote.MAX_SAMPLES) == []


@pytest.mark.parametrize("encoding, make", [
    pytest.param("signal", lambda: bytes(10**7), id="signal-bytes"),
    pytest.param("telegram", lambda: bytearray(10**7), id="telegram-bytearray"),
    pytest.param("matrix", lambda: array.array("i", bytes(4 * 10**6)), id="matrix-array"),
    pytest.param("signal", lambda: memoryview(bytes(10**7)), id="signal-memoryview"),
    # No length: read one item past the limit, no further.
    pytest.param("matrix", lambda: (0 for _ in range(10**7)), id="matrix-generator"),
])
def test_decode_refuses_oversized_data_before_copying_it(encoding: str, make: Callable[[], Any]) -> None:
    data = make()
    _, peak = traced_failure(lambda: voicenote.decode_waveform(data, encoding), voicenote.FormatError)
    assert peak < LITTLE


def test_decode_limit_is_the_librarys() -> None:
    # MAX_DECODED values decode (Telegram: 2560 bytes give 4096 values); one value more is the library's own
    # VN_E_FORMAT, now raised before anything is copied.
    assert len(voicenote.decode_waveform(bytes(voicenote.MAX_DECODED), "signal")) == voicenote.MAX_DECODED
    assert len(voicenote.decode_waveform(bytes(2560), "telegram")) == voicenote.MAX_DECODED
    assert len(voicenote.decode_waveform([0] * voicenote.MAX_DECODED, "matrix")) == voicenote.MAX_DECODED
    too_many = voicenote.MAX_DECODED + 1
    for encoding, size in (("signal", too_many), ("telegram", 2561), ("matrix", too_many)):
        with pytest.raises(voicenote.FormatError) as caught:
            voicenote.decode_waveform(bytes(size), encoding)
        assert caught.value.code == _capi.VN_E_FORMAT


def test_bars_of_an_absurd_width_stop_at_the_librarys_bar_limit() -> None:
    # The buffer is sized from ⌊width / 3.5⌋ capped at the library's 100000 bars, not from the width itself.
    tracemalloc.start()
    try:
        heights = voicenote.bars([0.5] * 10, 1e300, 10)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(heights) == 100_000 and peak < 16 * LITTLE
