"""What a voice note and its server may make the library do (docs/player.md, "Remote notes"; docs/attachments.md):
redirects that would carry credentials elsewhere, content that would make FFmpeg open other files or URLs.
Two real servers (Tests/Servers/http_server.py) on 127.0.0.1 and 127.0.0.2, whose request logs say who was asked
what; risky calls run in a child process with a bound on time."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import pytest

from audiofiles import Media, is_tsan_build, loaded_library_path
from helpers import PACKAGE_ROOT, TIMEOUT

import voicenote
from voicenote import HTTPOptions, Uploader, VoiceRecordingPayload

#: Skipped (visibly) in the ThreadSanitizer run: hostile servers and content: HTTP behaviour, not the thread contract the TSan run is for; the plain suite runs them.
pytestmark = pytest.mark.skipif(is_tsan_build(loaded_library_path()), reason="hostile servers and content: HTTP behaviour, not the thread contract the TSan run is for; the plain suite runs them")

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402
from nginx_server import make_self_signed  # noqa: E402

REDIRECTS = [301, 302, 303, 307, 308]
SECRET = {"X-Token": "cdn-secret", "Authorization": "Bearer syt_secret"}


@pytest.fixture
def asked(media: Media) -> Iterator[HTTPTestServer]:
    """The server a URL names (127.0.0.1)."""
    with HTTPTestServer(str(media.files["opus"].parent)) as running:
        yield running


@pytest.fixture
def elsewhere(media: Media) -> Iterator[HTTPTestServer]:
    """Another origin (127.0.0.2) a redirect may point to."""
    with HTTPTestServer(str(media.files["opus"].parent), bind="127.0.0.2") as running:
        yield running


def goto(server: HTTPTestServer, code: int, target: str) -> str:
    return server.url(f"/goto/{code}/note?to={quote(target, safe='')}")


def carries_secret(request: dict) -> bool:
    headers = request["headers"]
    return "x-token" in headers or "authorization" in headers


# --- redirects and credentials ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", REDIRECTS)
def test_a_redirect_to_another_origin_is_followed_without_the_headers(
        media: Media, asked: HTTPTestServer, elsewhere: HTTPTestServer, code: int) -> None:
    note = media.files["opus"]
    url = goto(asked, code, elsewhere.url(f"/range/{note.name}"))
    assert voicenote.waveform(url, 40, http=HTTPOptions(headers=SECRET)) == voicenote.waveform(note, 40)
    first = asked.wait_for_request(lambda r: r["path"].startswith("/goto/"), timeout=TIMEOUT)
    assert first["headers"]["x-token"] == "cdn-secret" and first["status"] == code
    second = elsewhere.wait_for_request(lambda r: r["path"] == f"/range/{note.name}", timeout=TIMEOUT)
    assert not carries_secret(second), second["headers"]


@pytest.mark.parametrize("code", REDIRECTS)
def test_a_redirect_within_the_origin_keeps_the_headers(media: Media, asked: HTTPTestServer, code: int) -> None:
    note = media.files["opus"]
    url = goto(asked, code, asked.url(f"/auth/tok/range/{note.name}"))
    headers = {"Authorization": "Bearer tok"}
    assert voicenote.waveform(url, 40, http=HTTPOptions(headers=headers)) == voicenote.waveform(note, 40)
    hop = asked.wait_for_request(lambda r: r["path"].startswith("/auth/"), timeout=TIMEOUT)
    assert hop["headers"]["authorization"] == "Bearer tok" and hop["status"] in (200, 206)


def test_a_redirect_from_https_to_http_is_refused(media: Media, tmp_path: Path, asked: HTTPTestServer) -> None:
    certificate, key = make_self_signed(str(tmp_path / "tls"))
    note = media.files["opus"]
    with HTTPTestServer(str(note.parent), cert=certificate, key=key) as secure:
        url = goto(secure, 302, asked.url(f"/range/{note.name}"))
        with pytest.raises(voicenote.NetworkError, match="from https to http"):
            voicenote.waveform(url, 40, http=HTTPOptions(headers=SECRET, ca_file=certificate))
        secure.wait_for_request(lambda r: r["path"].startswith("/goto/"), timeout=TIMEOUT)
    assert not asked.requests()


@pytest.mark.parametrize("code", REDIRECTS)
def test_an_upload_is_never_sent_on_by_a_redirect(asked: HTTPTestServer, elsewhere: HTTPTestServer, code: int) -> None:
    target = elsewhere.url("/channels/messaging/general/file")
    with Uploader(goto(asked, code, target), http=HTTPOptions(headers=SECRET)) as uploader:
        with pytest.raises(voicenote.NetworkError, match=f"HTTP {code} redirect to .* refused"):
            uploader.upload(os.urandom(300_000), file_name="note.ogg", payload=VoiceRecordingPayload("file:///x"))
    asked.wait_for_request(lambda r: r["path"].startswith("/goto/"), timeout=TIMEOUT)
    assert not elsewhere.requests()


# --- content that would make FFmpeg open other things ------------------------------------------------------------

CHILD = r"""
import sys, voicenote
voicenote.set_cache_limit(0)
try:
    print("waveform", round(sum(voicenote.waveform(sys.argv[1], 40)), 3))
