"""voicenote for asyncio programs (bots, bridges, backends): events delivered on the asyncio thread, awaitables for
what ends, and blocking analysis in an executor.

::

    import asyncio, voicenote, voicenote.aio as vaio

    async def main():
        loop = vaio.EventLoop()                      # watched by the running asyncio loop: no thread of its own
        with voicenote.Recorder("notes", loop=loop) as recorder, voicenote.Player(loop=loop) as player:
            recorder.begin()
            await asyncio.sleep(5)
            take = await vaio.stop(recorder)        # the RecordingFinished event
            with voicenote.Uploader(url, mode=voicenote.UploadMode.RAW, loop=loop) as uploader:
                sent = await vaio.upload(uploader, take.path)
            player.load(take.path)
            await vaio.finished(player)
            async for event in vaio.events(player): ...
        loop.close()

**Two cancellations, told apart.** ``asyncio.CancelledError`` is a ``BaseException``: *your task* was cancelled.
``voicenote.CancelledError`` is a :class:`voicenote.VoiceNoteError` (an ``Exception``): *the library's work* was
cancelled, e.g. an upload someone else cancelled. Cancelling a task that awaits :func:`upload` cancels the upload,
waits for it to end (no thread or request is left behind) and raises ``asyncio.CancelledError`` as asyncio expects;
an upload cancelled from elsewhere makes :func:`upload` raise ``voicenote.CancelledError``. The names never meet:
import this module as a module (``import voicenote.aio as vaio``), and ``except asyncio.CancelledError`` still
catches only the task's.
"""
from __future__ import annotations

import asyncio
import functools
from typing import Any, AsyncIterator, Callable, Optional, TypeVar

from . import _audioinfo, _cancellation, _capi, _conversion, _loop, _loudness, _payload, _recovery, _waveform
from ._flow import FlowState, FlowTake, FlowViewEvent, RecordingFlow, Trimmed
from ._player import PlaybackFailed, PlaybackFinished, Player
from ._recorder import Recorder, RecordingFailed, RecordingFinished, TooShort
from ._upload import Uploader, UploadSource
from ._upload_events import UploadEvent, UploadState
from .errors import CancelledError, status_name

__all__ = ["EventLoop", "events", "finished", "stop", "trim", "upload", "waveform", "analyse", "info", "from_recording", "recover",
           "convert", "transcribe"]

_T = TypeVar("_T")


class EventLoop(_loop.EventLoop):
    """A :class:`voicenote.EventLoop` watched by an asyncio loop (``loop.add_reader`` on its file descriptor): every
    object created with it delivers its events inside that loop's thread, between other tasks, and nothing polls.

    Create it inside a running asyncio loop (or pass ``asyncio_loop``); close it after the objects that use it, also
    from the asyncio thread.
    """

    def __init__(self, asyncio_loop: Optional[asyncio.AbstractEventLoop] = None) -> None:
        super().__init__()
        self._asyncio_loop = asyncio_loop or asyncio.get_running_loop()
        self._asyncio_loop.add_reader(self.fileno(), self.dispatch)

    @property
    def asyncio_loop(self) -> asyncio.AbstractEventLoop:
        """The asyncio loop that watches this one."""
        return self._asyncio_loop

    def close(self) -> None:
        """Stops watching and destroys the loop (events still queued are dropped). Idempotent."""
        if not self.closed:
            self._asyncio_loop.remove_reader(self.fileno())
        super().close()


async def events(obj: Any, *, maxsize: int = 0) -> AsyncIterator[Any]:
    """The events of a player, queue player, recorder, uploader or flow, as an async iterator: ``async for event in
    events(player)``. It subscribes when the iteration starts and unsubscribes when it ends (``break``, an
    exception, or the object's close, which ends it). Events from any delivering thread arrive on the asyncio
    thread (``call_soon_threadsafe``); with a :class:`EventLoop` they are already there.

    Args:
        obj: anything with ``subscribe(callback, on_release=...)``.
        maxsize: the most events held for a slow consumer (0: no limit); past it the oldest are dropped.
    """
    loop = asyncio.get_running_loop()
    queue: "asyncio.Queue[Any]" = asyncio.Queue()
    ended = object()

    def put(item: Any) -> None:
        if maxsize and queue.qsize() >= maxsize and item is not ended:
            queue.get_nowait()
        queue.put_nowait(item)

    def deliver(item: Any) -> None:
        try:
            loop.call_soon_threadsafe(put, item)
        except RuntimeError:  # the asyncio loop is closed: nobody listens any more
            pass

    subscription = obj.subscribe(deliver, on_release=lambda: deliver(ended))
    try:
        while True:
            item = await queue.get()
            if item is ended:
                return
            yield item
    finally:
        if not subscription.released:
            try:
                subscription.unsubscribe()
            except Exception:  # noqa: BLE001 - the object ended it meanwhile
                pass


