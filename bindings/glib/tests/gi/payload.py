#!/usr/bin/python3
"""VnPayload through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. No audio, no main
loop: a payload has no events.
- test_stream_round_trip: a Stream attachment object reads into properties (the waveform as a list of floats) and
  writes back byte for byte; setting a property lands in the JSON.
- test_matrix_round_trip: its Matrix content reads back as a voice message with the same URL, duration and waveform
  (to 1/1024).
- test_malformed: malformed JSON raises GLib.Error in vn-error-quark with the code FORMAT (-6).
"""
import unittest

import gi

gi.require_version("Voicenote", "1.0")
from gi.repository import GLib, Voicenote  # noqa: E402 (after require_version)

VN_E_FORMAT = -6  # voicenote.h

STREAM_JSON = (
    '{"type":"voiceRecording","title":"note.ogg","asset_url":"mxc://matrix.example.org/AbC123",'
    '"file_size":2048,"mime_type":"audio/ogg","duration":1.5,"waveform_data":[0,0.5,1],"custom":true}'
)


class PayloadTest(unittest.TestCase):
    def test_stream_round_trip(self):
        payload = Voicenote.Payload.new_from_json(STREAM_JSON)
        self.assertEqual(payload.to_json(0), STREAM_JSON)
        self.assertEqual(payload.props.title, "note.ogg")
        self.assertEqual(payload.props.file_size, 2048)
        self.assertEqual(payload.props.duration, 1.5)
        self.assertEqual(payload.props.extra_data, '{"custom":true}')
        self.assertEqual(payload.get_waveform(), [0.0, 0.5, 1.0])
        payload.props.title = "renamed.ogg"
        self.assertIn('"title":"renamed.ogg"', payload.to_json(0))

    def test_matrix_round_trip(self):
        payload = Voicenote.Payload.new_from_json(STREAM_JSON)
        content = payload.to_matrix_content(None)
        received = Voicenote.Payload.new_from_matrix_content(content)
        self.assertTrue(received.props.is_voice)
        self.assertEqual(received.props.asset_url, "mxc://matrix.example.org/AbC123")
        self.assertAlmostEqual(received.props.duration, 1.5, delta=0.001)
        waveform = received.get_waveform()
        self.assertEqual(len(waveform), 100)  # Matrix sends 100 levels
        self.assertAlmostEqual(waveform[0], 0.0, delta=1 / 1024)
        self.assertAlmostEqual(waveform[-1], 1.0, delta=1 / 1024)

    def test_malformed(self):
        with self.assertRaises(GLib.Error) as raised:
            Voicenote.Payload.new_from_json('{"asset_url": ')
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), VN_E_FORMAT))


if __name__ == "__main__":
    unittest.main()
