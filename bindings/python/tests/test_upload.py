"""Uploads (``voicenote.Uploader``) against Tests/Servers/http_server.py on 127.0.0.1, which parses multipart bodies
for real and logs each part (name, file name, MIME type, size, sha256), the query and the headers, and against nginx
terminating TLS in front of it. Stored uploads are compared byte for byte with what was sent, and the local file
with its bytes before the upload, after every outcome."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from audiofiles import Media
from helpers import PACKAGE_ROOT, TIMEOUT, Recorder as Collector, wait_event

import voicenote
from voicenote import UploadEvent, Uploader, UploadState, VoiceRecordingPayload, _upload, _upload_hook, _upload_wait

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests" / "Servers"))
from http_server import HTTPTestServer  # noqa: E402
from nginx_server import NginxTestServer  # noqa: E402

MULTIPART = "/channels/messaging/general/file"
RAW = "/_matrix/media/v3/upload"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The folder the server stores uploads in (``uploads/<n>.bin``)."""
    folder = tmp_path / "served"
    folder.mkdir()
    return folder


@pytest.fixture
def server(root: Path) -> Iterator[HTTPTestServer]:
    """An http_server.py over ``root``, stopped by its pid after the test."""
    with HTTPTestServer(str(root)) as running:
        yield running


@pytest.fixture(autouse=True)
def processors_released() -> Iterator[None]:
    """After each test every post-processor key was released once, and none twice."""
    unknown = _upload_hook.unknown_releases
    yield
    assert _upload_hook.unknown_releases == unknown, "a post-processor release came for an unknown key"
    assert not _upload_hook._processors, f"post-processors never released: {_upload_hook._processors}"


def random_file(folder: Path, size: int, name: str = "note.ogg") -> Path:
    """A file of random bytes (an Ogg name, so it is sent as audio/ogg; not audio, so pass a payload)."""
    path = folder / name
    path.write_bytes(os.urandom(size))
    return path


