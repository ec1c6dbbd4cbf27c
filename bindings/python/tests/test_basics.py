"""Version, status names, exceptions, last-error messages, the raw C API declarations and the library finder."""

from __future__ import annotations

import ctypes
import os
import pickle
import re
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from helpers import HEADER, TIMEOUT

import voicenote
from voicenote import _capi, _lib, errors


def _header_text() -> str:
    if not HEADER.exists():
        pytest.skip(f"header not reachable at {HEADER}")
    text = HEADER.read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # drop comments (they mention vn_ names in prose)
    return re.sub(r"//[^\n]*", " ", text)


# --- version ----------------------------------------------------------------------------------------------------

def test_version_matches_header() -> None:
    """vn_version_string/number agree with the header's VN_VERSION_* macros, the one place the version is written,
    and so do the package's version and its copy of the macros."""
    if not HEADER.exists():
        pytest.skip(f"no header at {HEADER}: the package is not imported from a source checkout")
    text = HEADER.read_text()
    parts = [int(re.search(rf"^#define\s+VN_VERSION_{p}\s+(\d+)$", text, flags=re.M).group(1))
             for p in ("MAJOR", "MINOR", "PATCH")]
    expected = ".".join(str(part) for part in parts)
    assert voicenote.version() == expected
    assert voicenote.version_number() == parts[0] * 1000000 + parts[1] * 1000 + parts[2]
    assert _capi.VN_VERSION_STRING == expected
    assert _capi.VN_VERSION_NUMBER == voicenote.version_number()
    assert voicenote.__version__ == expected


# --- statuses and exceptions -----------------------------------------------------------------------------------

STATUSES = [
    # code, name, exception class, builtin it must also be
    (-1, "VN_E_INVALID_ARG", voicenote.InvalidArgumentError, ValueError),
    (-2, "VN_E_MISUSE", voicenote.MisuseError, RuntimeError),
    (-3, "VN_E_NOMEM", voicenote.NoMemoryError, MemoryError),
    (-4, "VN_E_IO", voicenote.IOFailedError, OSError),
    (-5, "VN_E_NO_SPACE", voicenote.NoSpaceError, OSError),
    (-6, "VN_E_FORMAT", voicenote.FormatError, ValueError),
    (-7, "VN_E_DEVICE", voicenote.DeviceError, OSError),
    (-8, "VN_E_PERMISSION", voicenote.AccessDeniedError, PermissionError),
    (-9, "VN_E_NETWORK", voicenote.NetworkError, ConnectionError),
    (-10, "VN_E_NOT_FOUND", voicenote.NotFoundError, FileNotFoundError),
    (-11, "VN_E_TOO_LARGE", voicenote.TooLargeError, ValueError),
    (-12, "VN_E_UNSUPPORTED", voicenote.UnsupportedError, NotImplementedError),
    (-13, "VN_E_BUSY", voicenote.BusyError, RuntimeError),
    (-14, "VN_E_CANCELLED", voicenote.CancelledError, RuntimeError),
    (-15, "VN_E_INTERNAL", voicenote.InternalError, RuntimeError),
]


def test_status_table_matches_header() -> None:
    """The binding's status table is exactly the header's vn_status enum (names and numbers)."""
    text = _header_text()
    enum = re.search(r"typedef enum vn_status \{(.*?)\} vn_status;", text, flags=re.S).group(1)
    header = {name: int(value) for name, value in re.findall(r"(VN_\w+)\s*=\s*(-?\d+)", enum)}
    ours = {name: code for code, name, _, _ in STATUSES}
    ours["VN_OK"] = 0
    assert header == ours
    for name, value in header.items():
        assert getattr(_capi, name) == value


@pytest.mark.parametrize("code,name,cls,builtin", STATUSES)
def test_status_names_and_strerror(code: int, name: str, cls: type, builtin: type) -> None:
    """vn_status_name gives the symbolic name and vn_strerror a real description for every status."""
    assert voicenote.status_name(code) == name
    text = voicenote.strerror(code)
    assert text and text != "unknown status"


