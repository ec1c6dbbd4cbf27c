"""The GTK 4 example client (bindings/python/examples/gtk/voicenote_chat.py) under Xvfb, driven through its widgets'
own signals by gtk_driver.py with the system interpreter (PyGObject from Debian): record through the flow (press,
hold, slide up to lock, stop, trim, send), the new message in the list, play, and the next note by itself; the
speaker's output holds the notes in order, and the screenshots' waveform areas are not blank."""
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

SYSTEM_PYTHON = "/usr/bin/python3"
EXAMPLE = PACKAGE_ROOT / "examples" / "gtk"
DRIVER = Path(__file__).resolve().parent / "gtk_driver.py"


def gtk_available() -> bool:
    if shutil.which("xvfb-run") is None or not os.path.exists(SYSTEM_PYTHON):
        return False
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import gi; gi.require_version('Gtk', '4.0'); "
                            "from gi.repository import Gtk; import cairo"], capture_output=True, timeout=TIMEOUT)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def client_run(tmp_path_factory: pytest.TempPathFactory) -> "tuple[dict, Path]":
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the GTK client runs another interpreter, which the ThreadSanitizer run does not instrument: "
                    "it runs in the plain run")
    if not gtk_available():
        pytest.skip("GTK 4 for the system Python or xvfb-run is missing (make deps installs python3-gi, "
                    "gir1.2-gtk-4.0, python3-gi-cairo, xvfb)")
    folder = tmp_path_factory.mktemp("gtk")
    conversation, microphone = write_conversation(folder)
    out = folder / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=f"{PACKAGE_ROOT}{os.pathsep}{EXAMPLE}", GTK_A11Y="none", NO_AT_BRIDGE="1")
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
    check_the_sent_notes(report)


def test_play_and_the_next_note_plays_by_itself_on_the_speaker(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    first, second = f"file://{folder}/n440.ogg", f"file://{folder}/n880.ogg"
    sent = f"file://{report['sent']['path']}"
    assert report["items"][:6] == [first, "finished " + first, second, "finished " + second, sent, "finished " + sent]
    check_the_speaker(report, folder)


def test_the_screenshots_show_the_waveforms(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    check_the_waveform_screenshots(report, folder)
