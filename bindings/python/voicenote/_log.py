"""The library's process-wide log hook (``vn_log_set_handler``)."""

from __future__ import annotations

import enum
import threading
from typing import Any, Callable, Optional

from . import _capi, _events
from .errors import check

__all__ = ["LogLevel", "LOG_ERROR", "LOG_WARNING", "LOG_INFO", "LOG_DEBUG", "set_log_handler"]


class LogLevel(enum.IntEnum):
    """Severity of a library log line, most severe first (``vn_log_level``)."""

    #: Something failed.
    ERROR = _capi.VN_LOG_ERROR
    #: Something unexpected that voicenote handled.
    WARNING = _capi.VN_LOG_WARNING
    #: A notable step (device opened, file finished).
    INFO = _capi.VN_LOG_INFO
    #: Detail for debugging.
    DEBUG = _capi.VN_LOG_DEBUG


#: ``VN_LOG_ERROR``: something failed.
LOG_ERROR = LogLevel.ERROR
#: ``VN_LOG_WARNING``: something unexpected that voicenote handled.
LOG_WARNING = LogLevel.WARNING
#: ``VN_LOG_INFO``: a notable step.
LOG_INFO = LogLevel.INFO
#: ``VN_LOG_DEBUG``: detail for debugging.
LOG_DEBUG = LogLevel.DEBUG


def set_log_handler(handler: Optional[Callable[[int, str], Any]], max_level: int = LOG_WARNING) -> None:
    """Sets the process-wide handler of the library's log lines; ``None`` makes the library quiet (the default).

    ``handler(level, message)`` runs on the thread that logged (yours or a library thread), never while the
    library holds a lock. Exceptions it raises are logged on the ``"voicenote"`` logger and ignored. When this
    returns, the previous handler is no longer called. Calls from two threads at once are not supported.

    Args:
        handler: the new handler, or None.
        max_level: lines less severe than this (a larger number) are not passed.

    Raises:
        InvalidArgumentError: ``max_level`` is not a :class:`LogLevel`.
        MisuseError: called from inside a log handler.
    """
    install_log_handler(handler, max_level)


_log_key_lock = threading.Lock()  # only guards the bookkeeping below, never held across a vn_ call
_log_key: Optional[int] = None


def _log_line(user_data: Optional[int], level: int, message: Optional[bytes]) -> None:
    entry = _events.entry(user_data)
    if entry is None:
        return
    try:
        text = message.decode("utf-8", "replace") if message else ""
        entry.callback(level, text)
    except BaseException:  # noqa: BLE001 - never raise into C
        _events.report("log handler")


#: The log trampoline (``vn_log_fn``).
log_trampoline = _capi.vn_log_fn(_log_line)


def install_log_handler(handler: Optional[Callable[[int, str], Any]], max_level: int) -> None:
    """Installs (or with None removes) the handler behind :func:`set_log_handler`."""
    global _log_key
    if handler is not None and not callable(handler):
        raise TypeError("handler must be callable or None")
    key: Optional[int] = None
    if handler is not None:
        key, _ = _events.register(handler, None)
        rc = _capi.vn_log_set_handler(log_trampoline, key, int(max_level))
    else:
        rc = _capi.vn_log_set_handler(None, None, int(max_level))
    if rc < 0:
        if key is not None:
            _events.discard(key)
        check(rc)
    # The library no longer calls the previous handler: drop its key.
    with _log_key_lock:
        old, _log_key = _log_key, key
    if old is not None:
        _events.discard(old)


def log_handler_installed() -> bool:
    """Whether a Python log handler is installed (used by the exit hook)."""
    return _log_key is not None
