#!/usr/bin/python3
"""VnPlayer through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The note is a 1 s
tone made by sox and encoded by opusenc in a temporary directory; the speaker is ALSA's `file` plugin over `null`
(mono S16 at 48 kHz, not paced), so the bytes it wrote say how much played.
- test_plays_to_finished: notify::state reaches PLAYING, then `finished` arrives with the location; the speaker got
  the note's duration.
- test_missing_file_fails: a missing file is `failed` with a GLib.Error in the vn-error-quark domain, code
  VN_ERROR_NOT_FOUND (-10), then the state NOT_LOADED; a bad argument raises GLib.Error at once.
Handlers only record (PyGObject prints an exception raised in a handler and goes on); the assertions run after the
main loop, which every wait bounds with a timeout that fails the test.
"""
import os
import shutil
import sys
import tempfile
import unittest

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Voicenote", "1.0")
sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from note import make_tone_note  # noqa: E402 (after the path)
from gi.repository import GLib, Voicenote  # noqa: E402 (after require_version)

WAIT_S = 30  # every main-loop wait (note.py bounds the tools the same)
SPEAKER_RATE = 48000
VN_E_NOT_FOUND = -10  # voicenote.h


def speaker_player(output):
    """A player on a file speaker writing raw mono S16 at 48 kHz to `output`."""
    configuration = f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{output}" format raw perm 0644 }}'
    return Voicenote.Player.new_for_device("vn_spk", configuration)


class Recorder:
    """Everything a player says, in order, and a bounded main-loop run until a condition over it holds."""

    def __init__(self, player):
        self.said = []
        self.loop = GLib.MainLoop()
        self.until = None
        player.connect("notify::state", lambda p, _spec: self.add(("state", p.props.state)))
        player.connect("finished", lambda _p, location: self.add(("finished", location)))
        player.connect("failed", lambda _p, error: self.add(("failed", error)))

    def add(self, entry):
        self.said.append(entry)
        if self.until is not None and self.until(self.said):
            self.loop.quit()

    def run_until(self, condition):
        """Runs the main loop until condition(said) is true; False when WAIT_S passed first."""
        timed_out = []

        def on_timeout():
            timed_out.append(True)
            self.loop.quit()
            return GLib.SOURCE_REMOVE

        self.until = condition
        source = GLib.timeout_add_seconds(WAIT_S, on_timeout)
        if not condition(self.said):
            self.loop.run()
        if not timed_out:
            GLib.source_remove(source)
        self.until = None
        return not timed_out


class PlayerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="vn-gi-python-")
        cls.addClassCleanup(shutil.rmtree, cls.directory)
        cls.note = make_tone_note(cls.directory, 1.0)

    def test_plays_to_finished(self):
        heard = os.path.join(self.directory, "heard.raw")
        player = speaker_player(heard)
        recorder = Recorder(player)
        self.assertTrue(player.load(self.note, True, -1))
        self.assertTrue(recorder.run_until(lambda said: any(what != "state" for what, _ in said)),
                        f"no finished or failed within {WAIT_S} s: {recorder.said}")

        said = recorder.said
        self.assertEqual([entry for entry in said if entry[0] == "failed"], [])
        finished = said.index(("finished", self.note))
        self.assertIn(("state", Voicenote.PlayerState.PLAYING), said[:finished])
        self.assertLess(said.index(("state", Voicenote.PlayerState.LOADING)),
                        said.index(("state", Voicenote.PlayerState.PLAYING)))

        duration = player.props.duration
        played_s = os.path.getsize(heard) / 2 / SPEAKER_RATE
        print(f"duration {duration:.3f} s, played {played_s:.3f} s")
        self.assertGreater(duration, 0.9)
        self.assertAlmostEqual(played_s, duration, delta=duration * 0.05)
        player.run_dispose()

    def test_missing_file_fails(self):
        self.assertEqual(int(Voicenote.Error.NOT_FOUND), VN_E_NOT_FOUND)
        player = speaker_player(os.path.join(self.directory, "unheard.raw"))
        with self.assertRaises(GLib.Error) as raised:
            player.load("", False, -1)
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.INVALID_ARG))

        recorder = Recorder(player)
        missing = os.path.join(self.directory, "missing.ogg")
        self.assertTrue(player.load(missing, True, -1))

        def failed_then_not_loaded(said):
            failed = [i for i, (what, _) in enumerate(said) if what == "failed"]
            return bool(failed) and ("state", Voicenote.PlayerState.NOT_LOADED) in said[failed[0]:]

        self.assertTrue(recorder.run_until(failed_then_not_loaded),
                        f"no failed, then NOT_LOADED, within {WAIT_S} s: {recorder.said}")
        errors = [value for what, value in recorder.said if what == "failed"]
        self.assertEqual(len(errors), 1)
        error = errors[0]
        self.assertIsInstance(error, GLib.Error)
        self.assertEqual(error.domain, "vn-error-quark")
        self.assertEqual(error.code, VN_E_NOT_FOUND)
        self.assertTrue(error.matches(Voicenote.error_quark(), Voicenote.Error.NOT_FOUND))
        self.assertNotEqual(error.message, "")
        self.assertNotIn(("finished", missing), recorder.said)
        player.run_dispose()


if __name__ == "__main__":
    unittest.main(verbosity=2)
