"""The library's process-wide log hook (``vn_log_set_handler``)."""

from __future__ import annotations

import enum
from typing import Any, Callable, Optional

from . import _capi, _events

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
    _events.set_log_handler(handler, max_level)
