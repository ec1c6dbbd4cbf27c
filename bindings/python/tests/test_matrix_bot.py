"""The example Matrix bot (examples/matrix_voice_bot.py) against a real Synapse on 127.0.0.1: alice sends a voice
message — the speech uploaded with our raw uploader, the event built by our Matrix builder — and the bot, a process
of its own, answers with a notice of the note's length and a copy at 2x as a voice message. The reply's media
downloads through authenticated media, decodes (FFmpeg), lasts half the original ±2 %, and its waveform field
decodes to the values of its file."""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import pytest

from audiofiles import Media
from helpers import PACKAGE_ROOT, TIMEOUT
from microphones import decoded_samples
from synapse import Synapse

import voicenote

BOT = PACKAGE_ROOT / "examples" / "matrix_voice_bot.py"


class BotProcess:
    """The bot as a child process; its output lines are read on a thread of the test into a queue, so every wait
    for one is bounded."""

    def __init__(self, homeserver: str, token: str, room_id: str) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env["MATRIX_ACCESS_TOKEN"] = token
        self.process = subprocess.Popen([sys.executable, str(BOT), "--homeserver", homeserver, "--room", room_id,
                                         "--max-replies", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, env=env)
        self.lines: "queue.Queue[str]" = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put("")  # the end

    def next_line(self) -> str:
        try:
            line = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            pytest.fail(f"the bot said nothing within {TIMEOUT} s")
        if not line:
            pytest.fail(f"the bot ended ({self.process.wait(TIMEOUT)}): {self.process.stderr.read()}")  # type: ignore[union-attr]
        return line

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(TIMEOUT)


@pytest.fixture
def room(synapse: Synapse) -> Iterator[Tuple[Tuple[str, str], Tuple[str, str], str]]:
    """alice and the bot (user id, token), and a room of alice's the bot is invited to."""
    tag = uuid.uuid4().hex[:8]
    alice = synapse.register_user(f"alice-{tag}")
    bot = synapse.register_user(f"voicebot-{tag}")
    room_id = synapse.create_room(alice[1], invite=[bot[0]], name="voice notes")
    yield alice, bot, room_id


def send_voice_message(synapse: Synapse, token: str, room_id: str, note: Path) -> Tuple[str, voicenote.VoiceRecordingPayload]:
    """Uploads ``note`` with a raw-mode Uploader and sends the content our Matrix builder makes; returns the event id
    and the payload sent."""
    with voicenote.Uploader(synapse.base_url + "/_matrix/media/v3/upload", mode="raw",
                            headers={"Authorization": f"Bearer {token}"}) as uploader:
        payload = voicenote.VoiceRecordingPayload.from_recording(note)
        sent = uploader.upload(note, payload=payload, timeout=TIMEOUT)
    content = sent.to_matrix_content()
    assert voicenote.is_matrix_voice_message(content)
    return synapse.send_message(token, room_id, content), sent


def test_the_bot_answers_a_voice_message_with_its_length_and_a_copy_at_twice_the_speed(
        synapse: Synapse, room: Any, media: Media, tmp_path: Path) -> None:
    (alice_id, alice_token), (bot_id, bot_token), room_id = room
    bot = BotProcess(synapse.base_url, bot_token, room_id)
    try:
        assert bot.next_line() == "ready"  # it joined the room it was invited to, and listens
        # A voice message whose media is not audio: the bot says so in the room and goes on.
        bogus = synapse.upload_media(alice_token, b"not audio at all", "audio/ogg", "bogus.ogg")
        bogus_id = synapse.send_message(alice_token, room_id, {"msgtype": "m.audio", "body": "Voice message",
                                                               "url": bogus, "org.matrix.msc3245.voice": {}})
        refusal = synapse.wait_for_message(
            alice_token, room_id, lambda e: e.get("sender") == bot_id and e["content"].get("m.relates_to", {})
            .get("m.in_reply_to", {}).get("event_id") == bogus_id, timeout_s=TIMEOUT)
        assert refusal["content"]["msgtype"] == "m.notice" and "VN_E_FORMAT" in refusal["content"]["body"]
        note = media.files["opus"]
        event_id, sent = send_voice_message(synapse, alice_token, room_id, note)

        def from_bot(kind: str):
            def matches(event: Dict[str, Any]) -> bool:
                content = event.get("content", {})
                return (event.get("sender") == bot_id and content.get("msgtype") == kind
                        and content.get("m.relates_to", {}).get("m.in_reply_to", {}).get("event_id") == event_id)
            return matches

        notice = synapse.wait_for_message(alice_token, room_id, from_bot("m.notice"), timeout_s=TIMEOUT)
        reply = synapse.wait_for_message(alice_token, room_id, from_bot("m.audio"), timeout_s=TIMEOUT)
        assert bot.next_line().startswith(f"answered {event_id}")
        assert bot.process.wait(TIMEOUT) == 0  # --max-replies 2
    finally:
        bot.stop()

    original = decoded_samples(str(note)) / 48000
    assert f"({original:.1f} s)" in notice["content"]["body"]

    content = reply["content"]
    assert voicenote.is_matrix_voice_message(content)
    answered = voicenote.VoiceRecordingPayload.from_matrix_content(content)
    copy = tmp_path / "reply.ogg"
    copy.write_bytes(synapse.download_media(alice_token, content["url"]))  # authenticated media, alice's token
    assert content["info"]["size"] == copy.stat().st_size and content["info"]["mimetype"] == "audio/ogg"
    heard = decoded_samples(str(copy)) / 48000
    assert heard == pytest.approx(original / 2, rel=0.02)
    assert content["info"]["duration"] == pytest.approx(heard * 1000, abs=15)
    expected = voicenote.waveform(copy, len(answered.waveform_data))
    assert len(answered.waveform_data) == 100
    assert max(abs(a - b) for a, b in zip(answered.waveform_data, expected)) <= 0.5 / 1024 + 1e-6
    assert sent.asset_url != content["url"]
