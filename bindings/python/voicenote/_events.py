"""Callback plumbing between the library and Python.

One module-level ``CFUNCTYPE`` trampoline per C callback type, alive as long as the module. The ``user_data``
the library passes back is an integer key into :data:`_entries`, which holds the Python callable; the release
trampoline removes the key, so a subscription's callable lives exactly as long as the library may call it.

Rules kept here:

- an exception raised by a user callback is logged (logger ``"voicenote"``) and never propagates into C;
- no Python lock is held while calling a ``vn_`` function that may wait for a callback (``vn_unsubscribe``,
  destroy): dict operations are atomic under the GIL, so the trampolines need no lock at all.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any, Callable, Dict, Optional

from . import _capi, _delivery
from .errors import check

__all__ = ["Subscription", "unsubscribe"]

_log = logging.getLogger("voicenote")

_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL


class _Entry:
    """What a ``user_data`` key stands for: the converted-event callback and the release notification."""

    __slots__ = ("callback", "on_release", "released", "__weakref__")

    def __init__(self, callback: Callable[..., Any], on_release: Optional[Callable[[], Any]]) -> None:
        self.callback = callback
        self.on_release = on_release
        self.released = False


#: Live user_data keys. Written only under the GIL by single dict operations.
_entries: Dict[int, _Entry] = {}

#: Diagnostics for tests: release calls for keys that were not (or no longer) registered.
unknown_releases = 0


def register(callback: Callable[..., Any], on_release: Optional[Callable[[], Any]]) -> "tuple[int, _Entry]":
    key = next(_keys)
    entry = _Entry(callback, on_release)
    _entries[key] = entry
    return key, entry


def entry(key: Optional[int]) -> Optional[_Entry]:
    """The live entry of a ``user_data`` key (None for 0 or a key that is gone): what a trampoline calls."""
    return _entries.get(key or 0)


def discard(key: int) -> None:
    """Drops a key whose subscribe call failed (then the library never calls release)."""
    _entries.pop(key, None)


def report(what: str) -> None:
    try:
        _log.exception("exception in voicenote %s (ignored; callbacks must not raise)", what)
    except BaseException:  # noqa: BLE001 - nothing may propagate into C, not even a failing log handler
        pass


def _release(user_data: Optional[int]) -> None:
    global unknown_releases
    entry = _entries.pop(user_data or 0, None)
    if entry is None:
        unknown_releases += 1
        _log.error("voicenote released an unknown subscription key %r", user_data)
        return
    entry.released = True
    if entry.on_release is not None:
        try:
            entry.on_release()
        except BaseException:  # noqa: BLE001 - never raise into C
            report("release callback")


#: The release trampoline (``vn_release_fn``) shared by every subscription.
release_trampoline = _capi.vn_release_fn(_release)


def event_trampoline(function_type: Any, convert: Callable[[Any], Any], what: str) -> Any:
    """Makes the trampoline of an event callback type ``void (*)(void *user_data, const T *event)``.

    It looks the subscription up by ``user_data``, converts the C event with ``convert(event_struct)`` (which
    copies everything it needs: the struct is valid only during the call) and calls the subscriber with the
    result, unless ``convert`` returns ``None`` (an event this binding does not know), marked as delivering for
    :func:`voicenote.is_delivering`. Exceptions are logged as ``what`` and never reach C. The caller keeps the
    returned object alive (a module global)."""

    def trampoline(user_data: Optional[int], event: Any) -> None:
        entry = _entries.get(user_data or 0)
        if entry is None:
            return
        try:
            _delivery.entered()
            try:
                converted = convert(event[0])
                if converted is not None:
                    entry.callback(converted)
            finally:
                _delivery.left()
        except BaseException:  # noqa: BLE001 - never raise into C
            report(what)

    return function_type(trampoline)


class Subscription:
    """One subscriber of one object, returned by ``subscribe`` methods.

    The subscription ends with :meth:`unsubscribe`, :func:`voicenote.unsubscribe` or when its object is
    closed. Dropping this Python object does *not* end it (as with GLib signal handlers).
    """

    __slots__ = ("_id", "_entry", "__weakref__")

    def __init__(self, subscription_id: int, entry: _Entry) -> None:
        """Made by ``subscribe`` methods; not meant to be constructed directly."""
        self._id = subscription_id
        self._entry = entry

    @property
    def id(self) -> int:
        """The library's subscription id: non-zero, never reused within the process."""
        return self._id

    @property
    def released(self) -> bool:
        """True once the library has released the subscription: no callback of it runs any more."""
        return self._entry.released

    def unsubscribe(self) -> None:
        """Ends the subscription.

        From another thread it waits for a running callback of this subscription to return; after it returns,
        no callback of it runs again. From inside this subscription's own callback it does not wait: no further
        callback runs, and the release happens when the current callback returns.

        Raises:
            MisuseError: the subscription had already ended (unsubscribed, or its object was closed).
        """
        unsubscribe(self._id)

    def __repr__(self) -> str:
        state = "released" if self._entry.released else "live"
        return f"<voicenote.Subscription id={self._id} {state}>"


def unsubscribe(subscription_id: int) -> None:
    """Ends the subscription with this id (made by any ``subscribe`` method); see :meth:`Subscription.unsubscribe`.

    Raises:
        MisuseError: the id is 0, unknown, or already ended.
        ValueError: the id does not fit in 64 unsigned bits.
    """
    subscription_id = int(subscription_id)
    if not 0 <= subscription_id < 1 << 64:
        raise ValueError(f"subscription id {subscription_id} is out of range")
    check(_capi.vn_unsubscribe(subscription_id))


def subscribe_with(
    subscribe: Callable[[Any, Any, Any, Any], int],
    trampoline: Any,
    callback: Callable[..., Any],
    on_release: Optional[Callable[[], Any]],
) -> Subscription:
    """Registers ``callback`` under a fresh key and calls the C ``subscribe`` function
    ``subscribe(trampoline, user_data, release, out_id_pointer)``; returns the :class:`Subscription`."""
    if not callable(callback):
        raise TypeError("callback must be callable")
    if on_release is not None and not callable(on_release):
        raise TypeError("on_release must be callable or None")
    key, entry = register(callback, on_release)
    out_id = _capi.vn_subscription_id(0)
    try:
        check(subscribe(trampoline, key, release_trampoline, out_id))
    except BaseException:
        discard(key)
        raise
    return Subscription(int(out_id.value), entry)
