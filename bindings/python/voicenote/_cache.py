"""The media cache: downloads kept on disk so that a replay costs no network (``vn_cache_*``).

Every URL the library fetches (:func:`~voicenote.waveform`, :func:`~voicenote.info`, :meth:`Player.load
<voicenote.Player.load>`) looks in the cache first; a complete download is kept under its key (the URL, or the
``key`` given to ``Player.load``). The settings are the process's."""

from __future__ import annotations

import ctypes
import os
from typing import Optional, Union

from . import _capi
from ._buffers import count_arg
from ._strings import c_text
from .errors import check

__all__ = ["set_cache_directory", "cache_directory", "set_cache_limit", "cache_limit", "cache_size", "clear_cache"]

#: The default size limit (100 MB).
DEFAULT_CACHE_LIMIT = 100_000_000


def set_cache_directory(path: Optional[Union[str, "os.PathLike[str]"]]) -> None:
    """Uses ``path`` as the cache directory (made when first needed, mode 0700); None for the default,
    ``$XDG_CACHE_HOME/voicenote/media`` (else ``~/.cache/voicenote/media``).

    Raises:
        InvalidArgumentError: an empty path.
        ValueError: a NUL byte in the path.
    """
    check(_capi.vn_cache_set_directory(None if path is None else c_text(path, "path", path=True)))


def cache_directory() -> str:
    """The cache directory in use."""
    owned = ctypes.c_void_p()
    check(_capi.vn_cache_get_directory(ctypes.byref(owned)))
    try:
        return os.fsdecode(ctypes.string_at(owned.value)) if owned.value else ""
    finally:
        _capi.vn_free(owned)


def set_cache_limit(limit: int) -> None:
    """Sets the size limit in bytes (default 100 MB): the least recently used entries over it are deleted now.
    0 turns the cache off (nothing kept or read); media larger than the limit is never kept.

    Raises:
        InvalidArgumentError: outside 0…10**12.
        TypeError: not an integer.
    """
    check(_capi.vn_cache_set_limit(count_arg("limit", limit, 0, 10**12)))


def cache_limit() -> int:
    """The size limit in bytes."""
    value = ctypes.c_int64()
    check(_capi.vn_cache_get_limit(ctypes.byref(value)))
    return value.value


def cache_size() -> int:
    """The bytes the cache's entries take on disk now."""
    value = ctypes.c_int64()
    check(_capi.vn_cache_get_size(ctypes.byref(value)))
    return value.value


def clear_cache() -> None:
    """Deletes every entry of the cache (a player reading one keeps reading it)."""
    check(_capi.vn_cache_clear())
