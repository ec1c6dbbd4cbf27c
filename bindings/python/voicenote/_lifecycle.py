"""Closes every live voicenote object when the interpreter exits.

Library threads keep firing events until their object is destroyed. If the interpreter finalized while one of
them called into Python, CPython would kill or trap that thread. So an
``atexit`` hook closes every object still alive, newest first (sources before the loops they use), and removes
the Python log handler; after that no library thread calls into Python again. ``atexit`` hooks run before
finalization starts, while threads can still take the GIL, so waiting for a running callback works.

Objects are tracked by weak references: tracking never keeps one alive.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import weakref
from types import TracebackType
from typing import Any, Optional, Type, TypeVar

from . import _capi
from . import _log as _log_hook

__all__ = ["track", "close_all", "run_finalizer"]

_log = logging.getLogger("voicenote")
_order = itertools.count()
_live: "weakref.WeakValueDictionary[int, Any]" = weakref.WeakValueDictionary()


def track(obj: Any) -> None:
    """Registers an object with a ``close()`` method to be closed at interpreter exit."""
    _live[next(_order)] = obj


def run_finalizer(finalizer: "weakref.finalize[..., Any]") -> bool:
    """Runs a ``weakref.finalize``'s function now, at most once; returns whether this call ran it.

    Not ``finalizer()``: once ``weakref.finalize``'s own atexit hook has run (it runs before ours, hooks being
    LIFO), calling a finalizer only unregisters it and skips the function, so objects would stay open at exit.
    ``detach()`` has no such check and, like a call, succeeds only once.
    """
    info = finalizer.detach()
    if info is None:
        return False
    _, function, args, kwargs = info
    function(*args, **(kwargs or {}))
    return True


def close_all() -> None:
    """Closes every tracked object that is still alive, newest first, then removes the log handler."""
    for _, obj in sorted(_live.items(), key=lambda item: item[0], reverse=True):
        try:
            obj.close()
        except Exception:  # noqa: BLE001 - keep closing the others
            _log.exception("voicenote: closing %r at exit failed", obj)
    if _log_hook.log_handler_installed():
        try:
            _log_hook.install_log_handler(None, _capi.VN_LOG_WARNING)
        except Exception:  # noqa: BLE001
            _log.exception("voicenote: removing the log handler at exit failed")


atexit.register(close_all)


_Self = TypeVar("_Self", bound="Closing")


class Closing:
    """What the library's objects share: the C handle they own, destroyed exactly once (by close(), by garbage
    collection, or at interpreter exit in order); ``closed``; and context-manager support (``with`` closes them on
    exit). Subclasses call :meth:`_own` once their C object exists, and define close()."""

    _handle: Any
    _finalizer: "weakref.finalize[..., Any]"

    def _own(self, handle: Any, destroy: Any, *args: Any) -> None:
        """Keeps ``handle``; ``destroy(*args)`` runs once when the object is closed, collected, or at exit."""
        self._handle = handle
        self._finalizer = weakref.finalize(self, destroy, *args)
        self._finalizer.atexit = False  # the package's own exit hook closes it, in the right order
        track(self)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return not self._finalizer.alive

    def _live_handle(self) -> Any:
        """The C handle; ValueError once closed."""
        if self.closed:
            raise ValueError(f"operation on a closed {type(self).__name__}")
        return self._handle

    def close(self) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