@pytest.fixture(scope="module")
def large_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 MB of random bytes: larger than loopback's socket buffers (some MB), so a slow server's pace is what the
    client sees."""
    return random_file(tmp_path_factory.mktemp("large"), 12 << 20, "long.ogg")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def placeholder() -> VoiceRecordingPayload:
    """The payload to complete for a file that is not audio (no duration or waveform to read from it)."""
    return VoiceRecordingPayload("file:///placeholder")


def record(server: Any, prefix: str, predicate: Callable[[Dict[str, Any]], bool] = lambda r: True) -> Dict[str, Any]:
    """The first logged request whose path starts with ``prefix`` and that matches ``predicate`` (bounded wait)."""
    return server.wait_for_request(lambda r: r["path"].startswith(prefix) and predicate(r), timeout=TIMEOUT)


def stored(root: Path, entry: Dict[str, Any]) -> bytes:
    return (root / entry["upload"]).read_bytes()


def check_progress(progress: List[float]) -> None:
    """0 first, 1 last and only there, strictly rising, in steps of at least 0.05 (the last step to 1 excepted)."""
    assert progress[0] == 0 and progress[-1] == 1 and progress.count(1) == 1, progress
    assert all(b > a for a, b in zip(progress, progress[1:])), progress
    assert all(b - a >= 0.05 or b == 1 for a, b in zip(progress, progress[1:])), progress


# --- uploads that work -----------------------------------------------------------------------------------------


def test_a_stream_style_multipart_upload(media: Media, server: HTTPTestServer, root: Path) -> None:
    audio = media.files["opus"]
    original = audio.read_bytes()
    events = Collector()
    progress: List[float] = []
    with Uploader(server.url(MULTIPART), headers={"Authorization": "jwt-token", "Stream-Auth-Type": "jwt"},
                  query={"api_key": "key & more"}) as uploader:
        assert uploader.state is UploadState.PENDING
        uploader.subscribe(events.add)
        given = VoiceRecordingPayload.from_recording(audio, duration=1.25, waveform=[0.5, 1])
        payload = uploader.upload(audio, on_progress=progress.append, payload=given)
        assert uploader.state is UploadState.UPLOADED
        assert uploader.result() == payload
    entry = record(server, "/channels/", lambda r: "upload" in r)
    assert entry["path"] == MULTIPART + "?api_key=key%20%26%20more"
    assert entry["query"] == {"api_key": "key & more"}
    assert entry["headers"]["authorization"] == "jwt-token"
    assert entry["headers"]["stream-auth-type"] == "jwt"
    assert entry["headers"]["content-type"].startswith("multipart/form-data; boundary=")
    assert entry["parts"] == [{"name": "file", "filename": audio.name, "content_type": "audio/ogg",
                               "size": len(original), "sha256": sha256(original)}]
    assert stored(root, entry) == original
    assert payload.asset_url == server.url("/range/" + entry["upload"])
    assert payload.extra_data["thumb_url"].endswith(".thumb")
    assert payload.duration == 1.25 and payload.waveform_data == [0.5, 1]
    assert payload.file_size == len(original) and payload.title == audio.name and payload.mime_type == "audio/ogg"
    assert payload.type == "voiceRecording"
    check_progress(progress)  # every on_progress call has run when upload() returns
    seen = events.wait_for(lambda items: items and items[-1].state is UploadState.UPLOADED, what="the UPLOADED event")
    assert seen[0].state is UploadState.PENDING
    assert [e.progress for e in seen if e.state is UploadState.UPLOADING] == progress
    assert seen[-1].payload == payload and seen[-1].progress == 1 and seen[-1].error is None
    assert audio.read_bytes() == original


def test_a_recording_without_a_payload_gets_its_duration_and_waveform(media: Media, server: HTTPTestServer) -> None:
    audio = media.files["opus"]
    with Uploader(server.url(MULTIPART)) as uploader:
        payload = uploader.upload(str(audio))
    assert payload.duration == pytest.approx(voicenote.info(audio)["duration"])
    assert payload.waveform_data is not None and len(payload.waveform_data) == 100
    assert payload.title == audio.name and payload.asset_url.startswith(server.url("/range/uploads/"))


def test_a_matrix_style_raw_upload_of_bytes(server: HTTPTestServer, root: Path) -> None:
    ciphertext = bytes((i * 7919) & 0xFF for i in range(300_000))
    progress: List[float] = []
    with Uploader(server.url(RAW), mode="raw", headers=[("Authorization", "Bearer syt_token")]) as uploader:
        assert uploader.mode is voicenote.UploadMode.RAW
        payload = uploader.upload(ciphertext, on_progress=progress.append, file_name="voice message.ogg",
                                  mime_type="application/octet-stream")
    assert payload.asset_url.startswith("mxc://localhost/")
    assert payload.mime_type == "application/octet-stream"
    assert payload.file_size == 300_000 and payload.title == "voice message.ogg"
    entry = record(server, "/_matrix/", lambda r: "upload" in r)
    assert entry["query"] == {"filename": "voice message.ogg"}
    assert entry["content_type"] == "application/octet-stream"
    assert entry["sha256"] == sha256(ciphertext)
    assert entry["headers"]["authorization"] == "Bearer syt_token"
    assert stored(root, entry) == ciphertext
    check_progress(progress)


@pytest.mark.parametrize("kind", ["bytearray", "memoryview"])
def test_bytes_like_data_with_the_default_name(server: HTTPTestServer, root: Path, kind: str) -> None:
    data = os.urandom(50_000)
    source = bytearray(data) if kind == "bytearray" else memoryview(data)[1000:]
    sent = bytes(source)
    with Uploader(server.url(MULTIPART)) as uploader:
        payload = uploader.upload(source)
    entry = record(server, "/channels/", lambda r: "upload" in r)
    assert entry["parts"][0]["filename"] == "voice.ogg" and entry["parts"][0]["content_type"] == "audio/ogg"
    assert entry["parts"][0]["sha256"] == sha256(sent) and stored(root, entry) == sent
    assert payload.file_size == len(sent) and payload.title == "voice.ogg"


def test_start_wait_result_and_the_events(server: HTTPTestServer, tmp_path: Path) -> None:
    file = random_file(tmp_path, 100_000)
    events = Collector()
    with Uploader(server.url(MULTIPART), type="audio") as uploader:
        with pytest.raises(voicenote.MisuseError):
            uploader.result()  # no upload has ended
        assert uploader.wait(0) is UploadState.PENDING  # before any upload: at once
        subscription = uploader.subscribe(events.add)
        uploader.start(file)  # an "audio" attachment: no duration or waveform to read
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        payload = uploader.result()
        assert payload.type == "audio" and payload.duration is None
        seen = events.wait_for(lambda items: items and items[-1].state is UploadState.UPLOADED, what="UPLOADED")
        assert all(isinstance(event, UploadEvent) for event in seen)
        assert [event.state for event in seen][:2] == [UploadState.PENDING, UploadState.UPLOADING]
        subscription.unsubscribe()
        assert subscription.released
        assert repr(uploader) == f"<voicenote.Uploader multipart {server.url(MULTIPART)}>"
    assert uploader.closed and repr(uploader) == "<voicenote.Uploader closed>"
    with pytest.raises(ValueError):
        uploader.start(file)


def test_events_through_an_event_loop(server: HTTPTestServer, tmp_path: Path) -> None:
    """With a loop, the events (and on_progress) run inside dispatch(), on the dispatching thread."""
    file = random_file(tmp_path, 100_000)
    threads: List[int] = []
    progress: List[float] = []
    with voicenote.EventLoop() as loop:
        with Uploader(server.url(MULTIPART), loop=loop) as uploader:
            uploader.subscribe(lambda event: threads.append(threading.get_ident()))
            payload = uploader.upload(file, on_progress=progress.append, payload=placeholder())
            assert payload.asset_url.startswith(server.url("/range/uploads/"))
            assert progress == [] and threads == []  # nothing runs outside dispatch
            deadline = time.monotonic() + TIMEOUT
            while not progress or progress[-1] != 1:
                assert time.monotonic() < deadline, "the events never came"
                loop.wait(0.5)
                loop.dispatch()
            check_progress(progress)
            assert set(threads) == {threading.get_ident()}


# --- failures --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode, error, builtin, text", [
    ("status-413", voicenote.TooLargeError, ValueError, "HTTP 413"),
    ("status-401", voicenote.AccessDeniedError, PermissionError, "HTTP 401"),
    ("status-403", voicenote.AccessDeniedError, PermissionError, "HTTP 403"),
    ("status-500", voicenote.NetworkError, ConnectionError, "HTTP 500"),
    ("status-404", voicenote.NotFoundError, FileNotFoundError, "HTTP 404"),
    ("notjson", voicenote.FormatError, ValueError, "not valid JSON"),
    ("drop", voicenote.NetworkError, ConnectionError, "POST"),
])
def test_http_statuses_and_bad_answers(server: HTTPTestServer, tmp_path: Path, mode: str, error: type,
                                       builtin: type, text: str) -> None:
    file = random_file(tmp_path, 200_000)
    original = file.read_bytes()
    failures = Collector()
    with Uploader(server.url(f"/uploadmode/{mode}{MULTIPART}")) as uploader:
        uploader.subscribe(lambda event: failures.add(event) if event.state is UploadState.FAILED else None)
        with pytest.raises(error, match=text) as caught:
            uploader.upload(file, payload=placeholder())
        assert isinstance(caught.value, builtin)
        assert uploader.state is UploadState.FAILED
        failure = failures.wait_count(1)[0].error
        assert type(failure) is error and failure.message == caught.value.message
        with pytest.raises(error):
            uploader.result()
    record(server, f"/uploadmode/{mode}/")
    assert file.read_bytes() == original


def test_a_response_without_the_url_key_is_a_format_error(server: HTTPTestServer, tmp_path: Path) -> None:
    file = random_file(tmp_path, 1000)
    with Uploader(server.url(MULTIPART), url_key="url") as uploader:
        with pytest.raises(voicenote.FormatError, match='"url"'):
            uploader.upload(file, payload=placeholder())


def test_a_voice_recording_that_is_not_audio_fails_before_sending(server: HTTPTestServer, tmp_path: Path) -> None:
    file = random_file(tmp_path, 100_000)
    original = file.read_bytes()
    with Uploader(server.url("/channels/messaging/notaudio/file")) as uploader:
        with pytest.raises(voicenote.FormatError):
            uploader.upload(file)  # no payload: the duration and waveform are read from the file
    with Uploader(server.url(MULTIPART)) as uploader:  # a request after it, to know the log is written up to here
        uploader.upload(file, payload=placeholder())
    record(server, MULTIPART)
    assert not [r for r in server.requests() if r["path"].startswith("/channels/messaging/notaudio/")]
    assert file.read_bytes() == original


def test_local_checks_come_first(server: HTTPTestServer, tmp_path: Path, media: Media) -> None:
    file = random_file(tmp_path, 1000)
    with Uploader(server.url(MULTIPART)) as uploader:
        file.unlink()
        with pytest.raises(voicenote.NotFoundError) as caught:
            uploader.upload(file, payload=placeholder())
        assert isinstance(caught.value, FileNotFoundError)
        with pytest.raises(voicenote.InvalidArgumentError):
            uploader.upload("https://example.com/a.ogg", payload=placeholder())
        with pytest.raises(voicenote.InvalidArgumentError):
            uploader.upload(media.directory, payload=placeholder())
        with pytest.raises(ValueError):
            uploader.upload(media.files["opus"], file_name="other.ogg")
        with pytest.raises(TypeError):
            uploader.upload(12)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            uploader.upload(b"x", payload="{}")  # type: ignore[arg-type]
    with Uploader(server.url(MULTIPART), max_bytes=10) as limited:
        with pytest.raises(voicenote.TooLargeError):
            limited.upload(bytes(11))
        with pytest.raises(voicenote.TooLargeError):
            limited.upload(media.files["opus"])
    assert server.requests() == []
    with pytest.raises(voicenote.InvalidArgumentError):
        Uploader("ftp://example.com/x")
    with pytest.raises(voicenote.UnsupportedError):
        Uploader(server.url(MULTIPART), type="giphy")
    with pytest.raises(voicenote.InvalidArgumentError):
        Uploader(server.url(MULTIPART), max_bytes=0)
    with pytest.raises(voicenote.InvalidArgumentError):
        Uploader(server.url(MULTIPART), headers={"Bad Name": "x"})
    with pytest.raises(voicenote.InvalidArgumentError):
        Uploader(server.url(MULTIPART), url_key="")
    with pytest.raises(voicenote.NotFoundError):
        Uploader(server.url(MULTIPART), ca_file=tmp_path / "no-such-ca.pem")
    with pytest.raises(ValueError):
        Uploader(server.url(MULTIPART), mode="chunked")
    with pytest.raises(TypeError):
        Uploader(server.url(MULTIPART), http={"headers": {}})  # type: ignore[arg-type]


HELD = f"/uploadmode/holdanswer-1{MULTIPART}"


def test_progress_reaches_1_only_once_the_server_has_answered(server: HTTPTestServer, tmp_path: Path) -> None:
    """The server reads the whole body, then holds its answer for 1 s: progress stays below 1 (and the state
    uploading) until the answer comes, however early libcurl was handed the last byte."""
    file = random_file(tmp_path, 300_000)
    seen: List[Any] = []
    ended = threading.Event()

    def on_event(event: UploadEvent) -> None:
        seen.append((time.monotonic(), event.state, event.progress))
        if event.state is UploadState.UPLOADED:
            ended.set()

    with Uploader(server.url(HELD)) as uploader:
        uploader.subscribe(on_event)
        uploader.start(file, payload=placeholder())
        read = server.wait_for_receiving(HELD, timeout=TIMEOUT, complete=True)
        assert uploader.state is UploadState.UPLOADING  # the body is read, the answer is not there yet
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        # wait() may return before the subscriber has the last events (the header says so); closing then drops them.
        assert ended.wait(TIMEOUT), seen
    progress = [(moment, value) for moment, state, value in seen if state is UploadState.UPLOADING]
    check_progress([value for _, value in progress])
    reached = next(moment for moment, value in progress if value == 1)
    assert reached >= read["time"] + 0.9, (reached, read["time"])  # the answer was held 1 s after the body was read


# --- cancel, retry, timeout ------------------------------------------------------------------------------------


SLOW = f"/uploadmode/slowread-100000{MULTIPART}"


def test_cancel_half_way_from_on_progress(server: HTTPTestServer, large_file: Path) -> None:
    original = sha256(large_file.read_bytes())
    progress: List[float] = []
    cancelled_at: List[float] = []
    with Uploader(server.url(SLOW)) as uploader:
        def on_progress(fraction: float) -> None:
            progress.append(fraction)
            if fraction > 0 and not cancelled_at:  # the first step past 0: the body is being sent
                cancelled_at.append(time.monotonic())
                uploader.cancel()

        with pytest.raises(voicenote.CancelledError) as caught:
            uploader.upload(large_file, on_progress=on_progress, payload=placeholder())
        assert time.monotonic() - cancelled_at[0] < 2
        assert isinstance(caught.value, RuntimeError)
        assert progress[-1] < 1 and uploader.state is UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()
    assert sha256(large_file.read_bytes()) == original


def test_cancel_from_another_thread(server: HTTPTestServer, large_file: Path) -> None:
    original = sha256(large_file.read_bytes())
    progress = Collector()
    failure: List[BaseException] = []
    with Uploader(server.url(SLOW)) as uploader:
        def upload() -> None:
            try:
                uploader.upload(large_file, on_progress=progress.add, payload=placeholder())
            except BaseException as error:  # noqa: BLE001 - checked below
                failure.append(error)

        worker = threading.Thread(target=upload)
        worker.start()
        server.wait_for_receiving(SLOW, timeout=TIMEOUT)  # the body reaches the server: sending, whatever the buffers
        started = time.monotonic()
        uploader.cancel()
        worker.join(TIMEOUT)
        assert not worker.is_alive()
        assert time.monotonic() - started < 2
        assert len(failure) == 1 and isinstance(failure[0], voicenote.CancelledError)
        assert progress.snapshot()[-1] < 1
    assert sha256(large_file.read_bytes()) == original


def test_a_timeout_cancels_the_upload(server: HTTPTestServer, large_file: Path) -> None:
    with Uploader(server.url(SLOW)) as uploader:
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            uploader.upload(large_file, payload=placeholder(), timeout=0.5)
        assert 0.5 <= time.monotonic() - started < 5
        assert uploader.state is UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()


def test_a_second_upload_while_one_runs_is_busy(server: HTTPTestServer, large_file: Path) -> None:
    with Uploader(server.url(SLOW)) as uploader:
        uploader.start(large_file, payload=placeholder())
        with pytest.raises(voicenote.BusyError):
            uploader.start(large_file, payload=placeholder())
        with pytest.raises(voicenote.BusyError):
            uploader.upload(b"data", on_progress=lambda fraction: None)  # its forwarder is ended again
        uploader.cancel()
        assert uploader.wait(TIMEOUT) is UploadState.FAILED


def test_retry_after_a_failure_succeeds(server: HTTPTestServer, root: Path, tmp_path: Path) -> None:
    file = random_file(tmp_path, 100_000)
    data = file.read_bytes()
    with Uploader(server.url(f"/uploadmode/failfirst-1{MULTIPART}")) as uploader:
        with pytest.raises(voicenote.MisuseError, match="retry needs a failed upload"):
            uploader.retry()
        with pytest.raises(voicenote.NetworkError, match="HTTP 500"):
            uploader.upload(file, payload=placeholder())
        uploader.retry()
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
        payload = uploader.result()
        assert "/range/uploads/" in payload.asset_url
        with pytest.raises(voicenote.MisuseError):
            uploader.retry()  # the last upload did not fail
    # The server logs a request once its answer is sent, maybe after the client has read it: wait for the line.
    first = record(server, f"/uploadmode/failfirst-1{MULTIPART}", lambda r: "upload" in r)
    uploads = [r for r in server.requests() if r.get("upload")]
    assert uploads == [first] and stored(root, first) == data
    # Bytes are sent again from where they started.
    with Uploader(server.url(f"/uploadmode/failfirst-1{RAW}"), mode="raw") as uploader:
        with pytest.raises(voicenote.NetworkError):
            uploader.upload(data, file_name="a.ogg")
        uploader.retry()
        assert uploader.wait(TIMEOUT) is UploadState.UPLOADED
    raw = record(server, f"/uploadmode/failfirst-1{RAW}", lambda r: "upload" in r)
    assert raw["sha256"] == sha256(data) and stored(root, raw) == data
    assert file.read_bytes() == data


# --- TLS through nginx -----------------------------------------------------------------------------------------


def test_an_upload_through_nginx_terminating_tls(server: HTTPTestServer, root: Path, media: Media) -> None:
    audio = media.files["opus"]
    original = audio.read_bytes()
    with NginxTestServer(str(root), tls=True, proxy_to=server.base_url) as proxy:
        endpoint = proxy.url(MULTIPART)
        with Uploader(endpoint, query={"api_key": "k"}) as untrusting:
            with pytest.raises(voicenote.NetworkError, match="certificate"):
                untrusting.upload(audio)
        with Uploader(endpoint, query={"api_key": "k"}, headers={"Authorization": "jwt-token"},
                      ca_file=proxy.ca_file) as uploader:
            payload = uploader.upload(audio)
        with Uploader(endpoint, http=voicenote.HTTPOptions(headers={"Authorization": "other"}, ca_file=proxy.ca_file),
                      headers={"Stream-Auth-Type": "jwt"}) as combined:
            combined.upload(audio, payload=placeholder())
        proxy.wait_for_request(lambda r: r["path"].startswith(MULTIPART) and r["status"] == 200, timeout=TIMEOUT)
    entry = record(server, MULTIPART, lambda r: "upload" in r)
    assert entry["query"] == {"api_key": "k"}
    assert entry["headers"]["authorization"] == "jwt-token"
    assert entry["headers"]["x-forwarded-proto"] == "https"
    assert entry["parts"][0]["sha256"] == sha256(original) and stored(root, entry) == original
    assert payload.asset_url == proxy.url("/range/" + entry["upload"])
    second = record(server, MULTIPART, lambda r: "upload" in r and r is not entry and r["upload"] != entry["upload"])
    assert second["headers"]["authorization"] == "other" and second["headers"]["stream-auth-type"] == "jwt"


# --- the post-processor ----------------------------------------------------------------------------------------


def thread_name() -> str:
    with open("/proc/thread-self/comm", encoding="utf-8") as comm:
        return comm.read().strip()


def test_the_post_processor_rewrites_the_payload_on_the_upload_thread(server: HTTPTestServer, tmp_path: Path) -> None:
    file = random_file(tmp_path, 1000)
    threads: List[str] = []

    def to_cdn(payload: VoiceRecordingPayload) -> VoiceRecordingPayload:
        threads.append(thread_name())
        payload.asset_url = payload.asset_url.replace("http://", "https://cdn.")
        payload.extra_data = {**payload.extra_data, "processed": True}
        return payload

    with Uploader(server.url(MULTIPART), post_processor=to_cdn) as uploader:
        assert uploader.post_processor is to_cdn
        payload = uploader.upload(file, payload=placeholder())
        assert payload.asset_url.startswith("https://cdn.127.0.0.1:")
        assert payload.extra_data["processed"] is True
        assert threads == ["vn-upload"]
        assert uploader.result() == payload
        # None keeps the payload; a new object replaces it.
        uploader.post_processor = lambda payload: None
        assert uploader.upload(file, payload=placeholder()).asset_url.startswith(server.url("/range/uploads/"))
        uploader.post_processor = lambda payload: VoiceRecordingPayload("mxc://example.org/replaced")
        assert uploader.upload(file, payload=placeholder()).to_json() == \
            '{"type":"voiceRecording","asset_url":"mxc://example.org/replaced"}'
        uploader.post_processor = None
        assert uploader.post_processor is None
        assert uploader.upload(file, payload=placeholder()).asset_url.startswith(server.url("/range/uploads/"))
        with pytest.raises(TypeError):
            uploader.post_processor = "not callable"  # type: ignore[assignment]


def test_an_exception_in_the_post_processor_fails_the_upload(server: HTTPTestServer, tmp_path: Path,
                                                             caplog: pytest.LogCaptureFixture) -> None:
    file = random_file(tmp_path, 1000)

    def broken(payload: VoiceRecordingPayload) -> VoiceRecordingPayload:
        raise RuntimeError("the host failed")

    with Uploader(server.url(MULTIPART), post_processor=broken) as uploader:
        with pytest.raises(voicenote.BusyError, match="post-processor") as caught:
            uploader.upload(file, payload=placeholder())
        assert isinstance(caught.value.__cause__, RuntimeError)
        errors = [r for r in caplog.records if r.name == "voicenote" and r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "post-processor" in errors[0].getMessage()
        assert errors[0].exc_info and isinstance(errors[0].exc_info[1], RuntimeError)
        caplog.clear()
        # A wrong result type fails it the same way.
        uploader.post_processor = lambda payload: payload.to_json()  # type: ignore[assignment,return-value]
        with pytest.raises(voicenote.BusyError) as caught:
            uploader.upload(file, payload=placeholder())
        assert isinstance(caught.value.__cause__, TypeError)
        caplog.clear()

        # A VoiceNoteError raised on purpose fails it with its own status, without an ERROR log.
        def refuse(payload: VoiceRecordingPayload) -> VoiceRecordingPayload:
            code = -11  # VN_E_TOO_LARGE
            raise voicenote.TooLargeError(code, voicenote.status_name(code), "too large for this room")

        uploader.post_processor = refuse
        with pytest.raises(voicenote.TooLargeError) as refused:
            uploader.upload(file, payload=placeholder())
        assert isinstance(refused.value.__cause__, voicenote.TooLargeError)
        assert not [r for r in caplog.records if r.name == "voicenote" and r.levelno >= logging.ERROR]
        # A retry runs the hook again (and fails again); the file is sent each time.
        with pytest.raises(voicenote.TooLargeError):
            uploader.retry()
            uploader.wait(TIMEOUT)
            uploader.result()


def test_closing_inside_callbacks_and_the_post_processor(server: HTTPTestServer, tmp_path: Path) -> None:
    """close() is allowed inside the uploader's own callback and post-processor; nothing runs after it."""
    file = random_file(tmp_path, 1000)
    released = threading.Event()
    closed_in_hook = threading.Event()
    uploader = Uploader(server.url(MULTIPART))

    def close_in_callback(event: UploadEvent) -> None:
        if event.state is UploadState.UPLOADING:
            uploader.close()

    uploader.subscribe(close_in_callback, on_release=released.set)
    uploader.start(file, payload=placeholder())
    wait_event(released, "the release after close() in a callback")
    assert uploader.closed

    def close_in_hook(payload: VoiceRecordingPayload) -> None:
        hooked.close()
        closed_in_hook.set()

    hooked = Uploader(server.url(MULTIPART), post_processor=close_in_hook)
    hooked.start(file, payload=placeholder())
    wait_event(closed_in_hook, "close() in the post-processor")
    assert hooked.closed
    # The hook's release runs on the upload thread once the hook has returned.
    deadline = time.monotonic() + TIMEOUT
    while _upload_hook._processors:
        assert time.monotonic() < deadline, "the post-processor was never released"
        threading.Event().wait(0.01)


