"""Wire encodings of a waveform (``vn_waveform_encode`` / ``vn_waveform_decode``). docs/waveform.md."""

from __future__ import annotations

import ctypes
import itertools
from typing import Any, Iterable, List, Tuple, Union

from . import _buffers, _capi, _enums
from .errors import format_error

__all__ = ["MAX_DECODED", "WaveformEncoding", "encode_waveform", "decode_waveform"]

#: The most values a received waveform may decode to (``VN_WAVEFORM_MAX_DECODED``, 4096); more is a
#: :class:`~voicenote.FormatError` (hostile input).
MAX_DECODED = _capi.VN_WAVEFORM_MAX_DECODED


class WaveformEncoding(_enums.NamedIntEnum):
    """How each network sends a waveform (``vn_waveform_encoding``). Functions that take an encoding also accept
    its name (``"stream"``, ``"matrix"``, ``"telegram"``, ``"signal"``, any case) or its number."""

    #: Stream ``waveform_data``: the 0…1 values themselves (a list of floats; no C call).
    STREAM = _capi.VN_WAVEFORM_STREAM
    #: Matrix MSC3246: 100 integers 0…1024, as Element sends (a list of ints).
    MATRIX = _capi.VN_WAVEFORM_MATRIX
    #: Telegram: 100 values of 5 bits packed LSB-first into 63 bytes (``bytes``).
    TELEGRAM = _capi.VN_WAVEFORM_TELEGRAM
    #: Signal: up to 100 bytes 0…255 (``bytes``).
    SIGNAL = _capi.VN_WAVEFORM_SIGNAL


#: Room for any integer encoding of a waveform (Matrix and Signal: 100 values, Telegram: 63 bytes).
_ENCODED_GUESS = 100


def encode_waveform(
    values: Iterable[float], encoding: Union[WaveformEncoding, str, int]
) -> Union[List[float], List[int], bytes]:
    """Encodes a 0…1 waveform the way a network sends it. Values are clamped to 0…1 first (NaN as 0).

    - ``"stream"``: the values themselves, clamped (a list of floats; no C call);
    - ``"matrix"``: resampled to 100 values, × 1024 rounded (a list of 100 ints 0…1024);
    - ``"telegram"``: resampled to 100 values, × 31 rounded, packed 5 bits each LSB-first (63 ``bytes``);
    - ``"signal"``: × 255 rounded, one byte each, resampled to 100 when longer (``bytes``, at most 100).

    No values encode as an empty list or ``b""``.

    Args:
        values: the waveform.
        encoding: a :class:`WaveformEncoding`, its name or its number.

    Returns:
        ``list[float]`` (Stream), ``list[int]`` (Matrix) or ``bytes`` (Telegram, Signal).

    Raises:
        ValueError: an unknown encoding.
        TypeError: a value is not a number.
    """
    kind = WaveformEncoding.parse(encoding)
    if kind is WaveformEncoding.STREAM:
        return [_buffers.clamp_level(value) for value in values]
    source = _buffers.float_array(values)
    pointer, size = _buffers.float_pointer(source)
    encoded = _buffers.call_with_capacity(
        lambda out, capacity, count: _capi.vn_waveform_encode(int(kind), pointer, size, out, capacity, count),
        ctypes.c_int32,
        _ENCODED_GUESS,
    )
    if kind is WaveformEncoding.MATRIX:
        return encoded
    return bytes(encoded)


def decode_waveform(data: Any, encoding: Union[WaveformEncoding, str, int]) -> List[float]:
    """Decodes a waveform received from a network back to values 0…1.

    - ``"stream"``: ``data`` is the numbers of ``waveform_data``; returned clamped to 0…1 (NaN as 0), no C call;
    Values outside the encoding's range are clamped into it first (Matrix 0…1024, bytes 0…255), as the library
    does for every caller: a sloppy peer's waveform is still drawn.

    - ``"matrix"``: ``data`` is the integers (0…1024), each / 1024;
    - ``"telegram"``: ``data`` is the packed bytes (``bytes``, ``bytearray``, ``memoryview`` or ints 0…255):
      ``⌊len·8/5⌋`` values, each / 31 (63 bytes give 100 values);
    - ``"signal"``: ``data`` is the bytes (or ints 0…255), each / 255.

    Args:
        data: the received waveform.
        encoding: a :class:`WaveformEncoding`, its name or its number.

    Returns:
        The levels, as many as the data holds.

    Raises:
        FormatError: more than :data:`MAX_DECODED` values (Telegram: more than 2560 bytes); refused after
            reading at most that many items, before anything is sized from the data's length.
        ValueError: an unknown encoding.
        TypeError: ``data`` holds something other than numbers (integers, except for Stream).
    """
    kind = WaveformEncoding.parse(encoding)
    if kind is WaveformEncoding.STREAM:
        return [_buffers.clamp_level(value) for value in data]
    encoded, size = _received(data, kind)
    guess = size * 8 // 5 if kind is WaveformEncoding.TELEGRAM else size
    return _buffers.call_with_capacity(
        lambda out, capacity, count: _capi.vn_waveform_decode(int(kind), encoded, size, out, capacity, count),
        ctypes.c_float,
        guess,
    )


def _most_encoded(kind: WaveformEncoding) -> int:
    """The most encoded items that decode to at most :data:`MAX_DECODED` values (Telegram: ⌊n·8/5⌋ ≤ max)."""
    if kind is WaveformEncoding.TELEGRAM:
        return ((MAX_DECODED + 1) * 5 - 1) // 8
    return MAX_DECODED


def _received(data: Any, kind: WaveformEncoding) -> Tuple[Any, int]:
    """``(int32_t array, count)`` of received data, refusing data that decodes to more than :data:`MAX_DECODED`
    values before copying it: by its length when it has one, else after reading one item past the limit.

    Raises:
        FormatError: too many items.
        TypeError: an item is not an integer.
    """
    most = _most_encoded(kind)
    if isinstance(data, memoryview):
        if data.nbytes // max(1, data.itemsize) > most:
            raise _too_many(kind, most)
        data = data.cast("B").tolist() if data.format == "c" else data.tolist()
    elif hasattr(data, "__len__") and len(data) > most:
        raise _too_many(kind, most)
    items = list(itertools.islice(data, most + 1))
    if len(items) > most:
        raise _too_many(kind, most)
    return _buffers.int32_array(items)


def _too_many(kind: WaveformEncoding, most: int) -> Exception:
    return format_error(f"a received {kind.name.lower()} waveform holds at most {most} items ({MAX_DECODED} values)")
