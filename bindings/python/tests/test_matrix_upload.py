"""Matrix's upload to a content URI created first (MSC2246, ``UploadMode.MATRIX``) against a real Synapse
(tests/synapse.py): the ``mxc://`` URI is reserved before the bytes go (``Uploader.content_uri``), the bytes are put
there with their length, and what the homeserver serves is the file byte for byte — for a file, for a take sent as
it is recorded (reserved as the take begins, put when it ends: Synapse wants the length), and from the CLI."""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path
from typing import List

import pytest

import pulse
from audiofiles import find_cli
from helpers import TIMEOUT, wait_until
from synapse import Synapse

import voicenote
from voicenote import Uploader, UploadState


def token(server: Synapse) -> str:
    return server.register_user(f"uploader-{uuid.uuid4().hex[:8]}")[1]


def test_a_file_goes_to_the_content_uri_created_first(synapse: Synapse, tones: List[Path]) -> None:
    alice = token(synapse)
    states: List[UploadState] = []
    with Uploader(synapse.base_url, mode="matrix", headers={"Authorization": f"Bearer {alice}"}) as uploader:
        assert uploader.content_uri is None
        uploader.subscribe(lambda event: states.append((event.state, uploader.content_uri)))
        sent = uploader.upload(tones[0], timeout=TIMEOUT)
        assert sent.asset_url.startswith("mxc://localhost/")
        assert uploader.content_uri == sent.asset_url
    assert sent.file_size == tones[0].stat().st_size and sent.duration and sent.waveform_data
    assert synapse.download_media(alice, sent.asset_url) == tones[0].read_bytes()
    uploading = [uri for state, uri in states if state is UploadState.UPLOADING]
    assert uploading and uploading[0] == sent.asset_url, "the URI is known from the first UPLOADING event on"


def test_a_refused_token_fails_before_anything_is_reserved(synapse: Synapse, tones: List[Path]) -> None:
    with Uploader(synapse.base_url, mode="matrix", headers={"Authorization": "Bearer not-a-token"}) as uploader:
        with pytest.raises(voicenote.AccessDeniedError):
            uploader.upload(tones[0], timeout=TIMEOUT)
        assert uploader.content_uri is None


@pytest.fixture
def microphone(pulse_microphone: pulse.PulseServer) -> pulse.PulseServer:
    """The real-time microphone of conftest.py's ``pulse_microphone``."""
    return pulse_microphone


def test_a_take_reserves_its_uri_as_it_begins_and_is_put_when_it_ends(synapse: Synapse, microphone: pulse.PulseServer,
                                                                       tmp_path: Path) -> None:
    alice = token(synapse)
    with voicenote.Recorder(tmp_path, device="vn_rt", device_config=microphone.alsa_config("vn_rt")) as take, \
            Uploader(synapse.base_url, mode="matrix", headers={"Authorization": f"Bearer {alice}"}) as uploader:
        take.begin()
        uploader.start(take)
        assert wait_until(lambda: uploader.content_uri is not None, TIMEOUT), "the URI reserved while recording"
        reserved = uploader.content_uri
        assert take.context.state is voicenote.RecorderState.RECORDING
        assert uploader.wait(0.3) is UploadState.UPLOADING, "the bytes wait for the take's end"
        take.stop()
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        sent = uploader.result()
        assert wait_until(lambda: take.context.state is voicenote.RecorderState.STOPPED, TIMEOUT)
        recorded = Path(take.context.path)
    assert sent.asset_url == reserved
    assert sent.file_size == recorded.stat().st_size
    assert synapse.download_media(alice, reserved) == recorded.read_bytes()


def test_a_cancelled_take_ends_its_matrix_upload(synapse: Synapse, microphone: pulse.PulseServer,
                                                 tmp_path: Path) -> None:
    alice = token(synapse)
    with voicenote.Recorder(tmp_path, device="vn_rt", device_config=microphone.alsa_config("vn_rt")) as take, \
            Uploader(synapse.base_url, mode="matrix", headers={"Authorization": f"Bearer {alice}"}) as uploader:
        take.begin()
        uploader.start(take)
        assert wait_until(lambda: uploader.content_uri is not None, TIMEOUT)
        take.cancel()
        assert uploader.wait(TIMEOUT) is UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()


def test_the_cli_uploads_to_a_content_uri_created_first(synapse: Synapse, tones: List[Path]) -> None:
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    alice = token(synapse)
    done = subprocess.run([str(cli), "upload", str(tones[0]), "--matrix", "--endpoint", synapse.base_url,
                           "--header", f"Authorization: Bearer {alice}", "--compact"],
                          capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    sent = json.loads(done.stdout)
    assert sent["asset_url"].startswith("mxc://localhost/")
    assert synapse.download_media(alice, sent["asset_url"]) == tones[0].read_bytes()


def test_a_reserved_uri_makes_receivers_wait(synapse: Synapse) -> None:
    """What docs/attachments.md says receivers see of a message sent before its media: a download of a reserved,
    empty URI answers 504 M_NOT_YET_UPLOADED once its wait (timeout_ms) ran out."""
    alice = token(synapse)
    created = synapse.request("POST", "/_matrix/media/v1/create", alice)
    mxc = created.json()["content_uri"]
    server, media_id = mxc[len("mxc://"):].split("/")
    waited = synapse.request("GET", f"/_matrix/client/v1/media/download/{server}/{media_id}?timeout_ms=200", alice)
    assert (waited.status, waited.json()["errcode"]) == (504, "M_NOT_YET_UPLOADED")


def test_the_cli_records_and_reserves_the_uri_first(synapse: Synapse, microphone: pulse.PulseServer,
                                                    tmp_path: Path) -> None:
    """`voicenote record --upload HOMESERVER --matrix --progress json`: a {"reserved": mxc} line while the take
    records, then, after Enter, the finished file and the uploaded payload naming that URI; the homeserver serves
    the file byte for byte."""
    cli = find_cli()
    if cli is None:
        pytest.skip("no CLI: set $VOICENOTE_CLI or run `make build` (build/bin/voicenote)")
    alice = token(synapse)
    output = tmp_path / "note.ogg"
    child = subprocess.Popen([str(cli), "record", "--device", "vn_rt", "--device-config", microphone.alsa_config("vn_rt"),
                              "-o", str(output), "--progress", "json", "--upload", synapse.base_url, "--matrix",
                              "--header", f"Authorization: Bearer {alice}"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdin is not None
        reserved = None
        for _ in range(200):  # context lines until the reserved URI (bounded: a line a meter step)
            line = json.loads(child.stdout.readline() or b"{}")
            if "reserved" in line:
                reserved = line["reserved"]
                break
        assert reserved and reserved.startswith("mxc://localhost/"), "no reserved line while recording"
        child.stdin.write(b"\n")
        child.stdin.flush()
        out, errors = child.communicate(timeout=TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(TIMEOUT)
    assert child.returncode == 0, errors
    lines = [json.loads(line) for line in out.decode().splitlines()]
    assert lines[-1]["uploaded"]["asset_url"] == reserved
    assert synapse.download_media(alice, reserved) == output.read_bytes()
