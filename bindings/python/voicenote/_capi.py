"""The raw C API of ``voicenote.h``: every function with its ``argtypes``/``restype``, the callback types, the
event structs and the constants. Mirrors the header one to one; the rest of the package calls only this module.

Callback parameters accept either an instance of their ``CFUNCTYPE`` type or ``None`` (a NULL function pointer).
Handle parameters accept a pointer of their opaque type or ``None`` (NULL).

A function the header declares but the loaded library does not export (an older library) is bound to a stub
that raises :class:`NotImplementedError` naming the library; :data:`MISSING` lists those.
"""

from __future__ import annotations

import ctypes
from ctypes import (POINTER, Structure, c_char, c_char_p, c_double, c_float, c_int, c_int16, c_int32, c_int64,
                    c_size_t, c_uint32, c_uint64, c_void_p)
from typing import Any, List, Sequence

from ._lib import load
from ._version import package_version, version_parts

lib = load()

# --- Version (this package's: the header's macros, read by _version) --------------------------------------------

VN_VERSION_STRING = package_version()
VN_VERSION_MAJOR, VN_VERSION_MINOR, VN_VERSION_PATCH = version_parts(VN_VERSION_STRING)


def VN_MAKE_VERSION(major: int, minor: int, patch: int) -> int:
    """Packs a version as the header's ``VN_MAKE_VERSION`` macro does."""
    return major * 1000000 + minor * 1000 + patch


VN_VERSION_NUMBER = VN_MAKE_VERSION(VN_VERSION_MAJOR, VN_VERSION_MINOR, VN_VERSION_PATCH)

# --- vn_status ------------------------------------------------------------------------------------------------

VN_OK = 0
VN_E_INVALID_ARG = -1
VN_E_MISUSE = -2
VN_E_NOMEM = -3
VN_E_IO = -4
VN_E_NO_SPACE = -5
VN_E_FORMAT = -6
VN_E_DEVICE = -7
VN_E_PERMISSION = -8
VN_E_NETWORK = -9
VN_E_NOT_FOUND = -10
VN_E_TOO_LARGE = -11
VN_E_UNSUPPORTED = -12
VN_E_BUSY = -13
VN_E_CANCELLED = -14
VN_E_INTERNAL = -15

# --- vn_log_level ---------------------------------------------------------------------------------------------

VN_LOG_ERROR = 1
VN_LOG_WARNING = 2
VN_LOG_INFO = 3
VN_LOG_DEBUG = 4

# --- Waveforms ------------------------------------------------------------------------------------------------

VN_LEVELING_DEFAULT_TARGET_LUFS = -19.0
VN_WAVEFORM_DEFAULT_SAMPLES = 100
VN_WAVEFORM_MAX_SAMPLES = 1048576
VN_WAVEFORM_MAX_DECODED = 4096

# vn_waveform_encoding
VN_WAVEFORM_STREAM = 0
VN_WAVEFORM_MATRIX = 1
VN_WAVEFORM_TELEGRAM = 2
VN_WAVEFORM_SIGNAL = 3

# --- Audio devices and session hooks --------------------------------------------------------------------------

# vn_session_kind
VN_SESSION_PLAYBACK = 0
VN_SESSION_RECORDING = 1

# --- Recorder -------------------------------------------------------------------------------------------------

# vn_recording_format
VN_FORMAT_OPUS = 0
VN_FORMAT_AAC = 1

# vn_recorder_state
VN_RECORDER_STOPPED = 0
VN_RECORDER_RECORDING = 1
VN_RECORDER_PAUSED = 2

# vn_recorder_event_type
VN_RECORDER_EVENT_CONTEXT = 0
VN_RECORDER_EVENT_FINISHED = 1
VN_RECORDER_EVENT_FAILED = 2
VN_RECORDER_EVENT_MAX_DURATION_WARNING = 3
VN_RECORDER_EVENT_MAX_DURATION_REACHED = 4
VN_RECORDER_EVENT_TOO_SHORT = 5
VN_RECORDER_EVENT_SOURCE_CHANGED = 6

# --- Player ---------------------------------------------------------------------------------------------------

# vn_player_state
VN_PLAYER_NOT_LOADED = 0
VN_PLAYER_LOADING = 1
VN_PLAYER_PAUSED = 2
VN_PLAYER_PLAYING = 3
VN_PLAYER_STOPPED = 4

# vn_player_event_type
VN_PLAYER_EVENT_CONTEXT = 0
VN_PLAYER_EVENT_FINISHED = 1
VN_PLAYER_EVENT_FAILED = 2
VN_PLAYER_EVENT_ITEM_CHANGED = 3
VN_PLAYER_EVENT_LISTENED = 4

# --- Attachment payloads, types, messages and uploads ------------------------------------------------------------

# vn_payload_field
VN_PAYLOAD_TYPE = 0
VN_PAYLOAD_TITLE = 1
VN_PAYLOAD_ASSET_URL = 2
VN_PAYLOAD_MIME_TYPE = 3

# vn_next_scope
VN_NEXT_SAME_MESSAGE = 0
VN_NEXT_SUBSEQUENT_FROM_USER = 1
VN_NEXT_CONSECUTIVE = 2

# vn_upload_mode
VN_UPLOAD_MULTIPART = 0
VN_UPLOAD_RAW = 1
VN_UPLOAD_MATRIX = 2
VN_UPLOAD_TUS = 3

# vn_upload_state
VN_UPLOAD_PENDING = 0
VN_UPLOAD_UPLOADING = 1
VN_UPLOAD_FAILED = 2
VN_UPLOAD_UPLOADED = 3

# --- Types ----------------------------------------------------------------------------------------------------

vn_subscription_id = c_uint64


class vn_event_loop(Structure):
    """Opaque ``struct vn_event_loop``; only used through :data:`vn_event_loop_p`."""


class vn_test_source(Structure):
    """Opaque ``struct vn_test_source``; only used through :data:`vn_test_source_p`."""


class vn_source(Structure):
    """Opaque ``struct vn_source`` (a byte source); only used through :data:`vn_source_p`."""


class vn_http_options(Structure):
    """Opaque ``struct vn_http_options``; only used through :data:`vn_http_options_p`."""


class vn_recorder(Structure):
    """Opaque ``struct vn_recorder``; only used through :data:`vn_recorder_p`."""


class vn_recorder_options(Structure):
    """Opaque ``struct vn_recorder_options``; only used through :data:`vn_recorder_options_p`."""


class vn_waveform_batch(Structure):
    """Opaque ``struct vn_waveform_batch``; only used through :data:`vn_waveform_batch_p`."""


class vn_loudness(Structure):
    """``struct vn_loudness``: a note's loudness; ``known`` 0 when not measured."""

    _fields_ = [
        ("known", c_int),
        ("integrated_lufs", c_double),
        ("range_lu", c_double),
        ("true_peak_dbtp", c_double),
    ]