# --- waits ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("waiter", ["main thread", "another thread"])
def test_a_wait_ends_when_the_library_signals_the_end(server: HTTPTestServer, large_file: Path,
                                                       monkeypatch: pytest.MonkeyPatch, waiter: str) -> None:
    """wait() is one vn_uploader_wait for the whole timeout, never steps of a poll, and returns once the library
    signals the upload's end (here: a cancel from another thread). On the main thread that call runs on a helper
    thread (the main thread waits on an Event, which Ctrl-C interrupts); on any other thread on the waiting one."""
    calls: List[Tuple[int, int]] = []
    library_wait = _upload_wait._capi.vn_uploader_wait

    def spy(handle: Any, timeout_ms: int, state: Any) -> int:
        calls.append((timeout_ms, threading.get_ident()))
        return library_wait(handle, timeout_ms, state)

    monkeypatch.setattr(_upload_wait._capi, "vn_uploader_wait", spy)
    outcome: List[Tuple[UploadState, int]] = []
    with Uploader(server.url(SLOW)) as uploader:
        uploader.start(large_file, payload=placeholder())

        def wait() -> None:
            outcome.append((uploader.wait(TIMEOUT), threading.get_ident()))

        def cancel_once_sending() -> None:
            server.wait_for_receiving(SLOW, timeout=TIMEOUT)  # the body reaches the server: the upload is sending
            uploader.cancel()

        other = threading.Thread(target=cancel_once_sending if waiter == "main thread" else wait)
        other.start()
        if waiter == "main thread":
            wait()
        else:
            cancel_once_sending()
        other.join(TIMEOUT)
        assert not other.is_alive()
        with pytest.raises(voicenote.CancelledError):
            uploader.result()
    (state, waiting_thread), = outcome
    assert state is UploadState.FAILED  # ended by the cancel, not by the timeout
    (timeout_ms, calling_thread), = calls  # one call, the whole timeout
    assert timeout_ms > (TIMEOUT - 1) * 1000
    assert (calling_thread == waiting_thread) is (waiter == "another thread")


