"""Transcripts (docs/transcripts.md): a note's words with their times, recognised on this machine by PocketSphinx
(:class:`PocketSphinx`) or by a recogniser written in Python (:class:`HostRecogniser`), through ``vn_transcriber``
and ``vn_transcription``. :func:`transcribe` is the one-call form; :class:`Transcription` tells words as they are
recognised."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import itertools
import json
import logging
import os
import weakref
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

from . import _capi, _cevents, _events, _lifecycle
from ._events import Subscription
from ._http import HTTPOptions, options_handle
from ._loop import EventLoop
from ._strings import c_text, take_owned
from .errors import VoiceNoteError, check, error_for

__all__ = ["TranscriptWord", "Transcript", "TranscriptionEvent", "TranscriptionEventKind", "Recogniser",
           "PocketSphinx", "HostRecogniser", "Transcription", "transcribe"]

_log = logging.getLogger("voicenote")


@dataclasses.dataclass(frozen=True)
class TranscriptWord:
    """A recognised word."""

    #: The word (no spaces).
    text: str
    #: Where it begins, in seconds from the note's start.
    start: float
    #: Where it ends, in seconds.
    end: float
    #: How sure the recogniser is, 0…1.
    confidence: float


@dataclasses.dataclass(frozen=True)
class Transcript:
    """A note's words, in order, and the recogniser that heard them."""

    #: The recogniser's identity (``pocketsphinx/en-us``, or a host recogniser's).
    recogniser: str
    #: The words, by start time.
    words: Tuple[TranscriptWord, ...]

    @property
    def text(self) -> str:
        """The words joined by spaces: what a receiver without a recogniser reads."""
        return " ".join(word.text for word in self.words)

    def word_at(self, seconds: float) -> Optional[int]:
        """The index of the word being said at ``seconds`` (the last one starting at or before it), or None."""
        found = None
        for index, word in enumerate(self.words):
            if word.start <= seconds:
                found = index
        return found

    @classmethod
    def from_json(cls, text: str) -> "Transcript":
        """A transcript from the JSON of ``vn_transcription_wait`` (or ``voicenote transcribe --json``)."""
        value = json.loads(text)
        words = tuple(TranscriptWord(str(w["text"]), float(w["start"]), float(w["end"]), float(w["confidence"]))
                      for w in value["words"])
        return cls(str(value["recogniser"]), words)


class TranscriptionEventKind(enum.IntEnum):
    """What a :class:`TranscriptionEvent` tells (``vn_transcription_event_kind``)."""

    WORDS = 0  #: words recognised since the last event
    FINISHED = 1  #: the whole transcript; the last event
    FAILED = 2  #: the transcription failed (:class:`~voicenote.CancelledError` after a cancel); the last event


@dataclasses.dataclass(frozen=True)
class TranscriptionEvent:
    """A transcription's event; everything copied out of the library."""

    kind: TranscriptionEventKind
    #: ``WORDS``: the new words; ``FINISHED``: every word; else empty.
    words: Tuple[TranscriptWord, ...] = ()
    #: ``FINISHED``: the words joined by spaces; else "".
    text: str = ""
    #: ``FINISHED``: read from the media cache (no audio decoded).
    cached: bool = False
    #: ``FAILED``: why; else None.
    error: Optional[VoiceNoteError] = None
    #: ``FINISHED``: the identity of the recogniser that made it; else "".
    recogniser: str = ""


def _words(fields: _cevents.Fields) -> Tuple[TranscriptWord, ...]:
    if not (fields.has("words") and fields.has("word_count")):
        return ()
    raw, count = fields.raw.words, int(fields.raw.word_count)
    return tuple(TranscriptWord(raw[i].text.decode("utf-8", "replace") if raw[i].text else "", float(raw[i].start_s),
                                float(raw[i].end_s), float(raw[i].confidence)) for i in range(count)) if raw else ()


_convert_event = _cevents.converter(_capi.vn_transcription_event, {
    _capi.VN_TRANSCRIPTION_EVENT_WORDS: lambda f: TranscriptionEvent(TranscriptionEventKind.WORDS, _words(f)),
    _capi.VN_TRANSCRIPTION_EVENT_FINISHED: lambda f: TranscriptionEvent(
        TranscriptionEventKind.FINISHED, _words(f), f.text("text"), f.flag("cached"), recogniser=f.text("recogniser")),
    _capi.VN_TRANSCRIPTION_EVENT_FAILED: lambda f: TranscriptionEvent(
        TranscriptionEventKind.FAILED, error=f.failure()),
}, kind="kind")
_event_trampoline = _events.event_trampoline(_capi.vn_transcription_event_fn, _convert_event,
                                             "transcription event callback")