class vn_waveform_result(Structure):
    """``struct vn_waveform_result``: one note's result from ``vn_waveform_batch_next``."""

    _fields_ = [
        ("size", c_size_t),
        ("index", c_size_t),
        ("location", c_char_p),
        ("status", c_int),
        ("message", c_char_p),
        ("duration_s", c_double),
        ("values", POINTER(c_float)),
        ("count", c_size_t),
        ("loudness", vn_loudness),
    ]


class vn_convert_options(Structure):
    """Opaque ``struct vn_convert_options``; only used through :data:`vn_convert_options_p`."""


class vn_focus_group(Structure):
    """Opaque ``struct vn_focus_group``; only used through :data:`vn_focus_group_p`."""


vn_event_loop_p = POINTER(vn_event_loop)
vn_test_source_p = POINTER(vn_test_source)
vn_source_p = POINTER(vn_source)
vn_http_options_p = POINTER(vn_http_options)
vn_recorder_p = POINTER(vn_recorder)
vn_recorder_options_p = POINTER(vn_recorder_options)
vn_convert_options_p = POINTER(vn_convert_options)
vn_waveform_batch_p = POINTER(vn_waveform_batch)
vn_focus_group_p = POINTER(vn_focus_group)


class vn_player(Structure):
    """Opaque ``struct vn_player``; only used through :data:`vn_player_p`."""


class vn_player_options(Structure):
    """Opaque ``struct vn_player_options``; only used through :data:`vn_player_options_p`."""


vn_player_p = POINTER(vn_player)
vn_player_options_p = POINTER(vn_player_options)


class vn_test_event(Structure):
    """``vn_test_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("sequence", c_uint64),
        ("from_library_thread", c_int),
    ]


class vn_audio_info(Structure):
    """``vn_audio_info``: the caller sets ``size`` to ``ctypes.sizeof(vn_audio_info)``."""

    _fields_ = [
        ("size", c_size_t),
        ("duration_s", c_double),
        ("duration_is_estimate", c_int),
        ("sample_rate", c_int),
        ("channels", c_int),
        ("bitrate", c_int64),
        ("codec", c_char * 32),
    ]


class vn_recorder_context(Structure):
    """``vn_recorder_context``: for ``vn_recorder_get_context`` the caller sets ``size`` to
    ``ctypes.sizeof(vn_recorder_context)``; in events ``size`` tells how much the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("state", c_int),
        ("duration_s", c_double),
        ("average_power", c_float),
        ("peak_power", c_float),
        ("overruns", c_int64),
        ("path", c_char_p),
    ]


class vn_recorder_event(Structure):
    """``vn_recorder_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("type", c_int),
        ("context", vn_recorder_context),
        ("path", c_char_p),
        ("duration_s", c_double),
        ("size_bytes", c_int64),
        ("waveform", POINTER(c_float)),
        ("waveform_count", c_size_t),
        ("format", c_int),
        ("status", c_int),
        ("message", c_char_p),
        ("remaining_s", c_double),
        ("loudness", vn_loudness),
        ("device", c_char_p),
    ]


class vn_player_context(Structure):
    """``vn_player_context``: for ``vn_player_get_context`` the caller sets ``size`` to
    ``ctypes.sizeof(vn_player_context)``; in events ``size`` tells how much the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("state", c_int),
        ("duration_s", c_double),
        ("current_time_s", c_double),
        ("rate", c_double),
        ("is_seeking", c_int),
        ("buffered_fraction", c_double),
        ("duration_is_estimate", c_int),
        ("volume", c_double),
        ("skip_silence", c_int),
        ("last_status", c_int),
        ("location", c_char_p),
        ("leveling", c_int),
        ("leveling_target_lufs", c_double),
        ("leveling_offset_db", c_double),
        ("leveling_gain_db", c_double),
    ]


class vn_player_event(Structure):
    """``vn_player_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("type", c_int),
        ("context", vn_player_context),
        ("location", c_char_p),
        ("status", c_int),
        ("message", c_char_p),
        ("key", c_char_p),
    ]


class vn_queue_answer(Structure):
    """Opaque ``struct vn_queue_answer`` (a data source's answer, valid during its hook call); only used through
    :data:`vn_queue_answer_p`."""


vn_queue_answer_p = POINTER(vn_queue_answer)


class vn_payload(Structure):
    """Opaque ``struct vn_payload`` (a voiceRecording payload); only used through :data:`vn_payload_p`."""


class vn_upload_options(Structure):
    """Opaque ``struct vn_upload_options``; only used through :data:`vn_upload_options_p`."""


class vn_uploader(Structure):
    """Opaque ``struct vn_uploader``; only used through :data:`vn_uploader_p`."""


vn_payload_p = POINTER(vn_payload)
vn_upload_options_p = POINTER(vn_upload_options)
vn_uploader_p = POINTER(vn_uploader)


class vn_upload_event(Structure):
    """``vn_upload_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("state", c_int),
        ("progress", c_double),
        ("status", c_int),
        ("message", c_char_p),
        ("payload_json", c_char_p),
    ]


class vn_outbox(Structure):
    """Opaque ``struct vn_outbox``; only used through :data:`vn_outbox_p`."""


vn_outbox_p = POINTER(vn_outbox)


