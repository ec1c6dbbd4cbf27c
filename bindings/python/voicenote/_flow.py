"""The recording flow: the hold-to-record button as one object over a :class:`Recorder` and a :class:`Player`, and the
:class:`ManualClock` its tests and scripted demos run on."""
from __future__ import annotations

import ctypes
import enum
import os
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Union

from . import _buffers, _capi, _cevents, _events, _lifecycle
from ._events import Subscription
from ._loop import EventLoop
from ._player import Player
from ._outbox import Outbox
from ._upload import Uploader
from ._recorder import Recorder
from ._strings import c_text
from .errors import check

__all__ = [
    "AttachmentReady", "FlowDraft", "FlowFailed", "FlowKey", "FlowState", "FlowTake", "FlowView", "FlowViewEvent",
    "ManualClock", "Parked", "Publish", "RecordingFlow", "TakeTooShort", "Trimmed", "clear_flow_drafts", "flow_drafts",
]


class FlowState(enum.IntEnum):
    """The states of a recording flow (``vn_flow_state``)."""

    #: Nothing happens; the record button waits.
    IDLE = _capi.VN_FLOW_IDLE
    #: The button was tapped, not held: the tip shows for a while.
    SHOWING_TIP = _capi.VN_FLOW_SHOWING_TIP
    #: A take runs while the button is held (toggle mode: until the next press).
    RECORDING = _capi.VN_FLOW_RECORDING
    #: A take runs with no finger on the button: discard, stop or send.
    LOCKED = _capi.VN_FLOW_LOCKED
    #: The finished take waits: play, trim, discard or send.
    PREVIEW = _capi.VN_FLOW_PREVIEW


class FlowKey(enum.IntEnum):
    """The keys a flow understands when its key inputs are on (``vn_flow_key``)."""

    #: Held like the record button.
    RECORD = _capi.VN_FLOW_KEY_RECORD
    #: Cancels a take or discards a preview.
    ESCAPE = _capi.VN_FLOW_KEY_ESCAPE
    #: Sends.
    ENTER = _capi.VN_FLOW_KEY_ENTER


@dataclass(frozen=True)
class FlowView:
    """Everything a view draws for the flow, as of one event."""

    state: FlowState = FlowState.IDLE
    #: Seconds recorded (recording, locked) or the take's length (preview).
    duration: float = 0.0
    #: Recording, locked: the last live levels, oldest first, 0…1.
    levels: List[float] = field(default_factory=list)
    #: The "slide to cancel" label's alpha: 1 at the press point, 0 at the cancel distance.
    slide_to_cancel_alpha: float = 1.0
    #: The lock's padding in pixels above its resting place, and the chevron's alpha above it.
    lock_padding: float = 0.0
    chevron_alpha: float = 1.0
    tip_visible: bool = False
    #: Preview: where the player is in the take, and whether it plays.
    preview_position: float = 0.0
    preview_playing: bool = False
    #: Preview: the take's waveform, 0…1.
    waveform: List[float] = field(default_factory=list)
    #: Preview: the part that will be sent.
    trim_start: float = 0.0
    trim_end: float = 0.0
    #: The take was started in toggle mode (the next press stops it).
    toggled: bool = False
    #: What a screen reader says for this view.
    accessible_description: str = ""


@dataclass(frozen=True)
class FlowTake:
    """A finished take handed to the composer."""

    path: str
    #: Seconds of audio.
    duration: float
    #: Its waveform (the flow's number of values), 0…1.
    waveform: List[float]
    #: Stream's ``voiceRecording`` payload of the file (``asset_url`` its ``file://`` URL) as JSON; "" when the file
    #: could not be read back.
    payload_json: str


@dataclass(frozen=True)
class FlowViewEvent:
    """The view after a transition or a step."""

    view: FlowView


@dataclass(frozen=True)
class AttachmentReady:
    """A take is ready for the composer (sent by release, :meth:`RecordingFlow.send` or ``confirm``)."""

    take: FlowTake