except voicenote.VoiceNoteError as error:
    print(type(error).__name__, error)
"""


def run_child(target: str, cwd: Path) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([sys.executable, "-c", CHILD, target], cwd=cwd, capture_output=True, text=True,
                           env=env, timeout=TIMEOUT)
    assert child.returncode == 0, child.stderr
    return child.stdout.strip()


def test_a_dash_manifest_fetches_nothing(media: Media, tmp_path: Path, elsewhere: HTTPTestServer) -> None:
    served = tmp_path / "served"
    served.mkdir()
    (served / "note.ogg").write_text(
        '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration='
        '"PT6S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet '
        f'mimeType="audio/ogg"><Representation id="1" bandwidth="64000"><BaseURL>{elsewhere.url("/range/" + media.files["opus"].name)}'
        '</BaseURL></Representation></AdaptationSet></Period></MPD>')
    with HTTPTestServer(str(served)) as server:
        outcome = run_child(server.url("/range/note.ogg"), tmp_path)
    assert outcome.startswith("UnsupportedError") and "(dash)" in outcome, outcome
    assert not elsewhere.requests()


def test_a_concat_list_reads_no_local_file(media: Media, tmp_path: Path) -> None:
    os.link(media.files["mp3"], tmp_path / "secret.mp3")
    os.mkfifo(tmp_path / "pipe.mp3")
    for listed in ("secret.mp3", "pipe.mp3"):
        note = tmp_path / f"note-{listed}.ogg"
        note.write_text(f"ffconcat version 1.0\nfile {listed}\n")
        outcome = run_child(str(note), tmp_path)
        assert outcome.startswith("UnsupportedError") and "(concat)" in outcome, outcome


# --- credentials and the media cache ----------------------------------------------------------------------------


def test_media_fetched_with_credentials_is_served_from_the_cache_only_with_the_same_ones(
        media: Media, asked: HTTPTestServer) -> None:
    note = media.files["opus"]
    url = asked.url(f"/auth/tok/range/{note.name}")
    alice = HTTPOptions(headers={"Authorization": "Bearer tok", "X-Account": "alice"})
    expected = voicenote.waveform(note, 40)
    assert voicenote.waveform(url, 40, http=alice) == expected
    asked.wait_for_request(lambda r: r["path"] == url[len(asked.base_url):] and r["completed"], timeout=TIMEOUT)
    assert voicenote.cache_size() > 0
    with pytest.raises(voicenote.AccessDeniedError):  # no credentials: the server is asked, and refuses
        voicenote.waveform(url, 40)
    reordered = HTTPOptions(headers=[("X-Account", "alice"), ("Authorization", "Bearer tok")])
    refused = asked.wait_for_request(lambda r: r["status"] == 401, timeout=TIMEOUT)
    assert "authorization" not in refused["headers"]
    count = len(asked.requests())
    assert voicenote.waveform(url, 40, http=reordered) == expected  # the same credentials: from the cache
    assert voicenote.info(url, http=alice)["duration"] == voicenote.info(note)["duration"]
    assert len(asked.requests()) == count
    bob = HTTPOptions(headers={"Authorization": "Bearer tok", "X-Account": "bob"})
    assert voicenote.waveform(url, 40, http=bob) == expected  # other credentials: asked again
    asked.wait_for_request(lambda r: r["headers"].get("x-account") == "bob", timeout=TIMEOUT)
    for entry in Path(voicenote.cache_directory()).iterdir():  # no secret is written to disk
        assert b"Bearer tok" not in entry.read_bytes() and b"alice" not in entry.read_bytes()


# --- downloads with bounds -------------------------------------------------------------------------------------

BOUNDED = r"""
import json, sys, voicenote
voicenote.set_cache_limit(0)
what, url, http = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
try:
    result = getattr(voicenote, what)(url, http=voicenote.HTTPOptions(**http))
    print("ok")
except voicenote.VoiceNoteError as error:
    print(type(error).__name__, error)
"""


def bounded(what: str, url: str, **http: object) -> str:
    """`voicenote.<what>(url, http=HTTPOptions(**http))` in a child that may take TIMEOUT seconds: what it raised
    (class name and message), or "ok". A hang (the defect these tests guard against) fails the test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    child = subprocess.run([sys.executable, "-c", BOUNDED, what, url, json.dumps(http)], capture_output=True,
                           text=True, env=env, timeout=TIMEOUT)
    assert child.returncode == 0, child.stderr
    return child.stdout.strip()