class vn_outbox_event(Structure):
    """``vn_outbox_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("kind", c_int),
        ("id", c_int64),
        ("progress", c_double),
        ("retry_in", c_double),
        ("status", c_int),
        ("http_code", c_int),
        ("message", c_char_p),
        ("payload_json", c_char_p),
    ]


#: ``void (*vn_log_fn)(void *user_data, int level, const char *message)``
vn_log_fn = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_char_p)
#: ``void (*vn_release_fn)(void *user_data)``
vn_release_fn = ctypes.CFUNCTYPE(None, c_void_p)
#: ``void (*vn_test_event_fn)(void *user_data, const vn_test_event *event)``
vn_test_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_test_event))
#: ``int64_t (*vn_source_read_fn)(void *user_data, void *buffer, size_t capacity)``
vn_source_read_fn = ctypes.CFUNCTYPE(c_int64, c_void_p, c_void_p, c_size_t)
#: ``int (*vn_source_seek_fn)(void *user_data, int64_t offset)``
vn_source_seek_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_int64)
#: ``void (*vn_device_fn)(void *user_data, const char *name, const char *description, int can_capture,
#: int can_play)``
vn_device_fn = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, c_int, c_int)
#: ``int (*vn_session_activate_fn)(void *user_data, int kind)``
vn_session_activate_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_int)
#: ``void (*vn_session_deactivate_fn)(void *user_data, int kind)``
vn_session_deactivate_fn = ctypes.CFUNCTYPE(None, c_void_p, c_int)
#: ``void (*vn_recorder_event_fn)(void *user_data, const vn_recorder_event *event)``
vn_recorder_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_recorder_event))
#: ``void (*vn_recovered_fn)(void *user_data, const char *path, double duration_s, int64_t size_bytes,
#: int status)``
vn_recovered_fn = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_double, c_int64, c_int)
#: ``void (*vn_player_event_fn)(void *user_data, const vn_player_event *event)``
vn_player_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_player_event))
#: ``void (*vn_upload_event_fn)(void *user_data, const vn_upload_event *event)``
vn_upload_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_upload_event))
#: ``int (*vn_upload_post_processor_fn)(void *user_data, const char *payload_json, char **out_payload_json)``;
#: ``out_payload_json`` is a ``c_void_p`` slot so the trampoline can store a ``vn_strdup`` pointer in it.
vn_upload_post_processor_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p, POINTER(c_void_p))
#: ``void (*vn_queue_next_fn)(void *user_data, const char *current_location, const char *current_key,
#: vn_queue_answer *answer)``
vn_queue_next_fn = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, vn_queue_answer_p)


class _Nullable:
    """An ``argtypes`` entry for a function-pointer parameter that also accepts ``None`` as NULL (plain
    ``CFUNCTYPE`` argtypes reject ``None``)."""

    def __init__(self, function_type: Any) -> None:
        self._type = function_type

    def from_param(self, value: Any) -> Any:
        if value is None:
            return None
        return self._type.from_param(value)


#: Header functions the loaded library does not export.
MISSING: List[str] = []
#: Every C function of the header this module declares, by name, in header order.
FUNCTIONS: List[str] = []


class _MissingFunction:
    """Stands in for a header function the loaded library does not export."""

    def __init__(self, name: str, restype: Any, argtypes: Sequence[Any]) -> None:
        self.__name__ = name
        self.restype = restype
        self.argtypes = list(argtypes)

    def __call__(self, *args: Any) -> Any:
        raise NotImplementedError(
            f"{self.__name__} is not exported by the loaded library {getattr(lib, '_name', '?')} (older than the "
            "header this binding follows)"
        )


def _declare(name: str, restype: Any, argtypes: Sequence[Any]) -> Any:
    FUNCTIONS.append(name)
    try:
        function = getattr(lib, name)
    except AttributeError:
        MISSING.append(name)
        return _MissingFunction(name, restype, argtypes)
    function.restype = restype
    function.argtypes = list(argtypes)
    return function


# --- Functions, in header order -------------------------------------------------------------------------------

vn_version_number = _declare("vn_version_number", c_int, [])
vn_version_string = _declare("vn_version_string", c_char_p, [])

vn_status_name = _declare("vn_status_name", c_char_p, [c_int])
vn_strerror = _declare("vn_strerror", c_char_p, [c_int])
vn_last_error_message = _declare("vn_last_error_message", c_char_p, [])
vn_free = _declare("vn_free", None, [c_void_p])

vn_log_set_handler = _declare("vn_log_set_handler", c_int, [_Nullable(vn_log_fn), c_void_p, c_int])

vn_unsubscribe = _declare("vn_unsubscribe", c_int, [vn_subscription_id])

vn_event_loop_create = _declare("vn_event_loop_create", c_int, [POINTER(vn_event_loop_p)])
vn_event_loop_destroy = _declare("vn_event_loop_destroy", None, [vn_event_loop_p])
vn_event_loop_fd = _declare("vn_event_loop_fd", c_int, [vn_event_loop_p])
vn_event_loop_dispatch = _declare("vn_event_loop_dispatch", c_int, [vn_event_loop_p, POINTER(c_size_t)])
vn_event_loop_wait = _declare("vn_event_loop_wait", c_int, [vn_event_loop_p, c_int, POINTER(c_int)])

vn_test_source_create = _declare(
    "vn_test_source_create", c_int, [vn_event_loop_p, POINTER(vn_test_source_p)]
)
vn_test_source_subscribe = _declare(
    "vn_test_source_subscribe",
    c_int,
    [vn_test_source_p, _Nullable(vn_test_event_fn), c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_subscription_id)],
)
vn_test_source_start = _declare("vn_test_source_start", c_int, [vn_test_source_p, c_uint64, c_uint32])
vn_test_source_stop = _declare("vn_test_source_stop", c_int, [vn_test_source_p])
vn_test_source_emit = _declare("vn_test_source_emit", c_int, [vn_test_source_p, c_uint64])
vn_test_source_fired = _declare("vn_test_source_fired", c_int, [vn_test_source_p, POINTER(c_uint64)])
vn_test_source_destroy = _declare("vn_test_source_destroy", None, [vn_test_source_p])

# Byte sources
vn_source_create_file = _declare("vn_source_create_file", c_int, [c_char_p, POINTER(vn_source_p)])
vn_source_create_memory = _declare("vn_source_create_memory", c_int, [c_void_p, c_size_t, POINTER(vn_source_p)])
vn_source_create_callbacks = _declare(
    "vn_source_create_callbacks",
    c_int,
    [_Nullable(vn_source_read_fn), _Nullable(vn_source_seek_fn), c_int64, c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_source_p)],
)
vn_http_options_create = _declare("vn_http_options_create", c_int, [POINTER(vn_http_options_p)])
vn_http_options_destroy = _declare("vn_http_options_destroy", None, [vn_http_options_p])
vn_http_options_add_header = _declare("vn_http_options_add_header", c_int, [vn_http_options_p, c_char_p, c_char_p])
vn_http_options_set_ca_file = _declare("vn_http_options_set_ca_file", c_int, [vn_http_options_p, c_char_p])
vn_http_options_set_connect_timeout = _declare("vn_http_options_set_connect_timeout", c_int, [vn_http_options_p, c_double])
vn_http_options_set_stall_timeout = _declare("vn_http_options_set_stall_timeout", c_int, [vn_http_options_p, c_double])
vn_http_options_set_transfer_timeout = _declare("vn_http_options_set_transfer_timeout", c_int, [vn_http_options_p, c_double])
vn_http_options_set_max_bytes = _declare("vn_http_options_set_max_bytes", c_int, [vn_http_options_p, c_int64])
vn_source_create_url = _declare("vn_source_create_url", c_int, [c_char_p, vn_http_options_p, POINTER(vn_source_p)])
vn_source_destroy = _declare("vn_source_destroy", None, [vn_source_p])
vn_source_cancel = _declare("vn_source_cancel", c_int, [vn_source_p])

# Media cache
vn_cache_set_directory = _declare("vn_cache_set_directory", c_int, [c_char_p])
vn_cache_get_directory = _declare("vn_cache_get_directory", c_int, [POINTER(c_void_p)])  # char **: see vn_free
vn_cache_set_limit = _declare("vn_cache_set_limit", c_int, [c_int64])
vn_cache_get_limit = _declare("vn_cache_get_limit", c_int, [POINTER(c_int64)])
vn_cache_get_size = _declare("vn_cache_get_size", c_int, [POINTER(c_int64)])
vn_cache_clear = _declare("vn_cache_clear", c_int, [])

# Stream facts
vn_audio_info_file = _declare("vn_audio_info_file", c_int, [c_char_p, POINTER(vn_audio_info)])
vn_audio_info_source = _declare("vn_audio_info_source", c_int, [vn_source_p, POINTER(vn_audio_info)])

# Waveform batches
vn_waveform_batch_create = _declare("vn_waveform_batch_create", c_int,
                                    [c_size_t, c_int, vn_http_options_p, POINTER(vn_waveform_batch_p)])
vn_waveform_batch_add = _declare("vn_waveform_batch_add", c_int, [vn_waveform_batch_p, c_char_p])
vn_waveform_batch_end_input = _declare("vn_waveform_batch_end_input", c_int, [vn_waveform_batch_p])
vn_waveform_batch_set_loudness = _declare("vn_waveform_batch_set_loudness", c_int, [vn_waveform_batch_p, c_int])
vn_waveform_batch_next = _declare("vn_waveform_batch_next", c_int,
                                  [vn_waveform_batch_p, c_int, POINTER(vn_waveform_result)])
vn_waveform_batch_destroy = _declare("vn_waveform_batch_destroy", None, [vn_waveform_batch_p])

# Converting notes
vn_convert_options_create = _declare("vn_convert_options_create", c_int, [POINTER(vn_convert_options_p)])
vn_convert_options_destroy = _declare("vn_convert_options_destroy", None, [vn_convert_options_p])
vn_convert_options_set_rate = _declare("vn_convert_options_set_rate", c_int, [vn_convert_options_p, c_double])
vn_convert_options_set_format = _declare("vn_convert_options_set_format", c_int, [vn_convert_options_p, c_int])
vn_convert_options_set_encoder = _declare(
    "vn_convert_options_set_encoder", c_int, [vn_convert_options_p, c_int, c_int, c_double]
)
vn_convert_file = _declare("vn_convert_file", c_int, [c_char_p, c_char_p, vn_convert_options_p, POINTER(c_double)])
vn_convert_source = _declare("vn_convert_source", c_int, [vn_source_p, c_char_p, vn_convert_options_p, POINTER(c_double)])

# Waveforms
_float_p = POINTER(c_float)
_size_p = POINTER(c_size_t)
vn_waveform_file = _declare("vn_waveform_file", c_int, [c_char_p, c_size_t, _float_p, c_size_t, _size_p])
vn_waveform_memory = _declare(
    "vn_waveform_memory", c_int, [c_void_p, c_size_t, c_size_t, _float_p, c_size_t, _size_p]
)
vn_waveform_source = _declare("vn_waveform_source", c_int, [vn_source_p, c_size_t, _float_p, c_size_t, _size_p])
vn_waveform_analyse_file = _declare("vn_waveform_analyse_file", c_int, [c_char_p, c_size_t, _float_p, c_size_t, _size_p,
                                                                        POINTER(c_double), POINTER(vn_loudness)])
vn_waveform_analyse_source = _declare("vn_waveform_analyse_source", c_int,
                                      [vn_source_p, c_size_t, _float_p, c_size_t, _size_p, POINTER(c_double),
                                       POINTER(vn_loudness)])
vn_waveform_from_pcm_s16 = _declare(
    "vn_waveform_from_pcm_s16", c_int,
    [POINTER(c_int16), c_size_t, c_int, c_size_t, _float_p, c_size_t, _size_p],
)
vn_waveform_from_pcm_f32 = _declare(
    "vn_waveform_from_pcm_f32", c_int, [_float_p, c_size_t, c_int, c_size_t, _float_p, c_size_t, _size_p]
)
vn_waveform_resample = _declare(
    "vn_waveform_resample", c_int, [_float_p, c_size_t, c_size_t, _float_p, c_size_t, _size_p]
)
vn_waveform_bars = _declare(
    "vn_waveform_bars", c_int, [_float_p, c_size_t, c_double, c_double, _float_p, c_size_t, _size_p]
)
vn_waveform_encode = _declare(
    "vn_waveform_encode", c_int, [c_int, _float_p, c_size_t, POINTER(c_int32), c_size_t, _size_p]
)
vn_waveform_decode = _declare(
    "vn_waveform_decode", c_int, [c_int, POINTER(c_int32), c_size_t, _float_p, c_size_t, _size_p]
)

# Audio devices and session hooks
vn_devices_enumerate = _declare("vn_devices_enumerate", c_int, [_Nullable(vn_device_fn), c_void_p])

# Recorder
vn_recorder_options_create = _declare("vn_recorder_options_create", c_int, [POINTER(vn_recorder_options_p)])
vn_recorder_options_destroy = _declare("vn_recorder_options_destroy", None, [vn_recorder_options_p])
vn_recorder_options_set_directory = _declare(
    "vn_recorder_options_set_directory", c_int, [vn_recorder_options_p, c_char_p]
)
vn_recorder_options_set_device = _declare(
    "vn_recorder_options_set_device", c_int, [vn_recorder_options_p, c_char_p, c_char_p]
)
vn_recorder_options_set_format = _declare("vn_recorder_options_set_format", c_int, [vn_recorder_options_p, c_int])
vn_recorder_options_set_encoder = _declare(
    "vn_recorder_options_set_encoder", c_int, [vn_recorder_options_p, c_int, c_int, c_double]
)
vn_recorder_options_set_intervals = _declare(
    "vn_recorder_options_set_intervals", c_int, [vn_recorder_options_p, c_double, c_double]
)
vn_recorder_options_set_limits = _declare(
    "vn_recorder_options_set_limits", c_int, [vn_recorder_options_p, c_double, c_double, c_double]
)
vn_recorder_options_set_event_loop = _declare(
    "vn_recorder_options_set_event_loop", c_int, [vn_recorder_options_p, vn_event_loop_p]
)
vn_focus_group_create = _declare("vn_focus_group_create", c_int, [POINTER(vn_focus_group_p)])
vn_focus_group_destroy = _declare("vn_focus_group_destroy", None, [vn_focus_group_p])
vn_recorder_options_set_focus_group = _declare(
    "vn_recorder_options_set_focus_group", c_int, [vn_recorder_options_p, vn_focus_group_p]
)
vn_recorder_options_set_session_hooks = _declare(
    "vn_recorder_options_set_session_hooks",
    c_int,
    [vn_recorder_options_p, _Nullable(vn_session_activate_fn), _Nullable(vn_session_deactivate_fn), c_void_p],
)
vn_recorder_options_set_voice_cleanup = _declare(
    "vn_recorder_options_set_voice_cleanup", c_int, [vn_recorder_options_p, c_int]
)
vn_recorder_options_set_fallback_device = _declare(
    "vn_recorder_options_set_fallback_device", c_int, [vn_recorder_options_p, c_char_p, c_char_p]
)
vn_recorder_options_set_stream_role = _declare(
    "vn_recorder_options_set_stream_role", c_int, [vn_recorder_options_p, c_char_p]
)
vn_recorder_options_set_pause_other_players = _declare(
    "vn_recorder_options_set_pause_other_players", c_int, [vn_recorder_options_p, c_int]
)
vn_recorder_create = _declare("vn_recorder_create", c_int, [vn_recorder_options_p, POINTER(vn_recorder_p)])
vn_recorder_destroy = _declare("vn_recorder_destroy", None, [vn_recorder_p])
vn_recorder_begin = _declare("vn_recorder_begin", c_int, [vn_recorder_p])
vn_recorder_pause = _declare("vn_recorder_pause", c_int, [vn_recorder_p])
vn_recorder_resume = _declare("vn_recorder_resume", c_int, [vn_recorder_p])
vn_recorder_stop = _declare("vn_recorder_stop", c_int, [vn_recorder_p])
vn_recorder_cancel = _declare("vn_recorder_cancel", c_int, [vn_recorder_p])
vn_recorder_set_voice_cleanup = _declare("vn_recorder_set_voice_cleanup", c_int, [vn_recorder_p, c_int])
vn_recorder_get_voice_cleanup = _declare("vn_recorder_get_voice_cleanup", c_int, [vn_recorder_p, POINTER(c_int)])
vn_recorder_subscribe = _declare(
    "vn_recorder_subscribe",
    c_int,
    [vn_recorder_p, _Nullable(vn_recorder_event_fn), c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_subscription_id)],
)
vn_recorder_get_context = _declare(
    "vn_recorder_get_context", c_int, [vn_recorder_p, POINTER(vn_recorder_context)]
)
# char **out_path: a c_void_p out-parameter keeps the pointer for vn_free (a c_char_p would be converted to bytes).
vn_recorder_copy_path = _declare("vn_recorder_copy_path", c_int, [vn_recorder_p, POINTER(c_void_p)])
vn_recorder_levels = _declare(
    "vn_recorder_levels", c_int, [vn_recorder_p, c_size_t, _float_p, c_size_t, _size_p]
)
vn_recover = _declare(
    "vn_recover", c_int, [c_char_p, _Nullable(vn_recovered_fn), c_void_p, POINTER(c_size_t)]
)

# Player
vn_player_options_create = _declare("vn_player_options_create", c_int, [POINTER(vn_player_options_p)])
vn_player_options_destroy = _declare("vn_player_options_destroy", None, [vn_player_options_p])
vn_player_options_set_device = _declare(
    "vn_player_options_set_device", c_int, [vn_player_options_p, c_char_p, c_char_p]
)
vn_player_options_set_event_loop = _declare(
    "vn_player_options_set_event_loop", c_int, [vn_player_options_p, vn_event_loop_p]
)
vn_player_options_set_focus_group = _declare(
    "vn_player_options_set_focus_group", c_int, [vn_player_options_p, vn_focus_group_p]
)
vn_player_options_set_session_hooks = _declare(
    "vn_player_options_set_session_hooks",
    c_int,
    [vn_player_options_p, _Nullable(vn_session_activate_fn), _Nullable(vn_session_deactivate_fn), c_void_p],
)
vn_player_options_set_progress_interval = _declare(
    "vn_player_options_set_progress_interval", c_int, [vn_player_options_p, c_double]
)
vn_player_options_set_resume_limit = _declare(
    "vn_player_options_set_resume_limit", c_int, [vn_player_options_p, c_size_t]
)
vn_player_options_set_remember_positions = _declare(
    "vn_player_options_set_remember_positions", c_int, [vn_player_options_p, c_int]
)
vn_player_options_set_return_to_interrupted = _declare(
    "vn_player_options_set_return_to_interrupted", c_int, [vn_player_options_p, c_int]
)
vn_resume_position = _declare("vn_resume_position", c_int, [c_char_p, c_char_p, POINTER(c_double)])
vn_resume_positions_clear = _declare("vn_resume_positions_clear", c_int, [])
vn_listened = _declare("vn_listened", c_int, [c_char_p, c_char_p, POINTER(c_int)])
vn_listened_set = _declare("vn_listened_set", c_int, [c_char_p, c_char_p, c_int])
vn_listened_clear = _declare("vn_listened_clear", c_int, [])
vn_player_create = _declare("vn_player_create", c_int, [vn_player_options_p, POINTER(vn_player_p)])
vn_player_destroy = _declare("vn_player_destroy", None, [vn_player_p])
vn_player_load = _declare("vn_player_load", c_int, [vn_player_p, c_char_p, c_int, c_double])
vn_player_load_with_loudness = _declare("vn_player_load_with_loudness", c_int,
                                        [vn_player_p, c_char_p, c_int, c_double, POINTER(vn_loudness)])
vn_player_set_leveling = _declare("vn_player_set_leveling", c_int, [vn_player_p, c_int, c_double, c_double])
vn_player_load_url = _declare(
    "vn_player_load_url", c_int, [vn_player_p, c_char_p, vn_http_options_p, c_char_p, c_int, c_double]
)
vn_player_load_source = _declare("vn_player_load_source", c_int, [vn_player_p, vn_source_p, c_int, c_double])
vn_player_play = _declare("vn_player_play", c_int, [vn_player_p])
vn_player_pause = _declare("vn_player_pause", c_int, [vn_player_p])
vn_player_stop = _declare("vn_player_stop", c_int, [vn_player_p])
vn_player_seek = _declare("vn_player_seek", c_int, [vn_player_p, c_double])
vn_player_set_rate = _declare("vn_player_set_rate", c_int, [vn_player_p, c_double])
vn_player_set_volume = _declare("vn_player_set_volume", c_int, [vn_player_p, c_double])
vn_player_set_skip_silence = _declare("vn_player_set_skip_silence", c_int, [vn_player_p, c_int])
vn_player_subscribe = _declare(
    "vn_player_subscribe",
    c_int,
    [vn_player_p, _Nullable(vn_player_event_fn), c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_subscription_id)],
)
vn_player_get_context = _declare("vn_player_get_context", c_int, [vn_player_p, POINTER(vn_player_context)])
vn_player_copy_location = _declare("vn_player_copy_location", c_int, [vn_player_p, POINTER(c_void_p)])
vn_player_options_set_stream_role = _declare("vn_player_options_set_stream_role", c_int, [vn_player_options_p, c_char_p])
vn_player_options_set_pause_other_players = _declare("vn_player_options_set_pause_other_players", c_int,
                                                     [vn_player_options_p, c_int])
vn_player_options_set_mpris = _declare("vn_player_options_set_mpris", c_int, [vn_player_options_p, c_char_p, c_char_p])
vn_player_set_metadata = _declare("vn_player_set_metadata", c_int, [vn_player_p, c_char_p, c_char_p, c_char_p, c_char_p])
vn_player_copy_mpris_name = _declare("vn_player_copy_mpris_name", c_int, [vn_player_p, POINTER(c_void_p), POINTER(c_int)])

# Attachment payloads (char ** out-parameters are c_void_p slots: the pointer is kept for vn_free)
_owned_p = POINTER(c_void_p)
vn_payload_create = _declare("vn_payload_create", c_int, [c_char_p, POINTER(vn_payload_p)])
vn_payload_parse = _declare("vn_payload_parse", c_int, [c_char_p, c_size_t, POINTER(vn_payload_p)])
vn_payload_from_recording = _declare(
    "vn_payload_from_recording", c_int, [c_char_p, c_double, _float_p, c_size_t, POINTER(vn_payload_p)]
)
vn_payload_destroy = _declare("vn_payload_destroy", None, [vn_payload_p])
vn_payload_to_json = _declare("vn_payload_to_json", c_int, [vn_payload_p, c_int, _owned_p])
vn_payload_copy_field = _declare("vn_payload_copy_field", c_int, [vn_payload_p, c_int, _owned_p])
vn_payload_set_field = _declare("vn_payload_set_field", c_int, [vn_payload_p, c_int, c_char_p])
vn_payload_get_file_size = _declare("vn_payload_get_file_size", c_int, [vn_payload_p, POINTER(c_int64)])
vn_payload_set_file_size = _declare("vn_payload_set_file_size", c_int, [vn_payload_p, c_int64])
vn_payload_get_duration_s = _declare("vn_payload_get_duration_s", c_int, [vn_payload_p, POINTER(c_double)])
vn_payload_get_loudness = _declare("vn_payload_get_loudness", c_int, [vn_payload_p, POINTER(vn_loudness)])
vn_payload_set_loudness = _declare("vn_payload_set_loudness", c_int, [vn_payload_p, POINTER(vn_loudness)])
vn_payload_set_duration_s = _declare("vn_payload_set_duration_s", c_int, [vn_payload_p, c_double])
vn_payload_get_waveform = _declare(
    "vn_payload_get_waveform", c_int, [vn_payload_p, POINTER(c_double), c_size_t, _size_p]
)
vn_payload_set_waveform = _declare("vn_payload_set_waveform", c_int, [vn_payload_p, POINTER(c_double), c_size_t])
vn_payload_copy_extra_data = _declare("vn_payload_copy_extra_data", c_int, [vn_payload_p, _owned_p])
vn_payload_set_extra_data = _declare("vn_payload_set_extra_data", c_int, [vn_payload_p, c_char_p])
vn_payload_to_matrix_content = _declare(
    "vn_payload_to_matrix_content", c_int, [vn_payload_p, c_char_p, _owned_p]
)
vn_payload_from_matrix_content = _declare(
    "vn_payload_from_matrix_content", c_int, [c_char_p, c_size_t, POINTER(vn_payload_p), POINTER(c_int)]
)
vn_matrix_download_url = _declare("vn_matrix_download_url", c_int, [c_char_p, c_char_p, _owned_p])

# Attachment types and names
vn_attachment_type_for_file = _declare("vn_attachment_type_for_file", c_char_p, [c_char_p])
vn_mime_type_for_file = _declare("vn_mime_type_for_file", c_char_p, [c_char_p])
vn_attachment_type_of_json = _declare("vn_attachment_type_of_json", c_int, [c_char_p, c_size_t, _owned_p])
vn_attachment_check_local = _declare("vn_attachment_check_local", c_int, [c_char_p, c_char_p, c_int64])
vn_recording_display_name = _declare("vn_recording_display_name", c_int, [c_int, _owned_p])

# Messages and the next voice message
vn_find_next_item = _declare(
    "vn_find_next_item", c_int, [c_char_p, c_size_t, c_char_p, c_char_p, c_int, _owned_p]
)

# Queue players
vn_queue_answer_set_location = _declare("vn_queue_answer_set_location", c_int, [vn_queue_answer_p, c_char_p])
vn_queue_answer_set_url = _declare(
    "vn_queue_answer_set_url", c_int, [vn_queue_answer_p, c_char_p, vn_http_options_p, c_char_p]
)
vn_player_set_data_source = _declare(
    "vn_player_set_data_source",
    c_int,
    [vn_player_p, _Nullable(vn_queue_next_fn), c_void_p, _Nullable(vn_release_fn)],
)
vn_player_use_messages = _declare(
    "vn_player_use_messages", c_int, [vn_player_p, c_char_p, c_size_t, c_char_p, c_int]
)
vn_player_next = _declare("vn_player_next", c_int, [vn_player_p])
vn_player_set_skip_listened = _declare("vn_player_set_skip_listened", c_int, [vn_player_p, c_int])

# Uploads
vn_upload_options_create = _declare("vn_upload_options_create", c_int, [POINTER(vn_upload_options_p)])
vn_upload_options_destroy = _declare("vn_upload_options_destroy", None, [vn_upload_options_p])
vn_upload_options_set_mode = _declare("vn_upload_options_set_mode", c_int, [vn_upload_options_p, c_int])
vn_upload_options_set_http = _declare("vn_upload_options_set_http", c_int, [vn_upload_options_p, vn_http_options_p])
vn_upload_options_add_query = _declare(
    "vn_upload_options_add_query", c_int, [vn_upload_options_p, c_char_p, c_char_p]
)
vn_upload_options_set_url_key = _declare("vn_upload_options_set_url_key", c_int, [vn_upload_options_p, c_char_p])
vn_upload_options_set_attachment_type = _declare(
    "vn_upload_options_set_attachment_type", c_int, [vn_upload_options_p, c_char_p]
)
vn_upload_options_set_max_bytes = _declare("vn_upload_options_set_max_bytes", c_int, [vn_upload_options_p, c_int64])
vn_upload_options_set_event_loop = _declare(
    "vn_upload_options_set_event_loop", c_int, [vn_upload_options_p, vn_event_loop_p]
)
# char *vn_strdup(const char *): c_void_p keeps the pointer (a c_char_p restype would copy it into bytes and leak it).
vn_strdup = _declare("vn_strdup", c_void_p, [c_char_p])
vn_uploader_create = _declare(
    "vn_uploader_create", c_int, [c_char_p, vn_upload_options_p, POINTER(vn_uploader_p)]
)
vn_uploader_destroy = _declare("vn_uploader_destroy", None, [vn_uploader_p])
vn_uploader_subscribe = _declare(
    "vn_uploader_subscribe",
    c_int,
    [vn_uploader_p, _Nullable(vn_upload_event_fn), c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_subscription_id)],
)
vn_uploader_set_post_processor = _declare(
    "vn_uploader_set_post_processor",
    c_int,
    [vn_uploader_p, _Nullable(vn_upload_post_processor_fn), c_void_p, _Nullable(vn_release_fn)],
)
vn_uploader_upload_file = _declare("vn_uploader_upload_file", c_int, [vn_uploader_p, c_char_p, vn_payload_p])
vn_uploader_upload_source = _declare(
    "vn_uploader_upload_source", c_int, [vn_uploader_p, vn_source_p, c_char_p, c_char_p, vn_payload_p]
)
vn_uploader_upload_recording = _declare("vn_uploader_upload_recording", c_int, [vn_uploader_p, vn_recorder_p])
vn_uploader_copy_content_uri = _declare("vn_uploader_copy_content_uri", c_int, [vn_uploader_p, _owned_p])
vn_uploader_cancel = _declare("vn_uploader_cancel", c_int, [vn_uploader_p])
vn_uploader_retry = _declare("vn_uploader_retry", c_int, [vn_uploader_p])
vn_uploader_wait = _declare("vn_uploader_wait", c_int, [vn_uploader_p, c_int, POINTER(c_int)])
vn_uploader_copy_result = _declare("vn_uploader_copy_result", c_int, [vn_uploader_p, _owned_p])

# --- Outbox ---------------------------------------------------------------------------------------------------

#: ``void (*vn_outbox_event_fn)(void *user_data, const vn_outbox_event *event)``
vn_outbox_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_outbox_event))
vn_outbox_create = _declare("vn_outbox_create", c_int, [c_char_p, c_char_p, vn_upload_options_p, POINTER(vn_outbox_p)])
vn_outbox_destroy = _declare("vn_outbox_destroy", None, [vn_outbox_p])
vn_outbox_set_retry = _declare("vn_outbox_set_retry", c_int, [vn_outbox_p, c_double, c_double])
vn_outbox_subscribe = _declare(
    "vn_outbox_subscribe",
    c_int,
    [vn_outbox_p, _Nullable(vn_outbox_event_fn), c_void_p, _Nullable(vn_release_fn), POINTER(vn_subscription_id)],
)
vn_outbox_start = _declare("vn_outbox_start", c_int, [vn_outbox_p])
vn_outbox_add = _declare("vn_outbox_add", c_int, [vn_outbox_p, c_char_p, vn_payload_p, POINTER(c_int64)])
vn_outbox_acknowledge = _declare("vn_outbox_acknowledge", c_int, [vn_outbox_p, c_int64])
vn_outbox_retry = _declare("vn_outbox_retry", c_int, [vn_outbox_p, c_int64])
vn_outbox_cancel = _declare("vn_outbox_cancel", c_int, [vn_outbox_p, c_int64])
vn_outbox_copy_items = _declare("vn_outbox_copy_items", c_int, [vn_outbox_p, _owned_p])

# --- Recording flow -------------------------------------------------------------------------------------------

VN_FLOW_IDLE = 0
VN_FLOW_SHOWING_TIP = 1
VN_FLOW_RECORDING = 2
VN_FLOW_LOCKED = 3
VN_FLOW_PREVIEW = 4

VN_FLOW_KEY_RECORD = 0
VN_FLOW_KEY_ESCAPE = 1
VN_FLOW_KEY_ENTER = 2

VN_FLOW_EVENT_VIEW = 0
VN_FLOW_EVENT_ATTACHMENT_READY = 1
VN_FLOW_EVENT_PUBLISH = 2
VN_FLOW_EVENT_FAILED = 3
VN_FLOW_EVENT_PARKED = 4
VN_FLOW_EVENT_TRIMMED = 5
VN_FLOW_EVENT_TOO_SHORT = 6


class vn_flow(Structure):
    """Opaque ``struct vn_flow``; only used through :data:`vn_flow_p`."""


class vn_flow_options(Structure):
    """Opaque ``struct vn_flow_options``; only used through :data:`vn_flow_options_p`."""


class vn_manual_clock(Structure):
    """Opaque ``struct vn_manual_clock``; only used through :data:`vn_manual_clock_p`."""


vn_flow_p = POINTER(vn_flow)
vn_flow_options_p = POINTER(vn_flow_options)
vn_manual_clock_p = POINTER(vn_manual_clock)


class vn_flow_view(Structure):
    """``vn_flow_view``: inside a flow event; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("state", c_int),
        ("duration_s", c_double),
        ("levels", POINTER(c_float)),
        ("level_count", c_size_t),
        ("slide_to_cancel_alpha", c_double),
        ("lock_padding", c_double),
        ("chevron_alpha", c_double),
        ("tip_visible", c_int),
        ("preview_position_s", c_double),
        ("preview_playing", c_int),
        ("waveform", POINTER(c_float)),
        ("waveform_count", c_size_t),
        ("trim_start_s", c_double),
        ("trim_end_s", c_double),
        ("toggled", c_int),
        ("accessible_description", c_char_p),
    ]


