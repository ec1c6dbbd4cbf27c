"""Hostile JSON in a fresh process, where memory can be measured: a 50 MB string inside a message list, 10,000
levels of nesting, a 50 MB payload. Each ends in a result or a status, never a crash, and the peak memory stays
within a small multiple of the input (the parser holds the text and one copy of the string; nothing is copied
again into Python or Swift values)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import PACKAGE_ROOT, TIMEOUT

CHILD = r"""
import json, resource, sys
import voicenote

def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

big = "x" * (50 << 20)
messages = ('[{"id":"m0","user":{"id":"A"},"attachments":[{"type":"voiceRecording","asset_url":"u1"},'
            '{"type":"voiceRecording","asset_url":"u2","comment":"' + big + '"}]}]').encode()
deep = b"[" * 10000 + b"]" * 10000
outcome = {}
before = peak_mib()
outcome["next"] = voicenote.find_next_item(messages, "u1", "B", "same-message")
outcome["messages_peak_mib"] = peak_mib() - before
for name, text in (("deep_messages", deep), ("deep_payload", deep.decode()),
                   ("big_payload", '{"asset_url":"https://x/a","comment":"' + big + '"}')):
    try:
        if name == "deep_messages":
            voicenote.find_next_item(text, "u1", "B", "same-message")
        else:
            voicenote.VoiceRecordingPayload.from_json(text)
        outcome[name] = "accepted"
    except voicenote.VoiceNoteError as error:
        outcome[name] = error.name
print(json.dumps(outcome))
"""


@pytest.mark.one_thread
def test_hostile_json_gives_a_status_with_bounded_memory() -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=TIMEOUT * 4)
    assert child.returncode == 0, child.stderr
    outcome = json.loads(child.stdout)
    assert outcome["next"] == "u2"
    assert outcome["deep_messages"] == "VN_E_FORMAT" and outcome["deep_payload"] == "VN_E_FORMAT"
    assert outcome["big_payload"] == "VN_E_TOO_LARGE"
    # 50 MB of text (bytes passed to C without a copy where ctypes allows) plus jansson's copy of the string.
    assert outcome["messages_peak_mib"] < 4 * 50, outcome
