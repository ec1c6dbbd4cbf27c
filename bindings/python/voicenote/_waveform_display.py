"""Waveforms for display: resampling to a length and bar heights for a view (``vn_waveform_resample``,
``vn_waveform_bars``). docs/waveform.md."""

from __future__ import annotations

import ctypes
from typing import Iterable, List

from . import _buffers, _capi, _waveform
from .errors import check

__all__ = ["BAR_WIDTH", "BAR_GAP", "BAR_PITCH", "resample", "bars"]

#: Width of one bar drawn by :func:`bars` (Stream's ``AudioVisualizationView``).
BAR_WIDTH = 1.5
#: Gap between two bars.
BAR_GAP = 2.0
#: Distance from one bar's left edge to the next one's: bar ``i`` starts at ``x = i * BAR_PITCH``.
BAR_PITCH = BAR_WIDTH + BAR_GAP

# The library lays out at most this many bars; only bounds the first guess of the buffer size.
_BARS_GUESS_LIMIT = 100_000


def resample(values: Iterable[float], count: int) -> List[float]:
    """Resamples waveform values to exactly ``count`` values for display.

    Down: value ``i`` is the mean of the values ``[⌊i·n/count⌋, ⌊(i+1)·n/count⌋)``, the split of the waveform
    itself (equal to Stream's ``downsample`` when ``count`` divides ``n``: ``[1…10]`` → 5 gives
    ``[1.5, 3.5, 5.5, 7.5, 9.5]``). Up: linear interpolation (Stream's ``upsample``: ``[1, 2, 3, 4, 5]`` → 10
    gives ``[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5]``). Equal lengths copy; no values give ``count`` zeros. Values
    are not clamped and are computed in float32.

    Args:
        values: the input values (any iterable of numbers; an ``array('f')`` is passed without a copy).
        count: how many values to produce, 1…:data:`~voicenote.MAX_SAMPLES` (the longest waveform the library
            makes; the binding refuses more before allocating the result).

    Returns:
        ``count`` floats.

    Raises:
        InvalidArgumentError: ``count`` is outside 1…:data:`~voicenote.MAX_SAMPLES`.
        TypeError: a value is not a number, or ``count`` not an integer.
    """
    target = _buffers.count_arg("count", count, 1, _waveform.MAX_SAMPLES)
    source = _buffers.float_array(values)
    pointer, size = _buffers.float_pointer(source)
    out = (ctypes.c_float * target)()
    written = ctypes.c_size_t(0)
    rc = _capi.vn_waveform_resample(pointer, size, target, out, target, ctypes.byref(written))
    del pointer
    check(rc)
    return out[: written.value]


def bars(values: Iterable[float], width: float, height: float) -> List[float]:
    """Bar heights for drawing a waveform in a view of ``width`` × ``height`` (Stream's
    ``AudioVisualizationView``): bars :data:`BAR_WIDTH` wide with gaps of :data:`BAR_GAP`, so ``⌊width / 3.5⌋``
    bars, bar ``i`` starting at ``x = i * 3.5``, each ``max(1, level * height / 2)`` tall, the levels (clamped to
    0…1) resampled to the bar count as :func:`resample` does. Levels of 0.5 in a 35 × 40 view give ten bars
    of height 10.

    Args:
        values: the waveform (levels 0…1).
        width: the view's width (same unit as the heights, usually pixels); finite, not negative.
        height: the view's height; finite, not negative.

    Returns:
        One height per bar, left to right (empty when the view is narrower than one pitch).

    Raises:
        InvalidArgumentError: ``width`` or ``height`` is negative, NaN or infinite.
        TypeError: a value is not a number.
    """
    source = _buffers.float_array(values)
    width, height = float(width), float(height)
    pointer, size = _buffers.float_pointer(source)
    guess = _buffers.finite_floor_div(width, BAR_PITCH, _BARS_GUESS_LIMIT)
    return _buffers.call_with_capacity(
        lambda out, capacity, count: _capi.vn_waveform_bars(pointer, size, width, height, out, capacity, count),
        ctypes.c_float,
        guess,
    )