def test_upload_inside_a_callback_knows_the_event_thread(server: HTTPTestServer, tmp_path: Path) -> None:
    """upload() asks the event trampolines' record, not the kernel's thread name: called from a callback that a loop
    dispatches on this thread, it is not on the event thread, so it waits for every progress call (which the event
    thread delivers) before it returns."""
    file = random_file(tmp_path, 200_000)
    progress: List[float] = []
    outcome: List[Any] = []
    with voicenote.EventLoop() as loop, voicenote.TestSource(loop) as source, Uploader(server.url(MULTIPART)) as uploader:
        def on_test_event(event: Any) -> None:
            assert voicenote.is_delivering()
            outcome.append(uploader.upload(file, on_progress=progress.append, payload=placeholder()))
            outcome.append(list(progress))  # every progress call has run

        source.subscribe(on_test_event)
        source.emit(1)
        assert loop.wait(TIMEOUT)
        loop.dispatch()
    assert isinstance(outcome[0], VoiceRecordingPayload)
    check_progress(outcome[1])


# --- threads and processes -------------------------------------------------------------------------------------


def test_upload_with_progress_from_inside_another_voicenote_callback(server: HTTPTestServer, tmp_path: Path) -> None:
    """Called on the library's event thread (from another object's callback), upload() does not wait for its own
    progress events, which queue behind that callback: they all arrive after it returns."""
    file = random_file(tmp_path, 200_000)
    progress = Collector()
    outcome: List[Any] = []
    done = threading.Event()
    with Uploader(server.url(MULTIPART)) as uploader, voicenote.TestSource() as source:
        def on_test_event(event: Any) -> None:
            try:
                outcome.append(uploader.upload(file, on_progress=progress.add, payload=placeholder()))
                outcome.append(len(progress))  # nothing delivered yet: this thread delivers them
            except BaseException as error:  # noqa: BLE001 - checked below
                outcome.append(error)
            finally:
                done.set()

        source.subscribe(on_test_event)
        source.emit(1)
        wait_event(done, "the upload inside a callback")
        assert isinstance(outcome[0], VoiceRecordingPayload) and outcome[1] == 0
        check_progress(progress.wait_for(lambda items: items and items[-1] == 1, what="the progress to 1"))