def test_ok_and_unknown_statuses() -> None:
    """VN_OK has a name; numbers that are no status give the documented fallbacks."""
    assert voicenote.status_name(0) == "VN_OK"
    assert voicenote.strerror(0) == "success"
    for unknown in (1, -16, 12345, -(2**31)):
        assert voicenote.status_name(unknown) == "VN_E_UNKNOWN"
        assert voicenote.strerror(unknown) == "unknown status"


@pytest.mark.parametrize("code,name,cls,builtin", STATUSES)
def test_exception_classes(code: int, name: str, cls: type, builtin: type) -> None:
    """Each status maps to its own class, which is a VoiceNoteError and the fitting builtin; check() raises it."""
    assert issubclass(cls, voicenote.VoiceNoteError)
    assert issubclass(cls, builtin)
    assert cls.status == code
    assert errors.error_class(code) is cls
    with pytest.raises(cls) as caught:
        errors.check(code)
    error = caught.value
    assert isinstance(error, builtin)
    assert (error.code, error.name) == (code, name)
    assert error.message  # detail text or, failing that, the status description
    assert name in str(error)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is cls and (copy.code, copy.name, copy.message) == (error.code, error.name, error.message)


def test_exception_class_names_are_distinct() -> None:
    """One class per status."""
    classes = [cls for _, _, cls, _ in STATUSES]
    assert len(set(classes)) == len(classes)


def test_check_passes_non_negative_and_maps_unknown() -> None:
    """check() returns values >= 0 unchanged; an unknown negative status raises the base class."""
    assert errors.check(0) == 0
    assert errors.check(7) == 7
    with pytest.raises(voicenote.VoiceNoteError) as caught:
        errors.check(-99)
    assert type(caught.value) is voicenote.VoiceNoteError
    assert caught.value.name == "VN_E_UNKNOWN"


def test_last_error_message_set_on_failure() -> None:
    """A failing call leaves a detail message for this thread; the exception carries it."""
    with pytest.raises(voicenote.MisuseError) as caught:
        voicenote.unsubscribe(12345)
    error = caught.value
    assert error.code == -2 and error.name == "VN_E_MISUSE"
    assert "12345" in error.message
    assert "12345" in errors.last_error_message()
    assert isinstance(error, RuntimeError)


def test_last_error_message_is_per_thread() -> None:
    """Another thread sees its own message: "" before its first failure, then its own detail."""
    seen = {}
    done = threading.Event()

    def other() -> None:
        seen["before"] = errors.last_error_message()
        seen["rc"] = _capi.vn_unsubscribe(777)
        seen["after"] = errors.last_error_message()
        done.set()

    with pytest.raises(voicenote.MisuseError):
        voicenote.unsubscribe(12345)
    thread = threading.Thread(target=other)
    thread.start()
    assert done.wait(TIMEOUT), "thread did not finish"
    thread.join(TIMEOUT)
    assert seen["before"] == ""
    assert seen["rc"] == -2
    assert "777" in seen["after"]
    assert "12345" in errors.last_error_message()


def test_last_error_message_kept_after_success() -> None:
    """Successful calls do not clear the message (documented)."""
    with pytest.raises(voicenote.MisuseError):
        voicenote.unsubscribe(4242)
    voicenote.version_number()
    with voicenote.TestSource() as source:
        source.emit(0)
    assert "4242" in errors.last_error_message()


def test_invalid_argument_from_library() -> None:
    """A library-side VN_E_INVALID_ARG arrives as InvalidArgumentError (a ValueError)."""
    with pytest.raises(voicenote.InvalidArgumentError) as caught:
        voicenote.set_log_handler(None, max_level=9)
    assert "max_level" in caught.value.message
    with pytest.raises(ValueError):
        voicenote.set_log_handler(None, max_level=0)


# --- the raw C API -----------------------------------------------------------------------------------------------

def test_capi_declares_every_header_function() -> None:
    """_capi declares every function of the header, each with argtypes and restype, and nothing else."""
    names = set(re.findall(r"\b(vn_\w+)\s*\(", _header_text()))
    assert names, "no functions parsed from the header"
    assert set(_capi.FUNCTIONS) == names
    for name in names:
        function = getattr(_capi, name)
        assert function.argtypes is not None, name
        assert function.__name__ == name