def test_an_endless_body_stops_at_the_download_limit(media: Media, asked: HTTPTestServer) -> None:
    note = media.files["opus"]
    outcome = bounded("info", asked.url(f"/endless/{note.name}"), max_bytes=2_000_000)
    assert outcome.startswith("TooLargeError") and "over the download limit of 2000000" in outcome, outcome
    sent = asked.wait_for_request(lambda r: r["path"].startswith("/endless/"), timeout=TIMEOUT)["bytes"]
    assert sent < 2_000_000 + (8 << 20), sent  # what the socket buffers took before the client left


def test_a_claimed_length_over_the_limit_fails_before_the_body(media: Media, asked: HTTPTestServer) -> None:
    note = media.files["opus"]
    claimed = (100 << 20) + 1  # one byte over the default limit
    outcome = bounded("waveform", asked.url(f"/claim/{claimed}/{note.name}"))
    assert outcome.startswith("TooLargeError") and f"{claimed} bytes" in outcome, outcome


def test_a_trickling_server_meets_the_transfer_timeout(media: Media, asked: HTTPTestServer) -> None:
    note = media.files["opus"]
    outcome = bounded("waveform", asked.url(f"/throttle/200/{note.name}"), transfer_timeout=1.5, stall_timeout=30)
    assert outcome.startswith("NetworkError") and "timed out" in outcome.lower(), outcome


def test_a_range_answer_that_never_reaches_its_total_fails_without_a_storm(media: Media, asked: HTTPTestServer) -> None:
    note = media.files["opus"]
    for what in ("waveform", "info"):
        outcome = bounded(what, asked.url(f"/liarange/{note.name}"))
        assert outcome.startswith("NetworkError"), outcome
    assert len(asked.requests()) <= 6, [r["range"] for r in asked.requests()]


# --- schemes voicenote does not fetch --------------------------------------------------------------------------


@pytest.mark.parametrize("location", ["mxc://matrix.org/AbCdEf", "content://media/external/audio/1", "s3://bucket/a.ogg"])
def test_a_scheme_voicenote_does_not_fetch_gets_one_answer_everywhere(location: str, tmp_path: Path) -> None:
    scheme = location.split(":")[0]
    for call in (lambda: voicenote.info(location), lambda: voicenote.waveform(location, 40)):
        with pytest.raises(voicenote.UnsupportedError, match=f"{scheme}://"):
            call()
    cli = os.environ.get("VOICENOTE_CLI")
    if cli:
        for command in ("info", "waveform"):
            run = subprocess.run([cli, command, location], capture_output=True, text=True, timeout=TIMEOUT)
            assert run.returncode == 1 and f"{scheme}://" in run.stderr and "UNSUPPORTED" in run.stderr, run.stderr


def test_a_file_url_reads_the_file(media: Media) -> None:
    note = media.files["opus"]
    assert voicenote.waveform(note.resolve().as_uri(), 40) == voicenote.waveform(note, 40)


@pytest.mark.parametrize("path", ["/uploadmode/badurl/channels/messaging/general/file", "/uploadmode/badurl/_matrix/media/v3/upload"])
def test_an_upload_answer_naming_a_javascript_url_is_refused(asked: HTTPTestServer, path: str) -> None:
    raw = "_matrix" in path
    with Uploader(asked.url(path), mode="raw" if raw else "multipart") as uploader:
        with pytest.raises(voicenote.FormatError, match="not an http"):
            uploader.upload(b"\x00" * 1000, file_name="note.ogg", payload=VoiceRecordingPayload("file:///x"))


def test_unfinished_cache_files_of_dead_writers_are_counted_and_swept(tmp_path: Path) -> None:
    directory = Path(voicenote.cache_directory())
    directory.mkdir(parents=True, exist_ok=True)
    hour_ago = time.time() - 3600
    dead = directory / ".incoming-dead01"          # a writer killed an hour ago
    dead.write_bytes(bytes(100_000))
    os.utime(dead, (hour_ago, hour_ago))
    fresh = directory / ".incoming-fresh1"         # being written right now
    fresh.write_bytes(bytes(1000))
    live = directory / ".incoming-live01"          # old, but its writer still holds its lock
    live.write_bytes(bytes(1000))
    os.utime(live, (hour_ago, hour_ago))
    holder = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert voicenote.cache_size() == 102_000
        voicenote.clear_cache()
        assert not dead.exists() and fresh.exists() and live.exists()
        assert voicenote.cache_size() == 2000
    finally:
        os.close(holder)


def test_a_cache_path_that_is_a_file_is_an_io_error(tmp_path: Path) -> None:
    occupied = tmp_path / "a-file"
    occupied.write_bytes(b"not a directory")
    voicenote.set_cache_directory(occupied)
    with pytest.raises(voicenote.IOFailedError, match="not a directory"):
        voicenote.cache_size()