def child_env() -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("PYTHONFAULTHANDLER", None)
    return env


#: Uploads argv[2] to argv[1] (a slow server) and prints "sending" at 20 %; on Ctrl-C prints the outcome as JSON.
#: With argv[3] == "exit", it returns at 20 % instead, leaving the upload running for the atexit hook; with "wait" it
#: starts the upload and waits for it with wait() instead of upload() (Ctrl-C then leaves the upload running).
INTERRUPTED = r"""
import json, signal, sys
import voicenote

# Ctrl-C raises KeyboardInterrupt, as in any interactive Python, also when this test runs under a runner started in
# the background: a shell's background job inherits SIGINT ignored, and Python then leaves it ignored (the test
# hung in CI that way, its SIGINT lost).
signal.signal(signal.SIGINT, signal.default_int_handler)

uploader = voicenote.Uploader(sys.argv[1])
print("starting", flush=True)  # the test sends SIGINT or a line once the server receives the body

if sys.argv[3] == "exit":
    uploader.subscribe(lambda event: None, on_release=lambda: print("released", flush=True))
    uploader.start(sys.argv[2], payload=voicenote.VoiceRecordingPayload("file:///x"))
    sys.stdin.readline()
    sys.exit(0)  # without closing: the atexit hook cancels the upload and closes the uploader
try:
    if sys.argv[3] == "wait":
        uploader.start(sys.argv[2], payload=voicenote.VoiceRecordingPayload("file:///x"))
        uploader.wait()
    else:
        uploader.upload(sys.argv[2], payload=voicenote.VoiceRecordingPayload("file:///x"))
    print(json.dumps({"outcome": "uploaded"}))
except KeyboardInterrupt:
    state = uploader.state.name
    try:
        uploader.result()
        result = "uploaded"
    except voicenote.VoiceNoteError as error:
        result = type(error).__name__
    print(json.dumps({"outcome": "interrupted", "state": state, "result": result}), flush=True)
"""


