"""The durable outbox (``voicenote.Outbox``, ``voicenote outbox``) as a host lives with it: a host killed with
SIGKILL mid-upload and after the server stored the note but before it answered, restarted, hands every note to its
message log exactly once and the server keeps it once (the ``Idempotency-Key``); an uploaded payload not
acknowledged is offered again at the next start; a tus upload goes on at the URL it created; a Matrix content URI
whose bytes the homeserver already has (the state a crash after the PUT leaves) completes without a second upload;
a full disk refuses an add and leaves nothing; a damaged database is refused and left as it was.

Servers: Tests/Servers/http_server.py (multipart and raw, Idempotency-Key kept across restarts), tuspyserver
(Tests/Servers/tus_server.py) and the real Synapse of conftest.py."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

from helpers import TIMEOUT, wait_until
from synapse import Synapse

import voicenote
from voicenote import Outbox, OutboxEventKind, OutboxState

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402
from tus_server import TusTestServer  # noqa: E402

STREAM_PATH = "/channels/messaging/general/file"


def stored_uploads(root: Path) -> List[Path]:
    """The uploads the test server stored (not its key records)."""
    return sorted((root / "uploads").glob("*.bin")) if (root / "uploads").exists() else []


def message_lines(path: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def send(cli: Path, outbox: Path, endpoint: str, messages: Path, *files: Path, **popen: Any) -> subprocess.Popen:
    return subprocess.Popen([str(cli), "outbox", "send", str(outbox), *map(str, files), "--endpoint", endpoint,
                             "--messages", str(messages), "--retry-base", "0.05", "--retry-cap", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def finish(process: subprocess.Popen) -> str:
    """The host's output once it exits 0; a host still running after the bound is killed, never left behind."""
    try:
        out, err = process.communicate(timeout=TIMEOUT * 2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 0, err
    return out


@pytest.mark.parametrize("moment", ["mid-body", "stored-before-answer"])
def test_a_host_killed_mid_upload_sends_each_note_once(cli: Path, tmp_path: Path, tones: List[Path],
                                                       moment: str) -> None:
    root = tmp_path / "server"
    root.mkdir()
    outbox, messages = tmp_path / "outbox", tmp_path / "messages.jsonl"
    # Mid-body: the server reads 8 KiB/s, so the host dies with the body part sent. Stored-before-answer: the
    # server has stored the note and holds its answer, so the host dies before it knows. The restarted host sends
    # to the same destination (an item is sent only to the one it was added for).
    mode = "slowread-8192" if moment == "mid-body" else "holdanswer-1"
    with HTTPTestServer(str(root)) as server:
        endpoint = server.url(f"/uploadmode/{mode}{STREAM_PATH}")
        first = send(cli, outbox, endpoint, messages, tones[0])
        try:
            server.wait_for_receiving("/uploadmode/", TIMEOUT, complete=moment != "mid-body")
        finally:
            first.send_signal(signal.SIGKILL)
            first.communicate(timeout=TIMEOUT)
        assert message_lines(messages) == [], "nothing was handed off before the kill"
        again = send(cli, outbox, endpoint, messages)
        out = finish(again)
        lines = message_lines(messages)
        assert [line["id"] for line in lines] == [1], lines
        assert json.loads(out.splitlines()[0])["id"] == 1
        stored = stored_uploads(root)
        assert len(stored) == 1, stored
        assert stored[0].read_bytes() == tones[0].read_bytes()
        assert lines[0]["payload"]["asset_url"].endswith(f"/range/uploads/{stored[0].name}")
        keys = {r["headers"].get("idempotency-key") for r in server.requests() if "/uploadmode/" in r["path"]}
        assert len(keys) == 1 and None not in keys, "every attempt names the note by one key"
    listing = subprocess.run([str(cli), "outbox", "list", str(outbox), "--compact"], capture_output=True, text=True,
                             timeout=TIMEOUT, check=True)
    assert json.loads(listing.stdout) == [], "the outbox ends empty"
    assert list((outbox / "items").iterdir()) == []


def test_an_unacknowledged_payload_is_offered_again_at_the_next_start(upload_server: HTTPTestServer,
                                                                      tmp_path: Path, tones: List[Path]) -> None:
    events: List[voicenote.OutboxEvent] = []
    with Outbox(tmp_path / "outbox", upload_server.url(STREAM_PATH), retry_base=0.05) as outbox:
        outbox.subscribe(events.append)
        outbox.start()
        note = outbox.add(tones[1])
        assert wait_until(lambda: any(e.kind is OutboxEventKind.UPLOADED for e in events), TIMEOUT)
        first = next(e for e in events if e.kind is OutboxEventKind.UPLOADED)
        assert first.id == note and first.payload is not None
        item = outbox.items()[0]
        assert item.state is OutboxState.UPLOADED and item.uploaded == first.payload and item.attempts == 1
    again: List[voicenote.OutboxEvent] = []
    with Outbox(tmp_path / "outbox", upload_server.url(STREAM_PATH)) as outbox:
        outbox.subscribe(again.append)
        outbox.start()
        assert wait_until(lambda: any(e.kind is OutboxEventKind.UPLOADED for e in again), TIMEOUT)
        offered = next(e for e in again if e.kind is OutboxEventKind.UPLOADED)
        assert offered.id == note and offered.payload == first.payload
        outbox.acknowledge(note)
        assert outbox.items() == []
        with pytest.raises(voicenote.NotFoundError):
            outbox.acknowledge(note)
    assert len(stored_uploads(Path(upload_server.root))) == 1, "offered again, never sent again"


def test_the_state_a_crash_after_the_answer_leaves_is_replayed_not_stored_twice(
        upload_server: HTTPTestServer, tmp_path: Path, tones: List[Path]) -> None:
    """The server stored the note and answered; the host died before recording it (the row still `sending`)."""
    with Outbox(tmp_path / "outbox", upload_server.url(STREAM_PATH)) as outbox:
        outbox.start()
        note = outbox.add(tones[0])
        assert wait_until(lambda: outbox.items()[0].state is OutboxState.UPLOADED, TIMEOUT)
        first = outbox.items()[0].uploaded
    with sqlite3.connect(tmp_path / "outbox" / "outbox.db") as database:
        database.execute("UPDATE items SET state = 'sending', uploaded = NULL WHERE id = ?", (note,))
    with Outbox(tmp_path / "outbox", upload_server.url(STREAM_PATH)) as outbox:
        assert outbox.items()[0].state is OutboxState.QUEUED, "found mid-send: queued again"
        outbox.start()
        assert wait_until(lambda: outbox.items()[0].state is OutboxState.UPLOADED, TIMEOUT)
        assert outbox.items()[0].uploaded == first, "the server answered the replay with the same upload"
        assert outbox.items()[0].attempts == 2
    assert len(stored_uploads(Path(upload_server.root))) == 1
    assert any(r.get("idempotent_replay") for r in upload_server.requests())


def test_a_tus_upload_goes_on_at_the_url_it_created(tmp_path: Path, tones: List[Path]) -> None:
    root = tmp_path / "tus"
    root.mkdir()
    # Four PATCHes fail: the uploader's own three resumptions, then the attempt fails and the outbox waits; the
    # next attempt asks the stored URL for its offset instead of creating another upload.
    with TusTestServer(str(root), fail_patch=(1, 2, 3, 4)) as server:
        events: List[voicenote.OutboxEvent] = []
        with Outbox(tmp_path / "outbox", server.url("/files/"), mode="tus", retry_base=0.05) as outbox:
            outbox.subscribe(events.append)
            outbox.start()
            note = outbox.add(tones[2])
            assert wait_until(lambda: any(e.kind is OutboxEventKind.UPLOADED for e in events), TIMEOUT)
            waiting = [e for e in events if e.kind is OutboxEventKind.WAITING]
            assert len(waiting) == 1 and isinstance(waiting[0].error, voicenote.NetworkError)
            assert waiting[0].error.http_code == 503
            item = outbox.items()[0]
            assert item.id == note and item.reserved == item.uploaded.asset_url and item.attempts == 2
        methods = [r["method"] for r in server.requests()]
        assert methods.count("POST") == 1, methods
        assert server.wait_for(lambda lines: any("complete" in line for line in lines), TIMEOUT)
        done = server.completed()
        assert len(done) == 1 and done[0]["sha256"] == hashlib.sha256(tones[2].read_bytes()).hexdigest()


def test_a_matrix_content_uri_the_homeserver_has_completes_without_a_second_upload(
        synapse: Synapse, tmp_path: Path, tones: List[Path]) -> None:
    alice = synapse.register_user(f"outbox-{uuid.uuid4().hex[:8]}")[1]
    headers = {"Authorization": f"Bearer {alice}"}
    with Outbox(tmp_path / "outbox", synapse.base_url, mode="matrix", headers=headers) as outbox:
        outbox.start()
        note = outbox.add(tones[0])
        assert wait_until(lambda: outbox.items()[0].state is OutboxState.UPLOADED, TIMEOUT)
        uri = outbox.items()[0].uploaded.asset_url
        assert outbox.items()[0].reserved == uri
    # The state a crash after the PUT, before the outbox recorded it, leaves.
    with sqlite3.connect(tmp_path / "outbox" / "outbox.db") as database:
        database.execute("UPDATE items SET state = 'sending', uploaded = NULL WHERE id = ?", (note,))
    with Outbox(tmp_path / "outbox", synapse.base_url, mode="matrix", headers=headers) as outbox:
        outbox.start()
        assert wait_until(lambda: outbox.items()[0].state is OutboxState.UPLOADED, TIMEOUT), outbox.items()
        assert outbox.items()[0].uploaded.asset_url == uri, "the homeserver's 409 for the same URI is success"
    assert synapse.download_media(alice, uri) == tones[0].read_bytes()


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 1 MiB tmpfs (mounting needs root: skipped visibly otherwise)."""
    if os.geteuid() != 0:
        pytest.skip("a full disk is made with a tmpfs mount, which needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)],
                          capture_output=True, text=True, timeout=TIMEOUT)
    if done.returncode != 0:
        pytest.skip(f"tmpfs cannot be mounted here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], timeout=TIMEOUT, check=False)


def test_a_full_disk_refuses_the_add_and_leaves_nothing(small_disk: Path, tmp_path: Path, tones: List[Path]) -> None:
    with Outbox(small_disk / "outbox", "http://127.0.0.1:9/") as outbox:
        kept = outbox.add(tones[0])
        filler = small_disk / "filler"
        descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            while True:
                os.write(descriptor, b"\0" * 4096)
        except OSError as error:
            assert error.errno == 28, error
        finally:
            os.close(descriptor)
        source = tones[1].read_bytes()
        with pytest.raises(voicenote.NoSpaceError):
            outbox.add(tones[1])
        assert [item.id for item in outbox.items()] == [kept]
        assert len(list((small_disk / "outbox" / "items").iterdir())) == 1, "no copy left behind"
        assert tones[1].read_bytes() == source
        filler.unlink()
        assert outbox.add(tones[1]) > kept
        assert len(outbox.items()) == 2


def test_a_damaged_database_is_refused_and_left_as_it_was(cli: Path, tmp_path: Path) -> None:
    outbox = tmp_path / "outbox"
    outbox.mkdir(mode=0o700)
    damaged = bytes((i * 7919) & 0xFF for i in range(16384))
    (outbox / "outbox.db").write_bytes(damaged)
    listing = subprocess.run([str(cli), "outbox", "list", str(outbox)], capture_output=True, text=True,
                             timeout=TIMEOUT)
    assert listing.returncode != 0 and "VN_E_FORMAT" in listing.stderr, listing.stderr
    assert (outbox / "outbox.db").read_bytes() == damaged
    assert sorted(p.name for p in outbox.iterdir()) == ["lock", "outbox.db"]
    with pytest.raises(voicenote.FormatError):
        Outbox(outbox, "http://127.0.0.1:9/")


def test_one_outbox_per_directory_and_closed_is_an_error(tmp_path: Path) -> None:
    with Outbox(tmp_path / "outbox", "http://127.0.0.1:9/") as outbox:
        with pytest.raises(voicenote.BusyError):
            Outbox(tmp_path / "outbox", "http://127.0.0.1:9/")
        with pytest.raises(voicenote.MisuseError):
            outbox.start() or outbox.start()
    with pytest.raises(ValueError):
        outbox.items()
    with pytest.raises(voicenote.InvalidArgumentError):
        Outbox(tmp_path / "other", "http://127.0.0.1:9/", retry_base=0)
