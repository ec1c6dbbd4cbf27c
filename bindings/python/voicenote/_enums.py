"""What the enums that public functions also take by name share: ``parse``, which reads a member from the member
itself, its name (any case) or its number."""

from __future__ import annotations

import enum
import re
from typing import Any, Type, TypeVar

__all__ = ["NamedIntEnum"]

E = TypeVar("E", bound="NamedIntEnum")


class NamedIntEnum(enum.IntEnum):
    """An ``IntEnum`` (no members of its own) whose members can be given by name. Messages call the kind by the
    class's name in words (``UploadMode``: "upload mode") and the argument by its last word ("mode")."""

    @classmethod
    def parse(cls: Type[E], value: Any) -> E:
        """The member for a member, a name (any case) or a number.

        Raises:
            ValueError: an unknown name or number.
            TypeError: neither a string nor an integer (``bool`` is not taken for a number).
        """
        if isinstance(value, cls):
            return value
        kind = re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()
        if isinstance(value, str):
            try:
                return cls[value.upper()]
            except KeyError:
                names = ", ".join(member.name.lower() for member in cls)
                raise ValueError(f"unknown {kind} {value!r} (expected one of {names})") from None
        if isinstance(value, int) and not isinstance(value, bool):
            return cls(value)
        article = "an" if cls.__name__[:1] in "AEIOU" else "a"
        raise TypeError(
            f"{kind.split()[-1]} must be {article} {cls.__name__}, a name or a number, not {type(value).__name__}"
        )
