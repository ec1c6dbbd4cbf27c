"""What a recorder and a player share: their options object (device, event loop, focus group, session hooks) and
how a handle is made from it, with the hooks registered for the handle's life."""
from __future__ import annotations

import ctypes
from typing import Any, Callable, Optional, Tuple

from . import _capi, _session
from ._focus import FocusGroup
from ._loop import EventLoop
from ._session import ActivateHook, DeactivateHook
from ._strings import c_text
from .errors import check


def create(
    kind: str,
    device: Optional[str],
    device_config: Optional[str],
    loop: Optional[EventLoop],
    focus_group: Optional[FocusGroup],
    on_activate: Optional[ActivateHook],
    on_deactivate: Optional[DeactivateHook],
    configure: Callable[[Any], None],
) -> Tuple[Any, int, Any]:
    """Makes a ``vn_<kind>`` (``"recorder"`` or ``"player"``) through its options: the device (when given), then
    ``configure(options)`` for the kind's own settings, then the event loop, focus group and session hooks.

    Returns ``(handle, hooks_key, hooks)``: the hooks stay registered under the key until the handle is destroyed
    (pass the key to the destroy function). Arguments are checked before anything is made.
    """
    if loop is not None and not isinstance(loop, EventLoop):
        raise TypeError("loop must be a voicenote.EventLoop or None")
    if focus_group is not None and not isinstance(focus_group, FocusGroup):
        raise TypeError("focus_group must be a voicenote.FocusGroup or None")
    if device_config is not None and device is None:
        raise ValueError("device_config needs device: the name of the PCM it defines")
    device_arg = c_text(device, "device") if device is not None else None
    config_arg = c_text(device_config, "device_config") if device_config is not None else None
    loop_handle = loop._handle_for_child() if loop is not None else None
    group_handle = focus_group._handle_for_member() if focus_group is not None else None

    def function(name: str) -> Any:
        return getattr(_capi, f"vn_{kind}_{name}")

    key, hooks, activate_fn, deactivate_fn = _session.register_hooks(on_activate, on_deactivate)
    options = getattr(_capi, f"vn_{kind}_options_p")()
    handle = getattr(_capi, f"vn_{kind}_p")()
    try:
        check(function("options_create")(ctypes.byref(options)))
        try:
            if device_arg is not None:
                check(function("options_set_device")(options, device_arg, config_arg))
            configure(options)
            if loop_handle is not None:
                check(function("options_set_event_loop")(options, loop_handle))
            if group_handle is not None:
                check(function("options_set_focus_group")(options, group_handle))
            if key:
                check(function("options_set_session_hooks")(options, activate_fn, deactivate_fn, key))
            check(function("create")(options, ctypes.byref(handle)))
        finally:
            function("options_destroy")(options)
    except BaseException:
        _session.discard_hooks(key)
        raise
    return handle, key, hooks