@dataclass(frozen=True)
class Publish:
    """The take is to be published (after :class:`AttachmentReady`, when confirmation is not required, or on
    :meth:`RecordingFlow.confirm`)."""

    take: FlowTake


@dataclass(frozen=True)
class FlowFailed:
    """The recorder or the player failed; the flow is idle, or stays in preview when the take was kept."""

    error: Exception


@dataclass(frozen=True)
class Parked:
    """The take was kept as the conversation's draft (:meth:`RecordingFlow.park`); the flow is idle."""

    take: FlowTake


@dataclass(frozen=True)
class Trimmed:
    """A trim (:meth:`RecordingFlow.trim`) ended: ``error`` None and ``take`` as cut (its new duration, waveform and
    payload), or ``error`` the failure and ``take`` as it was. The preview (or a send or park asked meanwhile)
    follows."""

    take: FlowTake
    error: Optional[Exception] = None


@dataclass(frozen=True)
class TakeTooShort:
    """The flow's take was dropped as too short: released before any audio arrived, or shorter than the recorder's
    minimum. ``duration`` is the seconds captured; the flow is idle. A client shows the tip ("hold to record")."""

    duration: float


#: What a flow subscriber receives.
FlowEvent = Union[FlowViewEvent, AttachmentReady, Publish, FlowFailed, Parked, Trimmed, TakeTooShort]


def _state(value: int) -> FlowState:
    try:
        return FlowState(value)
    except ValueError:  # a state appended by a newer library
        return FlowState.IDLE


def _view(fields: _cevents.Fields) -> FlowView:
    return FlowView(
        state=fields.get("state", lambda value: _state(int(value)), FlowState.IDLE),
        duration=fields.number("duration_s"),
        levels=fields.floats("levels", "level_count"),
        slide_to_cancel_alpha=fields.number("slide_to_cancel_alpha", 1.0),
        lock_padding=fields.number("lock_padding"),
        chevron_alpha=fields.number("chevron_alpha", 1.0),
        tip_visible=fields.flag("tip_visible"),
        preview_position=fields.number("preview_position_s"),
        preview_playing=fields.flag("preview_playing"),
        waveform=fields.floats("waveform", "waveform_count"),
        trim_start=fields.number("trim_start_s"),
        trim_end=fields.number("trim_end_s"),
        toggled=fields.flag("toggled"),
        accessible_description=fields.text("accessible_description"),
    )


def _take(fields: _cevents.Fields) -> FlowTake:
    return FlowTake(fields.path("path"), fields.number("duration_s"), fields.floats("waveform", "waveform_count"),
                    fields.text("payload_json"))


#: The Python event for a C ``vn_flow_event``; None for a type this binding does not know.
_convert_event = _cevents.converter(_capi.vn_flow_event, {
    _capi.VN_FLOW_EVENT_VIEW: lambda f: FlowViewEvent(_view(f.nested("view", _capi.vn_flow_view))),
    _capi.VN_FLOW_EVENT_ATTACHMENT_READY: lambda f: AttachmentReady(_take(f)),
    _capi.VN_FLOW_EVENT_PUBLISH: lambda f: Publish(_take(f)),
    _capi.VN_FLOW_EVENT_FAILED: lambda f: FlowFailed(f.failure()),
    _capi.VN_FLOW_EVENT_PARKED: lambda f: Parked(_take(f)),
    _capi.VN_FLOW_EVENT_TRIMMED: lambda f: Trimmed(_take(f), f.failure() if f.integer("status", 0) < 0 else None),
    _capi.VN_FLOW_EVENT_TOO_SHORT: lambda f: TakeTooShort(f.number("duration_s")),
})

#: The event trampoline (``vn_flow_event_fn``) shared by every flow subscription.
flow_event_trampoline = _events.event_trampoline(_capi.vn_flow_event_fn, _convert_event, "flow event callback")


