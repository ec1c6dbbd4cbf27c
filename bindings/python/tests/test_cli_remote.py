"""`voicenote play|info|waveform URL` (Sources/voicenote-cli/HTTPArguments.swift): the tool takes an http(s) URL
where it takes a file, with `--header`, `--ca-file`, `--connect-timeout` and `--stall-timeout`; a URL gives the
same info, waveform and sound as its file, and a network failure (HTTP status, untrusted certificate, stall) is one
`Error:` line and exit 1, the tool's exit for every library failure (usage errors are ArgumentParser's 64).

The servers are real and local: Debian's nginx over HTTPS with a test CA (Tests/Servers/nginx_server.py) and the
scripted server (Tests/Servers/http_server.py) for bearer auth, status codes, stalls and an untrusted certificate.
Each test also checks in the server's request log that the request it expects was made."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

from audiofiles import REPO_ROOT, Media
from helpers import TIMEOUT
from test_cli_play import RATE, file_speaker, one_line, play_to_file, run

sys.path.insert(0, str(REPO_ROOT / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402
from nginx_server import NginxTestServer, make_self_signed  # noqa: E402

#: The tool's exit for a failure the library reports (ArgumentParser's EXIT_FAILURE), and for a usage error.
FAILURE, USAGE = 1, 64

TOKEN = "s3cr3t-T0KEN"


@pytest.fixture
def nginx(media: Media) -> Iterator[NginxTestServer]:
    """nginx over HTTPS (a test CA: pass ``--ca-file server.ca_file``) serving the media folder."""
    with NginxTestServer(str(media.files["opus"].parent), tls=True) as running:
        yield running


@pytest.fixture
def scripted(media: Media) -> Iterator[HTTPTestServer]:
    """http_server.py over plain HTTP serving the media folder (/auth/, /status/, /stall/ …)."""
    with HTTPTestServer(str(media.files["opus"].parent)) as running:
        yield running


def command(name: str, url: str, tmp_path: Path, *options: str) -> List[str]:
    """The arguments of ``voicenote <name> url``: play goes to a file speaker."""
    speaker = ["--device", "vn_spk", "--device-config", file_speaker(tmp_path / "out.raw")] if name == "play" else []
    return [name, url, *speaker, *options]


# --- the "done when" ------------------------------------------------------------------------------------------


def test_plays_an_https_url_at_a_rate_like_the_file(cli: Path, media: Media, tmp_path: Path) -> None:
    root = tmp_path / "served"
    root.mkdir()
    note = root / "note.ogg"
    shutil.copyfile(media.files["opus"], note)
    with NginxTestServer(str(root), tls=True) as server:
        url = server.url("/note.ogg")
        remote = play_to_file(cli, url, tmp_path / "remote.raw", "--rate", "1.5", "--ca-file", server.ca_file)
        served = server.wait_for_request(lambda r: r["path"] == "/note.ogg" and r["status"] in (200, 206),
                                         timeout=TIMEOUT)
        assert served["bytes"] > 0
    local = play_to_file(cli, str(note), tmp_path / "local.raw", "--rate", "1.5")
    assert remote == pytest.approx(local, rel=0.02)
    assert remote == pytest.approx(media.wav_seconds * RATE / 1.5, rel=0.03)


# --- info and waveform: a URL is its file -----------------------------------------------------------------------------


def test_info_of_a_url_is_the_file_s_with_the_url_redacted(cli: Path, media: Media, nginx: NginxTestServer) -> None:
    note = media.files["opus"]
    # Credentials and a query (signed CDN URLs carry secrets there) are never printed.
    address = nginx.url(f"/{note.name}")
    url = address.replace("https://", "https://someone:pa55word@") + "?sig=SECRET&exp=1"
    local = run(cli, "info", str(note), "--json")
    remote = run(cli, "info", url, "--json", "--ca-file", nginx.ca_file)
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    local_info, remote_info = json.loads(local.stdout), json.loads(remote.stdout)
    assert local_info.pop("file") == str(note)
    assert remote_info.pop("file") == address
    assert remote_info == local_info and remote_info["size"] == note.stat().st_size
    text = run(cli, "info", url, "--ca-file", nginx.ca_file)
    assert text.returncode == 0, text.stderr
    assert f"file:        {address}\n" in text.stdout
    for output in (remote.stdout, text.stdout):
        assert "SECRET" not in output and "pa55word" not in output
    nginx.wait_for_request(lambda r: r["path"] == f"/{note.name}?sig=SECRET&exp=1" and r["status"] in (200, 206),
                           timeout=TIMEOUT)


@pytest.mark.parametrize("options", [
    [], ["--samples", "40"], ["--encoding", "telegram"], ["--encoding", "matrix"], ["--encoding", "signal"],
    ["--format", "bars"], ["--format", "svg"],
], ids=lambda options: " ".join(options) or "default")
def test_waveform_of_a_url_is_the_file_s(cli: Path, media: Media, nginx: NginxTestServer,
                                         options: List[str]) -> None:
    note = media.files["opus"]
    local = run(cli, "waveform", str(note), *options)
    remote = run(cli, "waveform", nginx.url(f"/{note.name}"), "--ca-file", nginx.ca_file, *options)
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    assert remote.stdout == local.stdout and remote.stdout.strip()
    nginx.wait_for_request(lambda r: r["path"] == f"/{note.name}" and r["status"] in (200, 206), timeout=TIMEOUT)


def test_waveform_png_of_a_url_is_the_file_s(cli: Path, media: Media, nginx: NginxTestServer,
                                             tmp_path: Path) -> None:
    note = media.files["mp3"]
    local, remote = tmp_path / "local.png", tmp_path / "remote.png"
    assert run(cli, "waveform", str(note), "--format", "png", "-o", str(local)).returncode == 0
    result = run(cli, "waveform", nginx.url(f"/{note.name}"), "--ca-file", nginx.ca_file, "--format", "png",
                 "-o", str(remote))
    assert result.returncode == 0, result.stderr
    assert remote.read_bytes() == local.read_bytes() and remote.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    nginx.wait_for_request(lambda r: r["path"] == f"/{note.name}" and r["status"] in (200, 206), timeout=TIMEOUT)


# --- request headers --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("header", [f"Authorization: Bearer {TOKEN}", f"Authorization:Bearer {TOKEN}"])
def test_a_header_reaches_the_server(cli: Path, media: Media, scripted: HTTPTestServer, header: str) -> None:
    note = media.files["opus"]
    path = f"/auth/{TOKEN}/range/{note.name}"
    result = run(cli, "info", scripted.url(path), "--json", "--header", header, "--header", "X-Client: voicenote-cli")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["duration"] == json.loads(run(cli, "info", str(note), "--json").stdout)["duration"]
    request = scripted.wait_for_request(lambda r: r["path"] == path and r["status"] in (200, 206), timeout=TIMEOUT)
    assert request["headers"]["authorization"] == f"Bearer {TOKEN}"
    assert request["headers"]["x-client"] == "voicenote-cli"


@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_without_the_header_it_is_http_401(cli: Path, media: Media, scripted: HTTPTestServer, tmp_path: Path,
                                          name: str) -> None:
    path = f"/auth/{TOKEN}/range/{media.files['opus'].name}"
    url = scripted.url(path)
    result = run(cli, *command(name, url, tmp_path))
    assert result.returncode == FAILURE
    assert one_line(result) == f"Error: VN_E_PERMISSION: GET {url}: HTTP 401"
    request = scripted.wait_for_request(lambda r: r["path"] == path, timeout=TIMEOUT)
    assert request["status"] == 401 and "authorization" not in request["headers"]


# --- failures ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_a_404_is_one_line_naming_it(cli: Path, scripted: HTTPTestServer, tmp_path: Path, name: str) -> None:
    url = scripted.url("/status/404")
    result = run(cli, *command(name, url, tmp_path))
    assert result.returncode == FAILURE
    assert one_line(result) == f"Error: VN_E_NOT_FOUND: GET {url}: HTTP 404"
    request = scripted.wait_for_request(lambda r: r["path"] == "/status/404", timeout=TIMEOUT)
    assert request["status"] == 404
    assert not (tmp_path / "out.raw").exists() or (tmp_path / "out.raw").stat().st_size == 0


def test_an_untrusted_certificate_is_refused(cli: Path, media: Media, tmp_path: Path) -> None:
    certificate, key = make_self_signed(str(tmp_path / "tls"))
    note = media.files["opus"]
    with HTTPTestServer(str(note.parent), cert=certificate, key=key) as server:
        url = server.url(f"/range/{note.name}")
        refused = run(cli, "info", url)  # bounded by TIMEOUT: never a hang
        line = one_line(refused)
        assert refused.returncode == FAILURE
        assert line.startswith("Error: VN_E_NETWORK") and url in line and "certificate" in line.lower()
        assert server.requests() == []  # the TLS handshake failed: no HTTP request got through
        # The same server, its certificate trusted: the request is made and answered.
        trusted = run(cli, "info", url, "--ca-file", certificate)
        assert trusted.returncode == 0, trusted.stderr
        request = server.wait_for_request(lambda r: r["path"] == f"/range/{note.name}", timeout=TIMEOUT)
        assert request["status"] in (200, 206)


@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_a_stalled_server_fails_after_the_stall_timeout(cli: Path, media: Media, scripted: HTTPTestServer,
                                                        tmp_path: Path, name: str) -> None:
    path = f"/stall/2000/{media.files['opus'].name}"
    result = run(cli, *command(name, scripted.url(path), tmp_path, "--stall-timeout", "0.5"))
    assert result.returncode == FAILURE
    line = one_line(result)
    assert line.startswith("Error: VN_E_NETWORK") and "no data for 0.5 s (stalled)" in line  # not the default 30 s
    request = scripted.wait_for_request(lambda r: r["path"] == path, timeout=TIMEOUT)
    assert request["status"] == 200 and request["bytes"] == 2000 and not request["completed"]


@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_a_note_over_the_download_limit_is_one_line(cli: Path, media: Media, scripted: HTTPTestServer,
                                                    tmp_path: Path, name: str) -> None:
    note = media.files["opus"]
    result = run(cli, *command(name, scripted.url(f"/range/{note.name}"), tmp_path, "--max-bytes", "1000"))
    assert result.returncode == FAILURE
    line = one_line(result)
    assert line.startswith("Error: VN_E_TOO_LARGE") and "over the download limit of 1000" in line


def test_a_missing_ca_file_is_one_line(cli: Path, nginx: NginxTestServer, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-ca.pem"
    result = run(cli, "info", nginx.url("/speech.opus"), "--ca-file", str(missing))
    assert result.returncode == FAILURE
    line = one_line(result)
    assert line.startswith("Error: VN_E_NOT_FOUND") and str(missing) in line
    assert nginx.requests() == []


# --- the options themselves -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arguments, option", [
    (["--header", "Bearer T"], "--header"), (["--header", ": value"], "--header"),
    (["--header", "Bad Name: value"], "--header"), (["--header", "X-Line: a\r\nHost: elsewhere"], "--header"),
    (["--connect-timeout", "nan"], "--connect-timeout"), (["--connect-timeout", "0"], "--connect-timeout"),
    (["--connect-timeout", "inf"], "--connect-timeout"), (["--stall-timeout", "nan"], "--stall-timeout"),
    (["--stall-timeout=-1"], "--stall-timeout"), (["--stall-timeout", "3601"], "--stall-timeout"),
    (["--transfer-timeout", "0.5"], "--transfer-timeout"), (["--transfer-timeout", "nan"], "--transfer-timeout"),
    (["--max-bytes", "0"], "--max-bytes"), (["--max-bytes", "1099511627777"], "--max-bytes"),
])
@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_bad_http_options_are_usage_errors(cli: Path, scripted: HTTPTestServer, tmp_path: Path, name: str,
                                           arguments: List[str], option: str) -> None:
    result = run(cli, *command(name, scripted.url("/range/speech.opus"), tmp_path, *arguments))
    assert result.returncode == USAGE, result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"Error: {option}") and "Bearer T" not in result.stderr
    assert scripted.requests() == []  # refused before any request


def test_http_options_with_a_file_are_unused(cli: Path, media: Media, tmp_path: Path) -> None:
    note = media.files["opus"]
    unused = ["--header", "Authorization: Bearer T", "--ca-file", str(tmp_path / "missing.pem"),
              "--connect-timeout", "1", "--stall-timeout", "1"]
    plain = run(cli, "info", str(note), "--json")
    assert run(cli, "info", str(note), "--json", *unused).stdout == plain.stdout != ""
    assert run(cli, "waveform", str(note), *unused).returncode == 0
    assert play_to_file(cli, str(note), tmp_path / "out.raw", *unused) > 0


@pytest.mark.parametrize("name", ["play", "info", "waveform"])
def test_help_names_the_url_and_the_http_options(cli: Path, name: str) -> None:
    result = run(cli, name, "--help")
    assert result.returncode == 0, result.stderr
    assert "http(s) URL" in result.stdout
    for option in ("--header", "--ca-file", "--connect-timeout", "--stall-timeout", "--transfer-timeout", "--max-bytes"):
        assert option in result.stdout
