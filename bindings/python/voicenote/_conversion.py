"""Writing a note again as a recording file, optionally at another speed (``vn_convert_file`` / ``vn_convert_source``)."""

from __future__ import annotations

import ctypes
import os
from typing import Any, Optional, Union

from . import _buffers, _capi, _sources
from ._cancellation import Cancellation
from ._http import HTTPOptions
from ._recorder import RecordingFormat
from ._strings import c_text
from .errors import check

__all__ = ["convert"]


def convert(source: _sources.AudioSource, output: Union[str, "os.PathLike[str]", "os.PathLike[bytes]"], *,
            rate: float = 1.0, format: Union[RecordingFormat, str] = RecordingFormat.OPUS, bitrate: int = 32000,
            complexity: int = 10, frame_ms: float = 20.0, http: Optional[HTTPOptions] = None,
            cancellation: Optional[Cancellation] = None) -> float:
    """Writes the note at ``source`` to ``output`` as a recording — Ogg Opus or AAC, with the recorder's encoder —
    at ``rate`` with its pitch kept: what a bridge needs to pass on a voice message that came in another format, or a
    bot to answer with a faster copy. Blocks while it decodes and encodes (a 60 s note at 2x takes about 1.3 s here; in an
    asyncio program use :func:`voicenote.aio.convert`).

    The file is written beside ``output`` and renamed over it once complete, so a failure leaves whatever was there
    untouched; ``output`` may be the note itself.

    Args:
        source: a path, an http(s) URL, the encoded bytes, or a binary file-like object, as for
            :func:`voicenote.waveform`. Any format the player reads; more than two channels are mixed to mono.
        output: the file to write (its folder must exist).
        rate: 0.5…2.5; the new note lasts the original's length divided by it.
        format: ``"opus"`` (the default) or ``"aac"``, or a :class:`RecordingFormat`.
        bitrate, complexity, frame_ms: the encoder, as for :class:`Recorder`.
        http: how a URL is fetched; None for the defaults.
        cancellation: a :class:`~voicenote.Cancellation` whose ``cancel()``, from another thread, ends the read of a
            URL (:class:`~voicenote.CancelledError`; ``output`` is left as it was).

    Returns:
        The new note's length in seconds.

    Raises:
        InvalidArgumentError: a rate or encoder setting out of range (also a ``ValueError``).
        NotFoundError, AccessDeniedError, FormatError, UnsupportedError, NoSpaceError, IOFailedError: as the
            library reports them for either file; a URL's network errors.
        TypeError, ValueError: a source or output of the wrong kind, an unknown format name, a NUL byte.
    """
    fmt = RecordingFormat.parse(format)
    target = c_text(output, "path", path=True)
    encoder = (_buffers.int32("bitrate", bitrate), _buffers.int32("complexity", complexity), _buffers.real(frame_ms))
    speed = _buffers.real(rate)
    options = _capi.vn_convert_options_p()
    check(_capi.vn_convert_options_create(ctypes.byref(options)))
    try:
        check(_capi.vn_convert_options_set_rate(options, speed))
        check(_capi.vn_convert_options_set_format(options, int(fmt)))
        check(_capi.vn_convert_options_set_encoder(options, *encoder))
        duration = ctypes.c_double()
        out: Any = ctypes.byref(duration)
        _sources.call_with_location(source, file=lambda path: _capi.vn_convert_file(path, target, options, out),
                                    source=lambda handle: _capi.vn_convert_source(handle, target, options, out),
                                    http=http, cancellation=cancellation)
        return float(duration.value)
    finally:
        _capi.vn_convert_options_destroy(options)
