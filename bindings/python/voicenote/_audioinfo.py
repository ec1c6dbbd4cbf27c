"""Facts about an audio stream (``vn_audio_info_file`` / ``vn_audio_info_source``)."""

from __future__ import annotations

import ctypes
from typing import Any, Optional, TypedDict

from . import _capi, _sources
from ._cancellation import Cancellation
from ._http import HTTPOptions

__all__ = ["AudioInfo", "info"]


class AudioInfo(TypedDict):
    """What :func:`info` returns (a plain ``dict`` with these keys)."""

    #: Duration in seconds; 0.0 when unknown.
    duration: float
    #: True when the duration is estimated from the bitrate (ADTS AAC, MP3 without a Xing/Info header).
    duration_is_estimate: bool
    #: Codec name as FFmpeg names it: ``"opus"``, ``"aac"``, ``"mp3"``, ``"pcm_s16le"``, ``"flac"``, ``"vorbis"``...
    codec: str
    #: The stream's sample rate in Hz (48000 for Opus, whatever the input rate was).
    sample_rate: int
    #: Channels in the stream.
    channels: int
    #: Average bitrate in bits per second; 0 when unknown.
    bitrate: int


def info(source: _sources.AudioSource, *, http: Optional[HTTPOptions] = None,
         cancellation: Optional[Cancellation] = None) -> AudioInfo:
    """Reads the facts of an audio stream, without decoding it all where the format allows.

    Args:
        source: where the encoded audio is, as for :func:`voicenote.waveform`: a path (``str`` or
            ``os.PathLike``), an ``http://`` or ``https://`` URL, the encoded bytes (``bytes``, ``bytearray``,
            ``memoryview``), or a binary file-like object with ``read`` and ``seek`` (read from offset 0; its
            position is restored afterwards). The format is told by content, never by the file name.
        http: how a URL is fetched (headers, a CA file, timeouts); None for the defaults.
        cancellation: a :class:`~voicenote.Cancellation` whose ``cancel()``, from another thread, ends the read of a
            URL (:class:`~voicenote.CancelledError`).

    Returns:
        A dict with ``duration`` (seconds, float), ``duration_is_estimate`` (bool), ``codec`` (str),
        ``sample_rate`` (int, Hz), ``channels`` (int) and ``bitrate`` (int, bit/s; 0 when unknown).

    Raises:
        NotFoundError: the file does not exist (also a ``FileNotFoundError``).
        InvalidArgumentError: the path is a directory.
        AccessDeniedError: the file cannot be read.
        FormatError: not audio, or no audio packets (an empty file, text).
        IOFailedError: reading failed; for a file-like object whose ``read`` or ``seek`` raised, with that
            exception as ``__cause__``.
        NetworkError, AccessDeniedError, NotFoundError, TooLargeError: a URL failed (the message names the HTTP
            status).
        TypeError: ``source`` is none of the accepted kinds.
        ValueError: the path contains a NUL byte.
    """
    raw = _capi.vn_audio_info()
    raw.size = ctypes.sizeof(_capi.vn_audio_info)
    _sources.call_with_location(source, file=lambda path: _capi.vn_audio_info_file(path, ctypes.byref(raw)),
                                source=lambda handle: _capi.vn_audio_info_source(handle, ctypes.byref(raw)), http=http,
                                cancellation=cancellation)
    return _convert(raw)


def _filled(raw: Any, field: str) -> bool:
    """Whether the library filled ``field`` (an older library fills a shorter struct and says so in ``size``)."""
    descriptor = getattr(_capi.vn_audio_info, field)
    return bool(int(raw.size) >= descriptor.offset + descriptor.size)


def _convert(raw: Any) -> AudioInfo:
    return AudioInfo(
        duration=float(raw.duration_s) if _filled(raw, "duration_s") else 0.0,
        duration_is_estimate=bool(raw.duration_is_estimate) if _filled(raw, "duration_is_estimate") else False,
        codec=raw.codec.decode("utf-8", "replace") if _filled(raw, "codec") else "",
        sample_rate=int(raw.sample_rate) if _filled(raw, "sample_rate") else 0,
        channels=int(raw.channels) if _filled(raw, "channels") else 0,
        bitrate=int(raw.bitrate) if _filled(raw, "bitrate") else 0,
    )
