"""The Qt 6 example client (bindings/cpp/examples/qt) built with CMake against an installed prefix and run offscreen
(QT_QPA_PLATFORM=offscreen) through its scripted session, voicenote-qt-driver: record through the flow (press, hold,
slide up to lock, stop, trim the end to 80 %, send), a note recorded from the keyboard, the new messages in the list,
a hold slid left and cancelled, play, and the next notes by themselves; then the rate button and scrubbing. The
speaker's output holds the notes in order, and the screenshots' waveform areas are not blank. The counterpart of
test_gtk_client.py.

The library is installed into a temporary prefix with scripts/install.sh (as `make install` does) and the example
configured with find_package(voicenote) and find_package(Qt6) (Debian: qt6-base-dev), warnings as errors; it is built
once for the module. Skips, saying why, without Qt 6 Widgets, CMake or a C++ compiler, and in the ThreadSanitizer run.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Optional, Tuple

import pytest

from audiofiles import REPO_ROOT, is_tsan_build, loaded_library_path
from gui_clients import (check_the_sent_notes, check_the_speaker, check_the_waveform_screenshots, microphone_config,
                         read_report, speaker_config, write_conversation)
from session_bus import missing as session_bus_missing, private_session_bus

EXAMPLE = REPO_ROOT / "bindings" / "cpp" / "examples" / "qt"
INSTALL = REPO_ROOT / "scripts" / "install.sh"
VERSION = REPO_ROOT / "scripts" / "version.sh"
BUILD_SECONDS = 900
DRIVER_SECONDS = 180


def skip(reason: str) -> None:
    """Skips the module's tests, visibly: also a warning, seen without ``-rs``."""
    warnings.warn(reason)
    pytest.skip(reason)


def qt6_widgets_found() -> bool:
    """Whether CMake can find Qt 6 Widgets: its pkg-config file, or its CMake package in the usual places."""
    if shutil.which("pkg-config") and subprocess.run(["pkg-config", "--exists", "Qt6Widgets"],
                                                     capture_output=True, timeout=30).returncode == 0:
        return True
    roots = [Path(p) for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if p]
    roots += [Path("/usr"), Path("/usr/local")]
    patterns = ["lib/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake", "lib/*/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake",
                "lib64/cmake/Qt6Widgets/Qt6WidgetsConfig.cmake"]
    return any(any(root.glob(pattern)) for root in roots for pattern in patterns)


def library_build() -> Optional[Path]:
    """The build folder to install from (lib/libvoicenote.so.VERSION and bin/voicenote): the one of the library
    these tests loaded when it is a build folder, else the checkout's build/."""
    version = subprocess.run([str(VERSION)], capture_output=True, text=True, timeout=30).stdout.strip()
    for build in (loaded_library_path().resolve().parents[1], REPO_ROOT / "build"):
        if (build / "lib" / f"libvoicenote.so.{version}").exists() and (build / "bin" / "voicenote").exists():
            return build
    return None


def build_example(folder: Path) -> Path:
    """Installs the library into folder/prefix and builds the example in folder/build; returns the build folder."""
    build = library_build()
    if build is None:
        skip("no built library to install (lib/libvoicenote.so.VERSION and bin/voicenote): run `make build`")
    version = subprocess.run([str(VERSION)], capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    major = subprocess.run([str(VERSION), "major"], capture_output=True, text=True, timeout=30,
                           check=True).stdout.strip()
    prefix = folder / "prefix"
    installed = subprocess.run([str(INSTALL), str(prefix), str(build), version, major], capture_output=True,
                               text=True, timeout=120)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    out = folder / "build"
    configure = ["cmake", "-S", str(EXAMPLE), "-B", str(out), f"-DCMAKE_PREFIX_PATH={prefix}",
                 "-DCMAKE_COMPILE_WARNING_AS_ERROR=ON"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    configured = subprocess.run(configure, capture_output=True, text=True, timeout=300)
    assert configured.returncode == 0, configured.stdout[-4000:] + configured.stderr[-4000:]
    built = subprocess.run(["cmake", "--build", str(out), "--parallel", str(os.cpu_count() or 2)],
                           capture_output=True, text=True, timeout=BUILD_SECONDS)
    assert built.returncode == 0, built.stdout[-6000:] + built.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def client_run(tmp_path_factory: pytest.TempPathFactory) -> Tuple[dict, Path]:
    if is_tsan_build(loaded_library_path()):
        pytest.skip("the Qt client is its own program, built against the release library, which the "
                    "ThreadSanitizer run does not instrument: it runs in the plain run")
    for tool in ("cmake", "opusenc", "sox", "ffmpeg"):
        if shutil.which(tool) is None:
            skip(f"{tool} is missing (make deps installs it)")
    if not any(shutil.which(compiler) for compiler in ("c++", "g++", "clang++")):
        skip("no C++ compiler: c++, g++ or clang++ (make deps installs g++)")
    if not qt6_widgets_found():
        skip("Qt 6 Widgets is missing (make deps installs qt6-base-dev)")
    folder = tmp_path_factory.mktemp("qt")
    build = build_example(folder)
    driver = build / "voicenote-qt-driver"
    assert driver.exists(), f"the build made no {driver}"
    conversation, microphone = write_conversation(folder)
    out = folder / "out"
    out.mkdir()
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700)
    # Offscreen, with a media cache and resume positions of its own (never the user's).
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CACHE_HOME=str(folder / "xdg-cache"),
               XDG_RUNTIME_DIR=str(runtime))
    if session_bus_missing():
        skip(f"the client's media controls: {session_bus_missing()}")
    # A session bus of the run's own: the client's player shows itself to the media controls there (MPRIS).
    with private_session_bus() as address:
        env["DBUS_SESSION_BUS_ADDRESS"] = address
        result = subprocess.run(
            [str(driver), "--messages", str(conversation), "--out", str(out),
             "--mic", "vn_mic", "--mic-config", microphone_config(microphone),
             "--speaker", "vn_spk", "--speaker-config", speaker_config(out / "speaker.raw")],
            env=env, capture_output=True, text=True, timeout=DRIVER_SECONDS)
    return read_report(out, result), folder


