"""The log hook (vn_log_set_handler) through set_log_handler.

The library does not log anything yet, so delivery is exercised by calling the module's log trampoline through
C (ctypes calls the CFUNCTYPE pointer), exactly as the library would.
"""

from __future__ import annotations

import ctypes
import threading

import pytest

from helpers import TIMEOUT

import voicenote
from voicenote import _capi, _events, _log


@pytest.fixture(autouse=True)
def quiet_afterwards():
    """Every test leaves the library quiet (and its handler key released)."""
    yield
    voicenote.set_log_handler(None)


def _current_key() -> int:
    assert _log._log_key is not None
    return _log._log_key


def _emit_through_c(level: int, message: bytes) -> None:
    """Calls the installed trampoline through a C function pointer, as the library does."""
    pointer = ctypes.cast(_log.log_trampoline, ctypes.c_void_p).value
    _capi.vn_log_fn(pointer)(_current_key(), level, message)


def test_levels() -> None:
    """Level constants are the header's numbers, most severe first."""
    assert [voicenote.LOG_ERROR, voicenote.LOG_WARNING, voicenote.LOG_INFO, voicenote.LOG_DEBUG] == [1, 2, 3, 4]
    assert voicenote.LogLevel(2) is voicenote.LOG_WARNING
    assert voicenote.LOG_ERROR < voicenote.LOG_DEBUG


def test_set_replace_and_clear_handler() -> None:
    """A handler receives (level, text); replacing it drops the old one's key; None makes the library quiet."""
    lines = []
    voicenote.set_log_handler(lambda level, text: lines.append((level, text)), max_level=voicenote.LOG_DEBUG)
    first = _current_key()
    _emit_through_c(3, "opened vn_mic at 48000 Hz — ok".encode())
    assert lines == [(3, "opened vn_mic at 48000 Hz — ok")]

    voicenote.set_log_handler(lambda level, text: lines.append(("second", text)))
    assert first not in _events._entries
    _emit_through_c(1, b"\xff broken utf-8")
    assert lines[-1] == ("second", "\ufffd broken utf-8")

    voicenote.set_log_handler(None)
    assert _log._log_key is None
    assert not _events._entries


def test_invalid_level_keeps_previous_handler() -> None:
    """A bad max_level is InvalidArgumentError and leaves the previous handler installed."""
    lines = []
    voicenote.set_log_handler(lambda level, text: lines.append(text))
    key = _current_key()
    for bad in (0, 5, -1):
        with pytest.raises(voicenote.InvalidArgumentError):
            voicenote.set_log_handler(lambda level, text: None, max_level=bad)
    assert _current_key() == key
    assert len(_events._entries) == 1
    _emit_through_c(2, b"still here")
    assert lines == ["still here"]
    with pytest.raises(TypeError):
        voicenote.set_log_handler("not callable")  # type: ignore[arg-type]


def test_handler_exception_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """An exception in the handler is logged on the "voicenote" logger, never raised into C."""
    def handler(level: int, text: str) -> None:
        raise RuntimeError("handler failed")

    voicenote.set_log_handler(handler)
    _emit_through_c(1, b"x")
    assert any(r.name == "voicenote" and r.exc_info and r.exc_info[0] is RuntimeError for r in caplog.records)
    caplog.clear()


def test_handler_from_another_thread() -> None:
    """The trampoline works from a thread that is not the one that installed it."""
    got = threading.Event()
    voicenote.set_log_handler(lambda level, text: got.set() if text == "from thread" else None)
    thread = threading.Thread(target=_emit_through_c, args=(2, b"from thread"))
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive()
    assert got.is_set()
