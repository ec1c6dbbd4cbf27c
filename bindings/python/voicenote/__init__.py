"""voicenote: the voice-message engine for Linux chat clients, from Python.

A ctypes binding of ``libvoicenote.so.0`` (the one bundled in the package by ``make wheel``, else
``$VOICENOTE_LIBRARY``, the checkout's build tree when imported from a source checkout, or the system's; see
:mod:`voicenote._lib`).

Events reach Python callables through subscriptions (:class:`Subscription`). By default they run on one
library-owned thread; an object created with an :class:`EventLoop` delivers them only inside
:meth:`EventLoop.dispatch` on the calling thread; :func:`is_delivering` tells whether the calling thread is inside
such a callback. After ``unsubscribe()`` or ``close()`` returns, no callback of that subscription runs again, and any
voicenote call is allowed inside a callback. Every object still open when the interpreter exits is closed by an
``atexit`` hook.

:class:`Recorder` records voice messages into crash-safe Ogg Opus or AAC files; :func:`recover` finishes what a
crash left and :func:`devices` lists the ALSA devices. :class:`Player` plays them (from a path, bytes or a binary
file-like object, or an http(s) URL it plays while downloading) at 0.5–2.5x, with seeking, a volume and skip silence;
:class:`QueuePlayer` plays the next voice message by itself, back to back, asking a data source (or following a
channel's messages) which one comes next.

Waveforms and stream facts are plain functions: :func:`waveform` and :func:`info` read a path, encoded bytes or a
binary file-like object, or an http(s) URL (fetched through the media cache: :func:`set_cache_directory`,
:func:`cache_size`, :func:`clear_cache`); :func:`analyse` gives the waveform, length and EBU R128 :class:`Loudness`
in one pass; :func:`waveform_from_pcm` takes decoded samples; :func:`resample`, :func:`bars`,
:func:`encode_waveform` and :func:`decode_waveform` prepare a waveform for display and for the wire.

Attachments: :class:`VoiceRecordingPayload` is Stream's ``voiceRecording`` payload (read and written back exactly);
:class:`Uploader` sends a recording (or bytes) to a Stream-like multipart or a Matrix-like raw endpoint, with
progress, cancel, retry and a post-processor; :func:`find_next_item` picks the voice message to play next in a
channel's messages; :func:`attachment_type_for`, :func:`mime_type_for`, :func:`attachment_type_of`,
:func:`check_local_attachment` and :func:`recording_display_name` are Stream's small rules.

``voicenote.aio`` is for asyncio programs (bots, bridges): an event loop the asyncio loop watches, events as async
iterators, awaitables for what ends (a take, an upload, a note), blocking analysis in an executor.

:class:`RecordingFlow` is the hold-to-record button over a recorder and a player (slide to cancel, lock, preview,
trim, send), for any toolkit: forward pointer and key inputs, draw what its events say; :class:`ManualClock` runs its
timers when told, for tests and scripted demos.
"""

from __future__ import annotations

from ._attachments import (
    DEFAULT_MAX_BYTES,
    attachment_type_for,
    attachment_type_of,
    check_local_attachment,
    mime_type_for,
    recording_display_name,
)
from ._audioinfo import AudioInfo, info
from ._cache import (
    DEFAULT_CACHE_LIMIT,
    cache_directory,
    cache_limit,
    cache_size,
    clear_cache,
    set_cache_directory,
    set_cache_limit,
)
from ._delivery import is_delivering
from ._devices import Device, devices
from ._events import Subscription, unsubscribe
from ._flow import (
    AttachmentReady,
    FlowDraft,
    FlowEvent,
    FlowFailed,
    FlowKey,
    FlowState,
    FlowTake,
    FlowView,
    FlowViewEvent,
    ManualClock,
    Parked,
    Publish,
    RecordingFlow,
    TakeTooShort,
    Trimmed,
    clear_flow_drafts,
    flow_drafts,
)
from ._focus import FocusGroup
from ._http import HTTPOptions
from ._info import version, version_number
from ._lib import LibraryNotFoundError
from ._log import LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARNING, LogLevel, set_log_handler
from ._loop import EventLoop
from ._messages import NEXT_SCOPES, find_next_item
from ._payload import VoiceRecordingPayload, is_matrix_voice_message, matrix_download_url
from ._recorder import (
    MaxDurationReached,
    MaxDurationWarning,
    Recorder,
    RecorderContext,
    RecorderContextEvent,
    RecorderEvent,
    RecorderState,
    RecordingFailed,
    RecordingFinished,
    RecordingFormat,
    TooShort,
    SourceChanged,
)
from ._player import (
    PlaybackFailed,
    PlaybackFinished,
    Player,
    PlayerContext,
    PlayerContextEvent,
    PlayerEvent,
    PlayerItemChanged,
    NoteListened,
    is_listened,
    set_listened,
    clear_listened,
    PlayerState,
    clear_resume_positions,
    resume_position,
)
from ._queue import QueueLocation, QueuePlayer
from ._recovery import RecoveredFile, recover
from ._session import SessionKind
from ._testsource import TestEvent, TestSource
from ._upload import Uploader, UploadEvent, UploadMode, UploadState
from ._outbox import Outbox, OutboxEvent, OutboxEventKind, OutboxItem, OutboxState
from ._transcript import (
    HostRecogniser,
    PocketSphinx,
    Recogniser,
    Transcript,
    Transcription,
    TranscriptionEvent,
    TranscriptionEventKind,
    TranscriptWord,
    transcribe,
)
from ._waveform import DEFAULT_SAMPLES, MAX_SAMPLES, waveform, waveform_from_pcm
from ._loudness import Analysis, Loudness, analyse
from ._conversion import convert
from ._waveform_batch import WaveformResult, waveforms
from ._cancellation import Cancellation
from ._waveform_display import BAR_GAP, BAR_PITCH, BAR_WIDTH, bars, resample
from ._waveform_encoding import MAX_DECODED, WaveformEncoding, decode_waveform, encode_waveform
from .errors import (
    AccessDeniedError,
    BusyError,
    CancelledError,
    DeviceError,
    FormatError,
    InternalError,
    InvalidArgumentError,
    IOFailedError,
    MisuseError,
    NetworkError,
    NoMemoryError,
    NoSpaceError,
    NotFoundError,
    TooLargeError,
    UnsupportedError,
    VoiceNoteError,
    status_name,
    strerror,
)
from . import _lifecycle  # noqa: F401  (importing it registers the exit hook)
from . import _version

