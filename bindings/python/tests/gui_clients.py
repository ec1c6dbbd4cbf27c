"""What the two GUI example clients' tests share (test_qt_client.py and test_gtk_client.py): the fixture
conversation (alice's two notes, 440 and 880 Hz) and the 300 Hz file microphone, the ALSA configuration text of the
file microphone and speaker the drivers are given, the driver's report, the checks of the notes sent through the
flow, the tones the speaker heard, in order, and the screenshots' waveform areas."""
from __future__ import annotations

import json
import subprocess
from array import array
from pathlib import Path
from typing import List

import pytest

from audiofiles import dominant_frequency, write_tone
from microphones import decoded_samples, run

import voicenote


#: The transcript the first note's attachment carries: the clients show its words and seek to one clicked.
CARRIED_TRANSCRIPT = {"recogniser": "test/script", "text": "hello world", "words": [
    {"text": "hello", "start": 0.4, "end": 0.8, "confidence": 0.9},
    {"text": "world", "start": 1.2, "end": 1.6, "confidence": 0.8}]}


def write_conversation(folder: Path) -> "tuple[Path, Path]":
    """Writes folder/messages.json (alice's notes n440.ogg and n880.ogg, 2 s each; the first carrying
    CARRIED_TRANSCRIPT) and folder/mic.raw (30 s of a 300 Hz sine, raw 48 kHz mono S16LE); returns the two paths."""
    messages = []
    for index, frequency in enumerate((440, 880)):
        wav = write_tone(folder / f"n{frequency}.wav", 2, frequency)
        note = folder / f"n{frequency}.ogg"
        run(["opusenc", "--quiet", str(wav), str(note)])
        attachment = {"type": "voiceRecording", "asset_url": f"file://{note}",
                      "duration": voicenote.info(note)["duration"], "waveform_data": voicenote.waveform(note)}
        if index == 0:  # the first carries its transcript (a tone has no words to recognise)
            attachment["voicenote_transcript"] = CARRIED_TRANSCRIPT
        messages.append({"id": f"m{index}", "user": {"id": "alice"}, "text": f"note {index}",
                         "attachments": [attachment]})
    conversation = folder / "messages.json"
    conversation.write_text(json.dumps({"messages": messages}))
    microphone = folder / "mic.raw"
    run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", str(microphone),
         "synth", "30", "sine", "300", "vol", "0.3"])
    return conversation, microphone


def microphone_config(microphone: Path) -> str:
    """The file microphone vn_mic reading `microphone`."""
    return f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{microphone}" format raw }}'


def speaker_config(output: Path) -> str:
    """The file speaker vn_spk writing raw frames to `output`."""
    return f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{output}" format raw }}'


def read_report(out: Path, result: "subprocess.CompletedProcess[str]") -> dict:
    """The driver's out/report.json, checked: written, no failure, and the driver exited with 0."""
    report_file = out / "report.json"
    assert report_file.exists(), result.stdout[-2000:] + result.stderr[-2000:]
    report = json.loads(report_file.read_text())
    assert report["failure"] is None, f"{report['failure']}\nsteps: {report.get('steps')}\n{result.stderr[-2000:]}"
    assert result.returncode == 0, result.stderr[-2000:]
    return report


def check_the_sent_notes(report: dict, recording: "tuple[str, str]" = ("● 0:0", "slide to cancel")) -> None:
    """The take cut to 80 % is what was sent, the list holds the two notes and the two sent, and the record button
    is labelled for assistive technologies. While recording, the label the driver read starts with the time
    (`recording`'s first part: Qt's status line by default) and holds the slide-to-cancel hint (its second)."""
    assert report["recording_label"].startswith(recording[0]) and recording[1] in report["recording_label"]
    assert report["cut"] == pytest.approx(report["recorded"] * 0.8, abs=0.01)
    sent = report["sent"]
    assert sent["duration"] == pytest.approx(report["cut"], abs=1e-6)
    assert abs(decoded_samples(sent["path"]) - round(sent["duration"] * 48000)) <= 1
    assert report["rows"] == 4  # the two notes, the one sent with the button and the one sent with the keyboard
    assert report["sent_by_keyboard"] > 0.5
    assert report["accessible_record_label"] == "Record a voice message: hold to record"


def check_the_speaker(report: dict, folder: Path) -> None:
    """The speaker (folder/out/speaker.raw) heard alice's two notes, then the ones recorded from the (300 Hz)
    microphone and sent, and nothing else."""
    samples = array("h", (folder / "out" / "speaker.raw").read_bytes())
    heard: List[int] = []
    for start in range(0, len(samples) - 4800 + 1, 4800):
        frequency = dominant_frequency(samples[start:start + 4800])
        tone = next((tone for tone in (300, 440, 880) if abs(frequency - tone) < tone * 0.03), None)
        if tone is not None and (not heard or heard[-1] != tone):
            heard.append(tone)
    assert heard == [440, 880, 300], heard
    assert len(samples) / 48000 == pytest.approx(4 + report["sent"]["duration"] + report["sent_by_keyboard"], abs=0.2)


def check_the_waveform_screenshots(report: dict, folder: Path) -> List[dict]:
    """preview.png (two rows) and window.png (four) are PNGs whose waveform areas are drawn; returns the areas."""
    checked = []
    for name, rows in (("preview.png", 2), ("window.png", 4)):
        picture = folder / "out" / name
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        areas = report["waveform_areas"][name]
        assert len(areas) == rows
        for area in areas:  # bars of 1.5 px every 3.5 px: far more than a few stray pixels
            assert area["differing_pixels"] > area["width"] * area["height"] / 10, area
        checked += areas
    return checked
