"""Builds the ``voicenote`` package with the version of the library it belongs to.

The version is written once, in the public header's ``VN_VERSION_*`` macros. This script reads them from
``$VOICENOTE_HEADER`` when set (a copy of this folder built elsewhere), else from the source checkout this folder sits
in, and writes the version into the built package (``voicenote/_built_version.py``). Everything else is in
``pyproject.toml``.

With a library in ``voicenote/_libs/`` (``make wheel`` puts it there), the wheel is a platform wheel: tagged
``py3-none-linux_<machine>`` — any Python 3 (the binding is ctypes, no extension module), this machine's
architecture, and the generic Linux tag rather than a ``manylinux`` one, since the library needs system libraries
(ALSA, libopus…) that the manylinux policy does not list.
"""

import importlib.util
import os
import sysconfig
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:  # setuptools 70.1 and later has its own; before, the `wheel` package's
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent


def _version_module():
    spec = importlib.util.spec_from_file_location("_voicenote_version", HERE / "voicenote" / "_version.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _version() -> str:
    """$VOICENOTE_HEADER's version, else the checkout's header's, else (an sdist unpacked elsewhere) its PKG-INFO's."""
    given = os.environ.get("VOICENOTE_HEADER")
    checkout = HERE.parents[1] / "include" / "voicenote.h"
    header = Path(given) if given else checkout
    if header.is_file():
        return _version_module().read_header_version(header)
    info = HERE / "PKG-INFO"
    if info.is_file():
        for line in info.read_text(encoding="utf-8").splitlines():
            if line.startswith("Version: "):
                return line[len("Version: "):].strip()
    raise SystemExit(f"voicenote: no header at {header}; set VOICENOTE_HEADER to include/voicenote.h")


VERSION = _version()


class BuildWithVersion(build_py):
    """Writes ``voicenote/_built_version.py`` beside the copied modules."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "voicenote" / "_built_version.py"
        target.write_text(f'"""Written by setup.py while building."""\n\nVERSION = "{VERSION}"\n', encoding="utf-8")


class Package(Distribution):
    """The package; a platform one when it carries the library (then it is built and installed as platform files)."""

    def has_ext_modules(self) -> bool:
        return any((HERE / "voicenote" / "_libs").glob("libvoicenote.so*"))


class PlatformWheel(bdist_wheel):
    """A wheel for this platform when it carries the library, for any Python 3: there is no extension module."""

    def get_tag(self):
        if self.root_is_pure:
            return super().get_tag()
        return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")


setup(version=VERSION, distclass=Package, cmdclass={"build_py": BuildWithVersion, "bdist_wheel": PlatformWheel})
