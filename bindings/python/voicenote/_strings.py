"""Text across the C boundary for the attachment functions: strings the library returns for the caller to free
(``char **`` out-parameters, read with ``ctypes.string_at`` and freed with ``vn_free``), and JSON text given to it
as ``(text, length)`` (a ``str``, UTF-8 bytes, or Python values written with :mod:`json`).

An owned ``char **`` is declared in :mod:`voicenote._capi` as ``POINTER(c_void_p)``, so the pointer is kept for
``vn_free`` (a ``c_char_p`` would be turned into ``bytes`` and the memory leaked).
"""

from __future__ import annotations

import ctypes
import json
from typing import Any, Callable, Optional, Union

from . import _capi
from .errors import check

__all__ = ["owned_text", "take_owned", "json_bytes", "json_argument", "utf8_bytes", "JSONText"]

#: JSON text as the attachment functions take it: ``str``, or UTF-8 bytes.
JSONText = Union[str, bytes, bytearray, memoryview]


def take_owned(pointer: Optional[int]) -> Optional[str]:
    """The UTF-8 text at ``pointer`` (an owned ``char *`` as an integer, or None for NULL), freed with ``vn_free``."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        _capi.vn_free(pointer)


def owned_text(call: Callable[[Any], int]) -> Optional[str]:
    """Runs ``call(out)``, a ``vn_`` call returning a status with ``out`` its ``char **`` out-parameter; returns the
    text it stored (None for NULL) after freeing it.

    Raises:
        VoiceNoteError: the subclass for the status the call returned.
    """
    owned = ctypes.c_void_p()
    rc = call(ctypes.byref(owned))
    text = take_owned(owned.value)  # freed also when the call failed after storing something
    check(rc)
    return text


def utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8 for a ``(text, length)`` argument; a lone surrogate is passed on as the invalid UTF-8 it
    stands for, so the library reports it (``FormatError``) as it does for bytes."""
    return text.encode("utf-8", "surrogatepass")


def json_bytes(value: Any) -> bytes:
    """``value`` (lists, dicts, strings, numbers, booleans, None) as compact JSON text in UTF-8 (``json.dumps`` with
    ``ensure_ascii=False``).

    Raises:
        TypeError: a value ``json`` cannot write.
        ValueError: a circular reference.
        RecursionError: nesting deeper than Python's recursion limit.
    """
    return utf8_bytes(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def json_argument(text: JSONText, what: str) -> bytes:
    """JSON text as the bytes a ``(json, length)`` argument takes: a ``str`` as UTF-8, bytes as they are.

    Raises:
        TypeError: neither text nor bytes.
    """
    if isinstance(text, str):
        return utf8_bytes(text)
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"{what} must be JSON text (str or UTF-8 bytes), not {type(text).__name__}")
