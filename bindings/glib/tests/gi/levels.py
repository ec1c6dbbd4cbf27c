#!/usr/bin/python3
"""`Voicenote.Recorder:levels` through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The microphone is
ALSA's `file` plugin reading 5 s of a raw 440 Hz tone (S16, 48 kHz, mono, unpaced), as tests/capture-rig.h has it.
- test_levels_notify: a 1 s take: `notify::levels` handlers read `recorder.props.levels`, a GLib.Variant of type
  "ad" whose unpack() is a list of floats; each notify a change from the one before (once per change; how many
  depends on how the unpaced capture's steps coalesce), at most 40 values in 0…1, the fullest at least the 10 meter
  steps of 1 s and ending at the tone's level; `get_levels()` is the same value.
Handlers only record; the assertions run after the main loop, which every wait bounds with a timeout that fails the
test.
"""
import math
import os
import shutil
import struct
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import mainloop  # noqa: E402,F401 (after the path: settles the versions)
from note import WAIT_S  # noqa: E402 (after the path)
from gi.repository import GLib, Voicenote  # noqa: E402 (after mainloop's require_version)

RATE = 48000


def write_tone(path, seconds):
    """A 440 Hz sine at half scale, raw S16LE mono 48 kHz (what the microphone plugin reads)."""
    frames = int(seconds * RATE)
    samples = (int(16384 * math.sin(2 * math.pi * 440 * i / RATE)) for i in range(frames))
    with open(path, "wb") as out:
        out.write(struct.pack(f"<{frames}h", *samples))


def run_until(condition):
    """Iterates the default main context until condition() holds, at most WAIT_S (a timeout wakes it at the end)."""
    expired = []

    def expire():
        expired.append(True)
        return GLib.SOURCE_REMOVE

    timeout = GLib.timeout_add_seconds(WAIT_S, expire)
    context = GLib.MainContext.default()
    while not condition() and not expired:
        context.iteration(True)
    if not expired:
        GLib.source_remove(timeout)
    if not condition():
        raise AssertionError(f"not reached within {WAIT_S} s")


class LevelsTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="vn-gi-python-levels-")
        self.addCleanup(shutil.rmtree, self.directory)
        tone = os.path.join(self.directory, "tone.raw")
        write_tone(tone, 5)
        self.microphone = (f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{tone}" '
                           'format raw }')

    def test_levels_notify(self):
        recorder = Voicenote.Recorder.new("vn_mic", self.microphone, self.directory)
        self.assertEqual(recorder.props.levels.get_type_string(), "ad")
        self.assertEqual(recorder.props.levels.unpack(), [])
        seen = []
        finished = []
        recorder.connect("notify::levels", lambda r, _pspec: seen.append(
            (r.props.levels.unpack(), r.get_levels().unpack())))
        recorder.connect("finished", lambda _r, path, duration: finished.append(duration))
        recorder.begin()
        run_until(lambda: recorder.props.duration >= 1.0)
        recorder.stop()
        run_until(lambda: finished)

        self.assertGreater(len(seen), 0)
        before = []
        for levels, again in seen:
            self.assertEqual(levels, again)
            self.assertNotEqual(levels, before)  # notified once per change
            self.assertLessEqual(len(levels), 40)
            self.assertTrue(all(0 <= level <= 1 for level in levels), levels)
            before = levels
        fullest = max((levels for levels, _ in seen), key=len)
        self.assertGreaterEqual(len(fullest), 10, fullest)  # the 10 meter steps of 1 s
        self.assertGreater(fullest[-1], 0.05, fullest)


if __name__ == "__main__":
    unittest.main(verbosity=2)
