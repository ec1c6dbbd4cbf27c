"""URLs with HTTP options, stable keys and the media cache (docs/player.md, "Remote notes" and "The media cache"):
headers and a key through ``Player.load``, TLS with a test CA through ``HTTPOptions(ca_file=…)`` and an untrusted
certificate refused, a seek answered with a Range request by nginx, a replay with the server stopped, the cache
settings, and processes sharing one cache directory. Each test has its own cache directory (conftest.py) and
checks from the server's log that the request it expects was made (or that none was)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from audiofiles import Media, run, write_tone
from helpers import TIMEOUT, Recorder as Collector
from test_cli_play import run as cli_run
from test_player import contexts, frames, play_to_end, speaker_player

import voicenote
from voicenote import HTTPOptions, PlaybackFailed, PlayerState

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402
from nginx_server import NginxTestServer, make_self_signed  # noqa: E402


@pytest.fixture
def long_note(tmp_path: Path) -> Path:
    """60 s of tone as Ogg Opus at 64 kbit/s (about 480 kB): room for a seek far ahead of a throttled download."""
    note = tmp_path / "long.ogg"
    run(["opusenc", "--quiet", "--bitrate", "64", str(write_tone(tmp_path / "long.wav", 60)), str(note)])
    return note


def play_url(url: str, output: Path, **load: object) -> List[object]:
    """Plays ``url`` to its end on a speaker writing ``output`` (no failure); returns the events."""
    log = Collector()
    with speaker_player(output) as player:
        player.subscribe(log.add)
        return play_to_end(player, url, log, **load)


def test_headers_and_a_key_reach_the_server_and_the_key_replays_it_with_the_server_stopped(
        media: Media, tmp_path: Path) -> None:
    note = media.files["opus"]
    with HTTPTestServer(str(note.parent)) as server:
        url = server.url(f"/auth/token/range/{note.name}")
        play_url(url, tmp_path / "first.raw", headers={"Authorization": "Bearer token"}, key="message-7/0")
        request = server.wait_for_request(lambda r: r["path"] == f"/auth/token/range/{note.name}")
        assert request["headers"]["authorization"] == "Bearer token"
        assert voicenote.cache_size() > 0  # kept once the last byte arrived, before the end of playback
    # The server is gone; another (re-signed) URL under the same key plays from the cache.
    play_url(f"{url}?signature=renewed", tmp_path / "again.raw", key="message-7/0")
    assert (tmp_path / "again.raw").read_bytes() == (tmp_path / "first.raw").read_bytes()
    assert frames(tmp_path / "again.raw") > 0


def test_headers_and_keys_apply_to_urls_only(media: Media, tmp_path: Path) -> None:
    with speaker_player(tmp_path / "out.raw") as player:
        with pytest.raises(ValueError):
            player.load(media.files["opus"], key="k")
        with pytest.raises(voicenote.InvalidArgumentError):
            player.load("https://127.0.0.1:1/x.ogg", key="")
        with pytest.raises(voicenote.InvalidArgumentError):
            player.load("https://127.0.0.1:1/x.ogg", headers={"Bad Name": "x"})


def test_the_cache_settings(tmp_path: Path, own_media_cache: Path) -> None:
    assert voicenote.cache_directory() == str(own_media_cache)
    assert voicenote.cache_limit() == voicenote.DEFAULT_CACHE_LIMIT == 100_000_000
    voicenote.set_cache_limit(5_000_000)
    assert voicenote.cache_limit() == 5_000_000
    voicenote.set_cache_limit(voicenote.DEFAULT_CACHE_LIMIT)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.set_cache_limit(-1)
    with pytest.raises(TypeError):
        voicenote.set_cache_limit(1.5)
    with pytest.raises(voicenote.InvalidArgumentError):
        voicenote.set_cache_directory("")
    assert voicenote.cache_size() == 0
    voicenote.clear_cache()  # of a directory not made yet: nothing to do


def test_a_waveform_over_tls_trusts_the_ca_file_only(media: Media, tmp_path: Path) -> None:
    note = media.files["opus"]
    with NginxTestServer(str(note.parent), tls=True) as server:
        url = server.url(f"/{note.name}")
        with pytest.raises(voicenote.NetworkError, match="certificate"):
            voicenote.waveform(url, 40)
        assert voicenote.waveform(url, 40, http=HTTPOptions(ca_file=server.ca_file)) == voicenote.waveform(note, 40)
        assert voicenote.info(url, http=HTTPOptions(ca_file=server.ca_file)) == voicenote.info(note)
        server.wait_for_request(lambda r: r["path"] == f"/{note.name}" and r["completed"])
        voicenote.clear_cache()
        play_url(url, tmp_path / "out.raw", http=HTTPOptions(ca_file=server.ca_file))


def test_an_untrusted_self_signed_certificate_is_refused(media: Media, tmp_path: Path) -> None:
    certificate, key = make_self_signed(str(tmp_path / "tls"))
    note = media.files["opus"]
    with HTTPTestServer(str(note.parent), cert=certificate, key=key) as server:
        log = Collector()
        with speaker_player(tmp_path / "out.raw") as player:
            player.subscribe(log.add)
            player.load(server.url(f"/range/{note.name}"))
            events = log.wait_for(lambda items: any(isinstance(e, PlaybackFailed) for e in items), what="a failure")
            failure = next(e for e in events if isinstance(e, PlaybackFailed))
            assert isinstance(failure.error, voicenote.NetworkError) and "certificate" in str(failure.error)
            assert player.context.state is PlayerState.NOT_LOADED
        assert not server.requests()  # refused in the handshake: no request reached the server


def test_a_seek_far_ahead_is_a_range_request_to_nginx(long_note: Path, tmp_path: Path) -> None:
    """nginx sends the file at 64 KiB/s under /throttle/; a seek to 50 s (about 400 kB in) asks for a range."""
    with NginxTestServer(str(long_note.parent), tls=True) as server:
        log = Collector()
        with speaker_player(tmp_path / "out.raw") as player:
            player.subscribe(log.add)
            player.load(server.url(f"/throttle/{long_note.name}"), autoplay=False, http=HTTPOptions(ca_file=server.ca_file))
            log.wait_for(lambda items: any(c.state is PlayerState.PAUSED for c in contexts(items)), what="paused")
            player.seek(50)
            log.wait_for(lambda items: any(not c.is_seeking and c.state is PlayerState.PAUSED and c.current_time == 50
                                           for c in contexts(items)[1:]), what="the seek to be done")
            assert player.context.duration_is_estimate  # the download is far from its end
        ranged = server.wait_for_request(lambda r: r["path"] == f"/throttle/{long_note.name}" and r["range"])
        assert ranged["range"].startswith("bytes=") and ranged["status"] == 206


#: Runs `voicenote info URL --json` for each URL given, in a child process sharing the parent's $XDG_CACHE_HOME.
def run_info(cli: Path, url: str) -> subprocess.Popen[str]:
    return subprocess.Popen([str(cli), "info", url, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, stdin=subprocess.DEVNULL)


def test_processes_sharing_a_cache_directory_leave_every_entry_whole(cli: Path, media: Media) -> None:
    """Eight processes download three notes at once into one cache; then, the server gone, each note's info
    still comes whole from the cache, equal to the file's."""
    names = [media.files[kind].name for kind in ("opus", "mp3", "wav")]
    with HTTPTestServer(str(media.files["opus"].parent)) as server:
        urls = [server.url(f"/range/{name}") for name in names]
        children = [run_info(cli, urls[index % 3]) for index in range(8)]
        for child in children:
            out, err = child.communicate(timeout=TIMEOUT)
            assert child.returncode == 0, err
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "voicenote" / "media"
    entries = sorted(cache.glob("*.vnc"))
    assert len(entries) == 3 and all(entry.stat().st_mode & 0o777 == 0o600 for entry in entries)
    assert not list(cache.glob(".incoming-*"))
    for url, name in zip(urls, names):
        remote, expected = (json.loads(cli_run(cli, "info", where, "--json").stdout)
                            for where in (url, str(media.files["opus"].parent / name)))
        remote.pop("file"), expected.pop("file")
        assert remote == expected


