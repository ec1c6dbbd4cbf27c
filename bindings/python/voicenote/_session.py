"""Session hooks (``vn_session_activate_fn`` / ``vn_session_deactivate_fn``): the host's synchronous answers to
"may a device open now?" and "it closed", shared by every object that opens a device (recorder, player), with
their trampolines beside them.

Hooks are asked for an answer, so they run synchronously on the thread that needs it and never go through the
event queue. As with subscriptions, one module-level trampoline per C type is alive as long as the module and
``user_data`` is an integer key into :data:`_hooks`; the object that registered the key discards it after its C
object is destroyed (no hook of it runs after that).
"""

from __future__ import annotations

import enum
import itertools
import threading
from typing import Any, Callable, Dict, Optional, Tuple, Union

from . import _capi, _events

__all__ = ["SessionKind", "ActivateHook", "DeactivateHook", "SessionHooks", "register_hooks", "discard_hooks"]


class SessionKind(enum.IntEnum):
    """What a session hook is asked about (``vn_session_kind``)."""

    #: A player is about to open (or has closed) its device.
    PLAYBACK = _capi.VN_SESSION_PLAYBACK
    #: A recorder is about to open (or has closed) its device.
    RECORDING = _capi.VN_SESSION_RECORDING


#: ``on_activate(kind) -> bool``: asked before a device opens; a false result refuses (the action then raises
#: :class:`~voicenote.BusyError` and no device is opened).
ActivateHook = Callable[[SessionKind], Any]
#: ``on_deactivate(kind)``: told after the device closed.
DeactivateHook = Callable[[SessionKind], Any]


class SessionHooks:
    """The Python callables behind one object's C session hooks."""

    __slots__ = ("activate", "deactivate", "activate_errors")

    def __init__(self, activate: Optional[ActivateHook], deactivate: Optional[DeactivateHook]) -> None:
        self.activate = activate
        self.deactivate = deactivate
        #: The exception an activate hook raised, by the thread it ran on (the thread of the call that opens the
        #: device), for that call to chain to its BusyError.
        self.activate_errors: Dict[int, BaseException] = {}

    def take_activate_error(self) -> Optional[BaseException]:
        """The exception the activate hook raised on this thread since the last call, and forgets it."""
        return self.activate_errors.pop(threading.get_ident(), None)


_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL
#: Live hook keys. Written only under the GIL by single dict operations.
_hooks: Dict[int, SessionHooks] = {}


def _kind(kind: int) -> Union[SessionKind, int]:
    try:
        return SessionKind(kind)
    except ValueError:  # a kind appended by a newer library
        return kind


def _activate(user_data: Optional[int], kind: int) -> int:
    hooks = _hooks.get(user_data or 0)
    if hooks is None or hooks.activate is None:
        return 0  # its object is gone: nothing may open a device for it
    try:
        return 1 if hooks.activate(_kind(kind)) else 0  # type: ignore[arg-type]
    except BaseException as error:  # noqa: BLE001 - never raise into C; a failing hook refuses
        hooks.activate_errors[threading.get_ident()] = error
        _events.report("session activate hook (counted as a refusal)")
        return 0


def _deactivate(user_data: Optional[int], kind: int) -> None:
    hooks = _hooks.get(user_data or 0)
    if hooks is None or hooks.deactivate is None:
        return
    try:
        hooks.deactivate(_kind(kind))  # type: ignore[arg-type]
    except BaseException:  # noqa: BLE001 - never raise into C
        _events.report("session deactivate hook")


#: The trampolines (``vn_session_activate_fn``, ``vn_session_deactivate_fn``), alive as long as the module.
activate_trampoline = _capi.vn_session_activate_fn(_activate)
deactivate_trampoline = _capi.vn_session_deactivate_fn(_deactivate)


def register_hooks(
    activate: Optional[ActivateHook], deactivate: Optional[DeactivateHook]
) -> Tuple[int, Optional[SessionHooks], Any, Any]:
    """Registers an object's hooks; returns ``(key, hooks, activate_fn, deactivate_fn)`` for a
    ``set_session_hooks`` call: key 0 and no hooks when both are None; a None callable becomes a NULL function.

    Raises:
        TypeError: a hook is neither callable nor None.
    """
    for name, hook in (("on_activate", activate), ("on_deactivate", deactivate)):
        if hook is not None and not callable(hook):
            raise TypeError(f"{name} must be callable or None")
    if activate is None and deactivate is None:
        return 0, None, None, None
    key = next(_keys)
    hooks = SessionHooks(activate, deactivate)
    _hooks[key] = hooks
    return (key, hooks, activate_trampoline if activate is not None else None,
            deactivate_trampoline if deactivate is not None else None)


def discard_hooks(key: int) -> None:
    """Forgets a key once its C object is destroyed (or was never made); 0 is ignored."""
    if key:
        _hooks.pop(key, None)