def test_library_exports_every_header_function() -> None:
    """The loaded library exports every function of the header: one it lacks fails here, naming it."""
    assert not _capi.MISSING, f"declared in the header, not exported by the library: {', '.join(_capi.MISSING)}"
    for name in _capi.FUNCTIONS:
        assert callable(getattr(_capi.lib, name))


def test_missing_function_stub_raises() -> None:
    """A header function the library lacks is a stub that raises NotImplementedError naming it."""
    stub = _capi._MissingFunction("vn_example", ctypes.c_int, [])
    with pytest.raises(NotImplementedError, match="vn_example"):
        stub()


def test_library_exports_nothing_undeclared() -> None:
    """Every vn_ symbol the library exports is declared in the header and in _capi."""
    nm = shutil.which("nm")
    path = _capi.lib._name
    if not nm or not os.path.isabs(path):
        pytest.skip("needs nm and a library loaded from a path")
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True, timeout=60).stdout
    exported = {line.split()[-1].split("@")[0] for line in out.splitlines() if " T " in line}
    exported = {name for name in exported if name.startswith("vn_")}
    assert exported, "no vn_ symbols found"
    assert exported <= set(_capi.FUNCTIONS), exported - set(_capi.FUNCTIONS)


def test_capi_struct_layout() -> None:
    """The event and info structs have the header's layout on this ABI."""
    assert ctypes.sizeof(_capi.vn_test_event) == 24
    assert _capi.vn_test_event.sequence.offset == 8
    assert _capi.vn_test_event.from_library_thread.offset == 16
    assert ctypes.sizeof(_capi.vn_audio_info) == 72
    assert _capi.vn_audio_info.bitrate.offset == 32
    assert _capi.vn_audio_info.codec.offset == 40


def test_capi_recorder_struct_layout() -> None:
    """The recorder's context and event structs have the header's layout on this ABI (event: the context nested at
    16, then the FINISHED/FAILED/WARNING fields, then FINISHED's loudness, then SOURCE_CHANGED's device)."""
    assert ctypes.sizeof(_capi.vn_recorder_context) == 48
    assert _capi.vn_recorder_context.duration_s.offset == 16
    assert _capi.vn_recorder_context.peak_power.offset == 28
    assert _capi.vn_recorder_context.path.offset == 40
    assert ctypes.sizeof(_capi.vn_recorder_event) == 168
    assert _capi.vn_recorder_event.context.offset == 16
    assert _capi.vn_recorder_event.path.offset == 64
    assert _capi.vn_recorder_event.waveform_count.offset == 96
    assert _capi.vn_recorder_event.status.offset == 108
    assert _capi.vn_recorder_event.remaining_s.offset == 120
    assert _capi.vn_recorder_event.loudness.offset == 128
    assert _capi.vn_recorder_event.device.offset == 160