async def finished(player: Player) -> None:
    """Waits until the player's current item plays to its end (``PlaybackFinished``).

    Raises:
        VoiceNoteError: the item failed (the ``PlaybackFailed`` error).
        voicenote.CancelledError: the player was closed first.
    """
    def pick(event: Any) -> Optional[Callable[[], None]]:
        if isinstance(event, PlaybackFinished):
            return lambda: None
        if isinstance(event, PlaybackFailed):
            return _raising(event.error)
        return None

    await _first_of(events(player), pick, "the end")


async def stop(recorder: Recorder) -> RecordingFinished:
    """Stops the take and waits for the finished recording (its path, duration, size and waveform).

    Raises:
        VoiceNoteError: the take failed, or was too short (a ``voicenote.CancelledError`` then).
        MisuseError: no take runs.
    """
    def pick(event: Any) -> Optional[Callable[[], RecordingFinished]]:
        if isinstance(event, RecordingFinished):
            return lambda: event
        if isinstance(event, RecordingFailed):
            return _raising(event.error)
        if isinstance(event, TooShort):
            return _raising(_cancelled(f"the take was too short ({event.duration:.2f} s)"))
        return None

    return await (await _waiting_for(recorder, pick, "the recording", recorder.stop))


async def trim(flow: RecordingFlow, start: float, end: float) -> FlowTake:
    """Cuts the flow's previewed take to ``start … end`` seconds and waits for the trim's end, without blocking the
    asyncio loop (the cut runs on the flow's worker). Returns the take as cut.

    Raises:
        VoiceNoteError: the trim failed (the take is as it was).
        MisuseError: outside PREVIEW, or while a trim runs.
        InvalidArgumentError: a range outside the take.
        voicenote.CancelledError: the flow was closed (or the take discarded) before the trim ended.
    """
    def pick(event: Any) -> Optional[Callable[[], FlowTake]]:
        if isinstance(event, Trimmed):
            return _raising(event.error) if event.error is not None else (lambda: event.take)
        if isinstance(event, FlowViewEvent) and event.view.state is not FlowState.PREVIEW:
            return _raising(_cancelled("the take was discarded before its trim ended"))
        return None

    return await (await _waiting_for(flow, pick, "the trim's end", lambda: flow.trim(start, end)))


def _cancelled(text: str) -> CancelledError:
    return CancelledError(_capi.VN_E_CANCELLED, status_name(_capi.VN_E_CANCELLED), text)


def _raising(error: BaseException) -> Callable[[], Any]:
    """An outcome that raises ``error``."""
    def outcome() -> Any:
        raise error
    return outcome


async def _waiting_for(obj: Any, pick: Callable[[Any], Any], what: str, action: Callable[[], Any]) -> "asyncio.Future[Any]":
    """Subscribes to ``obj``, then runs ``action`` (so none of the events it causes can be missed), and returns the
    task awaiting the outcome of the first event ``pick`` decides on."""
    waiting = asyncio.ensure_future(_first_of(events(obj), pick, what))
    await asyncio.sleep(0)  # the task subscribes now
    try:
        action()
    except BaseException:
        waiting.cancel()
        raise
    return waiting


async def _first_of(iterator: AsyncIterator[Any], pick: Callable[[Any], Any], what: str) -> Any:
    """The outcome of the first event ``pick`` turns into one (a function returning the result or raising)."""
    async for event in iterator:
        outcome = pick(event)
        if outcome is not None:
            await iterator.aclose()  # type: ignore[attr-defined]
            return outcome()
    raise _cancelled(f"the object was closed before {what}")


