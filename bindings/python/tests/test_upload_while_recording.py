"""A take uploaded while it is recorded (``Uploader.start(recorder)``, ``voicenote.aio.upload(uploader, recorder)``,
``vn_uploader_upload_recording``): a real-time microphone (a private PulseAudio server with speech playing into its
null sink, tests/pulse.py) and Tests/Servers/http_server.py on 127.0.0.1. The first pages reach the server while the
take still records; the stored body is the finished file byte for byte, sent chunked; a cancelled take never
completes on the server; the wrong calls are refused."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import pulse
from audiofiles import find_cli
from helpers import TIMEOUT, wait_until

import voicenote
import voicenote.aio
from voicenote import Uploader, UploadMode, UploadState

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402

MULTIPART = "/channels/messaging/general/file"
RAW = "/_matrix/media/v3/upload"


@pytest.fixture
def microphone(pulse_microphone: pulse.PulseServer) -> pulse.PulseServer:
    """The real-time microphone of conftest.py's ``pulse_microphone``."""
    return pulse_microphone


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


@pytest.fixture
def server(root: Path) -> Iterator[HTTPTestServer]:
    with HTTPTestServer(str(root)) as running:
        yield running


def recorder(microphone: pulse.PulseServer, directory: Path) -> voicenote.Recorder:
    return voicenote.Recorder(directory, device="vn_rt", device_config=microphone.alsa_config("vn_rt"))


def finished_path(take: voicenote.Recorder) -> Path:
    assert wait_until(lambda: take.context.state is voicenote.RecorderState.STOPPED, TIMEOUT), "the take's end"
    return Path(take.context.path)


@pytest.mark.parametrize("mode,path", [("raw", RAW), ("multipart", MULTIPART)])
def test_the_first_pages_arrive_while_the_take_records(microphone: pulse.PulseServer, server: HTTPTestServer,
                                                       root: Path, tmp_path: Path, mode: str, path: str) -> None:
    with recorder(microphone, tmp_path / "takes") as take, Uploader(server.url(path), mode=mode) as uploader:
        take.begin()
        uploader.start(take)
        with pytest.raises(voicenote.BusyError):
            uploader.start(take)  # an upload runs (and the take is being sent)
        # The take's own bytes reach the server while it records (a multipart body's preamble would come first
        # anyway: its first part's bytes are what counts, so the raw case is the proof; both must get there).
        server.wait_for_receiving(path, timeout=TIMEOUT)
        assert take.context.state is voicenote.RecorderState.RECORDING
        assert wait_until(lambda: take.context.duration >= 1.5, TIMEOUT), "1.5 s recorded"
        take.stop()
        file = finished_path(take)
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        payload = uploader.result()
        assert payload.duration >= 1.5
        assert len(payload.waveform_data or []) == 100
        assert payload.file_size == file.stat().st_size
        entry = server.wait_for_request(lambda r: r["path"].startswith(path) and "upload" in r, timeout=TIMEOUT)
        assert entry["headers"].get("transfer-encoding") == "chunked", entry["headers"]
        assert "content-length" not in entry["headers"]
        assert (root / entry["upload"]).read_bytes() == file.read_bytes()
        with pytest.raises(voicenote.MisuseError):
            uploader.retry()  # it succeeded


def test_a_cancelled_take_fails_the_upload_and_is_never_stored(microphone: pulse.PulseServer, server: HTTPTestServer,
                                                                tmp_path: Path) -> None:
    with recorder(microphone, tmp_path / "takes") as take, Uploader(server.url(RAW), mode="raw") as uploader:
        take.begin()
        uploader.start(take)
        server.wait_for_receiving(RAW, timeout=TIMEOUT)
        take.cancel()
        assert uploader.wait(TIMEOUT) is UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()
        entry = server.wait_for_request(lambda r: r["path"].startswith(RAW), timeout=TIMEOUT)
        assert "upload" not in entry, entry
        with pytest.raises(voicenote.UnsupportedError):
            uploader.retry()  # its bytes went by as they were written


def test_aio_upload_of_a_recorder(microphone: pulse.PulseServer, server: HTTPTestServer, root: Path,
                                  tmp_path: Path) -> None:
    async def scenario() -> Any:
        with recorder(microphone, tmp_path / "takes") as take, Uploader(server.url(RAW), mode=UploadMode.RAW) as uploader:
            take.begin()
            sending = asyncio.ensure_future(voicenote.aio.upload(uploader, take))
            await asyncio.get_running_loop().run_in_executor(None, server.wait_for_receiving, RAW, TIMEOUT)
            take.stop()
            payload = await asyncio.wait_for(sending, TIMEOUT)
            return payload, finished_path(take)

    payload, file = asyncio.run(scenario())
    assert payload.asset_url.startswith("mxc://localhost/")
    entry = server.wait_for_request(lambda r: r["path"].startswith(RAW) and "upload" in r, timeout=TIMEOUT)
    assert (root / entry["upload"]).read_bytes() == file.read_bytes()