def test_a_note_recorded_through_the_flow_is_sent_into_the_list(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    assert report["steps"] == [
        "the window is shown", "the first view", "recording, live bars", "locked", "preview", "the cut preview",
        "the preview drawn", "the new message in the list", "recording from the keyboard",
        "the keyboard's note in the list", "recording, to be cancelled", "a slide left cancels",
        "every note after the first plays by itself, the sent ones too",
        "a frame drawn after the end", "the rate button shows 1.5x", "the rate button shows 2x",
        "the rate button shows 0.5x", "the rate button shows 1x", "scrubbed to the middle of the first note",
        "the window drawn", "a click on a word seeks the note there", "on the desktop's media controls"]
    assert [entry["step"] for entry in report["step_durations"]] == report["steps"]
    assert report["locked_label"].startswith("● 0:0") and report["locked_label"].endswith("locked")
    # The end handle at 80 %: the take is cut to 80 % of what was recorded, and that is what is sent.
    assert report["recorded"] >= 2.0
    check_the_sent_notes(report)


def test_a_hold_slid_left_is_cancelled_and_its_file_deleted(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    after = report["after_cancel"]
    assert after["rows"] == 4 and len(after["sent"]) == 2
    assert after["sent"][0] == report["sent"]["path"]
    assert after["takes"] == sorted(os.path.basename(path) for path in after["sent"])  # no third file, no .part


def test_play_and_the_next_note_plays_by_itself_on_the_speaker(client_run: Tuple[dict, Path]) -> None:
    report, folder = client_run
    first, second = f"file://{folder}/n440.ogg", f"file://{folder}/n880.ogg"
    sent = f"file://{report['sent']['path']}"
    items = report["items"]
    assert items[:6] == [first, "finished " + first, second, "finished " + second, sent, "finished " + sent]
    assert len(items) >= 8 and items[7] == "finished " + items[6]  # the keyboard's note, last of the queue
    assert report["play_label_after_the_end"].startswith("Play voice message")
    check_the_speaker(report, folder)


def test_the_rate_button_steps_and_a_click_on_the_waveform_scrubs(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    assert report["rates"] == ["1.5x", "2x", "0.5x", "1x"]  # shown on every row: the player keeps one rate
    assert report["rate_labels"] == [f"Playback speed {rate}" for rate in report["rates"]]
    assert report["rate_label"] == "1x"
    scrubbed = report["scrubbed"]  # the middle of the first (2 s) note, paused there
    assert scrubbed["progress"] == pytest.approx(0.5, abs=0.05)
    assert scrubbed["player_time"] == pytest.approx(1.0, abs=0.1)
    assert scrubbed["position_label"] in ("0:00", "0:01")


def test_events_reach_the_gui_thread_through_the_loop(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    assert report["callbacks"] > 20
    assert report["callbacks_off_gui_thread"] == 0
    assert report["loop_wakeups"] > 0 and report["loop_dispatched"] >= report["callbacks"]


def test_the_screenshots_show_the_waveforms(client_run: Tuple[dict, Path]) -> None:
    report, folder = client_run
    # The window keeps the size it was given (560 × 640): neither the preview nor the rows widen it.
    assert report["window_sizes"] == {name: [560, 640] for name in ("recording.png", "preview.png", "window.png")}
    for area in check_the_waveform_screenshots(report, folder):
        assert area["visible"] and area["width"] >= 220, area
    preview = report["preview_waveform"]  # the take in preview, with its trim handles
    assert preview["visible"] and preview["differing_pixels"] > preview["width"] * preview["height"] / 10, preview
    assert (folder / "out" / "recording.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bars = report["live_bars"]  # the live levels while locked
    assert bars["visible"] and bars["differing_pixels"] > bars["width"], bars


def test_a_carried_transcript_is_shown_and_a_word_seeks_the_note(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    assert report["transcript_text"] == "hello world"
    assert abs(report["seek_position"] - 1.15) < 0.01  # 50 ms before "world"


def test_a_loaded_note_is_on_the_desktops_media_controls_with_its_sender(client_run: Tuple[dict, Path]) -> None:
    report, _ = client_run
    # The conversation's first note (its message's user is "alice" in gui_clients.write_conversation).
    assert report.get("media_controls") == "Voice message|alice", report.get("steps")
