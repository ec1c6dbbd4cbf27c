"""The interpreter exits while library threads still fire events into Python callbacks.

Each child process creates sources, subscribes Python callbacks, starts firing with count=0, waits until events
arrived, and exits without closing anything. The package's atexit hook must close everything before the
interpreter finalizes: no crash (SIGILL/SIGSEGV/SIGABRT), no "Fatal Python error", return code 0, and every
subscription released exactly once by the hook (the children print from on_release).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import PACKAGE_ROOT

CHILD = r"""
import sys, threading
import voicenote

mode = sys.argv[1]
enough = threading.Event()
counts = {"events": 0}

def on_release():
    print("released", flush=True)  # runs in the atexit hook, while the interpreter is still whole

def on_event(event):
    counts["events"] += 1
    if mode == "busy":
        sum(range(2000))  # keep callbacks in flight when exit starts
    if counts["events"] >= 200:
        enough.set()

source = voicenote.TestSource()
source.subscribe(on_event, on_release=on_release)
source.start(count=0, interval_us=0 if mode == "busy" else 50)

if mode == "busy":
    import logging
    logging.disable(logging.CRITICAL)  # the raising callback below is expected; keep stderr clean for the check
    # More of everything alive at exit: a second source, an undispatched loop with a firing source, a log handler
    # and a callback that raises.
    other = voicenote.TestSource()
    other.subscribe(lambda event: None, on_release=on_release)
    other.subscribe(lambda event: 1 / 0, on_release=on_release)
    other.start(count=0, interval_us=10)
    loop = voicenote.EventLoop()
    held = voicenote.TestSource(loop)
    held.subscribe(on_event, on_release=on_release)
    held.start(count=0, interval_us=100)
    voicenote.set_log_handler(lambda level, message: None, voicenote.LOG_DEBUG)

if not enough.wait(float(sys.argv[2])):
    print("timed out waiting for events", file=sys.stderr)
    sys.exit(3)
print("events", counts["events"])
# Exit without closing anything: the atexit hook must.
"""


def _run_child(mode: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("PYTHONFAULTHANDLER", None)
    return subprocess.run([sys.executable, "-c", CHILD, mode, "30"], capture_output=True, text=True, env=env,
                          timeout=60)


def _assert_clean(child: subprocess.CompletedProcess, releases: int) -> None:
    detail = f"rc={child.returncode}\nstdout:\n{child.stdout}\nstderr:\n{child.stderr}"
    assert child.returncode == 0, detail
    assert "Fatal Python error" not in child.stderr, detail
    assert "SIGILL" not in child.stderr and "Illegal instruction" not in child.stderr, detail
    assert "Traceback" not in child.stderr, detail
    assert child.stdout.startswith("events "), detail
    # The atexit hook closed every source: each subscription was released exactly once, before finalization.
    assert child.stdout.count("released") == releases, detail


@pytest.mark.parametrize("attempt", range(5))
def test_exit_while_events_fire(attempt: int) -> None:
    """A child exits while a source fires from its own thread into a Python callback (5 times)."""
    _assert_clean(_run_child("plain"), releases=1)


def test_exit_with_everything_alive() -> None:
    """A child exits with flooding sources, callbacks in flight, a raising callback, an undispatched loop and a
    log handler installed."""
    _assert_clean(_run_child("busy"), releases=4)
