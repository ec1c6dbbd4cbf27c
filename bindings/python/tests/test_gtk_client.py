"""The GTK 4 example client (bindings/python/examples/gtk/voicenote_chat.py) under Xvfb, driven through its widgets'
own signals by gtk_driver.py with the system interpreter (PyGObject from Debian): record through the flow (press,
hold, slide up to lock, stop, trim, send), the new message in the list, play, and the next note by itself; the
speaker's output holds the notes in order, and the screenshots' waveform areas are not blank."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from array import array
from pathlib import Path
from typing import List

import pytest

from audiofiles import dominant_frequency, is_tsan_build, loaded_library_path, write_tone
from helpers import PACKAGE_ROOT, TIMEOUT
from microphones import decoded_samples, run

import voicenote

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
    messages = []
    for index, frequency in enumerate((440, 880)):
        wav = write_tone(folder / f"n{frequency}.wav", 2, frequency)
        note = folder / f"n{frequency}.ogg"
        run(["opusenc", "--quiet", str(wav), str(note)])
        messages.append({"id": f"m{index}", "user": {"id": "alice"}, "text": f"note {index}",
                         "attachments": [{"type": "voiceRecording", "asset_url": f"file://{note}",
                                          "duration": voicenote.info(note)["duration"],
                                          "waveform_data": voicenote.waveform(note)}]})
    (folder / "messages.json").write_text(json.dumps({"messages": messages}))
    microphone = folder / "mic.raw"
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(microphone),
         "synth", "30", "sine", "300", "vol", "0.3"])
    out = folder / "out"
    out.mkdir()
    env = dict(os.environ, PYTHONPATH=f"{PACKAGE_ROOT}{os.pathsep}{EXAMPLE}", GTK_A11Y="none", NO_AT_BRIDGE="1")
    result = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", SYSTEM_PYTHON, str(DRIVER), "--messages",
         str(folder / "messages.json"), "--out", str(out),
         "--mic-config", f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{microphone}" '
                         'format raw }',
         "--speaker-config", f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{out}/speaker.raw" format raw }}'],
        env=env, capture_output=True, text=True, timeout=120)
    report_file = out / "report.json"
    assert report_file.exists(), result.stdout[-2000:] + result.stderr[-2000:]
    report = json.loads(report_file.read_text())
    assert report["failure"] is None, report["failure"] + "\n" + result.stderr[-2000:]
    assert result.returncode == 0, result.stderr[-2000:]
    return report, folder


def test_a_note_recorded_through_the_flow_is_sent_into_the_list(client_run: "tuple[dict, Path]") -> None:
    report, _ = client_run
    assert report["steps"][:7] == ["the window is shown", "the first view", "recording, live bars", "locked", "preview",
                                   "the cut preview", "the preview drawn"]
    assert report["recording_label"].startswith("● 0:0") and "slide to cancel" in report["recording_label"]
    assert report["cut"] == pytest.approx(report["recorded"] * 0.8, abs=0.01)
    sent = report["sent"]
    assert sent["duration"] == pytest.approx(report["cut"], abs=1e-6)
    assert abs(decoded_samples(sent["path"]) - round(sent["duration"] * 48000)) <= 1
    assert report["rows"] == 4  # the two notes, the one sent with the button and the one sent with the keyboard
    assert report["sent_by_keyboard"] > 0.5
    assert report["accessible_record_label"] == "Record a voice message: hold to record"


def test_play_and_the_next_note_plays_by_itself_on_the_speaker(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    first, second = f"file://{folder}/n440.ogg", f"file://{folder}/n880.ogg"
    sent = f"file://{report['sent']['path']}"
    assert report["items"][:6] == [first, "finished " + first, second, "finished " + second, sent, "finished " + sent]
    # The speaker heard alice's two notes, then the one recorded from the (300 Hz) microphone and sent.
    samples = array("h", (folder / "out" / "speaker.raw").read_bytes())
    heard: List[int] = []
    for start in range(0, len(samples) - 4800 + 1, 4800):
        frequency = dominant_frequency(samples[start:start + 4800])
        tone = next((tone for tone in (300, 440, 880) if abs(frequency - tone) < tone * 0.03), None)
        if tone is not None and (not heard or heard[-1] != tone):
            heard.append(tone)
    assert heard == [440, 880, 300], heard
    assert len(samples) / 48000 == pytest.approx(4 + report["sent"]["duration"] + report["sent_by_keyboard"], abs=0.2)


def test_the_screenshots_show_the_waveforms(client_run: "tuple[dict, Path]") -> None:
    report, folder = client_run
    for name, rows in (("preview.png", 2), ("window.png", 4)):
        picture = folder / "out" / name
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        areas = report["waveform_areas"][name]
        assert len(areas) == rows
        for area in areas:  # bars of 1.5 px every 3.5 px: far more than a few stray pixels
            assert area["differing_pixels"] > area["width"] * area["height"] / 10, area
