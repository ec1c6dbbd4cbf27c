#!/usr/bin/python3
"""Voicenote.HttpOptions and Voicenote.EncoderOptions through GObject Introspection from Python (Debian's python3
with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The server is Python's
http.server on 127.0.0.1 (a port of the system's choosing) on a thread of this script: `/auth/...` serves the note
only to a request with `Authorization: Bearer secret-token` (else 401), `/silent/...` sends its headers and then
nothing until the test ends. The note is a 1 s tone made by sox and encoded by opusenc in a temporary directory.
- test_authorization: waveform_async() of an `/auth/` URL without options is a GLib.Error PERMISSION; with
  HttpOptions carrying the header it gives 100 values; a malformed header name raises INVALID_ARG at once.
- test_stall_timeout: a 0.3 s stall timeout ends AudioInfo.read_async() of `/silent/` with NETWORK in under 5 s
  (the default is 30 s).
- test_convert_aac: convert_async() with EncoderOptions for AAC at 64 kbit/s writes a note AudioInfo reads as `aac`.
Callbacks only record; the assertions run after the main loop, which every wait bounds with a timeout that fails the
test.
"""
import http.server
import os
import shutil
import sys
import tempfile
import threading
import time
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from mainloop import WAIT_S, run_async  # noqa: E402 (after the path)
from note import make_tone_note  # noqa: E402 (after the path)
from server import start_server  # noqa: E402 (after the path)
from gi.repository import GLib, Voicenote  # noqa: E402 (after mainloop's require_version)

TOKEN = "secret-token"


class NoteHandler(http.server.BaseHTTPRequestHandler):
    """GET: the note, to an authorized request (`/auth/`), or its headers and then nothing (`/silent/`)."""
    protocol_version = "HTTP/1.1"
    timeout = WAIT_S

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path.startswith("/auth/") and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            self.server.denied += 1
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "audio/ogg")
        self.send_header("Content-Length", str(len(self.server.note)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.path.startswith("/silent/"):
            self.wfile.flush()
            self.server.released.wait(WAIT_S)  # the body never comes; the test's end releases the handler
            return
        self.wfile.write(self.server.note)

    def log_message(self, *args):
        pass  # the test's output stays the test's


class AuthorizationTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="vn-gi-python-http-")
        cls.addClassCleanup(shutil.rmtree, cls.directory)
        cls.note = make_tone_note(cls.directory, 1.0)
        cls.server, cls.base = start_server(NoteHandler, cls.addClassCleanup)
        with open(cls.note, "rb") as note:
            cls.server.note = note.read()
        cls.server.denied = 0
        cls.server.released = threading.Event()
        cls.addClassCleanup(cls.server.released.set)  # before the shutdown: a held handler lets go

    def test_authorization(self):
        url = f"{self.base}/auth/waveform.ogg"
        with self.assertRaises(GLib.Error) as raised:
            run_async(lambda callback: Voicenote.waveform_async(url, 100, None, None, callback),
                      Voicenote.waveform_finish)
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.PERMISSION),
                        raised.exception.message)
        self.assertEqual(self.server.denied, 1)

        options = Voicenote.HttpOptions.new()
        options.add_header("Authorization", f"Bearer {TOKEN}")
        values = run_async(lambda callback: Voicenote.waveform_async(url, 100, options, None, callback),
                           Voicenote.waveform_finish)
        self.assertEqual(len(values), 100)
        self.assertGreater(values[50], 0.5)
        self.assertEqual(self.server.denied, 1)

        with self.assertRaises(GLib.Error) as raised:
            options.add_header("Bad:Name", "x")
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.INVALID_ARG))

    def test_stall_timeout(self):
        options = Voicenote.HttpOptions.new()
        options.set_stall_timeout(0.3)
        url = f"{self.base}/silent/info.ogg"
        started = time.monotonic()
        with self.assertRaises(GLib.Error) as raised:
            run_async(lambda callback: Voicenote.AudioInfo.read_async(url, options, None, callback),
                      Voicenote.AudioInfo.read_finish)
        elapsed = time.monotonic() - started
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.NETWORK),
                        raised.exception.message)
        self.assertGreaterEqual(elapsed, 0.3)
        self.assertLess(elapsed, 5)

    def test_convert_aac(self):
        encoder = Voicenote.EncoderOptions.new()
        encoder.set_format(Voicenote.RecordingFormat.AAC)
        encoder.set_encoder(64000, 10, 20)
        out_path = os.path.join(self.directory, "converted.aac")
        ok, duration = run_async(
            lambda callback: Voicenote.convert_async(self.note, out_path, 1.0, encoder, None, None, callback),
            Voicenote.convert_finish)
        self.assertTrue(ok)
        self.assertAlmostEqual(duration, 1.0, delta=0.1)
        info = run_async(lambda callback: Voicenote.AudioInfo.read_async(out_path, None, None, callback),
                         Voicenote.AudioInfo.read_finish)
        self.assertEqual(info.codec, "aac")


if __name__ == "__main__":
    unittest.main(verbosity=2)