def test_a_urls_analysis_is_kept_beside_its_media(cli: Path, media: Media, own_media_cache: Path) -> None:
    """voicenote.analyse(URL) keeps the waveform, length and loudness beside the media's cache entry (a `.vna`
    file); the next analysis of the URL reads it: with the cached media's bytes zeroed (undecodable) it still gives
    the first figures. `voicenote info URL` prints the kept loudness (a record edited to say -33.3 LUFS shows so),
    and a damaged record is analysed again, never trusted."""
    note = media.files["opus"]
    with HTTPTestServer(str(note.parent)) as server:
        url = server.url(f"/range/{note.name}")
        first = voicenote.analyse(url)
        assert first.loudness is not None
    (record,) = own_media_cache.glob("*.vna")
    (entry,) = own_media_cache.glob("*.vnc")
    whole = entry.read_bytes()
    size = note.stat().st_size
    entry.write_bytes(whole[:len(whole) - size] + bytes(size))  # the media undecodable, its entry still whole
    # The server is gone and the media zeroed: only the kept record can answer.
    again = voicenote.analyse(url)
    assert again.values == first.values and again.duration == first.duration and again.loudness == first.loudness
    entry.write_bytes(whole)

    # The CLI's cache is $XDG_CACHE_HOME/voicenote/media: this one, through a link.
    cli_cache = own_media_cache.parent / "cli-xdg" / "voicenote"
    cli_cache.mkdir(parents=True)
    (cli_cache / "media").symlink_to(own_media_cache, target_is_directory=True)
    text = record.read_text(encoding="latin-1")
    lines = [("loudness -33.33 4 -5" if line.startswith("loudness ") else line) for line in text.split("\n")]
    record.write_text("\n".join(lines), encoding="latin-1")
    shown = subprocess.run([str(cli), "info", url], capture_output=True, text=True, timeout=TIMEOUT,
                           env={**os.environ, "XDG_CACHE_HOME": str(cli_cache.parent)})
    assert shown.returncode == 0, shown.stderr
    assert "-33.3 LUFS" in shown.stdout, shown.stdout

    # A damaged record (a value out of range) is not trusted: the media is decoded again.
    record.write_text(text.replace("values ", "values 7 ", 1), encoding="latin-1")
    assert voicenote.analyse(url) == first
