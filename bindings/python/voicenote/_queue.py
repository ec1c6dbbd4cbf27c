"""``QueuePlayer``: a player that plays the next voice message by itself, asking a data source which one comes next
(``vn_player_set_data_source``) or following a channel's messages (``vn_player_use_messages``); see docs/queue.md.

The data source is a hook, not an event: the library calls it synchronously on the player's decoder thread
(``vn-player``), with no library lock held. As with the other hooks, one module-level trampoline per C type is alive
as long as the module, and ``user_data`` is an integer key into :data:`_data_sources`; the library's ``release``
removes the key once no call of that data source runs any more (when it is replaced or unset, or the player is
destroyed), so the Python callable lives exactly as long as the library may call it.
"""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Union

from . import _capi, _sources
from ._focus import FocusGroup
from ._http import Headers, HTTPOptions, options_handle
from ._loop import EventLoop
from ._messages import Messages, messages_bytes, scope_number
from ._player import Player, url_options
from ._session import ActivateHook, DeactivateHook
from ._strings import c_text
from .errors import check

__all__ = ["QueuePlayer", "QueueLocation", "DataSource", "QueueAnswer"]


@dataclass(frozen=True)
class QueueLocation:
    """A data source's answer with the options :meth:`Player.load` takes for a URL: request headers, a stable key
    and how it is fetched (``vn_queue_answer_set_url``). A bare path or URL may be answered as a plain ``str``.

    ::

        def next_note(current: str) -> Optional[voicenote.QueueLocation]:
            message = following_message(current)
            return None if message is None else voicenote.QueueLocation(
                message.asset_url, headers={"Authorization": token}, key=f"{message.id}/0")

    Raises:
        TypeError: ``location`` is neither a ``str`` nor an ``os.PathLike``; ``key`` not a ``str``; ``http`` not
            an :class:`~voicenote.HTTPOptions`.
        ValueError: ``headers``, ``key`` or ``http`` given with a location that is not an http(s) URL.
    """

    #: A path, a ``file://`` URL or an ``http://`` / ``https://`` URL.
    location: Union[str, "os.PathLike[str]"]
    #: Request headers for a URL (added to those of ``http``), e.g. ``{"Authorization": "Bearer …"}``.
    headers: Optional[Headers] = None
    #: The URL's stable identity (the media cache and the resume position use it instead of the URL).
    key: Optional[str] = None
    #: How the URL is fetched (headers, a CA file, timeouts); None for the defaults.
    http: Optional[HTTPOptions] = None

    def __post_init__(self) -> None:
        if not isinstance(self.location, (str, os.PathLike)):
            raise TypeError(f"location must be a str or an os.PathLike, not {type(self.location).__name__}")
        if self.key is not None and not isinstance(self.key, str):
            raise TypeError(f"key must be a str or None, not {type(self.key).__name__}")
        if self.http is not None and not isinstance(self.http, HTTPOptions):
            raise TypeError(f"http must be a voicenote.HTTPOptions or None, not {type(self.http).__name__}")
        if self.has_url_options:
            _sources.require_url(self.location)

    @property
    def has_url_options(self) -> bool:
        """Whether headers, a key or HTTP options were given (then ``location`` is an http(s) URL)."""
        return self.headers is not None or self.key is not None or self.http is not None


#: What a data source returns: the location that plays next (a path, a ``file://`` or http(s) URL, or a
#: :class:`QueueLocation`), or None to end the queue.
QueueAnswer = Optional[Union[str, "os.PathLike[str]", QueueLocation]]
#: ``data_source(current_location) -> QueueAnswer``: see :attr:`QueuePlayer.data_source`.
DataSource = Callable[[str], QueueAnswer]


# --- the data source hook ------------------------------------------------------------------------------------------


class _DataSource:
    """One Python data source, behind one ``user_data`` key."""

    __slots__ = ("function",)

    def __init__(self, function: DataSource) -> None:
        self.function = function


_keys = itertools.count(1)  # never 0: user_data 0 would reach C as NULL
#: Live data source keys; single dict operations under the GIL, so the trampolines need no lock.
_data_sources: Dict[int, _DataSource] = {}
#: Diagnostics for tests: release calls for keys that were not (or no longer) registered.
unknown_releases = 0


def _answer(answer: Any, result: QueueAnswer) -> None:
    """Writes a data source's result into the library's ``answer`` (nothing for None).

    Raises:
        TypeError: a result of another type.
        VoiceNoteError: the library refused it (an empty location, a key or options it does not take).
        ValueError: a NUL byte in it.
    """
    if result is None:
        return
    if isinstance(result, QueueLocation):
        if result.has_url_options:
            url = c_text(result.location, "URL")
            key = None if result.key is None else c_text(result.key, "key")
            with options_handle(url_options(result.headers, result.http)) as options:
                check(_capi.vn_queue_answer_set_url(answer, url, options, key))
            return
        result = result.location
    if not isinstance(result, (str, os.PathLike)):
        raise TypeError("a data source returns a path or URL (str or os.PathLike), a voicenote.QueueLocation or "
                        f"None, not {type(result).__name__}")
    check(_capi.vn_queue_answer_set_location(answer, c_text(result, "path", path=True)))  # the library tells a URL


