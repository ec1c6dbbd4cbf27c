"""The one way C events become Python events, for every object (player and queue, recorder, uploader, flow).

A C event is a struct valid only during the callback, whose ``size`` says how much of it the library filled (an
older library fills a shorter struct): :class:`Fields` reads it with those rules, copying what it reads, and
:func:`converter` turns a table of ``type -> builder`` into the ``convert`` function of an event trampoline."""
from __future__ import annotations

import os
from typing import Any, Callable, List, Mapping, Optional

from . import _capi
from .errors import VoiceNoteError, error_class, status_name, strerror


def filled(raw: Any, struct: Any, field: str) -> bool:
    """Whether the library filled ``field`` (an older library fills a shorter struct and says so in ``size``)."""
    descriptor = getattr(struct, field)
    return bool(int(raw.size) >= descriptor.offset + descriptor.size)


def event_failure(status: int, message: Optional[bytes]) -> VoiceNoteError:
    """The exception a FAILED event carries: its status (INTERNAL if not a failure) and message."""
    if status >= 0:  # not a failure status: never expected, but an error object must carry one
        status = _capi.VN_E_INTERNAL
    text = message.decode("utf-8", "replace") if message else strerror(status)
    return error_class(status)(status, status_name(status), text)


class Fields:
    """The fields of one C struct (an event, or a context or view inside one), each read as its default when the
    library did not fill it."""

    __slots__ = ("raw", "struct")

    def __init__(self, raw: Any, struct: Any) -> None:
        self.raw = raw
        self.struct = struct

    def has(self, name: str) -> bool:
        return filled(self.raw, self.struct, name)

    def get(self, name: str, convert: Callable[[Any], Any], default: Any) -> Any:
        """``convert(raw.<name>)`` when filled, else ``default``."""
        return convert(getattr(self.raw, name)) if self.has(name) else default

    def number(self, name: str, default: float = 0.0) -> float:
        return self.get(name, float, default)

    def integer(self, name: str, default: int = 0) -> int:
        return self.get(name, int, default)

    def flag(self, name: str, default: bool = False) -> bool:
        return self.get(name, bool, default)

    def text(self, name: str) -> str:
        """A UTF-8 string field ("" when NULL or not filled)."""
        return self.get(name, lambda raw: raw.decode("utf-8", "replace") if raw else "", "")

    def path(self, name: str) -> str:
        """A path field, decoded as the file system does ("" when NULL or not filled)."""
        return self.get(name, lambda raw: os.fsdecode(raw) if raw else "", "")

    def floats(self, pointer: str, count: str) -> List[float]:
        """The values of a ``const float *`` field and its count field."""
        if not (self.has(pointer) and self.has(count)):
            return []
        values, length = getattr(self.raw, pointer), int(getattr(self.raw, count))
        return [float(value) for value in values[:length]] if values and length else []

    def failure(self) -> VoiceNoteError:
        """The failure in the ``status`` and ``message`` fields."""
        return event_failure(self.integer("status", _capi.VN_E_INTERNAL), self.get("message", lambda raw: raw, None))

    def nested(self, name: str, struct: Any) -> "Fields":
        """A struct field (a context, a view); its own ``size`` says what is filled (nothing when not filled)."""
        if self.has(name):
            return Fields(getattr(self.raw, name), struct)
        return Fields(struct(), struct)  # size 0: every field reads as its default


def converter(struct: Any, builders: Mapping[int, Callable[[Fields], Any]], kind: str = "type") -> Callable[[Any], Any]:
    """The ``convert`` of an event trampoline: the builder for the event's ``kind`` field, called with its fields;
    None for a kind appended by a newer library."""

    def convert(raw: Any) -> Any:
        builder = builders.get(int(getattr(raw, kind)))
        return builder(Fields(raw, struct)) if builder is not None else None

    return convert
