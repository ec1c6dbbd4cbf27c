"""`voicenote attachment FILE` and `voicenote upload FILE --endpoint URL` (Sources/voicenote-cli): the payload JSON
of a recording, and an upload to a real server on 127.0.0.1 (Tests/Servers/http_server.py, which parses multipart
bodies for real and logs each request) in Stream's multipart form or Matrix's raw form. A failure is one `Error:`
line and exit 1; a usage error is ArgumentParser's 64."""

from __future__ import annotations

import hashlib
import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from audiofiles import REPO_ROOT, Media
from helpers import TIMEOUT
from test_cli_play import one_line, run

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402

FAILURE, USAGE = 1, 64
KEYS = ["type", "title", "asset_url", "file_size", "mime_type", "duration", "waveform_data", "voicenote_loudness"]


@pytest.fixture
def server(upload_server: HTTPTestServer) -> HTTPTestServer:
    """http_server.py storing uploads under a folder of its own (conftest.py)."""
    return upload_server


def payload_of(result: subprocess.CompletedProcess[str]) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def record(server: HTTPTestServer, prefix: str) -> dict:
    """The logged request whose path starts with ``prefix`` (logged once answered)."""
    return server.wait_for_request(lambda request: request["path"].startswith(prefix))


def test_attachment_prints_the_payload_of_a_recording(cli: Path, media: Media) -> None:
    note = media.files["opus"]
    payload = payload_of(run(cli, "attachment", str(note)))
    assert list(payload) == KEYS
    assert payload["type"] == "voiceRecording" and payload["title"] == note.name
    assert payload["asset_url"] == "file://" + str(note)
    assert payload["file_size"] == note.stat().st_size and payload["mime_type"] == "audio/ogg"
    info = json.loads(run(cli, "info", str(note), "--json").stdout)
    assert payload["duration"] == info["duration"]
    assert len(payload["waveform_data"]) == 100 and all(0 <= v <= 1 for v in payload["waveform_data"])
    assert payload["voicenote_loudness"] == info["loudness"]  # the note's EBU R128 figures, in the extra data
    assert payload == json.loads(run(cli, "attachment", str(note), "--compact").stdout)


def test_attachment_options(cli: Path, media: Media) -> None:
    result = run(cli, "attachment", str(media.files["mp3"]), "--title", 'say "hi" ✓', "--url",
                 "https://cdn.example.com/a.mp3", "--duration", "2.5", "--compact")
    assert result.stdout.count("\n") == 1
    payload = payload_of(result)
    assert payload["title"] == 'say "hi" ✓' and payload["asset_url"] == "https://cdn.example.com/a.mp3"
    assert payload["duration"] == 2.5 and payload["mime_type"] == "audio/mpeg"


@pytest.mark.parametrize("arguments, status", [
    (["/no/such/note.ogg"], "VN_E_NOT_FOUND"),
    (["{note}", "--url", "relative/path"], "VN_E_INVALID_ARG"),
])
def test_attachment_failures(cli: Path, media: Media, arguments: list, status: str) -> None:
    arguments = [a.replace("{note}", str(media.files["opus"])) for a in arguments]
    line = one_line(run(cli, "attachment", *arguments))
    assert line.startswith("Error: ") and status in line


def test_attachment_refuses_a_negative_duration(cli: Path, media: Media) -> None:
    assert run(cli, "attachment", str(media.files["opus"]), "--duration", "-1").returncode == USAGE


def test_upload_multipart_like_stream(cli: Path, media: Media, server: HTTPTestServer) -> None:
    note = media.files["opus"]
    result = run(cli, "upload", str(note), "--endpoint", server.url("/channels/messaging/general/file"),
                 "--query", "api_key=k3y", "--header", "Authorization: jwt-token", "--header", "Stream-Auth-Type: jwt")
    payload = payload_of(result)
    assert result.stderr == ""                              # no progress bar off a terminal
    request = record(server, "/channels/")
    assert request["query"] == {"api_key": "k3y"}
    assert request["headers"]["authorization"] == "jwt-token" and request["headers"]["stream-auth-type"] == "jwt"
    part = request["parts"][0]
    assert (part["name"], part["filename"], part["content_type"]) == ("file", note.name, "audio/ogg")
    assert part["sha256"] == hashlib.sha256(note.read_bytes()).hexdigest()
    assert payload["asset_url"] == server.url("/range/" + request["upload"])
    assert payload["thumb_url"].endswith(".thumb") and len(payload["waveform_data"]) == 100


def test_upload_raw_like_matrix(cli: Path, media: Media, server: HTTPTestServer) -> None:
    note = media.files["opus"]
    payload = payload_of(run(cli, "upload", str(note), "--raw", "--endpoint", server.url("/_matrix/media/v3/upload"),
                             "--header", "Authorization: Bearer syt", "--compact"))
    assert payload["asset_url"].startswith("mxc://localhost/")
    request = record(server, "/_matrix/")
    assert request["query"] == {"filename": note.name} and request["content_type"] == "audio/ogg"
    assert request["sha256"] == hashlib.sha256(note.read_bytes()).hexdigest()


@pytest.mark.parametrize("mode, status", [("status-413", "VN_E_TOO_LARGE"), ("status-401", "VN_E_PERMISSION"),
                                          ("status-500", "VN_E_NETWORK"), ("notjson", "VN_E_FORMAT")])
def test_upload_failures_are_one_line(cli: Path, media: Media, server: HTTPTestServer, mode: str, status: str) -> None:
    note = media.files["opus"]
    before = note.read_bytes()
    line = one_line(run(cli, "upload", str(note), "--endpoint", server.url(f"/uploadmode/{mode}/channels/m/x/file")))
    assert line.startswith("Error: ") and status in line
    if mode.startswith("status-"):
        assert f"HTTP {mode[7:]}" in line
    assert note.read_bytes() == before


def test_upload_usage_errors(cli: Path, media: Media, server: HTTPTestServer) -> None:
    note = str(media.files["opus"])
    endpoint = server.url("/channels/m/x/file")
    assert run(cli, "upload", note, "--endpoint", endpoint, "--query", "novalue").returncode == USAGE
    assert run(cli, "upload", note).returncode == USAGE
    assert "VN_E_INVALID_ARG" in one_line(run(cli, "upload", note, "--endpoint", "ftp://example.com/up"))
    assert "VN_E_NOT_FOUND" in one_line(run(cli, "upload", note + ".missing", "--endpoint", endpoint))
    assert not any(r["path"].startswith("/channels/") for r in server.requests())


def test_upload_draws_a_progress_bar_on_a_terminal(cli: Path, media: Media, server: HTTPTestServer) -> None:
    leader, follower = pty.openpty()
    try:
        child = subprocess.run([str(cli), "upload", str(media.files["opus"]), "--endpoint",
                                server.url("/channels/m/x/file"), "--compact"], stdout=subprocess.PIPE,
                               stderr=follower, stdin=subprocess.DEVNULL, timeout=TIMEOUT, text=True)
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:                                 # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert child.returncode == 0
    text = drawn.decode()
    assert "\r[" in text and "100%" in text and "  0%" in text
    assert json.loads(child.stdout)["asset_url"].startswith("http://127.0.0.1:")
