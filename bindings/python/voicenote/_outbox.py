"""``Outbox``: a durable outbox of notes to upload (``vn_outbox``): copied and recorded in SQLite before
:meth:`Outbox.add` returns, sent by a library thread, resumed and retried across crashes, each uploaded payload
offered until the host acknowledges it."""

from __future__ import annotations

import ctypes
import dataclasses
import enum
import json
import os
from typing import Any, Callable, Dict, List, Optional, Union

from . import _capi, _cevents, _events, _lifecycle
from ._events import Subscription
from ._http import Headers, HTTPOptions
from ._loop import EventLoop
from ._payload import VoiceRecordingPayload
from ._strings import c_text, take_owned
from ._upload_events import Query, UploadMode
from ._upload_options import create_with_upload_options
from .errors import VoiceNoteError, check

__all__ = ["Outbox", "OutboxItem", "OutboxEvent", "OutboxEventKind", "OutboxState"]


class OutboxState(enum.Enum):
    """Where an item of the outbox is."""

    QUEUED = "queued"  #: waiting for its turn (new, or found mid-send at the start)
    SENDING = "sending"  #: being sent now
    WAITING = "waiting"  #: its last attempt failed in a way that may pass; tried again after a back-off
    FAILED = "failed"  #: refused for good; kept until :meth:`Outbox.retry` or :meth:`Outbox.cancel`
    UPLOADED = "uploaded"  #: uploaded; offered until :meth:`Outbox.acknowledge` removes it
    HELD = "held"  #: sent by a flow's uploader while recorded; the outbox sends it only if that fails


class OutboxEventKind(enum.IntEnum):
    """What an :class:`OutboxEvent` tells (``vn_outbox_event_kind``)."""

    ADDED = 0
    SENDING = 1
    WAITING = 2
    FAILED = 3
    UPLOADED = 4
    REMOVED = 5


@dataclasses.dataclass(frozen=True)
class OutboxEvent:
    """An outbox's event; everything copied out of the library."""

    #: What happened.
    kind: OutboxEventKind
    #: The item's id.
    id: int
    #: ``SENDING``: 0 … 1; else 0.
    progress: float = 0.0
    #: ``WAITING``: seconds until the next attempt; else 0.
    retry_in: float = 0.0
    #: ``WAITING``, ``FAILED``: the failure (its ``http_code`` attribute names the HTTP status, or None); else None.
    error: Optional[VoiceNoteError] = None
    #: ``UPLOADED``: the uploaded payload; send the message with it, then :meth:`Outbox.acknowledge`.
    payload: Optional[VoiceRecordingPayload] = None


@dataclasses.dataclass(frozen=True)
class OutboxItem:
    """One note in the outbox, as :meth:`Outbox.items` lists it."""

    #: The item's id (unique in its outbox, never reused).
    id: int
    #: Where it is.
    state: OutboxState
    #: The outbox's own copy of the note.
    path: str
    #: How many attempts have begun.
    attempts: int
    #: The ``Idempotency-Key`` every attempt carries (multipart and raw).
    key: str
    #: Where the server has it reserved (a tus URL, an ``mxc://`` URI), or None.
    reserved: Optional[str] = None
    #: The last failure (``WAITING``, ``FAILED``): ``{"status": "VN_E_…", "message": …, "http": nnn}``, or None.
    error: Optional[Dict[str, Any]] = None
    #: The payload the upload completes, as given to :meth:`Outbox.add`, or None.
    payload: Optional[VoiceRecordingPayload] = None
    #: ``UPLOADED``: the uploaded payload; else None.
    uploaded: Optional[VoiceRecordingPayload] = None
    #: The endpoint it was added for (it is sent only by an outbox opened for this endpoint and mode).
    endpoint: str = ""
    #: The upload mode it was added for (``"multipart"``, ``"raw"``, ``"matrix"``, ``"tus"``).
    mode: str = ""

    @classmethod
    def _from_json(cls, value: Dict[str, Any]) -> "OutboxItem":
        def payload(name: str) -> Optional[VoiceRecordingPayload]:
            given = value.get(name)
            return VoiceRecordingPayload.from_json(json.dumps(given)) if given is not None else None

        return cls(int(value["id"]), OutboxState(value["state"]), value["path"], int(value["attempts"]),
                   value["key"], value.get("reserved"), value.get("error"), payload("payload"), payload("uploaded"),
                   value.get("endpoint", ""), value.get("mode", ""))