class vn_flow_event(Structure):
    """``vn_flow_event``: valid only during the callback; ``size`` tells how much of it the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("type", c_int),
        ("view", vn_flow_view),
        ("path", c_char_p),
        ("duration_s", c_double),
        ("waveform", POINTER(c_float)),
        ("waveform_count", c_size_t),
        ("payload_json", c_char_p),
        ("status", c_int),
        ("message", c_char_p),
    ]


#: ``void (*vn_flow_event_fn)(void *user_data, const vn_flow_event *event)``
vn_flow_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_flow_event))
#: ``void (*vn_flow_draft_fn)(void *user_data, const char *key, const char *path, double duration_s)``
vn_flow_draft_fn = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, c_double)

vn_manual_clock_create = _declare("vn_manual_clock_create", c_int, [POINTER(vn_manual_clock_p)])
vn_manual_clock_advance = _declare("vn_manual_clock_advance", c_int, [vn_manual_clock_p, c_double])
vn_manual_clock_destroy = _declare("vn_manual_clock_destroy", None, [vn_manual_clock_p])
vn_flow_options_create = _declare("vn_flow_options_create", c_int, [POINTER(vn_flow_options_p)])
vn_flow_options_destroy = _declare("vn_flow_options_destroy", None, [vn_flow_options_p])
vn_flow_options_set_distances = _declare("vn_flow_options_set_distances", c_int, [vn_flow_options_p, c_double, c_double])
vn_flow_options_set_times = _declare("vn_flow_options_set_times", c_int, [vn_flow_options_p, c_double, c_double])
vn_flow_options_set_waveform_samples = _declare("vn_flow_options_set_waveform_samples", c_int, [vn_flow_options_p, c_size_t])
vn_flow_options_set_confirmation_required = _declare(
    "vn_flow_options_set_confirmation_required", c_int, [vn_flow_options_p, c_int]
)
vn_flow_options_set_toggle_mode = _declare("vn_flow_options_set_toggle_mode", c_int, [vn_flow_options_p, c_int])
vn_flow_options_set_key_inputs = _declare("vn_flow_options_set_key_inputs", c_int, [vn_flow_options_p, c_int])
vn_flow_options_set_event_loop = _declare("vn_flow_options_set_event_loop", c_int, [vn_flow_options_p, vn_event_loop_p])
vn_flow_options_set_clock = _declare("vn_flow_options_set_clock", c_int, [vn_flow_options_p, vn_manual_clock_p])
vn_flow_options_set_draft = _declare("vn_flow_options_set_draft", c_int, [vn_flow_options_p, c_char_p, c_char_p])
vn_flow_options_set_uploader = _declare("vn_flow_options_set_uploader", c_int, [vn_flow_options_p, vn_uploader_p])
vn_flow_options_set_outbox = _declare("vn_flow_options_set_outbox", c_int, [vn_flow_options_p, vn_outbox_p])
vn_flow_create = _declare("vn_flow_create", c_int, [vn_recorder_p, vn_player_p, vn_flow_options_p, POINTER(vn_flow_p)])
vn_flow_destroy = _declare("vn_flow_destroy", None, [vn_flow_p])
vn_flow_press = _declare("vn_flow_press", c_int, [vn_flow_p, c_double, c_double])
vn_flow_release = _declare("vn_flow_release", c_int, [vn_flow_p])
vn_flow_move = _declare("vn_flow_move", c_int, [vn_flow_p, c_double, c_double])
vn_flow_key_down = _declare("vn_flow_key_down", c_int, [vn_flow_p, c_int])
vn_flow_key_up = _declare("vn_flow_key_up", c_int, [vn_flow_p, c_int])
vn_flow_lock = _declare("vn_flow_lock", c_int, [vn_flow_p])
vn_flow_cancel = _declare("vn_flow_cancel", c_int, [vn_flow_p])
vn_flow_stop = _declare("vn_flow_stop", c_int, [vn_flow_p])
vn_flow_discard = _declare("vn_flow_discard", c_int, [vn_flow_p])
vn_flow_send = _declare("vn_flow_send", c_int, [vn_flow_p])
vn_flow_confirm = _declare("vn_flow_confirm", c_int, [vn_flow_p])
vn_flow_play = _declare("vn_flow_play", c_int, [vn_flow_p])
vn_flow_pause = _declare("vn_flow_pause", c_int, [vn_flow_p])
vn_flow_seek = _declare("vn_flow_seek", c_int, [vn_flow_p, c_double])
vn_flow_trim = _declare("vn_flow_trim", c_int, [vn_flow_p, c_double, c_double])
vn_flow_deactivate = _declare("vn_flow_deactivate", c_int, [vn_flow_p])
vn_flow_park = _declare("vn_flow_park", c_int, [vn_flow_p])
vn_flow_drafts_list = _declare(
    "vn_flow_drafts_list", c_int, [c_char_p, _Nullable(vn_flow_draft_fn), c_void_p, POINTER(c_size_t)]
)
vn_flow_drafts_clear = _declare("vn_flow_drafts_clear", c_int, [c_char_p, c_char_p])
vn_flow_get_state = _declare("vn_flow_get_state", c_int, [vn_flow_p, POINTER(c_int)])
vn_flow_subscribe = _declare(
    "vn_flow_subscribe",
    c_int,
    [vn_flow_p, _Nullable(vn_flow_event_fn), c_void_p, _Nullable(vn_release_fn), POINTER(vn_subscription_id)],
)

# ---- transcripts (docs/transcripts.md) ----


class vn_transcriber(Structure):
    """Opaque ``struct vn_transcriber``; only used through :data:`vn_transcriber_p`."""


vn_transcriber_p = POINTER(vn_transcriber)


class vn_transcription(Structure):
    """Opaque ``struct vn_transcription``; only used through :data:`vn_transcription_p`."""


vn_transcription_p = POINTER(vn_transcription)


class vn_transcript_words(Structure):
    """Opaque ``struct vn_transcript_words``: a host recogniser's hook adds its words to it."""


