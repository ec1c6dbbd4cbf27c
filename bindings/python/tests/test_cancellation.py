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

from audiofiles import Media
from helpers import TIMEOUT
from http_server import HTTPTestServer  # Tests/Servers, on the path through conftest.py

import voicenote
import voicenote.aio as vaio


@pytest.fixture
def server(media: Media) -> Iterator[HTTPTestServer]:
    """A server over the media folder, stopped by its pid after the test."""
    with HTTPTestServer(media.files["opus"].parent) as running:
        yield running


def stalled_url(server: HTTPTestServer, media: Media, kind: str = "opus") -> str:
    """The note's first 500 bytes (its headers, part of them), then silence until the client leaves."""
    return server.url(f"/stall/500/{media.files[kind].name}")


@pytest.mark.parametrize("call", ["waveform", "info", "convert"])
def test_cancel_from_another_thread_ends_a_read_waiting_for_the_network(call: str, server: HTTPTestServer,
                                                                        media: Media, tmp_path: Path) -> None:
    cancellation = voicenote.Cancellation()
    outcome: List[BaseException] = []
    started = threading.Event()
    output = tmp_path / "out.ogg"

    def read() -> None:
        started.set()
        url = stalled_url(server, media)
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
    cancellation.cancel()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), "the read did not end after cancel()"
    assert len(outcome) == 1 and isinstance(outcome[0], voicenote.CancelledError), outcome
    assert cancellation.cancelled
    assert list(tmp_path.iterdir()) == []  # convert left nothing, not even its part file


def test_a_cancelled_cancellation_fails_the_next_url_read_and_leaves_files_alone(server: HTTPTestServer,
                                                                                 media: Media) -> None:
    cancellation = voicenote.Cancellation()
    cancellation.cancel()
    with pytest.raises(voicenote.CancelledError):
        voicenote.waveform(stalled_url(server, media), cancellation=cancellation)
    # Files are read without waiting on the network: the call runs to its end.
    assert voicenote.waveform(media.files["opus"], cancellation=cancellation) == voicenote.waveform(media.files["opus"])


@pytest.mark.parametrize("call", ["waveform", "info", "convert"])
def test_cancelling_the_task_cancels_the_library_call(call: str, server: HTTPTestServer, media: Media,
                                                      tmp_path: Path) -> None:
    output = tmp_path / "out.ogg"

    async def main() -> Any:
        url = stalled_url(server, media)
        running = {"waveform": lambda: vaio.waveform(url), "info": lambda: vaio.info(url),
                   "convert": lambda: vaio.convert(url, output)}[call]
        task = asyncio.ensure_future(running())
        done, _ = await asyncio.wait({task}, timeout=0.3)  # still waiting on the stalled server
        assert not done
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