class Recogniser(_lifecycle.Closing):
    """A speech recogniser (``vn_transcriber``): :class:`PocketSphinx`, or a :class:`HostRecogniser`. One serves
    any number of transcriptions, also at once."""

    def close(self) -> None:
        """Lets the recogniser go; transcriptions using it go on with it to their end. Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)


class PocketSphinx(Recogniser):
    """PocketSphinx (Debian: ``libpocketsphinx3`` with the model ``pocketsphinx-en-us``), loaded when the first
    transcription begins: where it is missing, transcriptions fail with :class:`~voicenote.UnsupportedError` naming
    what to install, and nothing else changes.

    Args:
        model_dir: the directory holding the model, laid out as Debian's; None for ``/usr/share/pocketsphinx/model``.
        language: the model's name; None for ``en-us``.
    """

    def __init__(self, model_dir: Optional[Union[str, "os.PathLike[str]"]] = None, language: Optional[str] = None) -> None:
        handle = _capi.vn_transcriber_p()
        check(_capi.vn_transcriber_create_pocketsphinx(
            c_text(os.fspath(model_dir), "model_dir", path=True) if model_dir is not None else None,
            c_text(language, "language") if language is not None else None, ctypes.byref(handle)))
        self._own(handle, _capi.vn_transcriber_destroy, handle)


class HostRecogniser(Recogniser):
    """A recogniser written in Python (whisper, a server, a test's script): subclass it and define :meth:`begin`,
    which returns a session object with ``feed(samples) -> iterable of TranscriptWord`` (``samples`` a
    ``memoryview`` of mono int16 at :attr:`sample_rate`, valid during the call) and ``finish() -> iterable of
    TranscriptWord``. The library decodes each note, brings it to that format and feeds it in pieces of 0.1 s on
    the transcription's thread; the words are told as they come and kept in the media cache under ``identity``.
    An exception in a hook fails the transcription (:class:`~voicenote.VoiceNoteError` subclasses keep their
    status; others become ``VN_E_INTERNAL``, logged on the ``"voicenote"`` logger).

    Args:
        identity: names the recogniser and its model; a transcript kept by another identity is never served.
        sample_rate: the rate the sessions take, 8000…48000 Hz.
    """

    def __init__(self, identity: str, sample_rate: int = 16000) -> None:
        self.identity = identity
        self.sample_rate = int(sample_rate)
        key = next(_keys)
        _hosts[key] = weakref.ref(self)  # weak: the object's own finalizer destroys the C recogniser
        handle = _capi.vn_transcriber_p()
        status = _capi.vn_transcriber_create_callbacks(
            c_text(identity, "identity"), self.sample_rate, _begin_trampoline, _feed_trampoline, _finish_trampoline,
            _end_trampoline, key, _release_trampoline, ctypes.byref(handle))
        if status < 0:
            _hosts.pop(key, None)
            raise error_for(status)
        self._own(handle, _capi.vn_transcriber_destroy, handle)

    def begin(self) -> Any:
        """A new session for one note (see the class)."""
        raise NotImplementedError


_keys = itertools.count(1)
#: Host recognisers by key (weakly; the key lives until the library's release) and their sessions by key.
_hosts: Dict[int, "weakref.ReferenceType[HostRecogniser]"] = {}
_sessions: Dict[int, Any] = {}


def _failed(error: BaseException, hook: str) -> int:
    if isinstance(error, VoiceNoteError):
        return int(error.status)
    _log.error("voicenote: a host recogniser's %s hook raised", hook, exc_info=error)
    return _capi.VN_E_INTERNAL


def _add(words_handle: Any, found: Optional[Iterable[TranscriptWord]]) -> None:
    for word in found or ():
        check(_capi.vn_transcript_words_add(words_handle, c_text(word.text, "text"), float(word.start),
                                            float(word.end), float(word.confidence)))


def _begin(user_data: Optional[int], out_session: Any) -> int:
    reference = _hosts.get(user_data or 0)
    host = reference() if reference is not None else None
    if host is None:
        return _capi.VN_E_MISUSE
    try:
        session = host.begin()
    except BaseException as error:  # noqa: BLE001 - never raise into C
        return _failed(error, "begin")
    key = next(_keys)
    _sessions[key] = session
    out_session[0] = key
    return _capi.VN_OK


def _feed(user_data: Optional[int], session: Optional[int], samples: Any, count: int, words: Any) -> int:
    try:
        if count:
            view = memoryview(ctypes.cast(samples, ctypes.POINTER(ctypes.c_int16 * count)).contents).cast("B").cast("h")
        else:
            view = memoryview(b"").cast("h")
        _add(words, _sessions[session or 0].feed(view))
        return _capi.VN_OK
    except BaseException as error:  # noqa: BLE001
        return _failed(error, "feed")


def _finish(user_data: Optional[int], session: Optional[int], words: Any) -> int:
    try:
        _add(words, _sessions[session or 0].finish())
        return _capi.VN_OK
    except BaseException as error:  # noqa: BLE001
        return _failed(error, "finish")


def _end(user_data: Optional[int], session: Optional[int]) -> None:
    _sessions.pop(session or 0, None)


def _release(user_data: Optional[int]) -> None:
    _hosts.pop(user_data or 0, None)


_begin_trampoline = _capi.vn_transcriber_begin_fn(_begin)
_feed_trampoline = _capi.vn_transcriber_feed_fn(_feed)
_finish_trampoline = _capi.vn_transcriber_finish_fn(_finish)
_end_trampoline = _capi.vn_transcriber_end_fn(_end)
_release_trampoline = _capi.vn_release_fn(_release)


class Transcription(_lifecycle.Closing):
    """One note's transcription (``vn_transcription``): subscribe, :meth:`start`, then words arrive as each
    utterance is recognised and one ``FINISHED`` (or ``FAILED``) ends it. The transcript is kept in the media cache
    (beside a URL's media; under a local file's identity) with the recogniser's identity: asking again is a cache
    read. A damaged note finishes with the words heard before the damage, a silent one with none.

    Args:
        location: a file's path, a ``file://`` URL or an http(s) URL.
        recogniser: who recognises (None: a :class:`PocketSphinx` with Debian's English model).
        http: how a URL is fetched. loop: an :class:`~voicenote.EventLoop` to deliver events on (None: the
            library's event thread).
    """

    def __init__(self, location: Union[str, "os.PathLike[str]"], recogniser: Optional[Recogniser] = None, *,
                 http: Optional[HTTPOptions] = None, loop: Optional[EventLoop] = None) -> None:
        if recogniser is not None and not isinstance(recogniser, Recogniser):
            raise TypeError("recogniser must be a voicenote.Recogniser or None")
        if loop is not None and not isinstance(loop, EventLoop):
            raise TypeError("loop must be a voicenote.EventLoop or None")
        self._recogniser = recogniser if recogniser is not None else PocketSphinx()
        self._loop = loop
        handle = _capi.vn_transcription_p()
        text = location if isinstance(location, str) else os.fspath(location)
        with options_handle(http) as options:
            check(_capi.vn_transcription_create(c_text(text, "location", path=True), self._recogniser._live_handle(),
                                                options, loop._handle_for_child() if loop is not None else None,
                                                ctypes.byref(handle)))
        self._own(handle, _capi.vn_transcription_destroy, handle)

    def subscribe(self, callback: Callable[[TranscriptionEvent], Any], *,
                  on_release: Optional[Callable[[], Any]] = None) -> Subscription:
        """Calls ``callback(event)`` for each :class:`TranscriptionEvent`, in order; exceptions it raises are logged
        and ignored."""
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_transcription_subscribe(handle, fn, key, release, ctypes.byref(out)),
            _event_trampoline, callback, on_release)

    def start(self) -> None:
        """Starts it on its own thread; returns at once. MisuseError when started before."""
        check(_capi.vn_transcription_start(self._live_handle()))

    def cancel(self) -> None:
        """Ends it at its next piece of audio with a ``FAILED`` event (:class:`~voicenote.CancelledError`)."""
        check(_capi.vn_transcription_cancel(self._live_handle()))

    def wait(self, timeout: Optional[float] = None) -> Transcript:
        """Waits for the end (the GIL released) and returns the transcript.

        Raises:
            BusyError: ``timeout`` seconds passed first. The failure's error when it failed.
        """
        milliseconds = -1 if timeout is None else max(0, min(int(timeout * 1000), 2**31 - 1))
        owned = ctypes.c_void_p()
        check(_capi.vn_transcription_wait(self._live_handle(), milliseconds, ctypes.byref(owned)))
        return Transcript.from_json(take_owned(owned.value) or "{}")

    def close(self) -> None:
        """Cancels and destroys it: no callback runs after this returns. Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)


def transcribe(location: Union[str, "os.PathLike[str]"], recogniser: Optional[Recogniser] = None, *,
               http: Optional[HTTPOptions] = None, timeout: Optional[float] = None) -> Transcript:
    """The transcript of one note (see :class:`Transcription`), waited for with the GIL released.

    Raises:
        UnsupportedError: PocketSphinx or its model is missing (the message names the packages). NotFoundError,
        FormatError, network errors: the note cannot be read. BusyError: ``timeout`` passed first (the
        transcription is cancelled).
    """
    with Transcription(location, recogniser, http=http) as job:
        job.start()
        return job.wait(timeout)
