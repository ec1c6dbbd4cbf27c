"""What the Python checks over the typelib share (a module, not a check): an `_async` call run to its callback on a
GLib main loop, bounded. Importing it settles the versions of GLib, Gio and Voicenote the checks use."""
import threading

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Gio", "2.0")
gi.require_version("Voicenote", "1.0")
from gi.repository import GLib  # noqa: E402 (after require_version)

from note import WAIT_S  # every main-loop wait, as the tools are bounded


def run_async(start, finish):
    """Calls start(callback), runs the main loop until the callback (at most WAIT_S), then returns finish(result)
    (or raises its GLib.Error); the callback must run on this thread."""
    loop = GLib.MainLoop()
    got = []

    def callback(_source, result):
        got.append((result, threading.current_thread()))
        loop.quit()

    def on_timeout():
        loop.quit()
        return GLib.SOURCE_REMOVE

    timeout = GLib.timeout_add_seconds(WAIT_S, on_timeout)
    start(callback)
    loop.run()
    if not got:
        raise AssertionError(f"no callback within {WAIT_S} s")
    GLib.source_remove(timeout)
    result, thread = got[0]
    assert thread is threading.current_thread(), thread
    return finish(result)