vn_transcript_words_p = POINTER(vn_transcript_words)

VN_TRANSCRIPTION_EVENT_WORDS = 0
VN_TRANSCRIPTION_EVENT_FINISHED = 1
VN_TRANSCRIPTION_EVENT_FAILED = 2


class vn_transcript_word(Structure):
    """``vn_transcript_word``: a recognised word (its layout never changes)."""

    _fields_ = [("text", c_char_p), ("start_s", c_double), ("end_s", c_double), ("confidence", c_double)]


class vn_transcription_event(Structure):
    """``vn_transcription_event``: valid only during the callback; ``size`` tells how much the library filled."""

    _fields_ = [
        ("size", c_size_t),
        ("kind", c_int),
        ("words", POINTER(vn_transcript_word)),
        ("word_count", c_size_t),
        ("text", c_char_p),
        ("cached", c_int),
        ("status", c_int),
        ("message", c_char_p),
        ("recogniser", c_char_p),
    ]


#: ``int (*vn_transcriber_begin_fn)(void *user_data, void **out_session)``
vn_transcriber_begin_fn = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(c_void_p))
#: ``int (*vn_transcriber_feed_fn)(void *user_data, void *session, const int16_t *samples, size_t count,
#: vn_transcript_words *words)``
vn_transcriber_feed_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, POINTER(c_int16), c_size_t, vn_transcript_words_p)
#: ``int (*vn_transcriber_finish_fn)(void *user_data, void *session, vn_transcript_words *words)``
vn_transcriber_finish_fn = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p, vn_transcript_words_p)
#: ``void (*vn_transcriber_end_fn)(void *user_data, void *session)``
vn_transcriber_end_fn = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)
#: ``void (*vn_transcription_event_fn)(void *user_data, const vn_transcription_event *event)``
vn_transcription_event_fn = ctypes.CFUNCTYPE(None, c_void_p, POINTER(vn_transcription_event))

