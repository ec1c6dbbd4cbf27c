"""voicenote.aio: an asyncio program that records through the virtual microphone, uploads to a real server on
127.0.0.1 and plays, with no thread of its own (every callback on the asyncio thread, through the event loop the
asyncio loop watches); events as async iterators; cancelling a task cancels the library's work and is told apart
from the library's own cancellation. Every wait is bounded by asyncio.wait_for."""
from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any, List

import pytest

from helpers import TIMEOUT
from microphones import decoded_samples, run
from test_player import file_speaker

import voicenote
import voicenote.aio as vaio


def microphone(folder: Path) -> str:
    tone = folder / "mic.raw"
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(tone),
         "synth", "30", "sine", "300", "vol", "0.3"])
    return f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{tone}" format raw }}'


def test_record_upload_and_play_with_no_thread_of_its_own(tmp_path: Path, upload_server: Any) -> None:
    threads: List[int] = []

    async def main() -> None:
        loop = vaio.EventLoop()
        try:
            recorder = voicenote.Recorder(str(tmp_path / "takes"), device="vn_mic", device_config=microphone(tmp_path),
                                          loop=loop)
            player = voicenote.Player(device="vn_spk", device_config=file_speaker(tmp_path / "heard.raw"), loop=loop)
            uploader = voicenote.Uploader(upload_server.url("/_matrix/media/v3/upload"), mode="raw", loop=loop)
            for thing in (recorder, player, uploader):  # where the library calls back: the asyncio thread
                thing.subscribe(lambda _event: threads.append(threading.get_ident()))
            recorder.begin()
            async for event in vaio.events(recorder):
                if isinstance(event, voicenote.RecorderContextEvent) and event.context.duration >= 1.5:
                    break
            take = await asyncio.wait_for(vaio.stop(recorder), TIMEOUT)
            assert take.path.endswith(".ogg") and take.duration >= 1.5
            payload = await asyncio.wait_for(vaio.from_recording(take.path, take.duration, take.waveform), TIMEOUT)
            sent = await asyncio.wait_for(vaio.upload(uploader, take.path, payload), TIMEOUT)
            assert sent.asset_url.startswith("mxc://")
            content = sent.to_matrix_content()
            assert content["url"] == sent.asset_url and content["org.matrix.msc3245.voice"] == {}
            player.load(take.path)
            await asyncio.wait_for(vaio.finished(player), TIMEOUT)
            assert await asyncio.wait_for(vaio.waveform(take.path), TIMEOUT) == voicenote.waveform(take.path)
            assert (await vaio.info(take.path))["duration"] == pytest.approx(take.duration, abs=0.01)
            for thing in (uploader, player, recorder):
                thing.close()
        finally:
            loop.close()

    asyncio.run(main())
    assert threads and set(threads) == {threading.get_ident()}
    heard = (tmp_path / "heard.raw").stat().st_size / 2
    assert abs(heard - decoded_samples(str(next((tmp_path / "takes").glob("*.ogg"))))) < 4800


def test_events_arrive_in_order_and_the_iteration_ends_with_its_object() -> None:
    async def main() -> List[int]:
        loop = vaio.EventLoop()
        source = voicenote.TestSource(loop=loop)
        seen: List[int] = []

        async def consume() -> None:
            async for event in vaio.events(source):
                seen.append(event.sequence)
                if len(seen) == 3:
                    source.close()  # ends the iteration: its subscription is released

        consumer = asyncio.ensure_future(consume())
        await asyncio.sleep(0)
        source.emit(5)
        await asyncio.wait_for(consumer, TIMEOUT)  # ends: the close released the subscription
        loop.close()
        return seen

    seen = asyncio.run(main())
    # In order; the events queued before the close (in the same dispatch) still come, then the iteration ends.
    assert seen == list(range(1, len(seen) + 1)) and 3 <= len(seen) <= 5


def test_cancelling_the_task_cancels_the_upload_and_is_the_tasks_own(tmp_path: Path, upload_server: Any,
                                                                     media: Any) -> None:
    async def main() -> None:
        loop = vaio.EventLoop()
        # The server answers 30 s after the body: the upload is still running when the task is cancelled.
        uploader = voicenote.Uploader(upload_server.url("/uploadmode/holdanswer-30/channels/m/x/file"), loop=loop)
        task = asyncio.ensure_future(vaio.upload(uploader, media.files["opus"]))
        async for event in vaio.events(uploader):
            if event.state is voicenote.UploadState.UPLOADING:  # sending; the answer is 30 s away
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):  # the task's own cancellation, not voicenote's
            await asyncio.wait_for(task, TIMEOUT)
        assert uploader.state is voicenote.UploadState.FAILED  # the upload ended before the task did
        with pytest.raises(voicenote.CancelledError):
            uploader.result()
        # Cancelled by someone else: voicenote.CancelledError, an Exception, reaches the awaiting task.
        again = asyncio.ensure_future(vaio.upload(uploader, media.files["opus"]))
        async for event in vaio.events(uploader):
            if event.state is voicenote.UploadState.UPLOADING:
                break
        uploader.cancel()
        with pytest.raises(voicenote.CancelledError):
            await asyncio.wait_for(again, TIMEOUT)
        assert not issubclass(voicenote.CancelledError, asyncio.CancelledError)
        uploader.close()
        loop.close()

    asyncio.run(main())
