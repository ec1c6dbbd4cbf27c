"""voicenote.Cancellation and voicenote.aio's cancellable executor calls: a read waiting on a real server that
stalls (Tests/Servers/http_server.py /stall/) ends with voicenote.CancelledError when cancelled from another
thread, and cancelling an asyncio task running waveform/info/convert ends the library's call before the task's
asyncio.CancelledError propagates — no call left running, no file left behind. Every wait is bounded."""
from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, Iterator, List

import pytest

from audiofiles import Media, write_tone
from helpers import TIMEOUT, wait_until
from http_server import HTTPTestServer  # Tests/Servers, on the path through conftest.py

import voicenote
import voicenote.aio as vaio


@pytest.fixture
def server(media: Media) -> Iterator[HTTPTestServer]:
    """A server over the media folder, stopped by its pid after the test."""
    with HTTPTestServer(media.files["opus"].parent) as running:
        yield running


def first_audio_page_end(note: Path) -> int:
    """The offset just past the note's first audio page (its third Ogg page, after OpusHead and OpusTags)."""
    data = note.read_bytes()
    position, ends = 0, []
    while position + 27 <= len(data) and data[position:position + 4] == b"OggS" and len(ends) < 3:
        segments = data[position + 26]
        position += 27 + segments + sum(data[position + 27:position + 27 + segments])
        ends.append(position)
    assert len(ends) == 3 and position < len(data), f"{note} has no second audio page"
    return position


def stalled_path(media: Media) -> str:
    """The note's headers and first audio page, then silence until the client leaves: a reader of it decodes that
    page and then waits on the network."""
    return f"/stall/{first_audio_page_end(media.files['opus'])}/{media.files['opus'].name}"


@pytest.mark.parametrize("call", ["waveform", "info", "convert"])
def test_cancel_from_another_thread_ends_a_read_waiting_for_the_network(call: str, server: HTTPTestServer,
                                                                        media: Media, tmp_path: Path) -> None:
    cancellation = voicenote.Cancellation()
    outcome: List[BaseException] = []
    started = threading.Event()
    output = tmp_path / "out.ogg"

    url = server.url(stalled_path(media))
    output.write_text("the old file")

    def read() -> None:
        started.set()
        try:
            if call == "waveform":
                voicenote.waveform(url, cancellation=cancellation)
            elif call == "info":
                voicenote.info(url, cancellation=cancellation)
            else:
                voicenote.convert(url, output, cancellation=cancellation)
        except BaseException as error:  # noqa: BLE001 - what the test looks at
            outcome.append(error)

    thread = threading.Thread(target=read)
    thread.start()
    assert started.wait(TIMEOUT)
    server.wait_for_stalling(stalled_path(media), TIMEOUT)  # the first page is sent: the read waits for the next
    cancellation.cancel()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the read did not end after cancel()"
    assert len(outcome) == 1 and isinstance(outcome[0], voicenote.CancelledError), outcome
    assert cancellation.cancelled
    # convert had encoded the first page when it was cancelled: the old file is whole, no part file is left.
    assert output.read_text() == "the old file" and list(tmp_path.iterdir()) == [output]


def test_a_cancelled_cancellation_fails_the_next_url_read_and_leaves_files_alone(server: HTTPTestServer,
                                                                                 media: Media) -> None:
    cancellation = voicenote.Cancellation()
    cancellation.cancel()
    with pytest.raises(voicenote.CancelledError):
        voicenote.waveform(server.url(stalled_path(media)), cancellation=cancellation)
    # A file's path and bytes fail at their first read too; the file is left as it was.
    before = media.files["opus"].read_bytes()
    with pytest.raises(voicenote.CancelledError):
        voicenote.waveform(media.files["opus"], cancellation=cancellation)
    with pytest.raises(voicenote.CancelledError):
        voicenote.info(before, cancellation=cancellation)
    assert media.files["opus"].read_bytes() == before
    assert voicenote.waveform(media.files["opus"], cancellation=voicenote.Cancellation()) == \
        voicenote.waveform(media.files["opus"])


@pytest.mark.parametrize("call", ["waveform", "info", "convert"])
def test_cancelling_the_task_cancels_the_library_call(call: str, server: HTTPTestServer, media: Media,
                                                      tmp_path: Path) -> None:
    output = tmp_path / "out.ogg"

    async def main() -> Any:
        url = server.url(stalled_path(media))
        running = {"waveform": lambda: vaio.waveform(url), "info": lambda: vaio.info(url),
                   "convert": lambda: vaio.convert(url, output)}[call]
        task = asyncio.ensure_future(running())
        # The server sent the first page and holds the connection silent: the library's call waits on it.
        await asyncio.get_running_loop().run_in_executor(None, server.wait_for_stalling, stalled_path(media), TIMEOUT)
        assert not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):  # the task's own cancellation, not voicenote's
            await asyncio.wait_for(task, TIMEOUT)
        return asyncio.get_running_loop()

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(main())
        # The executor's call has ended: shutting the executor down returns without waiting on the network.
        shutdown = loop.run_until_complete(asyncio.wait_for(loop.shutdown_default_executor(), TIMEOUT))
        assert shutdown is None
    finally:
        loop.close()
    assert list(tmp_path.iterdir()) == []


def test_cancel_ends_a_long_local_conversion_and_leaves_no_part(tmp_path: Path) -> None:
    """A local note is read without waiting, but a long decode stops at its next read once cancelled: a conversion
    of two minutes of audio is cancelled as soon as its part file exists, raises CancelledError and leaves nothing."""
    long_note = write_tone(tmp_path / "long.wav", 120, 440)
    output = tmp_path / "out" / "long.ogg"
    output.parent.mkdir()
    cancellation = voicenote.Cancellation()
    outcome: List[Any] = []

    def convert() -> None:
        try:
            outcome.append(voicenote.convert(long_note, output, cancellation=cancellation))
        except BaseException as error:  # checked on the test's thread
            outcome.append(error)

    thread = threading.Thread(target=convert, daemon=True)
    thread.start()
    assert wait_until(lambda: any(output.parent.iterdir()) or not thread.is_alive(), TIMEOUT), "no part file appeared"
    cancellation.cancel()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the conversion did not end after cancel"
    assert len(outcome) == 1 and isinstance(outcome[0], voicenote.CancelledError), outcome
    assert list(output.parent.iterdir()) == []
