"""Finishing takes a crash left behind (``vn_recover``). docs/recorder.md, "why nothing captured is lost"."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import List, Optional, Union

from . import _capi, _collect
from ._strings import c_text
from .errors import VoiceNoteError, error_class, status_name, strerror

__all__ = ["RecoveredFile", "recover"]


@dataclass(frozen=True)
class RecoveredFile:
    """One ``.part`` file :func:`recover` handled."""

    #: The finished file (``<UUID>.ogg`` or ``.aac``), or the ``.part`` left in place when it failed.
    path: str
    #: Seconds of audio kept (0.0 on failure).
    duration: float
    #: Bytes on disk (0 on failure).
    size: int
    #: 0 (``VN_OK``) when it was recovered, else the negative status (``VN_E_FORMAT`` when it held no audio).
    status: int
    #: None when it was recovered, else the exception for ``status`` (not raised).
    error: Optional[VoiceNoteError]

    @property
    def recovered(self) -> bool:
        """True when the file was made a valid finished recording."""
        return self.status == _capi.VN_OK


def _recovered_file(path: Optional[bytes], duration: float, size: int, status: int) -> RecoveredFile:
    error: Optional[VoiceNoteError] = None
    if status < 0:
        error = error_class(status)(status, status_name(status), strerror(status))
    return RecoveredFile(os.fsdecode(path) if path else "", float(duration), int(size), int(status), error)


def _file(user_data: Optional[int], path: Optional[bytes], duration: float, size: int, status: int) -> None:
    _collect.add(user_data, lambda: _recovered_file(path, duration, size, status))


#: The trampoline (``vn_recovered_fn``), alive as long as the module.
recovered_trampoline = _capi.vn_recovered_fn(_file)


def recover(
    directory: Optional[Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes]] = None,
) -> List[RecoveredFile]:
    """Finishes the takes a crash (or a killed process) left in ``directory``: every ``*.ogg.part`` and
    ``*.aac.part`` keeps each whole page or frame, gets an end-of-stream mark and is renamed to ``.ogg``/``.aac``.

    Call it at start-up, before a :class:`~voicenote.Recorder` writes into the same directory. A file that cannot
    be recovered (``VN_E_FORMAT`` when it held no audio) is reported with its status and left in place; that does
    not make the call fail.

    Args:
        directory: the recordings directory, or None for the default one (as :class:`~voicenote.Recorder`'s).

    Returns:
        One :class:`RecoveredFile` per ``.part`` file, the recovered ones first; ``[]`` when there was none.

    Raises:
        NotFoundError: the directory does not exist (also a ``FileNotFoundError``).
        AccessDeniedError: it cannot be read or written.
        IOFailedError: reading or renaming failed.
        ValueError: the path contains a NUL byte.
    """
    directory_arg = c_text(directory, "path", path=True) if directory is not None else None
    return _collect.collect(lambda key: _capi.vn_recover(directory_arg, recovered_trampoline, key, None))
