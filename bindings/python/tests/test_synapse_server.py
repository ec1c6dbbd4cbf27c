"""The ``synapse`` fixture (tests/synapse.py) is a real homeserver: a voice message goes from one user to another
through it, as a Matrix voice bot's would, and its media is only to be had with an access token."""

from __future__ import annotations

import http.client
import uuid
from pathlib import Path
from typing import List, Tuple

import pytest

from audiofiles import REPO_ROOT
from synapse import MatrixError, Synapse, media_download_path, venv_path


def two_users_in_a_room(server: Synapse) -> Tuple[Tuple[str, str], Tuple[str, str], str]:
    """Registers alice and bob (names of this test's own: the server lives for the session), and a private room
    alice made and bob joined. Returns ``((alice_id, alice_token), (bob_id, bob_token), room_id)``."""
    suffix = uuid.uuid4().hex[:8]
    alice = server.register_user(f"alice-{suffix}")
    bob = server.register_user(f"bob-{suffix}")
    room_id = server.create_room(alice[1], invite=[bob[0]], name="voice notes")
    assert server.join(bob[1], room_id) == room_id
    return alice, bob, room_id


def test_voice_message_through_synapse(synapse: Synapse, tones: List[Path]) -> None:
    """Alice uploads an Ogg Opus note and sends it as m.audio; bob sees it through /sync and downloads the same
    bytes through authenticated media; without a token the media is refused on both download paths."""
    (alice_id, alice), (_, bob), room_id = two_users_in_a_room(synapse)
    note = tones[0].read_bytes()
    mxc = synapse.upload_media(alice, note, "audio/ogg", tones[0].name)
    assert mxc.startswith("mxc://localhost/")

    content = {"msgtype": "m.audio", "body": tones[0].name, "url": mxc,
               "info": {"mimetype": "audio/ogg", "size": len(note), "duration": 2000},
               "org.matrix.msc3245.voice": {}}
    event_id = synapse.send_message(alice, room_id, content)

    seen = synapse.wait_for_message(bob, room_id, lambda event: event["event_id"] == event_id, timeout_s=30)
    assert seen["sender"] == alice_id
    assert seen["content"]["msgtype"] == "m.audio"
    assert seen["content"]["url"] == mxc

    assert synapse.download_media(bob, seen["content"]["url"]) == note
    answer = synapse.request("GET", media_download_path(mxc), bob)
    assert answer.headers["content-type"] == "audio/ogg"

    # Authenticated media on: the new endpoint wants a token, the legacy one does not serve media uploaded since.
    anonymous = synapse.request("GET", media_download_path(mxc))
    assert (anonymous.status, anonymous.json()["errcode"]) == (401, "M_MISSING_TOKEN")
    legacy = synapse.request("GET", media_download_path(mxc, authenticated=False))
    assert (legacy.status, legacy.json()["errcode"]) == (404, "M_NOT_FOUND")
    with pytest.raises(MatrixError) as refused:
        synapse.download_media("not-a-token", mxc)
    assert (refused.value.status, refused.value.errcode) == (401, "M_UNKNOWN_TOKEN")


def test_rate_limits_are_out_of_reach(synapse: Synapse) -> None:
    """More messages, rooms and uploads in a row than Synapse's default limits allow (10 messages, 10 rooms) all go
    through: tests never wait on a 429."""
    (_, alice), (_, bob), room_id = two_users_in_a_room(synapse)
    sent = [synapse.send_message(alice, room_id, {"msgtype": "m.text", "body": f"message {n}"}) for n in range(15)]
    assert len(set(sent)) == 15
    last = synapse.wait_for_message(bob, room_id, lambda event: event["event_id"] == sent[-1], timeout_s=30)
    assert last["content"]["body"] == "message 14"
    rooms = {synapse.create_room(alice) for _ in range(11)}
    assert len(rooms) == 11


def test_the_venv_is_the_users_outside_any_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Synapse's venv is made once per user (``make deps``) and shared by checkouts: under ``$XDG_DATA_HOME`` when it
    is an absolute path, else ``~/.local/share``, never in the checkout; ``$VOICENOTE_SYNAPSE_VENV`` overrides it."""
    monkeypatch.delenv("VOICENOTE_SYNAPSE_VENV", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert venv_path() == tmp_path / "voicenote-tests" / "synapse-venv"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/data")
    assert venv_path() == Path.home() / ".local" / "share" / "voicenote-tests" / "synapse-venv"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert REPO_ROOT not in venv_path().parents
    monkeypatch.setenv("VOICENOTE_SYNAPSE_VENV", str(tmp_path / "elsewhere"))
    assert venv_path() == tmp_path / "elsewhere"


def test_synapse_refuses_a_media_upload_without_a_length(synapse: Synapse) -> None:
    """What docs/attachments.md says of uploading while recording: Synapse's media upload wants a Content-Length and
    refuses a chunked body (one sent as a take is recorded), while the same bytes with their length are taken."""
    (_, alice), _, _ = two_users_in_a_room(synapse)
    note = b"OggS" + bytes(4000)
    path = "/_matrix/media/v3/upload?filename=note.ogg"
    headers = {"Authorization": f"Bearer {alice}", "Content-Type": "audio/ogg"}
    connection = http.client.HTTPConnection(synapse.host, synapse.port, timeout=30)
    try:
        connection.request("POST", path, body=iter([note[:2000], note[2000:]]), headers=headers, encode_chunked=True)
        answer = connection.getresponse()
        refused = (answer.status, answer.read())
    finally:
        connection.close()
    assert refused[0] == 400 and b"Content-Length" in refused[1], refused  # M_UNKNOWN "Request must specify a Content-Length"
    assert synapse.upload_media(alice, note, "audio/ogg", "note.ogg").startswith("mxc://localhost/")
