"""Text across the C boundary: :func:`c_text`, the one encoder of text (and paths) given to the library; strings the
library returns for the caller to free (``char **`` out-parameters, read with ``ctypes.string_at`` and freed with
``vn_free``); and JSON text given to it as ``(text, length)`` (a ``str``, UTF-8 bytes, or Python values written with
:mod:`json`).

An owned ``char **`` is declared in :mod:`voicenote._capi` as ``POINTER(c_void_p)``, so the pointer is kept for
``vn_free`` (a ``c_char_p`` would be turned into ``bytes`` and the memory leaked).
"""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Callable, Optional, Union

from . import _capi
from .errors import check

__all__ = ["c_text", "owned_text", "take_owned", "json_bytes", "json_argument", "JSONText"]

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


def c_text(value: Any, what: str, *, path: bool = False, sized: bool = False) -> bytes:
    """``value`` as the bytes a C text argument takes: the one encoder of text given to the library.

    A ``str`` becomes UTF-8; a lone surrogate (an undecodable file name's escape among them) is passed on as the
    invalid UTF-8 it stands for, so the library refuses it with its own error (``InvalidArgumentError``, or
    ``FormatError`` for JSON), as it does invalid bytes. With ``path``, ``bytes`` and an ``os.PathLike`` are taken
    too (``os.fspath``: the file system's bytes as they are). Without ``sized`` (a NUL-terminated argument), a NUL
    byte is refused, since C would see a shorter string; a ``(text, length)`` argument passes it on for the library
    to report.

    Raises:
        TypeError: not a ``str`` (or, with ``path``, not ``bytes`` or an ``os.PathLike`` either); ``what`` names it.
        ValueError: a NUL byte in a NUL-terminated argument.
    """
    text = os.fspath(value) if path and isinstance(value, (bytes, os.PathLike)) else value
    if isinstance(text, str):
        encoded = text.encode("utf-8", "surrogatepass")
    elif path and isinstance(text, bytes):
        encoded = text
    else:
        kinds = "a str, bytes or os.PathLike" if path else "a str"
        raise TypeError(f"{what} must be {kinds}, not {type(value).__name__}")
    if not sized and b"\0" in encoded:
        raise ValueError(f"embedded null byte in {what}")
    return encoded


def json_bytes(value: Any) -> bytes:
    """``value`` (lists, dicts, strings, numbers, booleans, None) as compact JSON text in UTF-8 (``json.dumps`` with
    ``ensure_ascii=False``).

    Raises:
        TypeError: a value ``json`` cannot write.
        ValueError: a circular reference.
        RecursionError: nesting deeper than Python's recursion limit.
    """
    return c_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")), "JSON text", sized=True)


def json_argument(text: JSONText, what: str) -> bytes:
    """JSON text as the bytes a ``(json, length)`` argument takes: a ``str`` as UTF-8, bytes as they are.

    Raises:
        TypeError: neither text nor bytes.
    """
    if isinstance(text, str):
        return c_text(text, what, sized=True)
    if isinstance(text, (bytes, bytearray, memoryview)):
        return bytes(text)
    raise TypeError(f"{what} must be JSON text (str or UTF-8 bytes), not {type(text).__name__}")
