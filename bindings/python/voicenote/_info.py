"""Version of the loaded library."""

from __future__ import annotations

from . import _capi

__all__ = ["version", "version_number"]


def version() -> str:
    """The version of the loaded library as text, e.g. ``"0.1.0"``."""
    raw = _capi.vn_version_string()
    return raw.decode("ascii", "replace") if raw else ""


def version_number() -> int:
    """The version of the loaded library as ``major * 1000000 + minor * 1000 + patch``."""
    return int(_capi.vn_version_number())