def test_capi_structs_match_the_compiled_header(tmp_path) -> None:
    """Every struct _capi declares has the size and field offsets a C compiler gives the header."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None or not HEADER.exists():
        pytest.skip("needs a C compiler and the header")
    structs = [_capi.vn_test_event, _capi.vn_audio_info, _capi.vn_recorder_context, _capi.vn_recorder_event,
               _capi.vn_player_context, _capi.vn_player_event, _capi.vn_upload_event]
    lines = []
    for struct in structs:
        name = struct.__name__
        lines.append(f'printf("{name} sizeof %zu\\n", sizeof({name}));')
        for field, _ in struct._fields_:
            lines.append(f'printf("{name} {field} %zu\\n", offsetof({name}, {field}));')
    source = tmp_path / "layout.c"
    source.write_text("#include <stddef.h>\n#include <stdio.h>\n#include \"voicenote.h\"\nint main(void) {\n"
                      + "\n".join(lines) + "\nreturn 0;\n}\n")
    program = tmp_path / "layout"
    subprocess.run([cc, "-std=c99", "-I", str(HEADER.parent), str(source), "-o", str(program)], check=True,
                   capture_output=True, timeout=60, env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"})
    output = subprocess.run([str(program)], check=True, capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}).stdout
    compiled = {tuple(line.split()[:2]): int(line.split()[2]) for line in output.splitlines()}
    ours = {}
    for struct in structs:
        ours[(struct.__name__, "sizeof")] = ctypes.sizeof(struct)
        for field, _ in struct._fields_:
            ours[(struct.__name__, field)] = getattr(struct, field).offset
    assert ours == compiled


def test_null_handles_are_misuse() -> None:
    """Every function given a NULL handle returns VN_E_MISUSE; destroy(NULL) is a no-op."""
    count = ctypes.c_uint64(0)
    dispatched = ctypes.c_size_t(99)
    pending = ctypes.c_int(99)
    out_id = ctypes.c_uint64(0)
    noop = _capi.vn_test_event_fn(lambda user_data, event: None)
    assert _capi.vn_test_source_start(None, 1, 0) == -2
    assert _capi.vn_test_source_stop(None) == -2
    assert _capi.vn_test_source_emit(None, 1) == -2
    assert _capi.vn_test_source_fired(None, ctypes.byref(count)) == -2
    assert _capi.vn_test_source_subscribe(None, noop, None, None, ctypes.byref(out_id)) == -2
    assert _capi.vn_event_loop_dispatch(None, None) == -2
    assert _capi.vn_event_loop_dispatch(None, ctypes.byref(dispatched)) == -2
    assert dispatched.value == 0
    assert _capi.vn_event_loop_fd(None) == -2
    assert _capi.vn_event_loop_wait(None, 0, ctypes.byref(pending)) == -2
    assert _capi.vn_event_loop_wait(None, 0, None) == -2
    assert "NULL" in errors.last_error_message()
    _capi.vn_event_loop_destroy(None)
    _capi.vn_test_source_destroy(None)
    _capi.vn_free(None)
    assert _capi.vn_unsubscribe(0) == -2


def test_null_out_pointers_are_invalid_argument() -> None:
    """NULL out-parameters and NULL callbacks are VN_E_INVALID_ARG; create sets *out = NULL on failure."""
    assert _capi.vn_event_loop_create(None) == -1
    assert _capi.vn_test_source_create(None, None) == -1
    source = _capi.vn_test_source_p()
    assert _capi.vn_test_source_create(None, ctypes.byref(source)) == 0
    try:
        assert bool(source)
        assert _capi.vn_test_source_subscribe(source, None, None, None, None) == -1
        assert "callback" in errors.last_error_message()
        assert _capi.vn_test_source_fired(source, None) == -1
    finally:
        _capi.vn_test_source_destroy(source)
    assert _capi.vn_log_set_handler(None, None, 0) == -1
    assert _capi.vn_log_set_handler(None, None, 5) == -1


def test_destroyed_handle_is_misuse() -> None:
    """A destroyed handle is detected, also after new objects were created (handles are never reused)."""
    source = _capi.vn_test_source_p()
    assert _capi.vn_test_source_create(None, ctypes.byref(source)) == 0
    _capi.vn_test_source_destroy(source)
    assert _capi.vn_test_source_start(source, 1, 0) == -2
    assert _capi.vn_test_source_emit(source, 1) == -2
    newer = []
    try:
        for _ in range(20):  # the old value must not come back as a live handle
            fresh = _capi.vn_test_source_p()
            assert _capi.vn_test_source_create(None, ctypes.byref(fresh)) == 0
            newer.append(fresh)
            assert ctypes.cast(fresh, ctypes.c_void_p).value != ctypes.cast(source, ctypes.c_void_p).value
        assert _capi.vn_test_source_start(source, 1, 0) == -2
        assert _capi.vn_test_source_stop(source) == -2
    finally:
        for fresh in newer:
            _capi.vn_test_source_destroy(fresh)
    loop = _capi.vn_event_loop_p()
    assert _capi.vn_event_loop_create(ctypes.byref(loop)) == 0
    _capi.vn_event_loop_destroy(loop)
    assert _capi.vn_event_loop_fd(loop) == -2
    assert _capi.vn_event_loop_dispatch(loop, None) == -2
    # A source cannot be created on a destroyed loop.
    out = _capi.vn_test_source_p()
    assert _capi.vn_test_source_create(loop, ctypes.byref(out)) == -2
    assert not out


# --- the library finder ------------------------------------------------------------------------------------------

def test_finder_env_path_is_authoritative(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A wrong $VOICENOTE_LIBRARY is an error naming it, not a silent fallback."""
    missing = tmp_path / "nope" / "libvoicenote.so"
    monkeypatch.setenv(_lib.ENV_VAR, str(missing))
    with pytest.raises(_lib.LibraryNotFoundError) as caught:
        _lib._find()
    assert str(missing) in str(caught.value)
    assert isinstance(caught.value, OSError)


