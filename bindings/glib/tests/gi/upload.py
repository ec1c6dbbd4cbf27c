#!/usr/bin/python3
"""Voicenote.Uploader.upload_async() through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. The server is Python's
http.server on 127.0.0.1 (a port of the system's choosing) on a thread of this script: it reads each POST (by
Content-Length or chunks; `Expect: 100-continue` is answered by http.server), keeps its body and answers Stream's
JSON. The note is a 1 s tone made by sox and encoded by opusenc in a temporary directory.
- test_upload: upload_async() on a GLib main loop calls back on this thread; upload_finish() gives a Voicenote.Payload
  whose asset URL is the server's answer, and the server got one POST whose body holds the whole file.
- test_already_cancelled: a cancelled Gio.Cancellable gives Gio.IOErrorEnum.CANCELLED and no request reaches the
  server.
Callbacks only record; the assertions run after the main loop, which every wait bounds with a timeout that fails the
test.
"""
import http.server
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from mainloop import WAIT_S, run_async  # noqa: E402 (after the path)
from note import make_tone_note  # noqa: E402 (after the path)
from server import start_server  # noqa: E402 (after the path)
from gi.repository import Gio, GLib, Voicenote  # noqa: E402 (after mainloop's require_version)

ASSET_URL = "https://cdn.example.org/uploads/note.ogg"


class UploadHandler(http.server.BaseHTTPRequestHandler):
    """One POST: its body kept on the server (`bodies`), then Stream's answer."""
    protocol_version = "HTTP/1.1"
    timeout = WAIT_S  # on the connection's socket: a stalled client ends the handler

    def do_POST(self):  # noqa: N802 (http.server's name)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                body += self.rfile.read(size)
                self.rfile.readline()  # the chunk's CRLF, or the end's
                if size == 0:
                    break
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.bodies.append(bytes(body))
        answer = json.dumps({"file": ASSET_URL}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(answer)
        self.close_connection = True

    def log_message(self, *args):
        pass  # the test's output stays the test's


class UploadTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="vn-gi-python-upload-")
        cls.addClassCleanup(shutil.rmtree, cls.directory)
        cls.note = make_tone_note(cls.directory, 1.0)
        cls.server, base = start_server(UploadHandler, cls.addClassCleanup)
        cls.server.bodies = []
        cls.endpoint = f"{base}/channels/messaging/general/file"

    def setUp(self):
        self.server.bodies.clear()
        self.uploader = Voicenote.Uploader.new(self.endpoint, Voicenote.UploadMode.MULTIPART)

    def test_upload(self):
        payload = run_async(lambda callback: self.uploader.upload_async(self.note, None, None, callback),
                            self.uploader.upload_finish)
        self.assertIsInstance(payload, Voicenote.Payload)
        self.assertEqual(payload.props.asset_url, ASSET_URL)
        self.assertGreater(payload.props.duration, 0.5)
        with open(self.note, "rb") as note:
            contents = note.read()
        self.assertEqual(len(self.server.bodies), 1)
        self.assertIn(contents, self.server.bodies[0])

    def test_already_cancelled(self):
        cancellable = Gio.Cancellable()
        cancellable.cancel()
        with self.assertRaises(GLib.Error) as raised:
            run_async(lambda callback: self.uploader.upload_async(self.note, None, cancellable, callback),
                      self.uploader.upload_finish)
        self.assertTrue(raised.exception.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED))
        self.assertEqual(self.server.bodies, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
