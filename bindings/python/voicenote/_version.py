"""The package's version, which is the library's: the public header's ``VN_VERSION_MAJOR``, ``VN_VERSION_MINOR`` and
``VN_VERSION_PATCH`` macros are the one place it is written.

An installed copy (``pip install``, a wheel) carries it in ``_built_version.py``, which ``setup.py`` writes while
building; a source checkout reads its own ``include/voicenote.h``. This module imports nothing from the package, so
``setup.py`` can load it on its own.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional, Tuple

__all__ = ["checkout_root", "read_header_version", "package_version", "version_parts"]

#: The version of a copy that is neither installed nor in a checkout (the files copied by hand).
UNKNOWN = "0.0.0"


def read_header_version(header: Path) -> str:
    """"major.minor.patch" from the ``VN_VERSION_*`` macros of the header at ``header``.

    Raises:
        ValueError: a macro is missing.
    """
    text = header.read_text(encoding="utf-8")
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        found = re.search(rf"^#define VN_VERSION_{name} (\d+)$", text, flags=re.M)
        if found is None:
            raise ValueError(f"{header}: no VN_VERSION_{name}")
        parts.append(found.group(1))
    return ".".join(parts)


def checkout_root() -> Optional[Path]:
    """The source checkout this package is imported from (``<root>/bindings/python/voicenote`` with
    ``<root>/include/voicenote.h``), or None for an installed package."""
    here = Path(__file__).resolve().parent
    if here.parent.name != "python" or here.parents[1].name != "bindings":
        return None
    root = here.parents[2]
    return root if (root / "include" / "voicenote.h").is_file() else None


def package_version() -> str:
    """This package's version: the one written into it when it was built, else its checkout's header's."""
    try:
        from ._built_version import VERSION  # type: ignore[import-not-found]  # written by setup.py
    except ImportError:
        root = checkout_root()
        return UNKNOWN if root is None else read_header_version(root / "include" / "voicenote.h")
    return str(VERSION)


def version_parts(version: str) -> Tuple[int, int, int]:
    """(major, minor, patch) of "major.minor.patch"."""
    major, minor, patch = (int(part) for part in version.split("."))
    return major, minor, patch
