"""Uploads over tus 1.0.0 (``UploadMode.TUS``) to a tus server someone else wrote — tuspyserver from PyPI, under
uvicorn on 127.0.0.1 (Tests/Servers/tus_server.py) — for a file, for a take sent as it is recorded (the length
deferred, PATCHes as the pages are written, the last naming the length), resuming after a failed PATCH from the
offset HEAD gives, and terminating (DELETE) a cancelled take's upload. The stored bytes are compared with the file."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import pulse
from audiofiles import find_cli
from helpers import TIMEOUT, wait_until

import voicenote
from voicenote import Uploader, UploadState

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from tus_server import TusTestServer  # noqa: E402


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def tus(tmp_path: Path) -> Iterator[TusTestServer]:
    root = tmp_path / "tus"
    root.mkdir()
    with TusTestServer(str(root)) as server:
        yield server


@pytest.fixture
def microphone(pulse_microphone: pulse.PulseServer) -> pulse.PulseServer:
    """The real-time microphone of conftest.py's ``pulse_microphone``."""
    return pulse_microphone


def completed_once(server: TusTestServer, data: bytes) -> Dict[str, Any]:
    assert server.wait_for(lambda lines: any("complete" in line for line in lines), TIMEOUT), "no upload completed"
    done = server.completed()
    assert len(done) == 1, done
    assert done[0]["sha256"] == sha256(data) and done[0]["size"] == len(data)
    return done[0]


def test_a_file_over_tus(tus: TusTestServer, tones: List[Path]) -> None:
    with Uploader(tus.url("/files/"), mode="tus") as uploader:
        sent = uploader.upload(tones[0], timeout=TIMEOUT)
        assert uploader.content_uri == sent.asset_url
    assert sent.asset_url.startswith(tus.url("/files/"))
    done = completed_once(tus, tones[0].read_bytes())
    assert sent.asset_url.endswith("/" + done["complete"])
    assert done["metadata"] == {"filename": tones[0].name, "filetype": "audio/ogg"}
    creation = next(r for r in tus.requests() if r["method"] == "POST")
    assert creation["length"] == str(tones[0].stat().st_size) and creation["headers"]["tus-resumable"] == "1.0.0"
    assert sent.duration and sent.waveform_data


def test_a_failed_patch_resumes_from_the_servers_offset(tmp_path: Path, tones: List[Path]) -> None:
    root = tmp_path / "tus"
    root.mkdir()
    with TusTestServer(str(root), fail_patch=1) as server:
        with Uploader(server.url("/files/"), mode="tus") as uploader:
            sent = uploader.upload(tones[0], timeout=TIMEOUT)
            assert sent.asset_url == uploader.content_uri
        methods = [(r["method"], r["status"]) for r in server.requests()]
        assert methods[:4] == [("POST", 201), ("PATCH", 503), ("HEAD", 200), ("PATCH", 204)], methods
        completed_once(server, tones[0].read_bytes())


def test_a_take_is_sent_over_tus_as_it_is_recorded(tus: TusTestServer, microphone: pulse.PulseServer,
                                                    tmp_path: Path) -> None:
    with voicenote.Recorder(tmp_path / "takes", device="vn_rt", device_config=microphone.alsa_config("vn_rt")) as take, \
            Uploader(tus.url("/files/"), mode="tus") as uploader:
        take.begin()
        uploader.start(take)
        patched = lambda lines: sum(1 for line in lines if line.get("method") == "PATCH" and line.get("status") == 204)  # noqa: E731
        assert tus.wait_for(lambda lines: patched(lines) >= 2, TIMEOUT), "two PATCHes while recording"
        assert take.context.state is voicenote.RecorderState.RECORDING
        take.stop()
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        sent = uploader.result()
        assert sent.asset_url == uploader.content_uri
        assert wait_until(lambda: take.context.state is voicenote.RecorderState.STOPPED, TIMEOUT)
        recorded = Path(take.context.path)
    completed_once(tus, recorded.read_bytes())
    requests = tus.requests()
    creation = next(r for r in requests if r["method"] == "POST")
    assert creation["headers"].get("upload-defer-length") == "1" and creation["length"] is None
    patches = [r for r in requests if r["method"] == "PATCH"]
    assert patches[-1]["length"] == str(recorded.stat().st_size), "the last PATCH names the length"
    assert all(r["length"] is None for r in patches[:-1])
    assert sent.file_size == recorded.stat().st_size


def test_a_cancelled_take_deletes_its_tus_upload(tus: TusTestServer, microphone: pulse.PulseServer,
                                                 tmp_path: Path) -> None:
    with voicenote.Recorder(tmp_path / "takes", device="vn_rt", device_config=microphone.alsa_config("vn_rt")) as take, \
            Uploader(tus.url("/files/"), mode="tus") as uploader:
        take.begin()
        uploader.start(take)
        assert tus.wait_for(lambda lines: any(line.get("method") == "PATCH" for line in lines), TIMEOUT)
        take.cancel()
        assert uploader.wait(TIMEOUT) is UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()
    assert tus.wait_for(lambda lines: any(line.get("method") == "DELETE" for line in lines), TIMEOUT)
    deleted = next(r for r in tus.requests() if r["method"] == "DELETE")
    assert deleted["status"] == 204, deleted
    assert not tus.completed()


def test_the_cli_uploads_over_tus(tus: TusTestServer, tones: List[Path]) -> None:
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    done = subprocess.run([str(cli), "upload", str(tones[0]), "--tus", "--endpoint", tus.url("/files/"), "--compact"],
                          capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["asset_url"].startswith(tus.url("/files/"))
    completed_once(tus, tones[0].read_bytes())