def test_the_wrong_calls_are_refused(server: HTTPTestServer, tmp_path: Path, microphone: pulse.PulseServer) -> None:
    with recorder(microphone, tmp_path / "takes") as take, Uploader(server.url(RAW), mode="raw") as uploader:
        with pytest.raises(voicenote.MisuseError):
            uploader.start(take)  # no take runs
        take.begin()
        with pytest.raises(ValueError):
            uploader.start(take, file_name="x.ogg")
        take.cancel()
    with Uploader(server.url(RAW), mode="raw") as uploader:
        with pytest.raises(ValueError):
            uploader.start(take)  # a closed recorder


def test_the_cli_records_and_uploads_at_once(microphone: pulse.PulseServer, server: HTTPTestServer, root: Path,
                                             tmp_path: Path) -> None:
    """`voicenote record --upload URL --raw --progress json`: the take's bytes reach the server while it records;
    Enter stops it, and the last line is the uploaded payload, whose file is the kept recording byte for byte."""
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    output = tmp_path / "note.ogg"
    child = subprocess.Popen([str(cli), "record", "--device", "vn_rt", "--device-config", microphone.alsa_config("vn_rt"),
                              "-o", str(output), "--progress", "json", "--upload", server.url(RAW), "--raw",
                              "--header", "Authorization: Bearer cli-token"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        server.wait_for_receiving(RAW, timeout=TIMEOUT)
        assert child.poll() is None, "still recording when the first bytes arrived"
        assert child.stdin is not None
        child.stdin.write(b"\n")
        child.stdin.flush()
        out, errors = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(TIMEOUT)
    assert child.returncode == 0, errors
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert lines[-2]["finished"] == str(output)
    uploaded = lines[-1]["uploaded"]
    assert uploaded["asset_url"].startswith("mxc://localhost/")
    assert uploaded["file_size"] == output.stat().st_size
    entry = server.wait_for_request(lambda r: r["path"].startswith(RAW) and "upload" in r, timeout=TIMEOUT)
    assert entry["headers"]["authorization"] == "Bearer cli-token"
    assert entry["headers"].get("transfer-encoding") == "chunked"
    assert (root / entry["upload"]).read_bytes() == output.read_bytes()


def test_the_cli_refuses_upload_options_without_upload(tmp_path: Path) -> None:
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    for extra in (["--raw"], ["--query", "a=b"], ["--upload", "http://127.0.0.1:1/x", "--flow"]):
        done = subprocess.run([str(cli), "record", "--device", "null", *extra], capture_output=True, timeout=TIMEOUT)
        assert done.returncode != 0 and b"upload" in done.stderr, (extra, done.stderr)


def test_a_flow_sends_its_take_through_its_uploader(microphone: pulse.PulseServer, server: HTTPTestServer,
                                                    root: Path, tmp_path: Path) -> None:
    """RecordingFlow(uploader=…): the held take's bytes reach the server while it records; on release the take is
    handed over and its upload completes with the take's file, sent chunked."""
    clock = voicenote.ManualClock()
    with recorder(microphone, tmp_path / "takes") as take, \
            voicenote.Player(device="null") as player, \
            Uploader(server.url(RAW), mode="raw") as uploader, \
            voicenote.RecordingFlow(take, player, clock=clock, uploader=uploader) as flow:
        ready: List[Any] = []
        flow.subscribe(lambda event: ready.append(event.take) if isinstance(event, voicenote.AttachmentReady) else None)
        flow.press(100, 100)
        clock.advance(0.5)
        server.wait_for_receiving(RAW, timeout=TIMEOUT)
        assert wait_until(lambda: take.context.duration >= 1.0, TIMEOUT)
        flow.release()
        assert wait_until(lambda: bool(ready), TIMEOUT), "the take was handed over"
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        sent = uploader.result()
    handed = Path(ready[0].path)
    assert sent.file_size == handed.stat().st_size
    entry = server.wait_for_request(lambda r: r["path"].startswith(RAW) and "upload" in r, timeout=TIMEOUT)
    assert entry["headers"].get("transfer-encoding") == "chunked"
    assert (root / entry["upload"]).read_bytes() == handed.read_bytes()
