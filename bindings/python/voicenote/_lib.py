"""Finds and loads ``libvoicenote.so``.

Search order:

1. the library bundled in this package (``voicenote/_libs/libvoicenote.so.<major>``), which a wheel made by
   ``make wheel`` carries; when it is there it is the library, whatever the environment says;
2. the environment variable ``VOICENOTE_LIBRARY`` (a path). When it is set, it is the only place tried further: a
   wrong path is an error, not a reason to load some other copy silently;
3. the build tree, only when the package is imported from a source checkout (``bindings/python/voicenote`` beside
   the checkout's ``include/voicenote.h``): the checkout's ``build/lib/libvoicenote.so``, what ``make build``
   produces;
4. ``ctypes.util.find_library("voicenote")``, which consults ldconfig and ``LD_LIBRARY_PATH``;
5. the dynamic loader's own search for the SONAME ``libvoicenote.so.0`` (rpath, ``LD_LIBRARY_PATH``,
   ldconfig cache), for systems where ``find_library`` has no tool to ask.

The library is loaded with :class:`ctypes.CDLL`, which releases the GIL during every call. That is required:
destroying an object waits for its callbacks running on library threads, and those need the GIL.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path
from typing import List, Optional

from . import _version

__all__ = ["ENV_VAR", "SONAME", "BUNDLED", "LibraryNotFoundError", "candidates", "load"]

#: The environment variable naming the library file to load.
ENV_VAR = "VOICENOTE_LIBRARY"
#: The library's SONAME: ``libvoicenote.so.<major>``, the major version of this package (the header's).
SONAME = f"libvoicenote.so.{_version.version_parts(_version.package_version())[0]}"
#: Where a wheel carries the library, inside this package.
BUNDLED = Path(__file__).resolve().parent / "_libs" / SONAME
_BUILD_TREE_FILE = Path("build") / "lib" / "libvoicenote.so"

_lock = threading.Lock()
_loaded: Optional[ctypes.CDLL] = None


class LibraryNotFoundError(OSError):
    """``libvoicenote.so`` could not be found or loaded; the message lists every place that was tried."""


def _build_tree_candidates() -> List[Path]:
    """The checkout's ``build/lib/libvoicenote.so`` when imported from a source checkout; else nothing."""
    root = _version.checkout_root()
    return [] if root is None else [root / _BUILD_TREE_FILE]


def candidates() -> List[str]:
    """Describes, in order, the places :func:`load` looks at (for error messages and diagnostics)."""
    places = [f"{BUNDLED} (bundled)"]
    env = os.environ.get(ENV_VAR)
    if env:
        return places + [f"${ENV_VAR}={env}"]
    places.append(f"${ENV_VAR} (not set)")
    places += [str(path) for path in _build_tree_candidates()]
    places.append('ctypes.util.find_library("voicenote") (ldconfig, LD_LIBRARY_PATH)')
    places.append(f"dlopen({SONAME!r}) (rpath, LD_LIBRARY_PATH, ldconfig cache)")
    return places


def _open(name: str, tried: List[str]) -> Optional[ctypes.CDLL]:
    try:
        return ctypes.CDLL(name)
    except OSError as error:
        tried.append(f"{name}: {error}")
        return None


def _find() -> ctypes.CDLL:
    tried: List[str] = []
    if BUNDLED.exists():
        library = _open(str(BUNDLED), tried)
        if library is not None:
            return library
        raise LibraryNotFoundError("cannot load the library bundled in this package:\n  " + "\n  ".join(tried))
    tried.append(f"{BUNDLED}: none bundled")
    env = os.environ.get(ENV_VAR)
    if env:
        if not os.path.exists(env):
            tried.append(f"${ENV_VAR}={env}: no such file")
        else:
            library = _open(env, tried)
            if library is not None:
                return library
        raise LibraryNotFoundError(
            f"cannot load libvoicenote from ${ENV_VAR} (unset it to search elsewhere). Tried:\n  "
            + "\n  ".join(tried)
        )
    tried.append(f"${ENV_VAR}: not set")

    for path in _build_tree_candidates():
        if path.exists():
            library = _open(str(path), tried)
            if library is not None:
                return library
        else:
            tried.append(f"{path}: no such file")

    found = ctypes.util.find_library("voicenote")
    if found:
        library = _open(found, tried)
        if library is not None:
            return library
    else:
        tried.append('ctypes.util.find_library("voicenote"): not found')

    library = _open(SONAME, tried)
    if library is not None:
        return library

    raise LibraryNotFoundError(
        "cannot find libvoicenote; set $VOICENOTE_LIBRARY to the library's path, run `make build` in the "
        "source tree, or install it where the dynamic loader looks. Tried:\n  " + "\n  ".join(tried)
    )


def load() -> ctypes.CDLL:
    """Returns the loaded library, finding and loading it on the first call.

    Raises:
        LibraryNotFoundError: no candidate could be loaded; the message lists each place and why it failed.
    """
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _find()
        return _loaded
