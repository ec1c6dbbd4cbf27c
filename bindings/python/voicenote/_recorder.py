"""``Recorder``: records voice messages from an ALSA device into Ogg Opus or AAC files (``vn_recorder``).
docs/recorder.md."""

from __future__ import annotations

import ctypes
import enum
import os
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Union

from . import _audio_object, _buffers, _capi, _cevents, _enums, _events, _lifecycle, _session, _sources
from ._session import ActivateHook, DeactivateHook
from ._events import Subscription
from ._focus import FocusGroup
from ._loop import EventLoop
from ._loudness import Loudness
from ._loudness import from_c as loudness_from_c
from ._strings import c_text
from .errors import VoiceNoteError, check, error_for

__all__ = [
    "Recorder",
    "RecorderState",
    "RecordingFormat",
    "RecorderContext",
    "RecorderEvent",
    "RecorderContextEvent",
    "RecordingFinished",
    "RecordingFailed",
    "MaxDurationWarning",
    "MaxDurationReached",
    "TooShort",
]

class RecorderState(enum.IntEnum):
    """A recorder's state (``vn_recorder_state``, Stream's ``AudioRecordingState``)."""

    #: Not recording: the initial state, and after a take finished, failed or was cancelled.
    STOPPED = _capi.VN_RECORDER_STOPPED
    #: Capturing.
    RECORDING = _capi.VN_RECORDER_RECORDING
    #: Paused: nothing is captured and the take is whole on disk.
    PAUSED = _capi.VN_RECORDER_PAUSED


class RecordingFormat(_enums.NamedIntEnum):
    """The file format of a take (``vn_recording_format``). :class:`Recorder` also accepts the names
    ``"opus"`` and ``"aac"`` (any case)."""

    #: Ogg Opus, ``.ogg``, ``audio/ogg`` (the default; what Telegram, Element and WhatsApp send).
    OPUS = _capi.VN_FORMAT_OPUS
    #: AAC-LC in ADTS, ``.aac``, ``audio/aac`` (what Stream's iOS and Android apps send).
    AAC = _capi.VN_FORMAT_AAC

    @property
    def extension(self) -> str:
        """The file name extension, with the dot: ``".ogg"`` or ``".aac"``."""
        return ".ogg" if self is RecordingFormat.OPUS else ".aac"

    @property
    def mime_type(self) -> str:
        """The MIME type: ``"audio/ogg"`` or ``"audio/aac"``."""
        return "audio/ogg" if self is RecordingFormat.OPUS else "audio/aac"


# --- context and events ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecorderContext:
    """A recorder's context (Stream's ``AudioRecordingContext`` and more), copied out of the library."""

    #: The state.
    state: RecorderState
    #: Seconds captured in this take (counted in frames, paused time excluded); after a take ended, its length.
    duration: float
    #: RMS level of the last meter window, 0…1 (for a level meter; not the waveform you send).
    average_power: float
    #: Peak level of the last meter window, 0…1.
    peak_power: float
    #: ALSA overruns in this take (counted; they never end a take).
    overruns: int
    #: The file being written (``<UUID>.ogg.part`` while recording or paused), the file last kept after a take,
    #: or ``""`` when there is none.
    path: str


@dataclass(frozen=True)
class RecorderContextEvent:
    """``VN_RECORDER_EVENT_CONTEXT``: a state change, or a meter/duration step of captured audio. When the
    subscriber is slower than capture, steps coalesce and the latest wins; state changes are never dropped."""

    context: RecorderContext


@dataclass(frozen=True)
class RecordingFinished:
    """``VN_RECORDER_EVENT_FINISHED``: a take was kept (after ``stop()``, at the maximum length, after a device
    loss or a full disk, or when the recorder was closed while recording)."""

    #: The finished file, ``<UUID>.ogg`` or ``<UUID>.aac``.
    path: str
    #: Seconds of audio in it (frames captured / rate: exact).
    duration: float
    #: Bytes on disk.
    size: int
    #: The take's waveform: 100 values in 0…1 (docs/waveform.md, computed on the captured audio), ready to send.
    waveform: List[float]
    #: Its format.
    format: RecordingFormat
    #: Its loudness, measured on the captured audio as it was encoded; None where it could not be.
    loudness: Optional[Loudness] = None


