"""``Player``: plays voice messages from files, bytes or binary file-like objects to an ALSA device
(``vn_player``)."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import os
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from . import _audio_object, _buffers, _capi, _cevents, _events, _lifecycle, _session, _sources
from ._events import Subscription
from ._focus import FocusGroup
from ._http import Headers, HTTPOptions, options_handle
from ._loop import EventLoop
from ._loudness import Loudness
from ._session import ActivateHook, DeactivateHook
from ._strings import c_text, take_owned
from .errors import VoiceNoteError, check, error_for, invalid_argument

__all__ = [
    "Player",
    "PlayerState",
    "PlayerContext",
    "PlayerEvent",
    "PlayerContextEvent",
    "PlaybackFinished",
    "PlaybackFailed",
    "PlayerItemChanged",
]


class PlayerState(enum.IntEnum):
    """A player's state (``vn_player_state``, Stream's ``AudioPlaybackState``)."""

    #: Nothing loaded, or the last load failed (its location is kept).
    NOT_LOADED = _capi.VN_PLAYER_NOT_LOADED
    #: Opening the location and reading its duration.
    LOADING = _capi.VN_PLAYER_LOADING
    #: Loaded, not sounding.
    PAUSED = _capi.VN_PLAYER_PAUSED
    #: Sounding.
    PLAYING = _capi.VN_PLAYER_PLAYING
    #: Loaded, at 0: after :meth:`Player.stop` or the end of the item.
    STOPPED = _capi.VN_PLAYER_STOPPED


# --- context and events ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerContext:
    """A player's context (Stream's ``AudioPlaybackContext`` and more), copied out of the library. Times are
    seconds in the file's time."""

    #: The state.
    state: PlayerState
    #: The item's duration: the hint until the real one is known; 0 when nothing is loaded.
    duration: float
    #: What the listener hears now (the device's delay and the time-stretcher's backlog taken off).
    current_time: float
    #: The chosen rate, 0.5…2.5 (kept while paused).
    rate: float
    #: True from a seek until audio at the new position is ready.
    is_seeking: bool
    #: How much of the item is available, 0…1 (1 for local items once loaded).
    buffered_fraction: float
    #: True while the duration is a hint or an estimate.
    duration_is_estimate: bool
    #: The software volume, 0…1.
    volume: float
    #: True when skip silence is on.
    skip_silence: bool
    #: The last failure's status (negative, e.g. ``VN_E_NOT_FOUND``), 0 when none since the last load.
    last_status: int
    #: The location as given: the path or ``file://`` URL, ``"memory"`` for bytes, ``"host source"`` for a
    #: file-like object; ``""`` when nothing was loaded.
    location: str
    #: True when levelled playback is on (:meth:`Player.set_leveling`).
    leveling: bool = False
    #: Its target, LUFS.
    leveling_target: float = -19.0
    #: Its offset, dB.
    leveling_offset: float = 0.0
    #: The gain levelling gives the loaded note, dB; 0.0 when it is not levelled.
    leveling_gain: float = 0.0


@dataclass(frozen=True)
class PlayerContextEvent:
    """``VN_PLAYER_EVENT_CONTEXT``: a state change, a seek, a setting, or a progress step of played audio. For a
    subscriber slower than playback, progress steps coalesce (the latest wins); state changes are never dropped."""

    context: PlayerContext


@dataclass(frozen=True)
class PlaybackFinished:
    """``VN_PLAYER_EVENT_FINISHED``: the item played to its end; a context with state ``STOPPED`` at 0 follows."""

    #: The item's location, as in :attr:`PlayerContext.location`.
    location: str


@dataclass(frozen=True)
class PlaybackFailed:
    """``VN_PLAYER_EVENT_FAILED``: a load, decode or device failure; a context follows (``NOT_LOADED`` after a
    failed load, ``PAUSED`` after a decode or device failure)."""

    #: The failure: a :class:`~voicenote.NotFoundError` for a missing file, :class:`~voicenote.FormatError` for one
    #: that is not audio, :class:`~voicenote.DeviceError` when the device cannot be opened or was lost, ...
    error: VoiceNoteError


