"""http(s) locations (docs/player.md, "Remote notes"): the waveform, info and the player read a URL as they read a
file, through a real HTTP server on 127.0.0.1 (Tests/Servers/http_server.py) whose request log each test checks;
libcurl is loaded on the first URL and never before."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

from audiofiles import Media
from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_until
from test_player import finished, frames, play_to_end, speaker_player

import voicenote
from voicenote import PlaybackFailed, PlayerState

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402


@pytest.fixture
def server(media: Media) -> Iterator[HTTPTestServer]:
    """A server over the media folder, stopped by its pid after the test."""
    with HTTPTestServer(media.files["opus"].parent) as running:
        yield running


#: Prints, as JSON, whether libcurl is mapped after importing the package, after a waveform of a file and after
#: one of a URL, with both waveforms.
CHILD = r"""
import json, sys
import voicenote

def curl_mapped():
    with open("/proc/self/maps") as maps:
        return any("/libcurl" in line for line in maps)

steps = {"import": curl_mapped()}
local = voicenote.waveform(sys.argv[1], 40)
steps["file"] = curl_mapped()
remote = voicenote.waveform(sys.argv[2], 40)
steps["url"] = curl_mapped()
steps["same"] = local == remote
print(json.dumps(steps))
"""


def test_libcurl_is_loaded_by_the_first_url_only(media: Media, server: HTTPTestServer) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    note = media.files["opus"]
    child = subprocess.run([sys.executable, "-c", CHILD, str(note), server.url(f"/range/{note.name}")],
                           capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert child.returncode == 0, child.stderr
    steps = json.loads(child.stdout)
    assert steps == {"import": False, "file": False, "url": True, "same": True}


def test_info_and_waveform_of_a_url_equal_the_file_s(media: Media, server: HTTPTestServer) -> None:
    for kind in ("opus", "mp3"):
        note = media.files[kind]
        url = server.url(f"/range/{note.name}")
        assert voicenote.info(url) == voicenote.info(note)
        assert voicenote.waveform(url, 60) == voicenote.waveform(note, 60)
    requested = [request["path"] for request in server.requests()]
    assert f"/range/{media.files['mp3'].name}" in requested


@pytest.mark.parametrize("code, error", [(401, voicenote.AccessDeniedError), (403, voicenote.AccessDeniedError),
                                         (404, voicenote.NotFoundError), (413, voicenote.TooLargeError),
                                         (500, voicenote.NetworkError)])
def test_http_errors_raise_the_status_s_exception(server: HTTPTestServer, code: int, error: type) -> None:
    with pytest.raises(error, match=f"HTTP {code}"):
        voicenote.waveform(server.url(f"/status/{code}"))
    server.wait_for_request(lambda request: request["path"] == f"/status/{code}")


def test_a_refused_connection_is_a_network_error(server: HTTPTestServer) -> None:
    url = server.url("/range/speech.opus")
    server.stop()
    with pytest.raises(voicenote.NetworkError):
        voicenote.info(url)


def test_a_url_plays_to_its_end(media: Media, server: HTTPTestServer, tmp_path: Path) -> None:
    """Every frame of the note reaches the speaker, as from the file; the context names the URL."""
    note = media.files["opus"]
    url = server.url(f"/norange/{note.name}")
    output = tmp_path / "out.raw"
    log = Collector()
    with speaker_player(output) as player:
        player.subscribe(log.add)
        events = play_to_end(player, url, log)
        assert finished(events) and player.context.location == url
    local = tmp_path / "local.raw"
    with speaker_player(local) as player:
        reference = Collector()
        player.subscribe(reference.add)
        play_to_end(player, note, reference)
    assert frames(output) == frames(local) > 0
    assert output.read_bytes() == local.read_bytes()


def test_a_missing_url_fails_as_an_event(server: HTTPTestServer, tmp_path: Path) -> None:
    url = server.url("/range/missing.ogg")
    log = Collector()
    with speaker_player(tmp_path / "out.raw") as player:
        player.subscribe(log.add)
        player.load(url)
        events = log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) for e in items), what="a failure")
        failure = next(e for e in events if isinstance(e, PlaybackFailed))
        assert isinstance(failure.error, voicenote.NotFoundError) and "HTTP 404" in str(failure.error)
        assert player.context.state is PlayerState.NOT_LOADED and player.context.location == url


def test_the_buffered_fraction_grows_while_paused_and_while_a_seek_waits(media: Media, server: HTTPTestServer,
                                                                        tmp_path: Path) -> None:
    """A server without ranges, pacing its body: the context's buffered_fraction follows the download while the
    player is paused (no progress step is made then) and while a seek ahead waits for the bytes."""
    note = media.files["opus"]
    rate = max(2000, note.stat().st_size // 4)  # about 4 s for the whole note
    with speaker_player(tmp_path / "out.raw") as player:
        player.load(server.url(f"/pacednorange/{rate}/{note.name}"), autoplay=False)
        seen: List[float] = []

        def grew(to: float) -> bool:
            context = player.context
            seen.append(context.buffered_fraction)
            return context.state is PlayerState.PAUSED and context.buffered_fraction >= to

        assert wait_until(lambda: grew(0.01)), seen
        first = player.context.buffered_fraction
        assert wait_until(lambda: grew(first + 0.1)), seen  # paused: it grows anyway
        player.seek(player.context.duration * 0.9)
        middle = player.context.buffered_fraction
        assert middle < 0.95, middle
        assert wait_until(lambda: grew(min(1.0, middle + 0.1))), seen  # the seek waits; the share still grows