@dataclass(frozen=True)
class RecordingFailed:
    """``VN_RECORDER_EVENT_FAILED``: the take ended with an error. When something was kept (device lost, disk
    full), :class:`RecordingFinished` came first."""

    #: The failure: a :class:`~voicenote.DeviceError` when the device was lost, a
    #: :class:`~voicenote.NoSpaceError` or :class:`~voicenote.IOFailedError` when saving failed, ...
    error: VoiceNoteError


@dataclass(frozen=True)
class MaxDurationWarning:
    """``VN_RECORDER_EVENT_MAX_DURATION_WARNING``: the take reaches its maximum length in ``remaining`` seconds."""

    remaining: float


@dataclass(frozen=True)
class MaxDurationReached:
    """``VN_RECORDER_EVENT_MAX_DURATION_REACHED``: the take reached its maximum length and is being finished;
    :class:`RecordingFinished` follows (a take is never discarded for its length)."""


@dataclass(frozen=True)
class TooShort:
    """``VN_RECORDER_EVENT_TOO_SHORT``: the take was shorter than ``min_duration`` and was deleted."""

    #: The take's length in seconds.
    duration: float


@dataclass(frozen=True)
class SourceChanged:
    """``VN_RECORDER_EVENT_SOURCE_CHANGED``: the microphone was lost mid-take (a USB microphone unplugged, a headset
    gone) and the take goes on from the fallback device: nothing captured is lost but the gap."""

    #: The device the take goes on from.
    device: str
    #: Why the source was lost (a :class:`~voicenote.DeviceError`).
    lost: VoiceNoteError


#: What a recorder subscriber receives.
RecorderEvent = Union[RecorderContextEvent, RecordingFinished, RecordingFailed, MaxDurationWarning,
                      MaxDurationReached, TooShort, SourceChanged]


def _state(value: int) -> RecorderState:
    try:
        return RecorderState(value)
    except ValueError:  # a state appended by a newer library: report the nearest one we know
        return RecorderState.RECORDING


def _context(fields: _cevents.Fields, path: Optional[str] = None) -> RecorderContext:
    """A recorder context from a C one (``path`` when it was copied apart, else the struct's)."""
    return RecorderContext(
        state=fields.get("state", lambda value: _state(int(value)), RecorderState.STOPPED),
        duration=fields.number("duration_s"),
        average_power=fields.number("average_power"),
        peak_power=fields.number("peak_power"),
        overruns=fields.integer("overruns"),
        path=fields.path("path") if path is None else path,
    )


def _finished(fields: _cevents.Fields) -> RecordingFinished:
    return RecordingFinished(
        path=fields.path("path"),
        duration=fields.number("duration_s"),
        size=fields.integer("size_bytes"),
        waveform=fields.floats("waveform", "waveform_count"),
        format=RecordingFormat(fields.integer("format", _capi.VN_FORMAT_OPUS)),
        loudness=fields.get("loudness", loudness_from_c, None),
    )


#: The Python event for a C ``vn_recorder_event``; None for a type this binding does not know.
_convert_event = _cevents.converter(_capi.vn_recorder_event, {
    _capi.VN_RECORDER_EVENT_CONTEXT: lambda f: RecorderContextEvent(_context(f.nested("context", _capi.vn_recorder_context))),
    _capi.VN_RECORDER_EVENT_FINISHED: _finished,
    _capi.VN_RECORDER_EVENT_FAILED: lambda f: RecordingFailed(f.failure()),
    _capi.VN_RECORDER_EVENT_MAX_DURATION_WARNING: lambda f: MaxDurationWarning(f.number("remaining_s")),
    _capi.VN_RECORDER_EVENT_MAX_DURATION_REACHED: lambda f: MaxDurationReached(),
    _capi.VN_RECORDER_EVENT_TOO_SHORT: lambda f: TooShort(f.number("duration_s")),
    _capi.VN_RECORDER_EVENT_SOURCE_CHANGED: lambda f: SourceChanged(f.text("device"), f.failure()),
})


