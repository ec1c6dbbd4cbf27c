"""Which voice message plays next, in a channel's messages (``vn_find_next_item``, Stream's next-item provider)."""

from __future__ import annotations

from typing import Dict, Optional, Union

from . import _capi
from ._strings import c_text, json_argument, json_bytes, owned_text
from .errors import invalid_argument

__all__ = ["find_next_item", "NEXT_SCOPES", "Messages", "messages_bytes", "scope_number"]

#: The scopes :func:`find_next_item` takes, by name (``vn_next_scope``).
NEXT_SCOPES: Dict[str, int] = {
    "same-message": _capi.VN_NEXT_SAME_MESSAGE,
    "subsequent-messages-from-user": _capi.VN_NEXT_SUBSEQUENT_FROM_USER,
    "consecutive": _capi.VN_NEXT_CONSECUTIVE,
}

#: A channel's messages: JSON text (``str`` or UTF-8 bytes), or the decoded lists and dicts.
Messages = Union[str, bytes, bytearray, memoryview, list, dict]


def scope_number(scope: str) -> int:
    """The ``vn_next_scope`` number of a scope name.

    Raises:
        InvalidArgumentError: an unknown name (also a ``ValueError``).
        TypeError: not a ``str``.
    """
    if not isinstance(scope, str):
        raise TypeError(f"scope must be a str, not {type(scope).__name__}")
    number = NEXT_SCOPES.get(scope)
    if number is None:
        raise invalid_argument(f"unknown scope {scope!r} (one of {', '.join(NEXT_SCOPES)})")
    return number


def messages_bytes(messages: Messages) -> bytes:
    """The messages as the ``(messages_json, length)`` arguments take them: JSON text as UTF-8 bytes, lists and
    dicts written with :mod:`json` first.

    Raises:
        TypeError: neither JSON text nor lists and dicts, or a value :mod:`json` cannot write.
        ValueError: a circular reference.
    """
    if isinstance(messages, (list, dict)):
        return json_bytes(messages)
    return json_argument(messages, "messages")


def find_next_item(messages: Messages, current_url: Optional[str], current_user_id: Optional[str],
                   scope: str) -> Optional[str]:
    """The ``asset_url`` of the voice message to play after ``current_url``, or None when nothing follows.

    The current one is found in the newest message having it as a ``voiceRecording`` attachment's ``asset_url``;
    nothing follows when it is not found, or when the current user sent it. Other attachment types are skipped.

    Args:
        messages: the channel's messages in chronological order (oldest first, as Stream's REST API returns them):
            an array of ``{"id", "user": {"id"}, "attachments": [{"type", "asset_url", …}]}``, or an object with
            such a ``messages`` array; as JSON text (``str`` or UTF-8 bytes, at most 64 MiB) or as the decoded
            lists and dicts (written with ``json.dumps(..., ensure_ascii=False)``).
        current_url: the location playing now, or None when nothing plays (then nothing follows; the messages are
            still checked).
        current_user_id: the current user's id, or None.
        scope: ``"same-message"`` (the next voice recording of the same message only),
            ``"subsequent-messages-from-user"`` (else the first of the message right after it, when the same author
            sent it) or ``"consecutive"`` (the next one in time from anyone but the current user, up to a message
            with none).

    Raises:
        InvalidArgumentError: an unknown scope (also a ``ValueError``).
        FormatError: invalid JSON, or a message or attachment list that is not of its JSON type.
        TooLargeError: over 64 MiB.
        TypeError: an argument of the wrong type, or a value :mod:`json` cannot write.
        ValueError: a NUL byte in ``current_url`` or ``current_user_id``.
    """
    number = scope_number(scope)
    url = None if current_url is None else c_text(current_url, "current_url")
    user = None if current_user_id is None else c_text(current_user_id, "current_user_id")
    data = messages_bytes(messages)
    return owned_text(lambda out: _capi.vn_find_next_item(data, len(data), url, user, number, out))
