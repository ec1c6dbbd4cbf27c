"""A private D-Bus session bus for a test: ``dbus-daemon --session`` on a socket in its own temporary directory,
started by the test and stopped by pid. Clients reach it through ``DBUS_SESSION_BUS_ADDRESS``."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from typing import Iterator

from helpers import TIMEOUT


def missing() -> "str | None":
    """What is missing to run a private bus and drive it as the media keys do, or None."""
    for tool in ("dbus-daemon", "playerctl"):
        if shutil.which(tool) is None:
            return f"{tool} is missing (make deps installs it)"
    return None


@contextmanager
def private_session_bus() -> Iterator[str]:
    """Runs a bus for the ``with`` block; yields its address."""
    directory = tempfile.mkdtemp(prefix="vnbus-")
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
                               f"--address=unix:path={directory}/bus"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        address = daemon.stdout.readline().strip() if daemon.stdout else ""
        assert address.startswith("unix:"), "dbus-daemon printed no address"
        yield address
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=TIMEOUT)
        if daemon.stdout:
            daemon.stdout.close()
        shutil.rmtree(directory, ignore_errors=True)


@contextmanager
def session_bus_for_this_process() -> Iterator[str]:
    """A private bus for the ``with`` block with ``DBUS_SESSION_BUS_ADDRESS`` pointing at it (restored after), so the
    library in this process and the tools it starts use it; yields its address."""
    before = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    with private_session_bus() as address:
        os.environ["DBUS_SESSION_BUS_ADDRESS"] = address
        try:
            yield address
        finally:
            if before is None:
                os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)
            else:
                os.environ["DBUS_SESSION_BUS_ADDRESS"] = before