class _NextTrampoline:
    """The ``vn_queue_next_fn`` target: looks the data source up by ``user_data``, calls it with the current
    location and writes its answer.

    An exception (raised by the data source, or for a result that cannot be answered) is deliberately let out of
    this call: ctypes then reports it through :func:`sys.unraisablehook` (with this object, whose ``repr`` names
    it, as the ``object``) and returns to the library with nothing answered, which ends the queue. It never reaches
    C."""

    def __call__(self, user_data: Optional[int], current_location: Optional[bytes], current_key: Optional[bytes],
                 answer: Any) -> None:
        source = _data_sources.get(user_data or 0)
        if source is None:
            return  # released meanwhile (never expected): no answer
        location = current_location.decode("utf-8", "replace") if current_location else ""
        _answer(answer, source.function(location))

    def __repr__(self) -> str:
        return "<voicenote.QueuePlayer data source>"


def _release(user_data: Optional[int]) -> None:
    global unknown_releases
    if _data_sources.pop(user_data or 0, None) is None:
        unknown_releases += 1


#: The trampolines (``vn_queue_next_fn`` and its ``vn_release_fn``), alive as long as the module.
next_trampoline = _capi.vn_queue_next_fn(_NextTrampoline())
release_trampoline = _capi.vn_release_fn(_release)


# --- the player ----------------------------------------------------------------------------------------------------