async def upload(uploader: Uploader, source: UploadSource, payload: Optional[_payload.VoiceRecordingPayload] = None,
                 **options: Any) -> _payload.VoiceRecordingPayload:
    """Uploads ``source`` (as :meth:`Uploader.start` takes it) and returns the uploaded payload.

    Cancelling the awaiting task cancels the upload and waits for it to end before ``asyncio.CancelledError``
    propagates.

    Raises:
        voicenote.CancelledError: the upload was cancelled by something else than this task.
        VoiceNoteError: it failed (the status says why).
    """
    def pick(event: UploadEvent) -> Optional[Callable[[], Any]]:
        if event.state is UploadState.UPLOADED:
            return lambda: event.payload if event.payload is not None else uploader.result()
        if event.state is UploadState.FAILED and event.error is not None:
            return _raising(event.error)
        return None

    waiting = await _waiting_for(uploader, pick, "the upload's end", lambda: uploader.start(source, payload, **options))
    try:
        return await asyncio.shield(waiting)
    except asyncio.CancelledError:
        if not uploader.closed:
            uploader.cancel()
            await _outlasting_cancellation(waiting)  # its FAILED (cancelled) event: nothing of the upload left running
        raise


async def _in_executor(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(function, *args, **kwargs))


async def _cancellable(function: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``function(*args, cancellation=…, **kwargs)`` in the loop's default executor. Cancelling the awaiting task
    cancels the call's reads (:class:`voicenote.Cancellation`: a URL's read at once, a file's or bytes' at the next
    read) and waits for the call to end before ``asyncio.CancelledError`` propagates: no call is left running."""
    cancellation = kwargs.pop("cancellation", None) or _cancellation.Cancellation()
    running = asyncio.get_running_loop().run_in_executor(
        None, functools.partial(function, *args, cancellation=cancellation, **kwargs))
    try:
        return await asyncio.shield(running)
    except asyncio.CancelledError:
        cancellation.cancel()
        await _outlasting_cancellation(running)
        raise


async def _outlasting_cancellation(running: "asyncio.Future[Any]") -> None:
    """Waits for ``running`` to end, however often the awaiting task is cancelled meanwhile (a ``wait_for``
    timeout, a task group's teardown): the library's work has ended when the task's cancellation goes on. Its
    outcome is dropped; the cancellation is what the task reports."""
    while not running.done():
        try:
            await asyncio.shield(running)
        except BaseException:  # noqa: BLE001 - a later cancel of the task, or the call's own failure
            pass
    if not running.cancelled():
        running.exception()  # retrieved: no "exception was never retrieved" warning


async def waveform(*args: Any, **kwargs: Any) -> Any:
    """:func:`voicenote.waveform` in the loop's default executor (it decodes the whole note); cancelling the task
    cancels its reads."""
    return await _cancellable(_waveform.waveform, *args, **kwargs)


async def transcribe(location: Any, recogniser: Any = None, *, http: Any = None) -> Any:
    """:func:`voicenote.transcribe` without blocking the loop: the transcription runs on its own library thread and
    is awaited in the loop's default executor. Cancelling the task cancels the transcription and waits for it to
    end before ``asyncio.CancelledError`` propagates: no transcription is left running."""
    from . import _transcript

    job = _transcript.Transcription(location, recogniser, http=http)
    try:
        job.start()
        running = asyncio.get_running_loop().run_in_executor(None, job.wait)
        try:
            return await asyncio.shield(running)
        except asyncio.CancelledError:
            job.cancel()
            await _outlasting_cancellation(running)
            raise
    finally:
        job.close()


async def analyse(*args: Any, **kwargs: Any) -> Any:
    """:func:`voicenote.analyse` in the loop's default executor (it decodes the whole note); cancelling the task
    cancels its reads."""
    return await _cancellable(_loudness.analyse, *args, **kwargs)


async def info(*args: Any, **kwargs: Any) -> Any:
    """:func:`voicenote.info` in the loop's default executor; cancelling the task cancels its reads."""
    return await _cancellable(_audioinfo.info, *args, **kwargs)


async def from_recording(*args: Any, **kwargs: Any) -> _payload.VoiceRecordingPayload:
    """:meth:`voicenote.VoiceRecordingPayload.from_recording` in the loop's default executor."""
    return await _in_executor(_payload.VoiceRecordingPayload.from_recording, *args, **kwargs)


async def recover(*args: Any, **kwargs: Any) -> Any:
    """:func:`voicenote.recover` in the loop's default executor."""
    return await _in_executor(_recovery.recover, *args, **kwargs)


async def convert(*args: Any, **kwargs: Any) -> float:
    """:func:`voicenote.convert` in the loop's default executor (it decodes and encodes the whole note); cancelling
    the task cancels the call at its next read of a URL, a file or bytes, and then the output is left as it was (a
    file-like stream is converted to the end first: the host's ``read`` is not interrupted)."""
    return await _cancellable(_conversion.convert, *args, **kwargs)