def _event(kind: OutboxEventKind) -> Callable[[_cevents.Fields], OutboxEvent]:
    def build(fields: _cevents.Fields) -> OutboxEvent:
        error = None
        if kind in (OutboxEventKind.WAITING, OutboxEventKind.FAILED):
            error = fields.failure()
            code = fields.integer("http_code")
            error.http_code = code or None  # type: ignore[attr-defined]
        text = fields.get("payload_json", lambda raw: raw, None) if kind is OutboxEventKind.UPLOADED else None
        payload = VoiceRecordingPayload.from_json(text) if text else None
        return OutboxEvent(kind, fields.integer("id"), fields.number("progress"), fields.number("retry_in"), error,
                           payload)

    return build


_convert_event = _cevents.converter(_capi.vn_outbox_event, {int(kind): _event(kind) for kind in OutboxEventKind},
                                    kind="kind")
_outbox_event_trampoline = _events.event_trampoline(_capi.vn_outbox_event_fn, _convert_event, "outbox event callback")


class Outbox(_lifecycle.Closing):
    """A durable outbox kept in ``directory``, sending to ``endpoint`` (the arguments of
    :class:`~voicenote.Uploader` say how).

    ::

        with voicenote.Outbox(os.path.expanduser("~/.local/share/mychat/outbox"), homeserver, mode="matrix",
                              headers={"Authorization": f"Bearer {token}"}) as outbox:
            outbox.subscribe(on_event)  # UPLOADED: send the message, then outbox.acknowledge(event.id)
            outbox.start()
            outbox.add(finished.path)

    :meth:`add` copies the note into the outbox and records it (SQLite, synced write-ahead log) before it returns;
    one library thread sends the items oldest first. A crash, SIGKILL or power loss loses nothing: at the next start
    an item found mid-send goes on where the server allows (a tus offset, a Matrix content URI reserved once) or
    starts again (multipart and raw, with the note's ``Idempotency-Key``). Transient failures (the link, 5xx, 408,
    429) wait with exponential back-off and jitter (``retry_base`` doubling up to ``retry_cap`` seconds, times a
    random 0.5 … 1); permanent ones stay ``FAILED`` until :meth:`retry` or :meth:`cancel`. Every uploaded payload is
    an ``UPLOADED`` event, offered again at every start until :meth:`acknowledge`. Credentials are given at each
    start, never written to disk. One outbox per directory at a time (:class:`~voicenote.BusyError`).

    Raises (creating):
        BusyError: another outbox has the directory open. FormatError: its database is damaged (left as it is).
        UnsupportedError: SQLite cannot be loaded, or the database is a later voicenote's. AccessDeniedError: the
        directory cannot be trusted (a symlink, writable by others). And the :class:`~voicenote.Uploader`'s.
    """

    def __init__(
        self,
        directory: Union[str, "os.PathLike[str]"],
        endpoint: str,
        headers: Optional[Headers] = None,
        query: Optional[Query] = None,
        mode: Union[UploadMode, str, int] = "multipart",
        url_key: Optional[str] = None,
        ca_file: Optional[Union[str, "os.PathLike[str]"]] = None,
        type: str = "voiceRecording",
        max_bytes: Optional[int] = None,
        http: Optional[HTTPOptions] = None,
        loop: Optional[EventLoop] = None,
        retry_base: float = 1.0,
        retry_cap: float = 300.0,
    ) -> None:
        if http is not None and not isinstance(http, HTTPOptions):
            raise TypeError("http must be a voicenote.HTTPOptions or None")
        if loop is not None and not isinstance(loop, EventLoop):
            raise TypeError("loop must be a voicenote.EventLoop or None")
        folder = c_text(os.fspath(directory), "directory")

        def make(url: bytes, options: Any) -> Any:
            handle = _capi.vn_outbox_p()
            check(_capi.vn_outbox_create(folder, url, options, ctypes.byref(handle)))
            return handle

        handle, self._endpoint, self._mode = create_with_upload_options(
            make, endpoint, headers, query, mode, url_key, ca_file, type, max_bytes, http, loop)
        self._directory = os.fsdecode(folder)
        self._loop = loop
        self._own(handle, _capi.vn_outbox_destroy, handle)
        try:
            check(_capi.vn_outbox_set_retry(handle, float(retry_base), float(retry_cap)))
        except BaseException:
            self.close()
            raise

    @property
    def directory(self) -> str:
        """The outbox's directory."""
        return self._directory

    @property
    def endpoint(self) -> str:
        """The URL uploads go to."""
        return self._endpoint

    def subscribe(self, callback: Callable[[OutboxEvent], Any], *,
                  on_release: Optional[Callable[[], Any]] = None) -> Subscription:
        """Calls ``callback(event)`` for each :class:`OutboxEvent` after this returns, in order (subscribe before
        :meth:`start` to see the hand-offs it offers again). Exceptions raised by ``callback`` are logged on the
        ``"voicenote"`` logger and ignored.

        Raises:
            ValueError: the outbox is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_outbox_subscribe(handle, fn, key, release, ctypes.byref(out)),
            _outbox_event_trampoline, callback, on_release)

    def start(self) -> None:
        """Starts sending: an ``UPLOADED`` event for every item not yet acknowledged, then the queue.

        Raises:
            MisuseError: started already. ValueError: the outbox is closed.
        """
        check(_capi.vn_outbox_start(self._live_handle()))

    def add(self, path: Union[str, "os.PathLike[str]"], payload: Optional[VoiceRecordingPayload] = None) -> int:
        """Adds a note (copied: the caller may delete its own file once this returns), durable on return; returns
        its id. ``payload``: the payload the upload completes, or None to make it from the file.

        Raises:
            NotFoundError: no such file. InvalidArgumentError: not a regular file. NoSpaceError: the disk is full
            (nothing was added). ValueError: the outbox is closed.
        """
        if payload is not None and not isinstance(payload, VoiceRecordingPayload):
            raise TypeError(f"payload must be a voicenote.VoiceRecordingPayload or None, not {type(payload).__name__}")
        handle = self._live_handle()
        out = ctypes.c_int64()
        check(_capi.vn_outbox_add(handle, c_text(os.fspath(path), "path"),
                                  payload._handle_for_call() if payload is not None else None, ctypes.byref(out)))
        return int(out.value)

    def items(self) -> List[OutboxItem]:
        """Every item, oldest first.

        Raises:
            ValueError: the outbox is closed.
        """
        owned = ctypes.c_void_p()
        check(_capi.vn_outbox_copy_items(self._live_handle(), ctypes.byref(owned)))
        return [OutboxItem._from_json(value) for value in json.loads(take_owned(owned.value) or "[]")]

    def acknowledge(self, id: int) -> None:  # noqa: A002 - the item's id
        """The host sent the message of uploaded item ``id``: the item and its copy go.

        Raises:
            NotFoundError: item ``id`` is not ``UPLOADED``. ValueError: the outbox is closed.
        """
        check(_capi.vn_outbox_acknowledge(self._live_handle(), int(id)))

    def retry(self, id: int) -> None:  # noqa: A002
        """Sends a ``FAILED`` or ``WAITING`` item again now.

        Raises:
            NotFoundError: item ``id`` is neither. ValueError: the outbox is closed.
        """
        check(_capi.vn_outbox_retry(self._live_handle(), int(id)))

    def cancel(self, id: int) -> None:  # noqa: A002
        """Removes item ``id`` whatever its state (one being sent is cancelled first).

        Raises:
            NotFoundError: no such item. ValueError: the outbox is closed.
        """
        check(_capi.vn_outbox_cancel(self._live_handle(), int(id)))

    def close(self) -> None:
        """Stops sending (an item being sent goes on at the next start) and closes the database; no callback runs
        after this returns. Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)