vn_transcriber_create_pocketsphinx = _declare(
    "vn_transcriber_create_pocketsphinx", c_int, [c_char_p, c_char_p, POINTER(vn_transcriber_p)])
vn_transcriber_create_callbacks = _declare(
    "vn_transcriber_create_callbacks", c_int,
    [c_char_p, c_int, vn_transcriber_begin_fn, vn_transcriber_feed_fn, vn_transcriber_finish_fn, vn_transcriber_end_fn,
     c_void_p, _Nullable(vn_release_fn), POINTER(vn_transcriber_p)])
vn_transcriber_destroy = _declare("vn_transcriber_destroy", None, [vn_transcriber_p])
vn_transcript_words_add = _declare(
    "vn_transcript_words_add", c_int, [vn_transcript_words_p, c_char_p, c_double, c_double, c_double])
vn_transcription_create = _declare(
    "vn_transcription_create", c_int,
    [c_char_p, vn_transcriber_p, vn_http_options_p, vn_event_loop_p, POINTER(vn_transcription_p)])
vn_transcription_subscribe = _declare(
    "vn_transcription_subscribe", c_int,
    [vn_transcription_p, _Nullable(vn_transcription_event_fn), c_void_p, _Nullable(vn_release_fn),
     POINTER(vn_subscription_id)])
vn_transcription_start = _declare("vn_transcription_start", c_int, [vn_transcription_p])
vn_transcription_cancel = _declare("vn_transcription_cancel", c_int, [vn_transcription_p])
vn_transcription_wait = _declare("vn_transcription_wait", c_int, [vn_transcription_p, c_int, _owned_p])
vn_transcription_destroy = _declare("vn_transcription_destroy", None, [vn_transcription_p])
vn_player_seek_to_word = _declare("vn_player_seek_to_word", c_int, [vn_player_p, POINTER(vn_transcript_word)])
vn_payload_copy_transcript = _declare("vn_payload_copy_transcript", c_int, [vn_payload_p, _owned_p])
vn_payload_set_transcript = _declare("vn_payload_set_transcript", c_int, [vn_payload_p, c_char_p])
