"""Exceptions for ``vn_status`` codes.

Every failing call raises a subclass of :class:`VoiceNoteError` that also inherits the fitting builtin, so
callers may catch either: ``except voicenote.NotFoundError`` or ``except FileNotFoundError``.
"""

from __future__ import annotations

from typing import Dict, NoReturn, Optional, Tuple, Type

from . import _capi

__all__ = [
    "VoiceNoteError",
    "InvalidArgumentError",
    "MisuseError",
    "NoMemoryError",
    "IOFailedError",
    "NoSpaceError",
    "FormatError",
    "DeviceError",
    "AccessDeniedError",
    "NetworkError",
    "NotFoundError",
    "TooLargeError",
    "UnsupportedError",
    "BusyError",
    "CancelledError",
    "InternalError",
    "check",
    "error_class",
    "error_for",
    "format_error",
    "invalid_argument",
    "raise_status",
    "status_name",
    "strerror",
    "last_error_message",
]


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def status_name(code: int) -> str:
    """The symbolic name of a status, e.g. ``"VN_E_FORMAT"``; ``"VN_E_UNKNOWN"`` for a number that is none."""
    return _text(_capi.vn_status_name(int(code)))


def strerror(code: int) -> str:
    """A short English description of a status; ``"unknown status"`` for a number that is none."""
    return _text(_capi.vn_strerror(int(code)))


def last_error_message() -> str:
    """The detail text of the last failed ``vn_`` call on the calling thread (``""`` if none failed)."""
    return _text(_capi.vn_last_error_message())


class VoiceNoteError(Exception):
    """A ``vn_`` call failed.

    Attributes:
        code: the negative ``VN_E_*`` status.
        name: its symbolic name, e.g. ``"VN_E_MISUSE"``.
        message: the library's detail text for this failure (``vn_last_error_message()``), or the status's
            description when the library gave none.
    """

    #: The status this class stands for (``None`` on the base class, which also covers unknown codes).
    status: Optional[int] = None

    code: int
    name: str
    message: str

    def __init__(self, code: int, name: str, message: str) -> None:
        """Makes the error from a status code, its name and the detail message."""
        super().__init__(message)
        self.code = code
        self.name = name
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} ({self.name})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.name!r}, {self.message!r})"

    def __reduce__(self) -> Tuple[type, Tuple[int, str, str]]:
        return (type(self), (self.code, self.name, self.message))


class InvalidArgumentError(VoiceNoteError, ValueError):
    """``VN_E_INVALID_ARG``: a bad argument, including a directory where a file is expected."""

    status = _capi.VN_E_INVALID_ARG


class MisuseError(VoiceNoteError, RuntimeError):
    """``VN_E_MISUSE``: wrong call order, a NULL or destroyed handle, an unknown subscription."""

    status = _capi.VN_E_MISUSE


class NoMemoryError(VoiceNoteError, MemoryError):
    """``VN_E_NOMEM``: out of memory."""

    status = _capi.VN_E_NOMEM


class IOFailedError(VoiceNoteError, OSError):
    """``VN_E_IO``: a read or write failed."""

    status = _capi.VN_E_IO


class NoSpaceError(VoiceNoteError, OSError):
    """``VN_E_NO_SPACE``: the disk or a file-size limit is full."""

    status = _capi.VN_E_NO_SPACE


class FormatError(VoiceNoteError, ValueError):
    """``VN_E_FORMAT``: corrupt, truncated, not audio, absurd header values, invalid UTF-8 or JSON."""

    status = _capi.VN_E_FORMAT


class DeviceError(VoiceNoteError, OSError):
    """``VN_E_DEVICE``: no such audio device, it will not start, or it was lost."""

    status = _capi.VN_E_DEVICE


class AccessDeniedError(VoiceNoteError, PermissionError):
    """``VN_E_PERMISSION``: access refused (device or file permission, HTTP 401/403)."""

    status = _capi.VN_E_PERMISSION


class NetworkError(VoiceNoteError, ConnectionError):
    """``VN_E_NETWORK``: DNS, connect, TLS, dropped connection, HTTP 5xx and other 4xx."""

    status = _capi.VN_E_NETWORK


class NotFoundError(VoiceNoteError, FileNotFoundError):
    """``VN_E_NOT_FOUND``: missing file, HTTP 404/410."""

    status = _capi.VN_E_NOT_FOUND


class TooLargeError(VoiceNoteError, ValueError):
    """``VN_E_TOO_LARGE``: over a size limit, HTTP 413."""

    status = _capi.VN_E_TOO_LARGE


class UnsupportedError(VoiceNoteError, NotImplementedError):
    """``VN_E_UNSUPPORTED``: not supported (format, attachment type, operation)."""

    status = _capi.VN_E_UNSUPPORTED


class BusyError(VoiceNoteError, RuntimeError):
    """``VN_E_BUSY``: a session hook refused, or the resource is in use."""

    status = _capi.VN_E_BUSY


class CancelledError(VoiceNoteError, RuntimeError):
    """``VN_E_CANCELLED``: the operation was cancelled."""

    status = _capi.VN_E_CANCELLED


class InternalError(VoiceNoteError, RuntimeError):
    """``VN_E_INTERNAL``: a bug in voicenote; the message says where."""

    status = _capi.VN_E_INTERNAL


_BY_CODE: Dict[int, Type[VoiceNoteError]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError, MisuseError, NoMemoryError, IOFailedError, NoSpaceError, FormatError,
        DeviceError, AccessDeniedError, NetworkError, NotFoundError, TooLargeError, UnsupportedError,
        BusyError, CancelledError, InternalError,
    )
}


def error_class(code: int) -> Type[VoiceNoteError]:
    """The exception class for a status; :class:`VoiceNoteError` itself for an unknown negative number."""
    return _BY_CODE.get(code, VoiceNoteError)


def error_for(code: int) -> VoiceNoteError:
    """The exception (not raised) for the negative status ``code`` with this thread's last error message.

    Call it right after the failing ``vn_`` call, on the same thread, before any other ``vn_`` call; useful when
    cleanup calls must run between the failure and the ``raise``.
    """
    message = last_error_message() or strerror(code)
    return error_class(code)(code, status_name(code), message)


def raise_status(code: int) -> NoReturn:
    """Raises the exception for the negative status ``code`` with this thread's last error message.

    Call it right after the failing ``vn_`` call, on the same thread, before any other ``vn_`` call.
    """
    raise error_for(code)


def invalid_argument(message: str) -> InvalidArgumentError:
    """An :class:`InvalidArgumentError` (not raised) for an argument the binding rejects before calling the
    library, because ctypes would silently wrap it (a negative count for a ``size_t``)."""
    code = _capi.VN_E_INVALID_ARG
    return InvalidArgumentError(code, status_name(code), message)


def format_error(message: str) -> FormatError:
    """A :class:`FormatError` (not raised) for input the binding refuses before calling the library, with the
    status the library would return for it (received data larger than the library accepts)."""
    code = _capi.VN_E_FORMAT
    return FormatError(code, status_name(code), message)


def check(rc: int) -> int:
    """Returns ``rc`` when it is ``VN_OK`` or another non-negative value; raises the matching
    :class:`VoiceNoteError` subclass when it is a negative status.

    Call it right after the ``vn_`` call that returned ``rc``, on the same thread (the detail message is
    per thread and replaced by the next failing call).
    """
    if rc < 0:
        raise_status(rc)
    return rc
