"""A note's loudness by EBU R128 (``vn_loudness``), and the waveform, length and loudness of a note in one decoding
pass (``vn_waveform_analyse_file`` / ``_source``). docs/loudness.md."""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, field
from typing import List, Optional

from . import _buffers, _capi, _sources
from ._cancellation import Cancellation
from ._http import HTTPOptions
from ._waveform import DEFAULT_SAMPLES, MAX_SAMPLES

__all__ = ["Analysis", "Loudness", "analyse"]


@dataclass(frozen=True)
class Loudness:
    """A note's loudness by EBU R128 / ITU-R BS.1770, measured by libebur128 in the waveform's decoding pass: what
    levelled playback plays every note at one loudness by."""

    #: Integrated loudness in LUFS (gated at −70 LUFS and −10 LU); ``-math.inf`` for a silent note.
    integrated_lufs: float
    #: Loudness range in LU (short-term loudness, 10th to 95th percentile); 0.0 for a note under 3 s.
    range_lu: float
    #: True peak in dBTP (between samples, 4× oversampled); ``-math.inf`` for digital silence.
    true_peak_dbtp: float

    @property
    def silent(self) -> bool:
        """Whether nothing of the note is above the −70 LUFS gate."""
        return not math.isfinite(self.integrated_lufs)

    def _c(self) -> _capi.vn_loudness:
        return _capi.vn_loudness(1, self.integrated_lufs, self.range_lu, self.true_peak_dbtp)


def from_c(value: _capi.vn_loudness) -> Optional[Loudness]:
    """The loudness in a C ``vn_loudness``; None when ``known`` is 0."""
    if not value.known:
        return None
    return Loudness(float(value.integrated_lufs), float(value.range_lu), float(value.true_peak_dbtp))


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyse` returns: the waveform, the length and the loudness of one decoding pass."""

    #: The waveform's values, 0…1.
    values: List[float] = field(default_factory=list)
    #: The decoded audio's length in seconds.
    duration: float = 0.0
    #: The loudness.
    loudness: Optional[Loudness] = None


def analyse(source: _sources.AudioSource, samples: int = DEFAULT_SAMPLES, *, http: Optional[HTTPOptions] = None,
            cancellation: Optional[Cancellation] = None) -> Analysis:
    """The waveform, length and loudness of encoded audio in one decoding pass: :func:`~voicenote.waveform`'s values
    and the note's EBU R128 loudness (integrated, range, true peak), without decoding it twice.

    Args:
        source: the encoded audio, as for :func:`~voicenote.waveform` (a path, an http(s) URL, bytes, or a binary
            file-like object with ``read`` and ``seek``).
        samples: how many values, 1…:data:`~voicenote.MAX_SAMPLES`.
        http: how a URL is fetched; None for the defaults.
        cancellation: ends the read of a URL from another thread (:class:`~voicenote.CancelledError`).

    Raises:
        What :func:`~voicenote.waveform` raises, for the same reasons.
    """
    count = _buffers.count_arg("samples", samples, 1, MAX_SAMPLES)
    out = (ctypes.c_float * count)()
    written = ctypes.c_size_t(0)
    duration = ctypes.c_double(0)
    loudness = _capi.vn_loudness()
    _sources.call_with_location(
        source,
        file=lambda path: _capi.vn_waveform_analyse_file(path, count, out, count, ctypes.byref(written),
                                                         ctypes.byref(duration), ctypes.byref(loudness)),
        source=lambda handle: _capi.vn_waveform_analyse_source(handle, count, out, count, ctypes.byref(written),
                                                               ctypes.byref(duration), ctypes.byref(loudness)),
        http=http,
        cancellation=cancellation,
    )
    return Analysis(values=out[: written.value], duration=float(duration.value), loudness=from_c(loudness))
