"""resample(), bars(), encode_waveform() and decode_waveform(): Stream's own test values, the wire encodings'
sizes and round trips, and bad input."""

from __future__ import annotations

import array
import ctypes
import math

import pytest

import voicenote
from voicenote import WaveformEncoding, _buffers, _capi

RAMP = [index / 99 for index in range(100)]


# --- resample (docs/waveform.md) -----------------------------------------------------------------------------------------


def test_resample_stream_test_values() -> None:
    assert voicenote.resample(range(1, 11), 5) == pytest.approx([1.5, 3.5, 5.5, 7.5, 9.5], abs=1e-6)
    assert voicenote.resample([1, 2, 3, 4, 5], 10) == pytest.approx([1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5],
                                                                    abs=1e-6)


def test_resample_edges() -> None:
    assert voicenote.resample([0.25, 0.5], 2) == [0.25, 0.5]
    assert voicenote.resample([], 3) == [0.0, 0.0, 0.0]
    assert voicenote.resample(array.array("f", RAMP), 1) == pytest.approx([0.5], abs=1e-6)
    for count in (0, -1):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.resample(RAMP, count)
    with pytest.raises(TypeError):
        voicenote.resample(["a"], 2)


# --- bars ---------------------------------------------------------------------------------------------------------


def test_bars_stream_geometry() -> None:
    assert voicenote.bars([0.5] * 100, 35, 40) == [10.0] * 10
    assert voicenote.BAR_PITCH == 3.5


def test_bars_counts_and_minimum_height() -> None:
    assert len(voicenote.bars(RAMP, 700, 64)) == 200
    assert voicenote.bars(RAMP, 3.4, 64) == []
    assert voicenote.bars([0.0] * 10, 35, 40) == [1.0] * 10  # at least 1 tall
    assert voicenote.bars([2.0, -1.0], 7, 40) == [20.0, 1.0]  # levels clamped
    heights = voicenote.bars(RAMP, 350, 100)
    assert len(heights) == 100 and all(1.0 <= height <= 50.0 for height in heights)


def test_bars_bad_sizes() -> None:
    for width, height in ((-1, 10), (10, -1), (math.nan, 10), (10, math.inf)):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.bars(RAMP, width, height)


def test_capacity_protocol_grows_the_buffer() -> None:
    """Too little room: the library reports the count needed, the helper calls again with that much."""
    values = (ctypes.c_float * 100)(*RAMP)
    heights = _buffers.call_with_capacity(
        lambda out, capacity, count: _capi.vn_waveform_bars(values, 100, 70.0, 40.0, out, capacity, count),
        ctypes.c_float, 0)
    assert len(heights) == 20
    assert heights == voicenote.bars(RAMP, 70, 40)


# --- wire encodings (docs/waveform.md) -----------------------------------------------------------------------------------


def test_encoding_names() -> None:
    assert WaveformEncoding.parse("Matrix") is WaveformEncoding.MATRIX
    assert WaveformEncoding.parse(2) is WaveformEncoding.TELEGRAM
    assert WaveformEncoding.parse(WaveformEncoding.SIGNAL) is WaveformEncoding.SIGNAL
    assert [member.value for member in WaveformEncoding] == [0, 1, 2, 3]
    for bad in ("opus", "", 7):
        with pytest.raises(ValueError):
            voicenote.encode_waveform(RAMP, bad)
        with pytest.raises(ValueError):
            voicenote.decode_waveform([1], bad)
    with pytest.raises(TypeError):
        voicenote.encode_waveform(RAMP, None)


def test_stream_is_the_values_clamped() -> None:
    values = [-0.5, 0.25, 1.5, math.nan, 1.0]
    assert voicenote.encode_waveform(values, "stream") == [0.0, 0.25, 1.0, 0.0, 1.0]
    assert voicenote.decode_waveform(values, WaveformEncoding.STREAM) == [0.0, 0.25, 1.0, 0.0, 1.0]
    assert voicenote.encode_waveform(RAMP, "stream") == RAMP


def test_telegram_is_63_bytes_for_100_values() -> None:
    encoded = voicenote.encode_waveform(RAMP, "telegram")
    assert isinstance(encoded, bytes) and len(encoded) == 63
    decoded = voicenote.decode_waveform(encoded, "telegram")
    assert len(decoded) == 100


def test_matrix_and_signal_shapes() -> None:
    matrix = voicenote.encode_waveform(RAMP, "matrix")
    assert isinstance(matrix, list) and len(matrix) == 100 and all(isinstance(value, int) for value in matrix)
    assert matrix[0] == 0 and matrix[-1] == 1024
    signal = voicenote.encode_waveform(RAMP, "signal")
    assert isinstance(signal, bytes) and len(signal) == 100 and signal[0] == 0 and signal[-1] == 255
    assert len(voicenote.encode_waveform([0.5] * 30, "signal")) == 30  # shorter ones keep their length
    assert len(voicenote.encode_waveform([0.5] * 300, "signal")) == 100
    assert len(voicenote.encode_waveform([0.5] * 300, "matrix")) == 100
    assert len(voicenote.encode_waveform([0.5] * 7, "telegram")) == 63


@pytest.mark.parametrize("encoding, steps", [("matrix", 1024), ("telegram", 31), ("signal", 255)])
def test_round_trips_within_one_step(encoding: str, steps: int) -> None:
    for values in (RAMP, [abs(math.sin(index / 7.0)) for index in range(100)], [0.0] * 100, [1.0] * 100):
        decoded = voicenote.decode_waveform(voicenote.encode_waveform(values, encoding), encoding)
        assert len(decoded) == 100
        assert max(abs(a - b) for a, b in zip(values, decoded)) <= 1.0 / steps


def test_decode_accepts_bytes_like_and_ints() -> None:
    packed = voicenote.encode_waveform(RAMP, "telegram")
    expected = voicenote.decode_waveform(packed, "telegram")
    assert voicenote.decode_waveform(bytearray(packed), "telegram") == expected
    assert voicenote.decode_waveform(memoryview(packed), "telegram") == expected
    assert voicenote.decode_waveform(list(packed), "telegram") == expected
    assert voicenote.decode_waveform(b"\x00\xff", "signal") == [0.0, 1.0]
    assert voicenote.decode_waveform([0, 512, 1024], "matrix") == [0.0, 0.5, 1.0]


def test_empty_encodings() -> None:
    assert voicenote.encode_waveform([], "matrix") == []
    assert voicenote.encode_waveform([], "telegram") == b""
    assert voicenote.encode_waveform([], "signal") == b""
    assert voicenote.decode_waveform([], "matrix") == []
    assert voicenote.decode_waveform(b"", "telegram") == []


@pytest.mark.parametrize("sent, levels", [([1025], [1.0]), ([-1], [0.0]), ([0, 2 ** 40], [0.0, 1.0]),
                                           ([-(2 ** 40), 512], [0.0, 0.5])])
def test_out_of_range_matrix_values_clamp(sent: list, levels: list) -> None:
    # One answer everywhere (Swift, C, CLI, Python): received values clamp into the encoding's range.
    assert voicenote.decode_waveform(sent, "matrix") == levels


def test_out_of_range_bytes_clamp() -> None:
    for encoding in ("telegram", "signal"):
        assert voicenote.decode_waveform([0, 256], encoding) == voicenote.decode_waveform([0, 255], encoding)
        assert voicenote.decode_waveform([-1], encoding) == voicenote.decode_waveform([0], encoding)


def test_non_integers_are_a_type_error() -> None:
    with pytest.raises(TypeError):
        voicenote.decode_waveform([0.5], "matrix")
