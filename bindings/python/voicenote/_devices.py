"""Audio devices: ``vn_devices_enumerate``, with its trampoline beside it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from . import _capi, _collect

__all__ = ["Device", "devices"]


@dataclass(frozen=True)
class Device:
    """One ALSA PCM device, as :func:`devices` lists it."""

    #: The ALSA name to open (``"default"``, ``"pulse"``, ``"hw:CARD=...,DEV=0"``, ...): what
    #: :class:`~voicenote.Recorder`'s ``device`` takes.
    name: str
    #: ALSA's one-line description.
    description: str
    #: True when it can record.
    capture: bool
    #: True when it can play.
    playback: bool


# --- device enumeration ------------------------------------------------------------------------------------------


def _text(raw: Optional[bytes]) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


def _device(user_data: Optional[int], name: Optional[bytes], description: Optional[bytes], can_capture: int,
            can_play: int) -> None:
    _collect.add(user_data, lambda: Device(_text(name), _text(description), bool(can_capture), bool(can_play)))


#: The trampoline (``vn_device_fn``), alive as long as the module.
device_trampoline = _capi.vn_device_fn(_device)


def devices() -> List[Device]:
    """The ALSA PCM devices, capture and playback, with their descriptions, in ALSA's order.

    Names from the system's ALSA configuration only; a device defined in a ``device_config`` text is not listed.
    The hook runs on the calling thread; the GIL is released while ALSA is asked.

    Returns:
        A list of :class:`Device`.
    """
    return _collect.collect(lambda key: _capi.vn_devices_enumerate(device_trampoline, key))


# --- session hooks -----------------------------------------------------------------------------------------------
