"""Audio-focus groups (``vn_focus_group``): players and recorders of one group do not sound at once."""

from __future__ import annotations

import ctypes

from . import _capi, _lifecycle
from .errors import check

__all__ = ["FocusGroup"]


class FocusGroup(_lifecycle.Closing):
    """A group of players and recorders that must not sound at once.

    A player that starts pauses every other member (other players, and a take that is recording: the take stays
    whole and can be resumed); beginning or resuming a take pauses every player. Every recorder and player joins
    the process's default group unless given another: make one when two parts of a program must not disturb each
    other. Members stay in the group until they are closed, even after the group object is.
    """

    def __init__(self) -> None:
        """Creates an empty group."""
        handle = _capi.vn_focus_group_p()
        check(_capi.vn_focus_group_create(ctypes.byref(handle)))
        self._own(handle, _capi.vn_focus_group_destroy, handle)

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return not self._finalizer.alive

    def close(self) -> None:
        """Destroys the group handle; idempotent. Members made with it stay in the group until closed."""
        _lifecycle.run_finalizer(self._finalizer)

    def _handle_for_member(self) -> object:
        """The C handle, for an object that is being created in this group."""
        return self._live_handle()

    def __repr__(self) -> str:
        return f"<voicenote.FocusGroup {'closed' if self.closed else 'open'}>"
