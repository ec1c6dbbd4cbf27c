"""voicenote.waveform_from_pcm(): int16 and float PCM against the waveform algorithm (docs/waveform.md) in plain Python, every accepted input type,
and bad arguments."""

from __future__ import annotations

import array
import ctypes
import math
import struct
from typing import List

import pytest

from audiofiles import reference_waveform

import voicenote


def speech_like_s16(frames: int, channels: int) -> List[int]:
    """A deterministic signal with loud, quiet and silent stretches (so every dB clip is exercised)."""
    values = []
    for frame in range(frames):
        envelope = abs(math.sin(frame / 700.0)) ** 3 if (frame // 3000) % 4 else 0.0
        for channel in range(channels):
            tone = math.sin(frame * (0.05 + 0.03 * channel)) + 0.3 * math.sin(frame * 0.91)
            values.append(max(-32768, min(32767, int(round(26000 * envelope * tone)))))
    return values


@pytest.mark.parametrize("frames, channels, points", [(48000, 1, 100), (12345, 2, 100), (999, 1, 37), (50, 3, 100)])
def test_int16_matches_plain_python(frames: int, channels: int, points: int) -> None:
    samples = speech_like_s16(frames, channels)
    expected = reference_waveform(samples, channels, points, 32767.0)
    values = voicenote.waveform_from_pcm(array.array("h", samples), channels, points)
    assert len(values) == points
    assert max(abs(a - b) for a, b in zip(values, expected)) <= 1e-4


@pytest.mark.parametrize("frames, channels, points", [(48000, 1, 100), (12345, 2, 100), (50, 3, 100)])
def test_float_matches_plain_python(frames: int, channels: int, points: int) -> None:
    samples = [value / 32768.0 for value in speech_like_s16(frames, channels)]
    as_f32 = array.array("f", samples)
    expected = reference_waveform(list(as_f32), channels, points, 1.0)
    values = voicenote.waveform_from_pcm(as_f32, channels, points)
    assert len(values) == points
    assert max(abs(a - b) for a, b in zip(values, expected)) <= 1e-4
    assert voicenote.waveform_from_pcm(samples, channels, points) == values  # a list of Python floats


def test_every_int16_input_type_gives_the_same_values() -> None:
    samples = speech_like_s16(5000, 2)
    expected = voicenote.waveform_from_pcm(array.array("h", samples), 2)
    s16le = struct.pack(f"<{len(samples)}h", *samples)
    assert voicenote.waveform_from_pcm(s16le, 2) == expected
    assert voicenote.waveform_from_pcm(bytearray(s16le), 2) == expected
    assert voicenote.waveform_from_pcm(memoryview(s16le), 2) == expected  # bytes-like: s16le
    native = array.array("h", samples)
    assert voicenote.waveform_from_pcm(memoryview(native), 2) == expected  # format 'h'
    assert voicenote.waveform_from_pcm(samples, 2) == expected  # list of ints
    assert voicenote.waveform_from_pcm(tuple(samples), 2) == expected
    assert voicenote.waveform_from_pcm(array.array("i", samples), 2) == expected  # another integer type
    big_endian = (ctypes.c_int16.__ctype_be__ * len(samples))(*samples)  # a buffer of format '>h'
    assert memoryview(big_endian).format == ">h"
    assert voicenote.waveform_from_pcm(big_endian, 2) == expected


def test_float_input_types() -> None:
    samples = [value / 32768.0 for value in speech_like_s16(3000, 1)]
    expected = voicenote.waveform_from_pcm(array.array("f", samples))
    assert voicenote.waveform_from_pcm(array.array("d", samples)) == expected
    assert voicenote.waveform_from_pcm(memoryview(array.array("f", samples))) == expected
    assert voicenote.waveform_from_pcm(memoryview(array.array("d", samples))) == expected
    mixed = [0, 0.5, -0.25, 1] * 100  # one float makes the sequence float
    assert voicenote.waveform_from_pcm(mixed, points=4) == voicenote.waveform_from_pcm(
        array.array("f", mixed), points=4)


def test_full_scale_and_silence() -> None:
    assert voicenote.waveform_from_pcm([32767] * 100, points=10) == [1.0] * 10
    assert voicenote.waveform_from_pcm([0] * 100, points=10) == [0.0] * 10
    assert voicenote.waveform_from_pcm([1.0, -1.0] * 50, points=10) == [1.0] * 10
    assert voicenote.waveform_from_pcm([2.5] * 10, points=2) == [1.0, 1.0]  # over full scale counts as 0 dB


def test_fewer_frames_than_points() -> None:
    values = voicenote.waveform_from_pcm([16384, -32767, 1000], 1, 10)
    assert [index for index, value in enumerate(values) if value != 0.0] == [3, 6, 9]
    assert values == pytest.approx(reference_waveform([16384, -32767, 1000], 1, 10, 32767.0), abs=1e-4)


def test_empty_input_gives_zeros() -> None:
    assert voicenote.waveform_from_pcm([], points=5) == [0.0] * 5
    assert voicenote.waveform_from_pcm(b"", 2, 3) == [0.0] * 3
    assert voicenote.waveform_from_pcm(array.array("f"), points=4) == [0.0] * 4


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="whole frames"):
        voicenote.waveform_from_pcm([1, 2, 3], channels=2)
    with pytest.raises(ValueError, match="even"):
        voicenote.waveform_from_pcm(b"\x00\x01\x02")
    with pytest.raises(ValueError, match="int16"):
        voicenote.waveform_from_pcm([40000])
    for channels in (0, -1, 256, 1 << 40):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.waveform_from_pcm([1, 2, 3, 4], channels=channels)
    for points in (0, -5):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.waveform_from_pcm([1, 2], points=points)
    with pytest.raises(TypeError):
        voicenote.waveform_from_pcm("not samples")
    with pytest.raises(TypeError):
        voicenote.waveform_from_pcm(array.array("u", "abc"))
    with pytest.raises(TypeError):
        voicenote.waveform_from_pcm([1, 2], channels=1.0)


def test_caller_array_is_not_kept_exported() -> None:
    """The zero-copy path releases the caller's array: it can grow again after the call."""
    samples = array.array("h", [100] * 10)
    voicenote.waveform_from_pcm(samples, points=2)
    samples.append(5)
    values = bytearray(struct.pack("<4h", 1, 2, 3, 4))
    voicenote.waveform_from_pcm(values, points=2)
    values.extend(b"\x00\x00")
