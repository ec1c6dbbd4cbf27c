"""Many waveforms on one pool of the library's threads, in input order (``vn_waveform_batch_*``)."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass, field
from typing import Iterable, Iterator, List, Optional, Union

from . import _buffers, _capi, _cevents
from ._http import HTTPOptions, options_handle
from ._loudness import Loudness
from ._loudness import from_c as loudness_from_c
from ._waveform import DEFAULT_SAMPLES, MAX_SAMPLES
from .errors import VoiceNoteError, check

__all__ = ["WaveformResult", "waveforms"]

Location = Union[str, "os.PathLike[str]"]
_END = object()


@dataclass(frozen=True)
class WaveformResult:
    """One note's result from :func:`waveforms`."""

    #: Its place in the input, from 0.
    index: int
    #: The path or URL as given (a path-like object as its ``str``).
    location: str
    #: The decoded audio's length in seconds; 0.0 on failure.
    duration: float = 0.0
    #: The values, 0…1; empty on failure.
    values: List[float] = field(default_factory=list)
    #: Why there is no waveform (the :class:`~voicenote.VoiceNoteError` subclass of the status, not raised), or None.
    error: Optional[VoiceNoteError] = None
    #: The note's loudness, measured in the same pass; None on failure or with ``loudness=False``.
    loudness: Optional[Loudness] = None

    @property
    def ok(self) -> bool:
        """Whether the note has its waveform."""
        return self.error is None


def waveforms(locations: Iterable[Location], samples: int = DEFAULT_SAMPLES, jobs: Optional[int] = None, *,
              http: Optional[HTTPOptions] = None, loudness: bool = True) -> Iterator[WaveformResult]:
    """The waveforms of many notes, computed by one pool of the library's threads and yielded in input order, one
    :class:`WaveformResult` per note: what a backend needs to fill in the waveforms of thousands of voice messages in
    one process (the GIL is not held while the library decodes).

    ``locations`` is read lazily — a generator reading paths from a file or a socket works — and only about twice
    ``jobs`` notes are worked on ahead of the result being yielded, so memory stays bounded however long the input.
    A note that fails (missing, not audio, a URL that answers 404) gives its error in its result and the batch goes
    on. Stopping the iteration early (``break``, an exception, the generator collected) stops the workers.

    A long local file (20 s or more of Opus, MP3, AAC, FLAC or PCM) started while other workers have nothing to start
    is split into ranges decoded on the idle workers' threads, so ``next(waveforms([path]))`` computes one long note
    on every core; its values equal :func:`waveform`'s within 0.001 (docs/waveform.md, "One long file on every core").

    Args:
        locations: paths (``str`` or ``os.PathLike``) and http(s) URLs (through the media cache).
        samples: values per waveform, 1…:data:`MAX_SAMPLES`.
        jobs: worker threads, 1…256; None for the CPUs this process may use (``os.sched_getaffinity``).
        http: how URLs are fetched (headers, a CA file, timeouts); None for the defaults.
        loudness: whether each note's loudness is measured with its waveform (:attr:`WaveformResult.loudness`);
            False costs only the waveforms.

    Raises:
        InvalidArgumentError: ``samples`` or ``jobs`` out of range (before anything is read); a location that is not
            UTF-8 text.
        TypeError: a location that is neither text nor path-like.
    """
    count = _buffers.count_arg("samples", samples, 1, MAX_SAMPLES)
    workers = _buffers.count_arg("jobs", jobs, 1, 256) if jobs is not None else 0
    ahead = 2 * (workers or len(os.sched_getaffinity(0)))
    batch = _capi.vn_waveform_batch_p()
    with options_handle(http) as options:
        check(_capi.vn_waveform_batch_create(count, workers, options, ctypes.byref(batch)))
    if not loudness:
        status = _capi.vn_waveform_batch_set_loudness(batch, 0)
        if status != _capi.VN_OK:
            _capi.vn_waveform_batch_destroy(batch)
            check(status)
    return _results(batch, iter(locations), ahead)


def _results(batch: _capi.vn_waveform_batch_p, locations: Iterator[Location], ahead: int) -> Iterator[WaveformResult]:
    """Feeds ``locations`` to the batch, keeping ``ahead`` of them in flight, and yields its results; destroys the
    batch at the end, however the iteration ends."""
    try:
        in_flight = 0
        ended = False
        result = _capi.vn_waveform_result()
        while True:
            while not ended and in_flight < ahead:
                location = next(locations, _END)
                if location is _END:
                    ended = True
                    check(_capi.vn_waveform_batch_end_input(batch))
                else:
                    check(_capi.vn_waveform_batch_add(batch, os.fspath(location).encode("utf-8", "surrogateescape")))
                    in_flight += 1
            result.size = ctypes.sizeof(result)
            rc = _capi.vn_waveform_batch_next(batch, -1, ctypes.byref(result))
            if rc == 0:
                return
            check(rc)
            in_flight -= 1
            yield _converted(result)
    finally:
        _capi.vn_waveform_batch_destroy(batch)


def _converted(result: _capi.vn_waveform_result) -> WaveformResult:
    location = (result.location or b"").decode("utf-8", "surrogateescape")
    if result.status != _capi.VN_OK:
        return WaveformResult(index=int(result.index), location=location,
                              error=_cevents.event_failure(result.status, result.message))
    return WaveformResult(index=int(result.index), location=location, duration=float(result.duration_s),
                          values=result.values[: result.count], loudness=loudness_from_c(result.loudness))