@dataclass(frozen=True)
class PlayerItemChanged:
    """``VN_PLAYER_EVENT_ITEM_CHANGED``: a queue player (one with a data source, see
    :class:`~voicenote.QueuePlayer`) moved to another item. Sent for every load of another location while a data
    source is set (the host's own :meth:`Player.load` too, and the queue's), before the new item's context; per
    item the order is ``PlayerItemChanged(a)`` … ``PlaybackFinished(a)``, ``PlayerItemChanged(b)`` …"""

    #: The new item's location as given (by the load, or by the data source's answer), as in
    #: :attr:`PlayerContext.location`.
    location: str
    #: Its key: a URL's key (or the URL itself), the absolute path of a file, or a byte source's name.
    key: str


@dataclass(frozen=True)
class NoteListened:
    """``VN_PLAYER_EVENT_LISTENED``: the note was heard to 90 % of its duration, or to its end. It is listened
    now, remembered across processes and restarts (:func:`is_listened`); sent once per note, never for one already
    listened, before its :class:`PlaybackFinished`: the moment to send a read receipt or the played marker."""

    #: The note's location as given, as in :attr:`PlayerContext.location`.
    location: str
    #: Its key, as in :class:`PlayerItemChanged`.
    key: str


#: What a player subscriber receives.
PlayerEvent = Union[PlayerContextEvent, PlaybackFinished, PlaybackFailed, PlayerItemChanged, NoteListened]


def _state(value: int) -> PlayerState:
    try:
        return PlayerState(value)
    except ValueError:  # a state appended by a newer library: report it as loaded and silent
        return PlayerState.PAUSED


def _context(fields: _cevents.Fields, location: Optional[str] = None) -> PlayerContext:
    """A player context from a C one (``location`` when it was copied apart, else the struct's)."""
    return PlayerContext(
        state=fields.get("state", lambda value: _state(int(value)), PlayerState.NOT_LOADED),
        duration=fields.number("duration_s"),
        current_time=fields.number("current_time_s"),
        rate=fields.number("rate", 1.0),
        is_seeking=fields.flag("is_seeking"),
        buffered_fraction=fields.number("buffered_fraction"),
        duration_is_estimate=fields.flag("duration_is_estimate"),
        volume=fields.number("volume", 1.0),
        skip_silence=fields.flag("skip_silence"),
        last_status=fields.integer("last_status"),
        location=fields.text("location") if location is None else location,
        leveling=fields.flag("leveling"),
        leveling_target=fields.number("leveling_target_lufs", _capi.VN_LEVELING_DEFAULT_TARGET_LUFS),
        leveling_offset=fields.number("leveling_offset_db"),
        leveling_gain=fields.number("leveling_gain_db"),
    )


#: The Python event for a C ``vn_player_event``; None for a type this binding does not know.
_convert_event = _cevents.converter(_capi.vn_player_event, {
    _capi.VN_PLAYER_EVENT_CONTEXT: lambda f: PlayerContextEvent(_context(f.nested("context", _capi.vn_player_context))),
    _capi.VN_PLAYER_EVENT_FINISHED: lambda f: PlaybackFinished(f.text("location")),
    _capi.VN_PLAYER_EVENT_FAILED: lambda f: PlaybackFailed(f.failure()),
    _capi.VN_PLAYER_EVENT_ITEM_CHANGED: lambda f: PlayerItemChanged(f.text("location"), f.text("key")),
    _capi.VN_PLAYER_EVENT_LISTENED: lambda f: NoteListened(f.text("location"), f.text("key")),
})


#: The event trampoline (``vn_player_event_fn``) shared by every player subscription.
player_event_trampoline = _events.event_trampoline(_capi.vn_player_event_fn, _convert_event, "player event callback")