#: The event trampoline (``vn_recorder_event_fn``) shared by every recorder subscription.
recorder_event_trampoline = _events.event_trampoline(_capi.vn_recorder_event_fn, _convert_event,
                                                     "recorder event callback")


# --- the recorder ------------------------------------------------------------------------------------------------


def _destroy(handle: Any, hooks_key: int) -> None:
    _capi.vn_recorder_destroy(handle)
    _session.discard_hooks(hooks_key)  # destroy has returned: no hook of it runs again


class Recorder(_lifecycle.Closing):
    """Records voice messages from an ALSA device into crash-safe Ogg Opus (or AAC) files (docs/recorder.md).

    A take is written as ``<UUID>.ogg.part`` in ``directory`` (pages reach the disk at least every 0.5 s) and
    renamed to ``<UUID>.ogg`` when it finishes; :func:`voicenote.recover` finishes what a crash left. Its length
    is the frames captured, and meter/duration steps count captured audio, not wall-clock time.

    ::

        with voicenote.Recorder(max_duration=120) as recorder:
            recorder.subscribe(on_event)     # RecorderContextEvent, RecordingFinished, RecordingFailed, ...
            recorder.begin()                 # returns once capture runs
            ...
            recorder.stop()                  # RecordingFinished(path, duration, size, waveform, format) follows

    Events run on the library's event thread, or inside :meth:`EventLoop.dispatch` when the recorder was made
    with a ``loop``; every method may be called from any thread, including inside its callbacks. Usable as a
    context manager; methods raise :class:`ValueError` after :meth:`close`. A recorder that is garbage-collected,
    or still open when the interpreter exits, is closed then (a take in progress is finished and kept).
    """

    def __init__(
        self,
        directory: Optional[Union[str, "os.PathLike[str]", "os.PathLike[bytes]", bytes]] = None,
        device: str = "default",
        device_config: Optional[str] = None,
        format: Union[RecordingFormat, str, int] = "opus",
        bitrate: int = 32000,
        complexity: int = 10,
        frame_ms: float = 20,
        meter_interval: float = 0.1,
        duration_interval: float = 0.5,
        max_duration: float = 3600,
        max_duration_warning: float = 10,
        min_duration: float = 0,
        loop: Optional[EventLoop] = None,
        focus_group: Optional[FocusGroup] = None,
        on_activate: Optional[ActivateHook] = None,
        on_deactivate: Optional[DeactivateHook] = None,
        voice_cleanup: bool = False,
        pause_other_players: bool = False,
        fallback_device: Optional[str] = "",
        fallback_device_config: Optional[str] = None,
        stream_role: Optional[str] = None,
    ) -> None:
        """Creates a recorder. No device is opened until :meth:`begin`.

        Args:
            directory: where takes are written (created when missing); None for the default,
                ``$XDG_CACHE_HOME/voicenote/recordings`` (else ``~/.cache/voicenote/recordings``).
            device: the ALSA PCM name to record from (``"default"``, ``"pulse"``, ``"hw:0"``, or a name that
                ``device_config`` defines).
            device_config: ALSA configuration text defining ``device`` (opened with ``snd_pcm_open_lconf``; how a
                virtual microphone is given without touching the environment), or None for the system's.
            format: ``"opus"`` (Ogg Opus, ``.ogg``) or ``"aac"`` (AAC-LC in ADTS, ``.aac``), or a
                :class:`RecordingFormat`.
            bitrate: encoder bitrate in bit/s, 6000…256000.
            complexity: Opus complexity 0…10 (ignored for AAC).
            frame_ms: Opus frame duration: 2.5, 5, 10, 20, 40 or 60 (ignored for AAC).
            meter_interval: seconds of captured audio between meter steps, in 0.01…10.
            duration_interval: seconds of captured audio between duration steps, in 0.01…60.
            max_duration: the longest take in seconds, 0…1000000; it stops and is finished at exactly this many
                frames (:class:`MaxDurationReached`, then :class:`RecordingFinished`); a positive maximum is at
                least one frame. 0: no limit.
            max_duration_warning: how many seconds before the maximum :class:`MaxDurationWarning` comes, 0…1000000.
            min_duration: shorter takes are deleted with a :class:`TooShort` event, 0…1000000; 0 keeps every take
                that captured at least one frame (a take with none always ends with :class:`TooShort`).
            loop: the :class:`EventLoop` that delivers the events, or None for the library's event thread. The
                recorder keeps the Python loop object alive; close the recorder before the loop.
            focus_group: the :class:`FocusGroup` it joins (beginning or resuming a take pauses the group's players;
                a player of the group that starts pauses the take), or None for the process's default group.
            on_activate: ``on_activate(kind: SessionKind) -> bool``, asked on the thread that calls :meth:`begin`
                before the device opens; a false result (or an exception, which is logged) refuses, and
                :meth:`begin` raises :class:`~voicenote.BusyError` without opening the device.
            on_deactivate: ``on_deactivate(kind: SessionKind)``, told after the device closed: on the thread that
                called :meth:`stop`, :meth:`cancel` or :meth:`close`, or on a library thread when a take ended by
                itself (maximum length, device lost). Exceptions are logged.
            voice_cleanup: clean the voice before it is encoded (docs/recorder.md, "Voice cleanup"): a high-pass
                against rumble, noise suppression and automatic gain for a quiet voice, by speexdsp (loaded on first
                use). The file, the live levels, the waveform and the loudness are then of the cleaned voice, as long
                as what was captured. Off by default: a take is the captured audio bit for bit.
            pause_other_players: pause the desktop's other media players (MPRIS: music, podcasts, videos) that
                are playing while a take is recorded, and resume exactly those when it is finished or cancelled.
                The bus calls run on a library thread, bounded in time. Off by default.
            stream_role: the capture stream's ``media.role`` on a PulseAudio or pipewire-pulse server; None (the
                default) for none. A host's choice: ``"phone"`` lets PulseAudio switch Bluetooth headsets to their
                headset profile and prefer a headset's microphone, so set it when the user chose that microphone;
                ``pause_other_players`` is the way to quiet other audio during takes.
            fallback_device: where a take goes on when its microphone is lost mid-take (:class:`SourceChanged`),
                an ALSA name (``"default"``) defined by ``fallback_device_config`` when given; None: nowhere (the
                take finishes with what was captured). "" (the default): the default device when ``device`` is
                the default too, else nowhere (a device the host chose is fixed).

        Raises:
            InvalidArgumentError: a value out of range (also a ``ValueError``), an empty directory or device.
            ValueError: an unknown format name, a NUL byte in a text, or ``loop`` is closed.
            TypeError: an argument of the wrong type.
            MisuseError: ``loop`` was destroyed.
            UnsupportedError: ``voice_cleanup`` without speexdsp (Debian: libspeexdsp1); the message says so.
        """
        fmt = RecordingFormat.parse(format)
        directory_arg = c_text(directory, "path", path=True) if directory is not None else None
        encoder = (_buffers.int32("bitrate", bitrate), _buffers.int32("complexity", complexity), _buffers.real(frame_ms))
        intervals = (_buffers.real(meter_interval), _buffers.real(duration_interval))
        limits = (_buffers.real(max_duration), _buffers.real(max_duration_warning), _buffers.real(min_duration))

        def configure(options: Any) -> None:
            if directory_arg is not None:
                check(_capi.vn_recorder_options_set_directory(options, directory_arg))
            check(_capi.vn_recorder_options_set_format(options, int(fmt)))
            check(_capi.vn_recorder_options_set_encoder(options, *encoder))
            check(_capi.vn_recorder_options_set_intervals(options, *intervals))
            check(_capi.vn_recorder_options_set_limits(options, *limits))
            check(_capi.vn_recorder_options_set_voice_cleanup(options, 1 if voice_cleanup else 0))
            check(_capi.vn_recorder_options_set_pause_other_players(options, 1 if pause_other_players else 0))
            if stream_role is not None:
                check(_capi.vn_recorder_options_set_stream_role(options, c_text(stream_role, "stream_role")))
            if fallback_device is None:
                check(_capi.vn_recorder_options_set_fallback_device(options, None, None))
            elif fallback_device:
                text = None if fallback_device_config is None else c_text(fallback_device_config, "fallback_device_config")
                check(_capi.vn_recorder_options_set_fallback_device(options, c_text(fallback_device, "fallback_device"),
                                                                    text))

        handle, key, hooks = _audio_object.create("recorder", device, device_config, loop, focus_group, on_activate,
                                                  on_deactivate, configure)
        self._loop = loop
        self._format = fmt
        self._hooks = hooks
        self._own(handle, _destroy, handle, key)

    # -- state ------------------------------------------------------------------------------------------------

    @property
    def loop(self) -> Optional[EventLoop]:
        """The loop that delivers this recorder's events, or None for the library's event thread."""
        return self._loop

    @property
    def format(self) -> RecordingFormat:
        """The format takes are written in."""
        return self._format

    @property
    def context(self) -> RecorderContext:
        """The current context: state, duration, levels, overruns, and the path being written (or last kept).

        Read with two calls (``vn_recorder_get_context``, ``vn_recorder_copy_path``): when a take ends in
        between, the path may already be the finished file's. Context events carry a consistent copy.

        Raises:
            ValueError: the recorder is closed.
        """
        handle = self._live_handle()
        raw = _capi.vn_recorder_context()
        raw.size = ctypes.sizeof(_capi.vn_recorder_context)
        check(_capi.vn_recorder_get_context(handle, ctypes.byref(raw)))
        return _context(_cevents.Fields(raw, _capi.vn_recorder_context), self._copy_path(handle))

    @property
    def voice_cleanup(self) -> bool:
        """Whether the next take is cleaned (the ``voice_cleanup`` argument); set it to turn cleanup on or off from
        the next take on (a take being recorded keeps what it began with): a settings switch flipped between notes.

        Raises:
            ValueError: the recorder is closed.
            UnsupportedError: set to true without speexdsp (Debian: libspeexdsp1); the setting is then unchanged.
        """
        enabled = ctypes.c_int()
        check(_capi.vn_recorder_get_voice_cleanup(self._live_handle(), ctypes.byref(enabled)))
        return enabled.value == 1

    @voice_cleanup.setter
    def voice_cleanup(self, value: bool) -> None:
        check(_capi.vn_recorder_set_voice_cleanup(self._live_handle(), 1 if value else 0))

    @staticmethod
    def _copy_path(handle: Any) -> str:
        owned = ctypes.c_void_p()
        check(_capi.vn_recorder_copy_path(handle, ctypes.byref(owned)))
        try:
            return os.fsdecode(ctypes.string_at(owned.value)) if owned.value else ""
        finally:
            _capi.vn_free(owned)

    def levels(self, count: int) -> List[float]:
        """The last ``count`` live levels of the current (or last) take, oldest first: one average power 0…1 per
        meter step, for drawing live bars. Fewer early in a take.

        Args:
            count: how many at most, 0…:data:`~voicenote.MAX_SAMPLES` (the buffer for them is allocated first).

        Raises:
            ValueError: the recorder is closed.
            InvalidArgumentError: ``count`` is outside 0…:data:`~voicenote.MAX_SAMPLES`.
            TypeError: ``count`` is not an integer.
        """
        handle = self._live_handle()
        count = _buffers.count_arg("count", count, 0, _capi.VN_WAVEFORM_MAX_SAMPLES)
        out = (ctypes.c_float * max(count, 1))()
        written = ctypes.c_size_t(0)
        check(_capi.vn_recorder_levels(handle, count, out, count, ctypes.byref(written)))
        return [float(value) for value in out[: written.value]]

    # -- subscriptions ----------------------------------------------------------------------------------------

    def subscribe(
        self,
        callback: Callable[[RecorderEvent], Any],
        *,
        on_release: Optional[Callable[[], Any]] = None,
    ) -> Subscription:
        """Calls ``callback(event)`` for each event after this returns, in order.

        ``event`` is one of :class:`RecorderContextEvent`, :class:`RecordingFinished`, :class:`RecordingFailed`,
        :class:`MaxDurationWarning`, :class:`MaxDurationReached` and :class:`TooShort`, with everything copied
        out of the library. Exceptions raised by ``callback`` are logged on the ``"voicenote"`` logger and
        ignored.

        Args:
            callback: the event callback.
            on_release: called once when the subscription has ended and no callback of it will run again.

        Raises:
            ValueError: the recorder is closed.
        """
        handle = self._live_handle()
        return _events.subscribe_with(
            lambda fn, key, release, out: _capi.vn_recorder_subscribe(handle, fn, key, release, ctypes.byref(out)),
            recorder_event_trampoline,
            callback,
            on_release,
        )

    # -- actions ----------------------------------------------------------------------------------------------

    def begin(self) -> None:
        """Asks ``on_activate``, opens the device, creates ``<UUID>.ogg.part`` and starts capturing; returns once
        capture runs. A :class:`RecorderContextEvent` with state ``RECORDING`` and the path follows.

        Raises:
            ValueError: the recorder is closed.
            MisuseError: already recording or paused.
            BusyError: ``on_activate`` refused (no device was opened); when it raised, with that exception as
                ``__cause__`` (a ``KeyboardInterrupt`` it raised is re-raised as itself).
            DeviceError: no such device, or it will not start (also an ``OSError``).
            AccessDeniedError: no permission to use the device or to write the directory.
            IOFailedError, NoSpaceError: the file cannot be created.
        """
        handle = self._live_handle()
        hooks = self._hooks
        if hooks is not None:
            hooks.take_activate_error()
        rc = _capi.vn_recorder_begin(handle)
        if rc >= 0:
            return
        failure = error_for(rc)
        cause = hooks.take_activate_error() if hooks is not None else None
        if cause is not None and not isinstance(cause, Exception):
            raise cause  # KeyboardInterrupt, SystemExit: not a refusal to report
        if cause is not None:
            raise failure from cause
        raise failure

    def pause(self) -> None:
        """Pauses: capture stops and every encoded packet reaches the disk (the ``.part`` file is whole while
        paused). Paused time is in neither the file nor the duration.

        Raises:
            ValueError: the recorder is closed.
            MisuseError: not recording.
        """
        check(_capi.vn_recorder_pause(self._live_handle()))

    def resume(self) -> None:
        """Resumes a paused take.

        Raises:
            ValueError: the recorder is closed.
            MisuseError: not paused.
            DeviceError: the device will not restart (the take stays paused).
        """
        check(_capi.vn_recorder_resume(self._live_handle()))

    def stop(self) -> None:
        """Stops and finishes the take: :class:`RecordingFinished` follows (or :class:`TooShort`), then a
        context event with state ``STOPPED``. Returns once the file is finished.

        Raises:
            ValueError: the recorder is closed.
            MisuseError: not recording or paused (also when the take already ended by itself).
        """
        check(_capi.vn_recorder_stop(self._live_handle()))

    def cancel(self) -> None:
        """Stops and deletes the take; no :class:`RecordingFinished`.

        Raises:
            ValueError: the recorder is closed.
            MisuseError: not recording or paused.
        """
        check(_capi.vn_recorder_cancel(self._live_handle()))

    def close(self) -> None:
        """Destroys the recorder. A take in progress is finished and kept, synchronously (its path was in every
        context event); no event is delivered after this returns, and every subscription is released. Also
        allowed inside the recorder's own callbacks (then no event after that callback). Idempotent."""
        _lifecycle.run_finalizer(self._finalizer)

    def __repr__(self) -> str:
        if self.closed:
            return "<voicenote.Recorder closed>"
        where = "event thread" if self._loop is None else "event loop"
        return f"<voicenote.Recorder {self._format.name.lower()}, {where}>"
