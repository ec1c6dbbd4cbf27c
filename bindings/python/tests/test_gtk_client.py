"""The GTK 4 example client (bindings/python/examples/gtk/voicenote_chat.py, on voicenote-gtk's widgets through GObject
Introspection) under Xvfb, driven by gtk_driver.py through real X input (xdotool) with the system interpreter
(PyGObject from Debian): record through the composer (press, hold, slide up to lock, stop, trim, send), the new
message in the list, play, and the next note by itself; the speaker's output holds the notes in order, and the
screenshots' waveform areas are not blank. The typelibs and libraries are voicenote-glib's and voicenote-gtk's in
$(BUILD)/glib and $(BUILD)/gtk (`make test-glib test-gtk` put them there), BUILD being the directory above
VOICENOTE_LIBRARY's (as given, not resolved), else above the loaded libvoicenote's."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from audiofiles import is_tsan_build, loaded_library_path
from gui_clients import (check_the_sent_notes, check_the_speaker, check_the_waveform_screenshots, microphone_config,
                         read_report, speaker_config, write_conversation)
from helpers import PACKAGE_ROOT, TIMEOUT
from session_bus import missing as session_bus_missing, private_session_bus

SYSTEM_PYTHON = "/usr/bin/python3"
EXAMPLE = PACKAGE_ROOT / "examples" / "gtk"
DRIVER = Path(__file__).resolve().parent / "gtk_driver.py"
TYPELIBS = ("glib/lib/girepository-1.0/Voicenote-1.0.typelib", "gtk/lib/girepository-1.0/VoicenoteGtk-1.0.typelib")


def gtk_available() -> bool:
    if any(shutil.which(tool) is None for tool in ("xvfb-run", "xdotool")) or not os.path.exists(SYSTEM_PYTHON):
        return False
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import gi; gi.require_version('Gtk', '4.0'); "
                            "from gi.repository import Gtk; import cairo"], capture_output=True, timeout=TIMEOUT)
    return probe.returncode == 0


def widgets_environment(library: Path) -> "dict[str, str]":
    """The environment that finds voicenote-glib's and voicenote-gtk's typelibs and libraries in BUILD/glib and
    BUILD/gtk (BUILD: above `library`'s directory), and that libvoicenote; skips when they were not built."""
    build = library.absolute().parent.parent
    missing = [str(build / typelib) for typelib in TYPELIBS if not (build / typelib).exists()]
    if missing:
        pytest.skip(f"voicenote-glib's and voicenote-gtk's introspection data is not built ({', '.join(missing)} "
                    "missing): run make test-glib test-gtk (or make -C bindings/glib introspection and "
                    "make -C bindings/gtk introspection with OUT=BUILD/glib, BUILD/gtk) first")
    libraries = [str(library.parent), str(build / "glib" / "lib"), str(build / "gtk" / "lib")]
    typelibs = [str(build / "glib/lib/girepository-1.0"), str(build / "gtk/lib/girepository-1.0")]
    return dict(os.environ, GI_TYPELIB_PATH=os.pathsep.join(typelibs),
                LD_LIBRARY_PATH=os.pathsep.join(libraries + [os.environ.get("LD_LIBRARY_PATH", "")]).rstrip(os.pathsep))


@pytest.fixture(scope="module")
def client_run(tmp_path_factory: pytest.TempPathFactory) -> "tuple[dict, Path]":
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the GTK client runs another interpreter, which the ThreadSanitizer run does not instrument: "
                    "it runs in the plain run")
    if not gtk_available():
        pytest.skip("GTK 4 for the system Python, xvfb-run or xdotool is missing (make deps installs python3-gi, "
                    "gir1.2-gtk-4.0, python3-gi-cairo, xvfb, xdotool)")
    env = widgets_environment(Path(os.environ.get("VOICENOTE_LIBRARY") or loaded_library_path()))
    folder = tmp_path_factory.mktemp("gtk")
    conversation, microphone = write_conversation(folder)
    out = folder / "out"
    out.mkdir()
    env.update(PYTHONPATH=str(EXAMPLE), GTK_A11Y="none", NO_AT_BRIDGE="1", GDK_BACKEND="x11", GTK_THEME="",
               GSETTINGS_BACKEND="memory")
    if session_bus_missing():
        pytest.skip(f"the client's media controls: {session_bus_missing()}")
    # A session bus of the run's own: the client's player shows itself to the media controls there (MPRIS).
    with private_session_bus() as address:
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        result = subprocess.run(
            ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", SYSTEM_PYTHON, str(DRIVER), "--messages",
             str(conversation), "--out", str(out), "--mic-config", microphone_config(microphone),
             "--speaker-config", speaker_config(out / "speaker.raw")],
            env=env, capture_output=True, text=True, timeout=120)
    return read_report(out, result), folder


def test_a_note_recorded_through_the_flow_is_sent_into_the_list(client_run: "tuple[dict, Path]") -> None:
    report, _ = client_run
    assert report["steps"][:7] == ["the window is shown", "the first view", "recording, live bars", "locked", "preview",
                                   "the cut preview", "the preview drawn"]
    # The record button's tooltip is the flow's accessible description (the client binds it): the time and the hint.
    check_the_sent_notes(report, recording=("Recording, 0:0", "slide left to cancel"))


def test_play_and_the_next_note_plays_by_itself_on_the_speaker(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    first, second = f"file://{folder}/n440.ogg", f"file://{folder}/n880.ogg"
    sent = f"file://{report['sent']['path']}"
    assert report["items"][:6] == [first, "finished " + first, second, "finished " + second, sent, "finished " + sent]
    check_the_speaker(report, folder)


def test_the_screenshots_show_the_waveforms(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    check_the_waveform_screenshots(report, folder)


def test_a_carried_transcript_is_shown_and_a_word_seeks_the_note(client_run: "tuple[dict, Path]") -> None:
    report, _ = client_run
    assert report["transcript_text"] == "hello world"
    assert abs(report["seek_position"] - 1.15) < 0.01  # 50 ms before "world"


def test_a_loaded_note_is_on_the_desktops_media_controls_with_its_sender(client_run: "tuple[dict, Path]") -> None:
    report, _ = client_run
    # The conversation's first note (its message's user is "alice" in gui_clients.write_conversation).
    assert report.get("media_controls") == "Voice message|alice", report.get("steps")