class ManualClock(_lifecycle.Closing):
    """A clock that moves only when told: a flow on it fires its timers (the minimum press, the tip's hiding) inside
    :meth:`advance`, in order, so tests and scripted demos never sleep."""

    def __init__(self) -> None:
        handle = _capi.vn_manual_clock_p()
        check(_capi.vn_manual_clock_create(ctypes.byref(handle)))
        self._own(handle, _capi.vn_manual_clock_destroy, handle)

    def advance(self, seconds: float) -> None:
        """Moves the clock ``seconds`` forward, firing every timer that falls due, on this thread.

        Raises:
            InvalidArgumentError: a negative or non-finite time.
            MisuseError: inside a timer's action (a flow callback delivered by an event loop inside this call).
            ValueError: the clock is closed.
        """
        check(_capi.vn_manual_clock_advance(self._live_handle(), _buffers.real(seconds)))

    def close(self) -> None:
        """Destroys the clock: it moves no more (a flow using it keeps it until the flow is closed)."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        return f"<voicenote.ManualClock{' closed' if self.closed else ''}>"


def _flag(value: Any) -> int:
    return 1 if value else 0


class RecordingFlow(_lifecycle.Closing):
    """The hold-to-record button over a recorder and a player, with no thread and no toolkit of its own: forward the
    pointer and key inputs, draw what the events say (docs/flow.md).

    A press held for ``minimum_press`` seconds begins a take (a shorter one shows the tip); sliding left by
    ``slide_to_cancel_distance`` pixels from the press point cancels it (its file deleted), sliding up by
    ``lock_distance`` locks it, release sends it. :meth:`stop` puts a take in preview: play, seek, trim, discard or
    send. Sending gives :class:`AttachmentReady`, then :class:`Publish` when ``confirmation_required`` is false or on
    :meth:`confirm`.

    Pointer and key inputs that mean nothing in a state are ignored; commands that mean nothing there raise
    :class:`~voicenote.MisuseError` and change nothing.
    """

    def __init__(
        self,
        recorder: Recorder,
        player: Player,
        *,
        confirmation_required: bool = True,
        toggle_mode: bool = False,
        key_inputs: bool = False,
        slide_to_cancel_distance: float = 75.0,
        lock_distance: float = 50.0,
        minimum_press: float = 0.5,
        hide_tip_delay: float = 2.0,
        waveform_samples: int = 100,
        clock: Optional[ManualClock] = None,
        loop: Optional[EventLoop] = None,
        draft_key: Optional[str] = None,
        drafts_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
        uploader: Optional[Uploader] = None,
        outbox: Optional[Outbox] = None,
    ) -> None:
        """Makes a flow over ``recorder`` and ``player`` (both stay yours; close the flow first).

        Args:
            recorder: the recorder the flow begins, stops and cancels takes on.
            player: the player previews play on (a take's beginning stops it).
            confirmation_required: whether a sent take waits for :meth:`confirm`.
            toggle_mode: a quick press starts a locked take and the next press stops it (for people who cannot
                hold a button).
            key_inputs: :meth:`key_down`/:meth:`key_up` work (the record key held like the button, Escape cancels,
                Enter sends); ignored otherwise.
            slide_to_cancel_distance, lock_distance: pixels from the press point; > 0.
            minimum_press: seconds held before a take begins; > 0.
            hide_tip_delay: seconds the tip stays shown; ≥ 0.
            waveform_samples: values in a take's waveform in the events, 1…1048576.
            clock: a :class:`ManualClock` for the flow's timers, or None for the monotonic clock.
            loop: the :class:`EventLoop` that delivers the events, or None for the library's event thread.
            draft_key: the conversation's id (1…100 bytes of UTF-8), to keep its take as a draft: a running take is
                recorded in the drafts directory (a crash loses at most half a second), :meth:`park` keeps it, and
                the next flow with this key (in any process) restores it into PREVIEW. None: no drafts.
            drafts_dir: where drafts are kept (None: ``$XDG_DATA_HOME/voicenote/drafts``).
            uploader: an :class:`Uploader` every take goes through: uploaded while it is recorded (only its last
                pages are left when it is sent), or as its file when it is sent if it was trimmed, restored from a
                draft or begun while the uploader was busy; a cancelled or discarded take's upload is cancelled.
                Follow the upload on the uploader (its events, :meth:`Uploader.wait`). Close the flow first.
            outbox: an :class:`Outbox` every sent take goes into (copied and recorded durably when it is sent, then
                sent, resumed and retried by the outbox; its payload handed off on the outbox's events). With an
                ``uploader`` too, a take streamed while it was recorded is ``HELD`` in the outbox while that upload
                ends: its payload is then the outbox's ``UPLOADED``, and the outbox sends the file only if that
                upload failed. Start the outbox yourself; close the flow first.

        Raises:
            InvalidArgumentError: a value out of range (also a ``ValueError``).
            TypeError: an argument of the wrong type.
            ValueError: the recorder, player, clock or loop is closed.
        """
        if not isinstance(recorder, Recorder):
            raise TypeError("recorder must be a voicenote.Recorder")
        if not isinstance(player, Player):
            raise TypeError("player must be a voicenote.Player")
        if clock is not None and not isinstance(clock, ManualClock):
            raise TypeError("clock must be a voicenote.ManualClock or None")
        if loop is not None and not isinstance(loop, EventLoop):
            raise TypeError("loop must be a voicenote.EventLoop or None")
        if uploader is not None and not isinstance(uploader, Uploader):
            raise TypeError("uploader must be a voicenote.Uploader or None")
        if outbox is not None and not isinstance(outbox, Outbox):
            raise TypeError("outbox must be a voicenote.Outbox or None")
        samples = _buffers.count_arg("waveform_samples", waveform_samples, 1, 1048576)
        key_arg = c_text(draft_key, "draft_key") if draft_key is not None else None
        dir_arg = _directory_arg(drafts_dir)
        options = _capi.vn_flow_options_p()
        check(_capi.vn_flow_options_create(ctypes.byref(options)))
        handle = _capi.vn_flow_p()
        try:
            check(_capi.vn_flow_options_set_distances(options, _buffers.real(slide_to_cancel_distance),
                                                      _buffers.real(lock_distance)))
            check(_capi.vn_flow_options_set_times(options, _buffers.real(minimum_press), _buffers.real(hide_tip_delay)))
            check(_capi.vn_flow_options_set_waveform_samples(options, samples))
            check(_capi.vn_flow_options_set_confirmation_required(options, _flag(confirmation_required)))
            check(_capi.vn_flow_options_set_toggle_mode(options, _flag(toggle_mode)))
            check(_capi.vn_flow_options_set_key_inputs(options, _flag(key_inputs)))
            if clock is not None:
                check(_capi.vn_flow_options_set_clock(options, clock._live_handle()))
            if loop is not None:
                check(_capi.vn_flow_options_set_event_loop(options, loop._handle_for_child()))
            if key_arg is not None or dir_arg is not None:
                check(_capi.vn_flow_options_set_draft(options, key_arg, dir_arg))
            if uploader is not None:
                check(_capi.vn_flow_options_set_uploader(options, uploader._live_handle()))
            if outbox is not None:
                check(_capi.vn_flow_options_set_outbox(options, outbox._live_handle()))
            check(_capi.vn_flow_create(recorder._live_handle(), player._live_handle(), options, ctypes.byref(handle)))
        finally:
            _capi.vn_flow_options_destroy(options)
        # Kept alive as long as the flow: the library holds them too, and the host must close them after it.
        self._recorder = recorder
        self._player = player
        self._clock = clock
        self._loop = loop
        self._uploader = uploader
        self._outbox = outbox
        self._own(handle, _capi.vn_flow_destroy, handle)

    @property
    def recorder(self) -> Recorder:
        return self._recorder

    @property
    def player(self) -> Player:
        return self._player

    @property
    def state(self) -> FlowState:
        """The current state.

        Raises:
            ValueError: the flow is closed.
        """
        out = ctypes.c_int(0)
        check(_capi.vn_flow_get_state(self._live_handle(), ctypes.byref(out)))
        return _state(out.value)

    def subscribe(self, callback: Callable[[FlowEvent], Any], *,
                  on_release: Optional[Callable[[], Any]] = None) -> Subscription:
        """Calls ``callback(event)`` with the current view first (a :class:`FlowViewEvent`), then for each event, in
        order: :class:`FlowViewEvent`, :class:`AttachmentReady`, :class:`Publish`, :class:`FlowFailed`,
        :class:`Parked`, :class:`Trimmed`, :class:`TakeTooShort`. With a ``draft_key`` whose draft is being restored,
        the first view comes once it is in PREVIEW. Exceptions
        raised by ``callback`` are logged on the ``"voicenote"`` logger and ignored.

        Raises:
            ValueError: the flow is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_flow_subscribe(handle, fn, key, release, ctypes.byref(out)),
            flow_event_trampoline, callback, on_release)

    # -- inputs -------------------------------------------------------------------------------------------------

    def press(self, x: float, y: float) -> None:
        """The button was pressed at (x, y), in its own coordinates; gestures are measured from here."""
        check(_capi.vn_flow_press(self._live_handle(), _buffers.real(x), _buffers.real(y)))

    def release(self) -> None:
        """The button was released: a held take is sent, a short press shows the tip (toggle mode: starts a locked
        take)."""
        check(_capi.vn_flow_release(self._live_handle()))

    def move(self, x: float, y: float) -> None:
        """The pointer moved to (x, y) while the button is held: left cancels, up locks."""
        check(_capi.vn_flow_move(self._live_handle(), _buffers.real(x), _buffers.real(y)))

    def key_down(self, key: FlowKey) -> None:
        """A key went down (with ``key_inputs``; ignored otherwise)."""
        check(_capi.vn_flow_key_down(self._live_handle(), int(FlowKey(key))))

    def key_up(self, key: FlowKey) -> None:
        """A key went up (with ``key_inputs``; ignored otherwise)."""
        check(_capi.vn_flow_key_up(self._live_handle(), int(FlowKey(key))))

    def lock(self) -> None:
        """Locks a held take. MisuseError outside RECORDING."""
        check(_capi.vn_flow_lock(self._live_handle()))

    def cancel(self) -> None:
        """Cancels a take (its file deleted) or discards a preview; nothing otherwise. The flow is idle on return; the
        file is deleted on the flow's worker just after, and no event says when."""
        check(_capi.vn_flow_cancel(self._live_handle()))

    def stop(self) -> None:
        """Stops a take into preview. MisuseError when no take runs."""
        check(_capi.vn_flow_stop(self._live_handle()))

    def discard(self) -> None:
        """Deletes the take or the preview and goes idle. MisuseError when there is none."""
        check(_capi.vn_flow_discard(self._live_handle()))

    def send(self) -> None:
        """Hands the take to the composer (a running take is stopped first): :class:`AttachmentReady`, then
        :class:`Publish` when confirmation is not required. MisuseError when there is no take."""
        check(_capi.vn_flow_send(self._live_handle()))

    def confirm(self) -> None:
        """As :meth:`send`, always followed by :class:`Publish`."""
        check(_capi.vn_flow_confirm(self._live_handle()))

    def play(self) -> None:
        """Plays the preview. MisuseError outside PREVIEW."""
        check(_capi.vn_flow_play(self._live_handle()))

    def pause(self) -> None:
        """Pauses the preview. MisuseError outside PREVIEW."""
        check(_capi.vn_flow_pause(self._live_handle()))

    def seek(self, seconds: float) -> None:
        """Moves the preview to ``seconds`` (clamped to the take). MisuseError outside PREVIEW."""
        check(_capi.vn_flow_seek(self._live_handle(), _buffers.real(seconds)))

    def trim(self, start: float, end: float) -> None:
        """Starts cutting the previewed take to ``start … end`` seconds and returns at once (Ogg Opus: sample-exact,
        no re-encoding; AAC: re-encoded; the file is replaced once the new one is whole): :class:`Trimmed` says when
        it ended, then the take is previewed again. While it runs, another trim, :meth:`play`, :meth:`pause` and
        :meth:`seek` raise MisuseError; :meth:`send`, :meth:`confirm` and :meth:`park` act once it ended (on the take
        as cut); :meth:`discard` and :meth:`cancel` abandon it and delete the take; :meth:`close` abandons it and
        keeps the take as it was.

        Raises:
            MisuseError: outside PREVIEW, or while a trim runs.
            InvalidArgumentError: a range outside the take.
        """
        check(_capi.vn_flow_trim(self._live_handle(), _buffers.real(start), _buffers.real(end)))

    def deactivate(self) -> None:
        """The view was hidden: a take stops into preview, a playing preview pauses."""
        check(_capi.vn_flow_deactivate(self._live_handle()))

    def park(self) -> None:
        """The user left the conversation: the take (running or in preview) is kept as its draft, where it was
        recorded in the drafts directory; :class:`Parked` follows and the flow is idle. Closing the flow at once
        afterwards keeps the take too.

        Raises:
            MisuseError: the flow has no ``draft_key``.
            BusyError: the take is not the conversation's draft (another flow held the key when it began, as a
                :class:`FlowFailed` said); it stays in this flow, to be sent or discarded.
        """
        check(_capi.vn_flow_park(self._live_handle()))

    def close(self) -> None:
        """Ends the flow: a running take is cancelled, timers stop; no callback of it runs after this returns. A
        take in preview, or one being stopped (released, parked, sent), stays on disk and remains the conversation's
        draft. Closing twice does nothing."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.RecordingFlow closed>"
        return f"<voicenote.RecordingFlow {self.state.name.lower()}>"


@dataclass(frozen=True)
class FlowDraft:
    """A conversation's kept take, as :func:`flow_drafts` lists it."""

    key: str
    #: The take's file (a take that was running when its process ended: its ``.part``, made whole on restore).
    path: str
    #: Seconds (0 for a take that was running).
    duration: float


def _directory_arg(drafts_dir: Optional[Union[str, "os.PathLike[str]"]]) -> Optional[bytes]:
    if drafts_dir is None:
        return None
    encoded = os.fsencode(drafts_dir)
    if b"\0" in encoded:
        raise ValueError("embedded null byte in drafts_dir")
    return encoded


def flow_drafts(drafts_dir: Optional[Union[str, "os.PathLike[str]"]] = None) -> List[FlowDraft]:
    """The drafts kept in ``drafts_dir`` (None: the default directory), by key."""
    found: List[FlowDraft] = []

    def each(_: Any, key: Optional[bytes], path: Optional[bytes], duration: float) -> None:
        found.append(FlowDraft((key or b"").decode("utf-8", "replace"), os.fsdecode(path or b""), float(duration)))

    callback = _capi.vn_flow_draft_fn(each)  # called synchronously: alive for the call
    check(_capi.vn_flow_drafts_list(_directory_arg(drafts_dir), callback, None, None))
    return found


def clear_flow_drafts(key: Optional[str] = None, drafts_dir: Optional[Union[str, "os.PathLike[str]"]] = None) -> None:
    """Deletes ``key``'s draft (None: every draft) in ``drafts_dir`` (None: the default directory): the records and
    the audio they name there (nothing outside it); a record that cannot be read is deleted too. Not for a key whose
    flow is open.

    Raises:
        InvalidArgumentError: a bad key.
        PermissionError: a record cannot be deleted.
    """
    key_arg = c_text(key, "key") if key is not None else None
    check(_capi.vn_flow_drafts_clear(_directory_arg(drafts_dir), key_arg))
