"""Waveforms of audio: of encoded audio (``vn_waveform_file`` / ``_memory`` / ``_source``) and of PCM the host
decoded itself (``vn_waveform_from_pcm_s16`` / ``_f32``). docs/waveform.md."""

from __future__ import annotations

import array
import ctypes
import numbers
import operator
import struct
import sys
from typing import Any, Iterable, List, Optional, Tuple, Union

from . import _buffers, _capi, _sources
from ._cancellation import Cancellation
from ._http import HTTPOptions
from .errors import check, invalid_argument

__all__ = ["DEFAULT_SAMPLES", "MAX_SAMPLES", "waveform", "waveform_from_pcm", "PCM"]

#: The number of waveform values Stream and voicenote send with a voice message (``VN_WAVEFORM_DEFAULT_SAMPLES``).
DEFAULT_SAMPLES = _capi.VN_WAVEFORM_DEFAULT_SAMPLES

#: The most waveform values the library computes (``VN_WAVEFORM_MAX_SAMPLES``, 1048576): far beyond any display.
MAX_SAMPLES = _capi.VN_WAVEFORM_MAX_SAMPLES

#: What :func:`waveform_from_pcm` accepts: int16 or float32 samples, interleaved.
PCM = Union["array.array[int]", "array.array[float]", bytes, bytearray, memoryview, Iterable[int], Iterable[float]]

_S16 = "s16"
_F32 = "f32"
_INT_CODES = frozenset("bBhHiIlLqQnN")
_FLOAT_CODES = frozenset("efd")
_INT_MIN = -(1 << 31)
_INT_MAX = (1 << 31) - 1


def waveform(source: _sources.AudioSource, samples: int = DEFAULT_SAMPLES, *,
             http: Optional[HTTPOptions] = None, cancellation: Optional[Cancellation] = None) -> List[float]:
    """The waveform of encoded audio: exactly ``samples`` values in 0…1 (docs/waveform.md, the algorithm of Stream's
    SDK), for any format voicenote reads (Ogg Opus, AAC in ADTS or MP4, MP3, WAV, FLAC, Ogg Vorbis).

    The frames are split into ``samples`` buckets, bucket ``i`` holding frames ``[⌊i·N/samples⌋,
    ⌊(i+1)·N/samples⌋)``; each value is the mean of the dB (clipped to −50…0) of every sample of every channel in
    its bucket, mapped to 0…1. When there are fewer frames than ``samples``, the buckets that hold no frame are 0.
    The audio is streamed: memory does not grow with its length. The GIL is released while the library decodes.

    Args:
        source: the encoded audio, told apart by type:

            - ``str`` or ``os.PathLike``: a file's path (``vn_waveform_file``);
            - a ``str`` starting with ``http://`` or ``https://``: a URL, fetched through the media cache
              (``vn_source_create_url``; libcurl is loaded then, never before);
            - ``bytes``, ``bytearray``, ``memoryview`` (or another object with the buffer protocol and no
              ``read``): the encoded bytes themselves (``vn_waveform_memory``) — never a path;
            - a binary file-like object with ``read`` (or ``readinto``) and ``seek``: an open file,
              ``io.BytesIO``, a decrypting stream (``vn_source_create_callbacks``). It is read from offset 0
              (absolute ``seek`` offsets) on the calling thread; ``seek(0, 2)``/``tell()`` give the size when
              they work, and the stream's position is restored afterwards. Non-seekable streams (pipes) fail
              with :class:`~voicenote.IOFailedError`; read those into ``bytes`` first.

            The format is told by content, never by the file name.
        samples: how many values, 1…:data:`MAX_SAMPLES`.
        http: how a URL is fetched (headers, a CA file, timeouts); None for the defaults.
        cancellation: a :class:`~voicenote.Cancellation` whose ``cancel()``, from another thread, ends the read of a
            URL (:class:`~voicenote.CancelledError`).

    Returns:
        ``samples`` floats in 0…1 (float32 values widened to Python floats).

    Raises:
        InvalidArgumentError: ``samples`` is outside 1…:data:`MAX_SAMPLES` (refused before anything is
            allocated or read; also a ``ValueError``), or the path is a directory.
        NotFoundError: the file does not exist (also a ``FileNotFoundError``).
        AccessDeniedError: the file cannot be read.
        FormatError: not audio, or no audio could be decoded (an empty file, text).
        UnsupportedError: not Ogg Opus, and FFmpeg's libraries cannot be loaded (also a ``NotImplementedError``).
        IOFailedError: reading failed; for a file-like object whose ``read`` or ``seek`` raised, with that
            exception as ``__cause__``.
        NetworkError, AccessDeniedError, NotFoundError, TooLargeError: a URL failed (the message names the HTTP
            status).
        TypeError: ``source`` is none of the accepted kinds, or ``samples`` is not an integer.
        ValueError: the path contains a NUL byte.
    """
    count = _buffers.count_arg("samples", samples, 1, MAX_SAMPLES)
    out = (ctypes.c_float * count)()
    written = ctypes.c_size_t(0)
    _sources.call_with_location(
        source,
        file=lambda path: _capi.vn_waveform_file(path, count, out, count, ctypes.byref(written)),
        memory=lambda pointer, size: _capi.vn_waveform_memory(pointer, size, count, out, count, ctypes.byref(written)),
        source=lambda handle: _capi.vn_waveform_source(handle, count, out, count, ctypes.byref(written)),
        http=http,
        cancellation=cancellation,
    )
    return out[: written.value]