def test_finder_error_lists_every_place(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """With nothing found, the error names the env var, each build-tree path, find_library and the SONAME."""
    monkeypatch.delenv(_lib.ENV_VAR, raising=False)
    tree = [tmp_path / "a" / "build" / "lib" / "libvoicenote.so", tmp_path / "build" / "lib" / "libvoicenote.so"]
    monkeypatch.setattr(_lib, "_build_tree_candidates", lambda: tree)
    monkeypatch.setattr(_lib.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_lib, "SONAME", "libvoicenote-does-not-exist.so.0")
    with pytest.raises(_lib.LibraryNotFoundError) as caught:
        _lib._find()
    message = str(caught.value)
    assert _lib.ENV_VAR in message
    for path in tree:
        assert str(path) in message
    assert "find_library" in message
    assert "libvoicenote-does-not-exist.so.0" in message


def test_finder_uses_build_tree(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Without the env var, the checkout's build/lib/libvoicenote.so is found."""
    real = _capi.lib._name
    if not os.path.isabs(real) or not os.path.exists(real):
        pytest.skip(f"the library was loaded by name ({real}), not from a path")
    candidate = tmp_path / "build" / "lib" / "libvoicenote.so"
    candidate.parent.mkdir(parents=True)
    candidate.symlink_to(real)
    monkeypatch.delenv(_lib.ENV_VAR, raising=False)
    monkeypatch.setattr(_lib, "_build_tree_candidates", lambda: [tmp_path / "x" / "build" / "lib" / "libvoicenote.so",
                                                                 candidate])
    library = _lib._find()
    assert library._name == str(candidate)
    assert library.vn_version_number() == voicenote.version_number()


def test_finder_candidates_describe_search() -> None:
    """candidates() describes the search order (used for diagnostics): the bundled library, then the env var."""
    places = _lib.candidates()
    assert places[0].startswith(str(_lib.BUNDLED))
    assert places[1].startswith("$" + _lib.ENV_VAR)


def test_finder_prefers_the_bundled_library(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A library bundled in the package (as in a wheel) wins over $VOICENOTE_LIBRARY, even a wrong one."""
    real = _capi.lib._name
    if not os.path.isabs(real) or not os.path.exists(real):
        pytest.skip(f"the library was loaded by name ({real}), not from a path")
    bundled = tmp_path / "_libs" / _lib.SONAME
    bundled.parent.mkdir()
    bundled.symlink_to(real)
    monkeypatch.setattr(_lib, "BUNDLED", bundled)
    monkeypatch.setenv(_lib.ENV_VAR, str(tmp_path / "nope.so"))
    library = _lib._find()
    assert library._name == str(bundled)
    assert library.vn_version_number() == voicenote.version_number()


def test_finder_knows_the_source_checkout() -> None:
    """Imported from this checkout, the build tree searched is this checkout's own build/lib, nothing above it."""
    root = Path(__file__).resolve().parents[3]
    if Path(voicenote.__file__).resolve().parents[2] != root:
        pytest.skip(f"voicenote imported from {voicenote.__file__}, not from this checkout")
    assert _lib.checkout_root() == root
    assert _lib._build_tree_candidates() == [root / "build" / "lib" / "libvoicenote.so"]
