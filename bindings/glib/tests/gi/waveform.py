#!/usr/bin/python3
"""The `_async`/`_finish` pairs through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The note is a 1 s
tone made by sox and encoded by opusenc in a temporary directory.
- test_waveform: Voicenote.waveform_async() on a GLib main loop calls back on this thread; waveform_finish() gives
  100 floats in 0…1, the tone's well above 0.
- test_audio_info: Voicenote.AudioInfo.read_async() gives an AudioInfo: opus, 48 kHz, mono, 1 s.
- test_errors: a missing file is a GLib.Error in vn-error-quark, NOT_FOUND; a cancelled Gio.Cancellable is
  Gio.IOErrorEnum.CANCELLED.
Callbacks only record; the assertions run after the main loop, which every wait bounds with a timeout that fails the
test.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from mainloop import run_async  # noqa: E402 (after the path)
from note import make_tone_note  # noqa: E402 (after the path)
from gi.repository import Gio, GLib, Voicenote  # noqa: E402 (after mainloop's require_version)

class AsyncTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="vn-gi-python-async-")
        cls.addClassCleanup(shutil.rmtree, cls.directory)
        cls.note = make_tone_note(cls.directory, 1.0)

    def test_waveform(self):
        values = run_async(lambda callback: Voicenote.waveform_async(self.note, 100, None, None, callback),
                           Voicenote.waveform_finish)
        self.assertEqual(len(values), 100)
        self.assertTrue(all(0 <= value <= 1 for value in values), values)
        self.assertGreater(values[50], 0.5)

    def test_audio_info(self):
        info = run_async(lambda callback: Voicenote.AudioInfo.read_async(self.note, None, None, callback),
                         Voicenote.AudioInfo.read_finish)
        self.assertIsInstance(info, Voicenote.AudioInfo)
        self.assertEqual((info.codec, info.sample_rate, info.channels), ("opus", 48000, 1))
        self.assertAlmostEqual(info.duration, 1.0, delta=0.03)

    def test_errors(self):
        missing = os.path.join(self.directory, "missing.ogg")
        with self.assertRaises(GLib.Error) as raised:
            run_async(lambda callback: Voicenote.waveform_async(missing, 100, None, None, callback),
                      Voicenote.waveform_finish)
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.NOT_FOUND))

        cancellable = Gio.Cancellable()
        cancellable.cancel()
        with self.assertRaises(GLib.Error) as raised:
            run_async(lambda callback: Voicenote.waveform_async(self.note, 100, None, cancellable, callback),
                      Voicenote.waveform_finish)
        self.assertTrue(raised.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))


if __name__ == "__main__":
    unittest.main(verbosity=2)