def waveform_from_pcm(samples: PCM, channels: int = 1, points: int = DEFAULT_SAMPLES) -> List[float]:
    """The waveform of PCM the host decoded itself: exactly ``points`` values in 0…1, by the same algorithm and
    bucket split as :func:`waveform` (a decoded file gives the same values).

    The sample type picks the C function:

    - **int16** (full scale 32767; ``vn_waveform_from_pcm_s16``): an ``array('h')`` (passed without a copy);
      ``bytes`` or ``bytearray`` of signed 16-bit little-endian samples (s16le, what ``sox``/``ffmpeg`` write as
      raw PCM); a buffer (``memoryview``, NumPy array) of format ``h``; an ``array``/buffer of another integer
      type, or a sequence of Python ints, each in −32768…32767;
    - **float** (full scale ±1.0, larger magnitudes count as 0 dB; ``vn_waveform_from_pcm_f32``): an
      ``array('f')`` (without a copy); an ``array('d')``, a buffer of format ``f``/``d``/``e``, or a sequence
      with at least one Python float (``[0, 0.5, -0.25]`` is float).

    An empty input gives ``points`` zeros.

    Args:
        samples: interleaved samples, ``frames * channels`` of them.
        channels: samples per frame (1…255).
        points: how many waveform values, 1…:data:`MAX_SAMPLES`.

    Returns:
        ``points`` floats in 0…1.

    Raises:
        InvalidArgumentError: ``channels`` outside 1…255, or ``points`` outside 1…:data:`MAX_SAMPLES` (refused
            before the samples are converted or a buffer is allocated).
        ValueError: the sample count is not a multiple of ``channels``, an int sample is outside the int16
            range, or s16le bytes have an odd length.
        TypeError: the samples are not numbers, or ``channels``/``points`` not integers.
    """
    count = _buffers.count_arg("points", points, 1, MAX_SAMPLES)
    kind, values = _pcm(samples)
    channel_count = operator.index(channels)
    frames = 0
    if 1 <= channel_count <= 255:
        frames, rest = divmod(len(values), channel_count)
        if rest:
            raise ValueError(f"{len(values)} samples are not whole frames of {channel_count} channels")
    if not _INT_MIN <= channel_count <= _INT_MAX:
        raise invalid_argument(f"channels must be 1…255, not {channel_count}")
    pointer: Any = None  # NULL is allowed with 0 frames
    if frames > 0:
        element = ctypes.c_int16 if kind == _S16 else ctypes.c_float
        pointer = (element * len(values)).from_buffer(values)
    out = (ctypes.c_float * count)()
    written = ctypes.c_size_t(0)
    function = _capi.vn_waveform_from_pcm_s16 if kind == _S16 else _capi.vn_waveform_from_pcm_f32
    rc = function(pointer, frames, channel_count, count, out, count, ctypes.byref(written))
    del pointer  # releases the export of ``values``
    check(rc)
    return out[: written.value]


def _int16(values: Iterable[Any]) -> "array.array[int]":
    try:
        return array.array("h", values)
    except OverflowError:
        raise ValueError("int16 samples must be in -32768…32767") from None


def _s16le(data: Union[bytes, bytearray]) -> "array.array[int]":
    if len(data) % 2:
        raise ValueError(f"s16le PCM has an even number of bytes, not {len(data)}")
    values = array.array("h")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _from_sequence(items: List[Any]) -> Tuple[str, Any]:
    if all(isinstance(item, numbers.Integral) for item in items):
        return _S16, _int16(int(item) for item in items)
    return _F32, array.array("f", (_buffers.real(item) for item in items))


def _pcm(samples: Any) -> Tuple[str, Any]:
    """``(kind, array)``: the samples as an ``array('h')`` (s16) or ``array('f')`` (f32)."""
    if isinstance(samples, array.array):
        code = samples.typecode
        if code == "h":
            return _S16, samples
        if code == "f":
            return _F32, samples
        if code in _FLOAT_CODES:
            return _F32, array.array("f", samples)
        if code in _INT_CODES:
            return _S16, _int16(samples)
        raise TypeError(f"array('{code}') is not PCM; use array('h') or array('f')")
    if isinstance(samples, (bytes, bytearray)):
        return _S16, _s16le(samples)
    if isinstance(samples, str):
        raise TypeError("PCM samples must be numbers or bytes, not str")
    try:
        view = memoryview(samples)
    except TypeError:
        return _from_sequence(list(samples))
    with view:
        order = view.format[0] if view.format[:1] in ("@", "=", "<", ">", "!") else "@"
        item_code = view.format.lstrip("@=<>!")
        if item_code in ("B", "b", "c") and view.itemsize == 1:
            return _S16, _s16le(view.tobytes())
        native = order in ("@", "=") or (order == "<") == (sys.byteorder == "little")
        if item_code in ("h", "f") and native:
            values = array.array("h") if item_code == "h" else array.array("f")
            values.frombytes(view.tobytes())
            return (_S16 if item_code == "h" else _F32), values
        if (item_code in _INT_CODES or item_code in _FLOAT_CODES) and struct.calcsize(view.format) == view.itemsize:
            items = [item[0] for item in struct.iter_unpack(view.format, view.tobytes())]
            return _from_sequence(items)
        raise TypeError(f"a buffer of format {view.format!r} is not PCM; use int16 ('h') or float32 ('f')")