# --- the player --------------------------------------------------------------------------------------------------


def _destroy(handle: Any, hooks_key: int) -> None:
    _capi.vn_player_destroy(handle)
    _session.discard_hooks(hooks_key)  # destroy has returned: no hook of it runs again


def url_options(headers: Optional[Headers], http: Optional[HTTPOptions]) -> HTTPOptions:
    """The HTTP options a URL is fetched with: ``http`` (None: the defaults) with ``headers`` added after its own."""
    options = http or HTTPOptions()
    if headers is not None:
        options = dataclasses.replace(options, headers=options.header_pairs() + HTTPOptions(headers).header_pairs())
    return options


class Player(_lifecycle.Closing):
    """Plays voice messages (Ogg Opus, AAC, MP3, WAV, FLAC, Vorbis) at 0.5–2.5x with the pitch kept, with a
    software volume, skip silence, seeking, a resume position per location and audio focus.

    ::

        with voicenote.Player() as player:
            player.subscribe(on_event)       # PlayerContextEvent, PlaybackFinished, PlaybackFailed
            player.rate = 1.5
            player.load("note.ogg")          # returns at once; plays once loaded
            ...

    Loading never blocks: the player's own thread opens and decodes, and a file that cannot be played arrives as
    :class:`PlaybackFailed`. Events run on the library's event thread, or inside :meth:`EventLoop.dispatch` when the
    player was made with a ``loop``; every method may be called from any thread, including inside its callbacks.
    Usable as a context manager; methods raise :class:`ValueError` after :meth:`close`. A player that is
    garbage-collected, or still open when the interpreter exits, is closed then.
    """

    def __init__(
        self,
        device: Optional[str] = None,
        device_config: Optional[str] = None,
        loop: Optional[EventLoop] = None,
        focus_group: Optional[FocusGroup] = None,
        on_activate: Optional[ActivateHook] = None,
        on_deactivate: Optional[DeactivateHook] = None,
        progress_interval: float = 0.1,
        resume_limit: int = 256,
        *,
        remember_positions: bool = True,
        return_to_interrupted: bool = True,
        mpris: Optional[str] = None,
        mpris_desktop_entry: Optional[str] = None,
        pause_other_players: bool = False,
        stream_role: Optional[str] = None,
    ) -> None:
        """Creates a player. No device is opened until it first plays.

        Args:
            device: the ALSA PCM name to play to (``"default"``, ``"pulse"``, ``"plughw:1,0"``, or a name that
                ``device_config`` defines); None for ``"default"``.
            device_config: ALSA configuration text defining ``device`` (how a virtual speaker is given without
                touching the environment), or None for the system's. Needs ``device``.
            loop: the :class:`EventLoop` that delivers the events, or None for the library's event thread. The
                player keeps the Python loop object alive; close the player before the loop.
            focus_group: the :class:`FocusGroup` it joins (a player that starts pauses the group's other players and
                a take that is recording), or None for the process's default group.
            on_activate: ``on_activate(kind: SessionKind) -> bool``, asked on the thread that calls :meth:`play`
                (or :meth:`load` with ``autoplay``) before the player starts sounding; a false result (or an
                exception, which is logged) refuses, and that call raises :class:`~voicenote.BusyError`.
            on_deactivate: ``on_deactivate(kind: SessionKind)``, told after the player stopped sounding and closed
                the device (pause, stop, the end, a failure, close), on the player's thread or the closing one.
                Exceptions are logged.
            progress_interval: seconds of played audio between progress contexts, 0.01…10.
            resume_limit: how many locations' resume positions are kept, 0…100000.
            remember_positions: remember where each path or URL was left across players and processes (a store
                under the cache directory: written as the player pauses, leaves an item or is closed; a stop or the
                end forgets it; read on load). False keeps positions in this player only.
            return_to_interrupted: a queue player's return (Element's rule): after a note loaded while another
                played has played to its end, the interrupted one plays on from where it was left.
            mpris: show the player to the desktop's media keys and controls (MPRIS on the session bus) under this
                name ("Fractal") while a note is loading, playing or paused; None (the default) for no MPRIS.
                :meth:`set_metadata` says what the controls show.
            mpris_desktop_entry: with ``mpris``, the host's desktop file name without ``.desktop``, for its icon.
            pause_other_players: pause the desktop's other media players (MPRIS) that are playing while this
                player plays, and resume exactly those when it stops playing. Off by default.
            stream_role: the playback stream's ``media.role`` on a PulseAudio or pipewire-pulse server (``"phone"``:
                the server's own policies cork or duck music while a note plays); where the device goes to such a
                server the stream is opened through libpulse itself, elsewhere the role is not set. None (the
                default) for none.

        Raises:
            InvalidArgumentError: a value out of range (also a ``ValueError``), an empty device.
            ValueError: a NUL byte in a text, ``device_config`` without ``device``, or ``loop`` is closed.
            TypeError: an argument of the wrong type.
            MisuseError: ``loop`` or ``focus_group`` was destroyed.
        """
        interval = _buffers.real(progress_interval)
        limit = _buffers.count_arg("resume_limit", resume_limit, 0, 100000)

        def configure(options: Any) -> None:
            check(_capi.vn_player_options_set_progress_interval(options, interval))
            check(_capi.vn_player_options_set_resume_limit(options, limit))
            check(_capi.vn_player_options_set_remember_positions(options, 1 if remember_positions else 0))
            check(_capi.vn_player_options_set_return_to_interrupted(options, 1 if return_to_interrupted else 0))
            check(_capi.vn_player_options_set_pause_other_players(options, 1 if pause_other_players else 0))
            if stream_role is not None:
                check(_capi.vn_player_options_set_stream_role(options, c_text(stream_role, "stream_role")))
            if mpris is not None:
                entry = None if mpris_desktop_entry is None else c_text(mpris_desktop_entry, "mpris_desktop_entry")
                check(_capi.vn_player_options_set_mpris(options, c_text(mpris, "mpris"), entry))

        handle, key, hooks = _audio_object.create("player", device, device_config, loop, focus_group, on_activate,
                                                  on_deactivate, configure)
        self._loop = loop
        self._focus_group = focus_group
        self._hooks = hooks
        self._own(handle, _destroy, handle, key)

    # -- state ------------------------------------------------------------------------------------------------

    @property
    def loop(self) -> Optional[EventLoop]:
        """The loop that delivers this player's events, or None for the library's event thread."""
        return self._loop

    def _raw_context(self) -> Any:
        raw = _capi.vn_player_context()
        raw.size = ctypes.sizeof(_capi.vn_player_context)
        check(_capi.vn_player_get_context(self._live_handle(), ctypes.byref(raw)))
        return raw

    @property
    def context(self) -> PlayerContext:
        """The current context: state, duration, position, settings, the last failure and the location.

        Read with two calls (``vn_player_get_context``, ``vn_player_copy_location``): when a load happens in
        between, the location may already be the new one. Context events carry a consistent copy.

        Raises:
            ValueError: the player is closed.
        """
        raw = self._raw_context()
        owned = ctypes.c_void_p()
        check(_capi.vn_player_copy_location(self._live_handle(), ctypes.byref(owned)))
        try:
            location = ctypes.string_at(owned.value).decode("utf-8", "replace") if owned.value else ""
        finally:
            _capi.vn_free(owned)
        return _context(_cevents.Fields(raw, _capi.vn_player_context), location)

    @property
    def rate(self) -> float:
        """The playback rate, 0.5…2.5, pitch kept. Settable in every state, kept while paused; setting it never
        starts playback.

        Raises:
            InvalidArgumentError: (setting) outside 0.5…2.5, NaN included.
            TypeError: (setting) not a number.
            ValueError: the player is closed.
        """
        return float(self._raw_context().rate)

    @rate.setter
    def rate(self, value: float) -> None:
        check(_capi.vn_player_set_rate(self._live_handle(), _buffers.real(value)))

    def set_metadata(self, key: Union[str, "os.PathLike[str]"], title: Optional[str] = None,
                     artist: Optional[str] = None, art_url: Optional[str] = None) -> None:
        """Says what the desktop's media controls show for the note under ``key`` (its key as
        :class:`PlayerItemChanged` names it, or its location as given to :meth:`load`): the ``title`` (None shows
        the file's name), the sender as ``artist``, the sender's picture as ``art_url``. Shown at once when it is
        the current note; kept for the 1000 most recent keys. Does nothing for a player made without ``mpris``.

        Raises:
            InvalidArgumentError: an empty key.
            ValueError: the player is closed, or a NUL byte in a text.
        """
        def optional(value: Optional[str], what: str) -> Optional[bytes]:
            return None if value is None else c_text(value, what)

        check(_capi.vn_player_set_metadata(self._live_handle(), c_text(key, "key", path=True),
                                           optional(title, "title"), optional(artist, "artist"),
                                           optional(art_url, "art_url")))

    @property
    def mpris_name(self) -> Optional[str]:
        """The player's MPRIS bus name (``org.mpris.MediaPlayer2.NAME.instancePID_N``), or None for a player made
        without ``mpris``. On the bus only while a note is loading, playing or paused (:attr:`mpris_exported`).

        Raises:
            ValueError: the player is closed.
        """
        handle = self._live_handle()
        owned = ctypes.c_void_p()
        rc = _capi.vn_player_copy_mpris_name(handle, ctypes.byref(owned), None)
        name = take_owned(owned.value)
        if rc == _capi.VN_E_MISUSE:
            return None  # made without mpris (the handle is live: checked above)
        check(rc)
        return name

    @property
    def mpris_exported(self) -> bool:
        """Whether the player's MPRIS name is on the session bus now (False without ``mpris``)."""
        handle = self._live_handle()
        owned = ctypes.c_void_p()
        exported = ctypes.c_int(0)
        rc = _capi.vn_player_copy_mpris_name(handle, ctypes.byref(owned), ctypes.byref(exported))
        take_owned(owned.value)
        return rc == 0 and exported.value != 0

    @property
    def volume(self) -> float:
        """The software volume, 0…1 (ramped over 10 ms).

        Raises:
            InvalidArgumentError: (setting) outside 0…1, NaN included.
            TypeError: (setting) not a number.
            ValueError: the player is closed.
        """
        return float(self._raw_context().volume)

    @volume.setter
    def volume(self, value: float) -> None:
        check(_capi.vn_player_set_volume(self._live_handle(), _buffers.real(value)))

    @property
    def skip_silence(self) -> bool:
        """Whether pauses longer than 0.6 s (below the note's own noise floor) are shortened to 0.25 s; times stay
        in the file's time.

        Raises:
            ValueError: the player is closed.
        """
        return bool(self._raw_context().skip_silence)

    @skip_silence.setter
    def skip_silence(self, value: bool) -> None:
        check(_capi.vn_player_set_skip_silence(self._live_handle(), 1 if value else 0))

    def set_leveling(self, enabled: bool = True, target: float = -19.0, offset: float = 0.0) -> None:
        """Levelled playback (docs/loudness.md): every note at ``target`` LUFS plus ``offset`` dB (the "louder for this
        contact" knob), its peaks held under −1 dBTP. A note's gain is known before its first frame (from the
        ``loudness`` given to :meth:`load`, else a pre-pass over its first 3 s) and stays for the note; on or off
        applies from the next note loaded, a new target or offset moves the note playing over 50 ms.

        Args:
            enabled: levelling on or off (off by default: notes play as recorded).
            target: −30…−10 LUFS; −19 by default (mono speech, as the AES streaming recommendation gives it).
            offset: −12…12 dB.

        Raises:
            InvalidArgumentError: a target or offset out of range, NaN included.
            ValueError: the player is closed.
        """
        check(_capi.vn_player_set_leveling(self._live_handle(), 1 if enabled else 0, _buffers.real(target),
                                           _buffers.real(offset)))

    # -- subscriptions ----------------------------------------------------------------------------------------

    def subscribe(
        self,
        callback: Callable[[PlayerEvent], Any],
        *,
        on_release: Optional[Callable[[], Any]] = None,
    ) -> Subscription:
        """Calls ``callback(event)`` with the current context first (a :class:`PlayerContextEvent`), then for
        each event, in order.

        ``event`` is one of :class:`PlayerContextEvent`, :class:`PlaybackFinished`, :class:`PlaybackFailed` and
        (for a queue player) :class:`PlayerItemChanged`, with everything copied out of the library; event types
        this binding does not know are not delivered. Exceptions raised by ``callback`` are logged on the
        ``"voicenote"`` logger and ignored.

        Args:
            callback: the event callback.
            on_release: called once when the subscription has ended and no callback of it will run again.

        Raises:
            ValueError: the player is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_player_subscribe(handle, fn, key, release, ctypes.byref(out)),
            player_event_trampoline,
            callback,
            on_release,
        )

    # -- actions ----------------------------------------------------------------------------------------------

    def _call_activating(self, call: Callable[[], int]) -> None:
        """Runs a call that may ask ``on_activate``; a refusal raises BusyError chained to what the hook raised."""
        hooks = self._hooks
        if hooks is not None:
            hooks.take_activate_error()
        rc = call()
        if rc >= 0:
            return
        failure = error_for(rc)
        cause = hooks.take_activate_error() if hooks is not None else None
        if cause is not None and not isinstance(cause, Exception):
            raise cause  # KeyboardInterrupt, SystemExit: not a refusal to report
        if cause is not None:
            raise failure from cause
        raise failure

    def load(self, location: Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes, bytearray, memoryview, Any],
             autoplay: bool = True, duration_hint: Optional[float] = None, *, headers: Optional[Headers] = None,
             key: Optional[str] = None, http: Optional[HTTPOptions] = None,
             loudness: Optional[Loudness] = None) -> None:
        """Loads a voice message, with Stream's ``loadAsset`` rules: the same location already loaded → paused
        plays, stopped plays from the start, playing or loading does nothing; another location → the current item
        reports ``STOPPED`` (its position is kept for a later load), the state becomes ``LOADING``, then the item
        plays (``autoplay``) or ends ``PAUSED`` at its resume position (or 0).

        Returns at once: a file that is missing, unreadable or not audio arrives as :class:`PlaybackFailed` (with
        the state ``NOT_LOADED`` and the location kept).

        Args:
            location: a path (``str`` or ``os.PathLike``; a ``str`` may also be a ``file://`` URL), an
                ``http://`` or ``https://`` URL (played while it downloads, through the media cache), encoded audio
                (``bytes``, ``bytearray``, ``memoryview``: copied now), or a binary file-like object with ``read``
                and ``seek``, which the player reads on its own thread until it loads another location or is
                closed (do not use it meanwhile). Bytes and streams are a new location at every call.
            autoplay: play once loaded.
            duration_hint: the duration in seconds to show until the real one is known (e.g. a payload's
                ``duration``), 0…1000000; None for none.
            headers: request headers for a URL (added to those of ``http``), e.g. ``{"Authorization": "Bearer …"}``.
            key: a URL's stable identity (e.g. ``f"{message_id}/{index}"``): the cache and the resume position use
                it instead of the URL, whose CDN signature may change. The same URL under two keys is two
                locations; two URLs under one key are one.
            http: how a URL is fetched (headers, a CA file, timeouts); None for the defaults.
            loudness: the note's loudness as the host knows it (a payload's :attr:`VoiceRecordingPayload.loudness`),
                so a levelled note needs no pre-pass (:meth:`set_leveling`); for a path or a plain URL only.

        Raises:
            ValueError: the player is closed, or a NUL byte in the path.
            InvalidArgumentError: an empty path, a ``file://`` URL of another host, a hint out of range.
            UnsupportedError: a URL scheme other than ``file://``, ``http://`` and ``https://``.
            BusyError: ``autoplay`` asked ``on_activate`` and it refused (nothing changed).
            TypeError: ``location`` is none of the above.
            ValueError: ``headers``, ``key`` or ``http`` given with a location that is not an http(s) URL;
                ``loudness`` with one that is not a path or a plain URL.
        """
        handle = self._live_handle()
        hint = -1.0 if duration_hint is None else _buffers.real(duration_hint)
        if hint < 0 and duration_hint is not None:
            raise invalid_argument(f"duration_hint must be 0…1000000 seconds or None, not {duration_hint!r}")
        play = 1 if autoplay else 0
        if loudness is not None:
            if not isinstance(loudness, Loudness):
                raise TypeError(f"loudness must be a voicenote.Loudness or None, not {type(loudness).__name__}")
            if headers is not None or key is not None or http is not None or not isinstance(location, (str, os.PathLike)):
                raise ValueError("loudness is given with a path or a plain URL only")
            measured = loudness._c()
            _sources.call_with_location(
                location,
                file=lambda path: _capi.vn_player_load_with_loudness(handle, path, play, hint, ctypes.byref(measured)),
                source=lambda source: _capi.VN_E_INVALID_ARG,  # not reached: paths and URLs only
                urls_as_paths=True,
                run=self._call_activating,
            )
            return
        if headers is not None or key is not None or http is not None:
            _sources.require_url(location)
            self._load_url(handle, location, play, hint, headers, key, http)
            return
        _sources.call_with_location(
            location,
            file=lambda path: _capi.vn_player_load(handle, path, play, hint),  # a URL too: the library tells them apart
            source=lambda source: _capi.vn_player_load_source(handle, source, play, hint),
            urls_as_paths=True,
            holds_source=True,
            run=self._call_activating,
        )

    def _load_url(self, handle: Any, url: str, play: int, hint: float, headers: Optional[Headers],
                  key: Optional[str], http: Optional[HTTPOptions]) -> None:
        """``vn_player_load_url`` with ``http`` plus ``headers`` and ``key``."""
        options = url_options(headers, http)
        encoded_key = None if key is None else c_text(key, "key")
        encoded_url = c_text(url, "URL")
        with options_handle(options) as options_pointer:
            self._call_activating(
                lambda: _capi.vn_player_load_url(handle, encoded_url, options_pointer, encoded_key, play, hint))

    def play(self) -> None:
        """Plays or resumes the loaded item; during loading it plays once loaded. Nothing happens while playing.
        Playing pauses the other players of the focus group and a take that is recording in it. A device that
        cannot be opened arrives as :class:`PlaybackFailed` (the state becomes ``PAUSED``).

        Raises:
            ValueError: the player is closed.
            MisuseError: nothing is loaded (or the load failed).
            BusyError: ``on_activate`` refused; when it raised, with that exception as ``__cause__``.
        """
        handle = self._live_handle()
        self._call_activating(lambda: _capi.vn_player_play(handle))

    def pause(self) -> None:
        """Pauses at what the listener hears now. Nothing happens when nothing is loaded, paused or stopped;
        during loading the item ends paused.

        Raises:
            ValueError: the player is closed.
        """
        check(_capi.vn_player_pause(self._live_handle()))

    def stop(self) -> None:
        """Stops: position 0, state ``STOPPED``, the item and its duration kept, its resume position forgotten.
        Nothing happens when nothing is loaded.

        Raises:
            ValueError: the player is closed.
        """
        check(_capi.vn_player_stop(self._live_handle()))

    def seek(self, seconds: float) -> None:
        """Moves to ``seconds``, clamped to 0…duration, keeping the play/pause state (a stopped item becomes
        paused there). ``is_seeking`` is true until audio at the new position is ready; seeks faster than the player
        carries them out coalesce (the latest wins), so a slider may call this on every motion.

        Raises:
            ValueError: the player is closed.
            InvalidArgumentError: ``seconds`` is NaN or infinite.
            MisuseError: nothing is loaded.
            TypeError: not a number.
        """
        check(_capi.vn_player_seek(self._live_handle(), _buffers.real(seconds)))

    def seek_to_word(self, word: Any) -> None:
        """Moves to a word of the loaded note's transcript (a :class:`~voicenote.TranscriptWord`), 50 ms before its
        start so its first sound is heard, as :meth:`seek`.

        Raises:
            as :meth:`seek`; TypeError: not a word.
        """
        start = getattr(word, "start", None)
        if not isinstance(start, (int, float)) or isinstance(start, bool):
            raise TypeError(f"word must be a voicenote.TranscriptWord, not {type(word).__name__}")
        c_word = _capi.vn_transcript_word(None, float(start), float(getattr(word, "end", start)), 1.0)
        check(_capi.vn_player_seek_to_word(self._live_handle(), ctypes.byref(c_word)))

    def close(self) -> None:
        """Destroys the player: sound stops, the device closes, a byte source is let go; no event is delivered
        after this returns, and every subscription is released. Also allowed inside the player's own callbacks.
        Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.Player closed>"
        where = "event thread" if self._loop is None else "event loop"
        return f"<voicenote.Player {where}>"


