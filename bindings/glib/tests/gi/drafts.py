#!/usr/bin/python3
"""The drafts directory through GObject Introspection from Python (Debian's python3 with python3-gi).

Run by bindings/glib's `make test` with GI_TYPELIB_PATH and LD_LIBRARY_PATH on its build tree. (tests/flow.c lists
and clears a draft a real flow parked; this checks what Python sees of the calls.)
- test_no_directory_no_drafts: Voicenote.drafts_list() of a directory that does not exist is an empty list of
  Voicenote.Draft, and clearing it succeeds.
- test_bad_key: clearing an empty key is a GLib.Error in vn-error-quark, INVALID_ARG.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
import mainloop  # noqa: E402,F401 (after the path: settles the GI versions)
from gi.repository import GLib, Voicenote  # noqa: E402 (after mainloop's require_version)


class DraftsTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="vn-gi-python-drafts-")
        self.addCleanup(shutil.rmtree, self.directory)

    def test_no_directory_no_drafts(self):
        missing = os.path.join(self.directory, "drafts")
        self.assertEqual(Voicenote.drafts_list(missing), [])
        self.assertTrue(Voicenote.drafts_clear(missing, None))
        self.assertFalse(os.path.exists(missing))

    def test_bad_key(self):
        with self.assertRaises(GLib.Error) as raised:
            Voicenote.drafts_clear(self.directory, "")
        self.assertTrue(raised.exception.matches(Voicenote.error_quark(), Voicenote.Error.INVALID_ARG))


if __name__ == "__main__":
    unittest.main(verbosity=2)