class QueuePlayer(Player):
    """A :class:`Player` that moves on by itself: at the end of an item it asks its data source which location
    comes next and plays it, back to back (no silence between items of one format); no answer stops it, as at the
    end of the queue (docs/queue.md).

    ::

        notes = ["a.ogg", "b.ogg", "c.ogg"]

        def following(current: str) -> Optional[str]:
            index = notes.index(current) + 1
            return notes[index] if index < len(notes) else None

        with voicenote.QueuePlayer(data_source=following) as player:
            player.subscribe(on_event)   # … PlayerItemChanged, PlaybackFinished per item
            player.load(notes[0])

    Or over a channel's messages with Stream's next-item provider: ``player.use_messages(messages, user_id,
    "subsequent-messages-from-user")``. :meth:`next` skips to the next item now.

    Besides the events of a :class:`Player`, a subscriber receives :class:`~voicenote.PlayerItemChanged` for every
    load of another location while a data source is set (the first :meth:`load` too), before the new item's
    context: per item ``PlayerItemChanged(a)`` … ``PlaybackFinished(a)``, ``PlayerItemChanged(b)`` …; an item
    that fails to load (a :class:`~voicenote.PlaybackFailed`) is skipped, the queue asking what follows it. An
    answer naming a location that failed to load since an item last loaded ends the queue instead of looping.

    Without a data source it is a plain :class:`Player`. Closing it (or the interpreter's exit) releases the data
    source; until then the player keeps it (and whatever it refers to) alive.
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
        data_source: Optional[DataSource] = None,
        *,
        remember_positions: bool = True,
        return_to_interrupted: bool = True,
        mpris: Optional[str] = None,
        mpris_desktop_entry: Optional[str] = None,
        pause_other_players: bool = False,
        stream_role: Optional[str] = None,
    ) -> None:
        """Creates a queue player; the arguments are :class:`Player`'s, and:

        Args:
            data_source: the :attr:`data_source`, or None to set one later (or use :meth:`use_messages`).

        Raises:
            TypeError: ``data_source`` is not callable (nothing is made), or another argument of the wrong type.
            The other exceptions of :class:`Player`.
        """
        if data_source is not None and not callable(data_source):
            raise TypeError("data_source must be callable or None")
        self._source_lock = threading.Lock()
        self._data_source: Optional[DataSource] = None
        self._uses_messages = False
        super().__init__(device, device_config, loop, focus_group, on_activate, on_deactivate, progress_interval,
                         resume_limit, remember_positions=remember_positions,
                         return_to_interrupted=return_to_interrupted, mpris=mpris,
                         mpris_desktop_entry=mpris_desktop_entry, pause_other_players=pause_other_players,
                         stream_role=stream_role)
        if data_source is not None:
            try:
                self.data_source = data_source
            except BaseException:
                self.close()
                raise

    @property
    def data_source(self) -> Optional[DataSource]:
        """``data_source(current_location: str) -> str | os.PathLike | QueueLocation | None``: which location plays
        after ``current_location`` (the current item's location as given to :meth:`load`, or as the data source
        answered it), or None to end the queue. Set None to leave queue mode (a plain player again); setting it
        replaces the messages of :meth:`use_messages` too. None while :meth:`use_messages` provides the items, and
        after :meth:`close`.

        A hook: it runs on the player's decoder thread while the player waits for its answer, so it should answer
        quickly, and the same way each time it is asked about an item: it may be asked several times per item (5 s
        before the end, so that a URL is fetched ahead; when the item's audio is decoded to its end; at the end;
        the last answer decides). It may call any method of the player, :meth:`close` included.

        A URL it answers as a ``str`` is fetched without extra HTTP options; answer a :class:`QueueLocation` for
        headers, a key or :class:`~voicenote.HTTPOptions`. An exception it raises (or a result of another type)
        counts as no answer, so the queue ends, and is reported through :func:`sys.unraisablehook`.

        Raises:
            TypeError: (setting) neither callable nor None.
            ValueError: (setting) the player is closed.
        """
        return None if self.closed else self._data_source

    @data_source.setter
    def data_source(self, function: Optional[DataSource]) -> None:
        if function is not None and not callable(function):
            raise TypeError("data_source must be callable or None")
        handle = self._live_handle()
        with self._source_lock:
            if function is None:
                check(_capi.vn_player_set_data_source(handle, None, None, None))
            else:
                key = next(_keys)
                _data_sources[key] = _DataSource(function)
                rc = _capi.vn_player_set_data_source(handle, next_trampoline, key, release_trampoline)
                if rc < 0:
                    # The library runs release at once when the call fails; this only covers a library that would not.
                    _data_sources.pop(key, None)
                    check(rc)
            self._data_source = function
            self._uses_messages = False

    @property
    def uses_messages(self) -> bool:
        """True while the items come from :meth:`use_messages` (until a :attr:`data_source` is set)."""
        return self._uses_messages and not self.closed

    def use_messages(self, messages: Messages, current_user_id: Optional[str], scope: str) -> None:
        """Makes the player a queue player over a channel's messages, with the next-item provider of
        :func:`~voicenote.find_next_item`: after an item whose location is a message's ``voiceRecording``
        ``asset_url``, the one ``scope`` names plays. Replaces the :attr:`data_source`; may be called again at any
        time, also while an item plays, to replace the messages: what comes next follows the new ones.

        A URL that follows on the same origin (scheme, host and port) as the current URL is fetched with the
        current item's HTTP options (its headers and CA file); any other without. An ``asset_url`` that is not an
        http(s) URL is taken as a path or ``file://`` URL.

        Args:
            messages: the channel's messages, oldest first, as :func:`~voicenote.find_next_item` takes them (JSON
                text, or the decoded lists and dicts).
            current_user_id: the current user's id (their own notes are not followed), or None.
            scope: ``"same-message"``, ``"subsequent-messages-from-user"`` or ``"consecutive"`` (see
                :func:`~voicenote.find_next_item`).

        Raises:
            InvalidArgumentError: an unknown scope (also a ``ValueError``).
            FormatError: invalid JSON, or a message or attachment list that is not of its JSON type.
            TooLargeError: over 64 MiB.
            TypeError: an argument of the wrong type, or a value :mod:`json` cannot write.
            ValueError: the player is closed, or a NUL byte in ``current_user_id``.

        On failure the data source set before stays.
        """
        number = scope_number(scope)
        user = None if current_user_id is None else c_text(current_user_id, "current_user_id")
        data = messages_bytes(messages)
        handle = self._live_handle()
        with self._source_lock:
            check(_capi.vn_player_use_messages(handle, data, len(data), user, number))
            self._data_source = None
            self._uses_messages = True

    def set_skip_listened(self, skip: bool = True) -> None:
        """"Play unplayed": with True the queue passes over the notes that are listened (:func:`~voicenote.is_listened`):
        the data source is asked again after each such answer, so the queue plays the unlistened notes in order and
        ends after the last. A load by the host plays what it names, listened or not. Off by default.

        Raises:
            ValueError: the player is closed.
        """
        check(_capi.vn_player_set_skip_listened(self._live_handle(), 1 if skip else 0))

    def next(self) -> None:
        """Skips to the next item now: the data source is asked about the current item (or the one that last
        failed to load) on the player's thread and its answer plays; the current item is left, its position kept
        for a later load. No answer stops the player. Returns at once.

        Raises:
            ValueError: the player is closed.
            MisuseError: no data source (nor messages) is set, or nothing was loaded.
            BusyError: ``on_activate`` refused; when it raised, with that exception as ``__cause__``.
        """
        handle = self._live_handle()
        self._call_activating(lambda: _capi.vn_player_next(handle))

    def close(self) -> None:
        """Destroys the player as :meth:`Player.close` does; the data source is released (no call of it runs
        after this returns, unless this is called from inside it: then once it returns). Also allowed inside the
        data source and the player's callbacks. Idempotent."""
        super().close()
        self._data_source = None

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.QueuePlayer closed>"
        where = "event thread" if self.loop is None else "event loop"
        mode = "messages" if self._uses_messages else "data source" if self._data_source is not None else "no source"
        return f"<voicenote.QueuePlayer {where}, {mode}>"