def communicate_or_dump(child: "subprocess.Popen[str]", stdin: Optional[str] = None) -> Tuple[str, str]:
    """``child.communicate`` within TIMEOUT; when it hangs, its Python threads' stacks (faulthandler, on SIGABRT) in
    the failure, so a hang seen once in CI can be read."""
    try:
        return child.communicate(stdin, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGABRT)
        out, err = child.communicate(timeout=TIMEOUT)
        pytest.fail(f"the child hung for {TIMEOUT} s; stdout:\n{out}\nstderr (its stacks):\n{err}")


def interrupt_child(server: HTTPTestServer, large_file: Path, mode: str) -> Tuple[Dict[str, Any], float]:
    """Runs INTERRUPTED in ``mode`` ("upload" or "wait"), sends it Ctrl-C once the server has the first bytes (the
    child is then waiting) and returns what it printed, and the seconds from the signal to its exit."""
    child = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", INTERRUPTED, server.url(SLOW), str(large_file),
                              mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "starting"
        server.wait_for_receiving(SLOW, timeout=TIMEOUT)  # the child is sending: the server has its first bytes
        started = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = communicate_or_dump(child)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    return json.loads(out), time.monotonic() - started


def test_ctrl_c_interrupts_a_blocking_upload_and_cancels_it(server: HTTPTestServer, large_file: Path) -> None:
    outcome, seconds = interrupt_child(server, large_file, "upload")
    assert seconds < 5
    assert outcome == {"outcome": "interrupted", "state": "FAILED", "result": "CancelledError"}


