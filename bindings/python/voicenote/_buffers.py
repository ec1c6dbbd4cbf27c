"""Conversions between Python values and the C buffers of the waveform functions.

ctypes silently wraps integers that do not fit a C parameter (``-1`` becomes ``SIZE_MAX`` for a ``size_t``), and
an output buffer is sized from a count before the library sees it (``samples=2*10**8`` would be an 800 MB array
the library then refuses), so every count is checked here first against the range the library accepts.
Integers bound for ``int32_t`` arrays are saturated, which keeps an out-of-range value out of range for the
library to report.
"""

from __future__ import annotations

import array
import ctypes
import math
import numbers
import operator
from typing import Any, Callable, Iterable, List, Tuple

from . import _capi
from .errors import check, error_for, invalid_argument

__all__ = ["count_arg", "int32", "real", "float_array", "float_pointer", "int32_array", "clamp_level", "call_with_capacity"]

_INT32_MIN = -(1 << 31)
_INT32_MAX = (1 << 31) - 1


def count_arg(name: str, value: Any, lowest: int, highest: int) -> int:
    """``value`` as a count in ``lowest…highest``, checked before any buffer is sized from it.

    Raises:
        TypeError: not an integer (``operator.index`` fails; floats are refused).
        InvalidArgumentError: outside ``lowest…highest``.
    """
    number = operator.index(value)
    if not lowest <= number <= highest:
        raise invalid_argument(f"{name} must be {lowest}…{highest}, not {number}")
    return number


def int32(name: str, value: Any) -> int:
    """``value`` as a C ``int`` (32 bits) for the library to range-check itself.

    Raises:
        TypeError: not an integer.
        InvalidArgumentError: outside the 32-bit range, naming ``name``.
    """
    number = operator.index(value)
    if not _INT32_MIN <= number <= _INT32_MAX:
        raise invalid_argument(f"{name} {number} is out of range")
    return number


def real(value: Any) -> float:
    """``value`` as a float when it is a real number (int, float, NumPy scalar...).

    Raises:
        TypeError: anything else, including strings (``float("1")`` would accept them).
    """
    if not isinstance(value, numbers.Real):
        raise TypeError(f"expected a number, not {type(value).__name__}")
    return float(value)


def float_array(values: Iterable[Any]) -> "array.array[float]":
    """The values as an ``array('f')`` (float32): an ``array('f')`` as it is, anything else converted.

    Raises:
        TypeError: an element is not a real number.
    """
    if isinstance(values, array.array) and values.typecode == "f":
        return values
    if isinstance(values, memoryview) and values.format in ("f", "<f", "=f", "@f") and values.c_contiguous:
        result = array.array("f")
        result.frombytes(values.cast("B"))
        return result
    return array.array("f", (real(value) for value in values))


def float_pointer(values: "array.array[float]") -> Tuple[Any, int]:
    """``(pointer, count)`` for ``const float *``; the pointer keeps ``values`` exported while it lives."""
    if len(values) == 0:
        return None, 0
    return (ctypes.c_float * len(values)).from_buffer(values), len(values)


def int32_array(values: Iterable[Any]) -> Tuple[Any, int]:
    """``(int32_t array, count)`` from integers; each is saturated to the ``int32_t`` range (so a value the
    library must refuse stays one it refuses).

    Raises:
        TypeError: an element is not an integer.
    """
    numbers = [min(max(operator.index(value), _INT32_MIN), _INT32_MAX) for value in values]
    return (ctypes.c_int32 * len(numbers))(*numbers), len(numbers)


def clamp_level(value: Any) -> float:
    """A level clamped to 0…1, NaN as 0 (what the library does before encoding)."""
    number = real(value)
    if not number > 0.0:  # also NaN
        return 0.0
    return min(number, 1.0)


def call_with_capacity(
    call: Callable[[Any, int, Any], int], element: Any, guess: int
) -> List[Any]:
    """Runs a ``(out, capacity, &count)`` C call, following the "capacity too small" protocol.

    ``call(out, capacity, count_pointer)`` is tried with room for ``guess`` elements of the ctypes type
    ``element``. When it fails with ``VN_E_INVALID_ARG`` and ``*count`` asks for more room, it is tried once more
    with exactly that room.

    Returns:
        The ``*count`` elements written.

    Raises:
        VoiceNoteError: the call failed for another reason.
    """
    capacity = max(0, guess)
    for _ in range(2):
        out = (element * capacity)()
        count = ctypes.c_size_t(0)
        rc = call(out, capacity, ctypes.byref(count))
        if rc == _capi.VN_E_INVALID_ARG and count.value > capacity:
            failure = error_for(rc)
            capacity = count.value
            continue
        check(rc)
        return list(out[: count.value])
    raise failure


def finite_floor_div(width: float, pitch: float, limit: int) -> int:
    """``⌊width / pitch⌋`` limited to ``0…limit``; 0 for a width that is negative, NaN or infinite."""
    if not math.isfinite(width) or width <= 0:
        return 0
    return min(int(width / pitch), limit)