#: The version of this package (the same numbers as the library it was made with; the loaded library's own is
#: :func:`version`).
__version__ = _version.package_version()

__all__ = [
    "__version__",
    "version",
    "version_number",
    "status_name",
    "strerror",
    "VoiceNoteError",
    "InvalidArgumentError",
    "MisuseError",
    "NoMemoryError",
    "IOFailedError",
    "NoSpaceError",
    "FormatError",
    "DeviceError",
    "AccessDeniedError",
    "NetworkError",
    "NotFoundError",
    "TooLargeError",
    "UnsupportedError",
    "BusyError",
    "CancelledError",
    "InternalError",
    "LibraryNotFoundError",
    "Subscription",
    "unsubscribe",
    "is_delivering",
    "EventLoop",
    "TestSource",
    "TestEvent",
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
    "SourceChanged",
    "Player",
    "PlayerState",
    "PlayerContext",
    "PlayerEvent",
    "PlayerContextEvent",
    "PlaybackFinished",
    "PlaybackFailed",
    "PlayerItemChanged",
    "NoteListened",
    "is_listened",
    "set_listened",
    "clear_listened",
    "resume_position",
    "clear_resume_positions",
    "QueuePlayer",
    "QueueLocation",
    "SessionKind",
    "FocusGroup",
    "Device",
    "devices",
    "RecoveredFile",
    "recover",
    "LogLevel",
    "LOG_ERROR",
    "LOG_WARNING",
    "LOG_INFO",
    "LOG_DEBUG",
    "set_log_handler",
    "waveform",
    "analyse",
    "Analysis",
    "Loudness",
    "convert",
    "waveforms",
    "WaveformResult",
    "Cancellation",
    "waveform_from_pcm",
    "DEFAULT_SAMPLES",
    "MAX_SAMPLES",
    "info",
    "AudioInfo",
    "resample",
    "bars",
    "BAR_WIDTH",
    "BAR_GAP",
    "BAR_PITCH",
    "WaveformEncoding",
    "encode_waveform",
    "decode_waveform",
    "MAX_DECODED",
    "HTTPOptions",
    "set_cache_directory",
    "cache_directory",
    "set_cache_limit",
    "cache_limit",
    "cache_size",
    "clear_cache",
    "DEFAULT_CACHE_LIMIT",
    "VoiceRecordingPayload",
    "is_matrix_voice_message",
    "matrix_download_url",
    "attachment_type_for",
    "mime_type_for",
    "attachment_type_of",
    "check_local_attachment",
    "recording_display_name",
    "DEFAULT_MAX_BYTES",
    "find_next_item",
    "NEXT_SCOPES",
    "Uploader",
    "Outbox",
    "OutboxEvent",
    "OutboxEventKind",
    "OutboxItem",
    "OutboxState",
    "UploadMode",
    "UploadState",
    "UploadEvent",
    "RecordingFlow",
    "FlowState",
    "FlowKey",
    "FlowView",
    "FlowTake",
    "FlowEvent",
    "FlowViewEvent",
    "AttachmentReady",
    "Publish",
    "FlowFailed",
    "ManualClock",
    "Parked",
    "Trimmed",
    "TakeTooShort",
    "FlowDraft",
    "flow_drafts",
    "clear_flow_drafts",
    "HostRecogniser",
    "PocketSphinx",
    "Recogniser",
    "Transcript",
    "Transcription",
    "TranscriptionEvent",
    "TranscriptionEventKind",
    "TranscriptWord",
    "transcribe",
]