def test_ctrl_c_interrupts_a_wait_and_the_upload_goes_on(server: HTTPTestServer, large_file: Path) -> None:
    """wait() on the main thread blocks on an Event (the library's wait runs on a helper thread), which Ctrl-C
    interrupts: KeyboardInterrupt, and the upload is still sending (only upload() cancels it)."""
    outcome, _ = interrupt_child(server, large_file, "wait")
    assert outcome == {"outcome": "interrupted", "state": "UPLOADING", "result": "MisuseError"}


def test_ctrl_c_landing_inside_start_cancels_the_upload(server: HTTPTestServer, large_file: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C may be raised on the first bytecode after the library began the upload, still inside start(): the
    upload is cancelled as during the wait, never left running behind the KeyboardInterrupt (it outlived the
    interrupted program's handler once in CI). The real library runs; only the moment of the signal is placed."""
    begin = _upload._capi.vn_uploader_upload_file

    def begun_then_interrupted(*args: Any) -> int:
        begin(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(_upload._capi, "vn_uploader_upload_file", begun_then_interrupted)
    with Uploader(server.url(SLOW)) as uploader:
        with pytest.raises(KeyboardInterrupt):
            uploader.upload(large_file, payload=VoiceRecordingPayload("file:///x"))
        assert uploader.state == UploadState.FAILED
        with pytest.raises(voicenote.CancelledError):
            uploader.result()


def test_exit_with_an_upload_running(server: HTTPTestServer, large_file: Path) -> None:
    child = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", INTERRUPTED, server.url(SLOW), str(large_file),
                              "exit"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=child_env())
    try:
        server.wait_for_receiving(SLOW, timeout=TIMEOUT)  # the upload is sending when the interpreter exits
        out, err = communicate_or_dump(child, "exit\n")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    detail = f"rc={child.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    assert child.returncode == 0, detail
    assert "Fatal Python error" not in err and "Traceback" not in err, detail
    assert out.split() == ["starting", "released"], detail