def resume_position(location: Union[str, "os.PathLike[str]"], key: Optional[str] = None) -> Optional[float]:
    """Where ``location`` (a path or ``file://`` URL, or an http(s) URL loaded with ``key``) was left, as players
    remember it across processes; None when nothing is remembered.

    Raises:
        InvalidArgumentError: an empty location or key.
        UnsupportedError: another URL scheme.
    """
    if not isinstance(location, (str, os.PathLike)):
        raise TypeError("location must be a str or os.PathLike")
    out = ctypes.c_double(0)
    key_arg = None if key is None else c_text(key, "key")
    check(_capi.vn_resume_position(c_text(location, "location", path=True), key_arg, ctypes.byref(out)))
    return out.value if out.value > 0 else None


def clear_resume_positions() -> None:
    """Forgets every remembered position (open players keep their own)."""
    check(_capi.vn_resume_positions_clear())


def _store_arguments(location: Union[str, "os.PathLike[str]"], key: Optional[str]) -> tuple:
    if not isinstance(location, (str, os.PathLike)):
        raise TypeError("location must be a str or os.PathLike")
    return c_text(location, "location", path=True), None if key is None else c_text(key, "key")


def is_listened(location: Union[str, "os.PathLike[str]"], key: Optional[str] = None) -> bool:
    """Whether ``location`` (a path or ``file://`` URL, or an http(s) URL loaded with ``key``) was heard to 90 % or
    to its end by a player of any process (:class:`NoteListened`).

    Raises:
        InvalidArgumentError: an empty location or key, or a location a player would refuse.
    """
    out = ctypes.c_int(0)
    check(_capi.vn_listened(*_store_arguments(location, key), ctypes.byref(out)))
    return out.value != 0


def set_listened(location: Union[str, "os.PathLike[str]"], listened: bool = True, key: Optional[str] = None) -> None:
    """Marks a note listened or, with ``listened=False``, unlistened again ("mark as unplayed", or a played marker
    from another device). No event is sent.

    Raises:
        InvalidArgumentError: as :func:`is_listened`.
    """
    check(_capi.vn_listened_set(*_store_arguments(location, key), 1 if listened else 0))


def clear_listened() -> None:
    """Forgets every listened mark (the resume positions stay)."""
    check(_capi.vn_listened_clear())
