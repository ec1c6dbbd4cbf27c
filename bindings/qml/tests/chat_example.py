#!/usr/bin/env python3
"""Drives the QML chat example (bindings/cpp/examples/qml, built into BUILD) on its own Xvfb server through real X
input (xdotool), as a user would: a note recorded with Space held (released: sent into the list), a note held with
the pointer, slid up to lock, stopped with the record button and sent with the composer's send button, then the
first note played: every note after it plays by itself, the two sent ones too. The program reports its events as
JSON lines (--report); every wait here is for such a line, bounded. Usage: chat_example.py BUILD_QML_CHAT_DIR."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Optional

RECORDING, LOCKED, PREVIEW = 2, 3, 4  # RecordingFlow.State


class Session:
    """The example running on an Xvfb display, its report read as it grows."""

    def __init__(self, program: Path, folder: Path) -> None:
        self.folder = folder
        self.report = folder / "report.jsonl"
        self.events: List[dict] = []
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.xvfb.stdout is not None
        self.display = ":" + self.xvfb.stdout.readline().decode().strip()
        env = dict(os.environ, DISPLAY=self.display, QT_QPA_PLATFORM="xcb", XDG_CACHE_HOME=str(folder / "cache"),
                   XDG_DATA_HOME=str(folder / "data"))
        self.env = env
        self.app = subprocess.Popen(
            [str(program), "--messages", str(folder / "messages.json"), "--recordings", str(folder / "takes"),
             "--report", str(self.report), "--mic", "vn_mic", "--mic-config",
             f'pcm.vn_mic {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{folder / "mic.raw"}" '
             'format raw }',
             "--speaker", "vn_spk", "--speaker-config",
             f'pcm.vn_spk {{ type file slave.pcm {{ type null }} file "{folder / "speaker.raw"}" format raw }}'],
            env=env, stderr=subprocess.PIPE, text=True)

    def close(self) -> str:
        """Ends the program and the server; returns what the program wrote on stderr."""
        self.app.terminate()
        try:
            _, errors = self.app.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.app.kill()
            _, errors = self.app.communicate()
        self.xvfb.terminate()
        self.xvfb.wait(timeout=10)
        return errors or ""

    def read(self) -> None:
        if self.report.exists():
            lines = self.report.read_text().splitlines()
            self.events = [json.loads(line) for line in lines if line.endswith("}")]

    def mark(self) -> int:
        """How many events there are now: wait() after it looks at the later ones only."""
        self.read()
        return len(self.events)

    def wait(self, what: str, condition: Callable[[dict], bool], seconds: float = 20, since: int = 0) -> dict:
        """The first event from the `since`th on for which `condition` holds, waited for up to `seconds`."""
        deadline = time.monotonic() + seconds
        while True:
            self.read()
            found = next((event for event in self.events[since:] if condition(event)), None)
            if found is not None:
                return found
            if self.app.poll() is not None:
                raise AssertionError(f"the program ended ({self.app.returncode}) waiting for {what}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {seconds} s; events: {self.events[-8:]}")
            time.sleep(0.05)  # polling the program's report file, bounded by the deadline

    def xdotool(self, *arguments: str) -> None:
        subprocess.run(["xdotool", *arguments], env=self.env, check=True, timeout=10)


def make_conversation(folder: Path) -> None:
    """Two 2 s notes from alice (Ogg Opus by sox and opusenc) in Stream's shape, and a microphone of 3 s of 300 Hz (read unpaced, again at each take)."""
    messages = []
    for index, frequency in enumerate((440, 880)):
        wav, note = folder / f"n{frequency}.wav", folder / f"n{frequency}.ogg"
        subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", str(wav), "synth", "2", "sine",
                        str(frequency), "vol", "0.3"], check=True, timeout=60)
        subprocess.run(["opusenc", "--quiet", str(wav), str(note)], check=True, timeout=60)
        messages.append({"id": f"m{index}", "user": {"id": "alice"}, "text": f"note {index}",
                         "attachments": [{"type": "voiceRecording", "asset_url": f"file://{note}", "duration": 2.0,
                                          "waveform_data": [0.2, 0.6, 0.9, 0.5, 0.3] * 8}]})
    (folder / "messages.json").write_text(json.dumps({"messages": messages}))
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw",
                    str(folder / "mic.raw"), "synth", "3", "sine", "300", "vol", "0.3"], check=True, timeout=60)


def centre(place: dict, dx: float = 0, dy: float = 0) -> List[str]:
    return [str(round(place["x"] + place["width"] / 2 + dx)), str(round(place["y"] + place["height"] / 2 + dy))]


def drive(session: Session) -> None:
    shown = session.wait("the window shown", lambda e: e["event"] == "shown", 30)
    assert shown["rows"] == 2, shown
    button = shown["recordButton"]

    # Space held on the focused record button records; its release sends.
    session.xdotool("keydown", "space")
    session.wait("a take held by Space", lambda e: e["event"] == "view" and e["state"] == RECORDING
                 and e["duration"] >= 1.0)
    session.xdotool("keyup", "space")
    first = session.wait("the keyboard's note sent", lambda e: e["event"] == "sent")
    assert first["rows"] == 3 and first["duration"] >= 1.0, first

    # The pointer: held, slid up 60 px (the lock is at 50), released; the record button stops it; send.
    session.xdotool("mousemove", *centre(button))
    since = session.mark()
    session.xdotool("mousedown", "1")
    session.wait("a take held by the pointer", lambda e: e["event"] == "view" and e["state"] == RECORDING,
                 since=since)
    for step in (20, 40, 60):
        session.xdotool("mousemove", *centre(button, 0, -step))
    session.wait("locked", lambda e: e["event"] == "view" and e["state"] == LOCKED, since=since)
    session.xdotool("mouseup", "1")
    session.wait("a second locked", lambda e: e["event"] == "view" and e["state"] == LOCKED and e["duration"] >= 1.0,
                 since=since)
    session.xdotool("mousemove", *centre(button), "click", "1")
    session.wait("the preview", lambda e: e["event"] == "view" and e["state"] == PREVIEW, since=since)
    composer = shown["composer"]  # in preview the send button is the composer's last item
    session.xdotool("mousemove", str(round(composer["x"] + composer["width"] - 20)),
                    str(round(composer["y"] + composer["height"] / 2)), "click", "1")
    second = session.wait("the locked note sent", lambda e: e["event"] == "sent" and e["rows"] == 4)
    assert second["path"] != first["path"]

    # The first note's play button: the rest follow by themselves.
    message = shown["firstMessage"]
    session.xdotool("mousemove", str(round(message["x"] + 12)), str(round(message["y"] + message["height"] / 2)),
                    "click", "1")
    session.wait("the queue's end", lambda e: e["event"] == "ended", 60)
    items = [event["index"] for event in session.events if event["event"] == "item"]
    assert items == [0, 1, 2, 3], items
    played = [event["location"] for event in session.events if event["event"] == "item"]
    assert played[2:] == [first["path"], second["path"]], played
    failures = [event for event in session.events if event["event"] == "failed"]
    assert failures == [], failures
    assert (session.folder / "speaker.raw").stat().st_size > 48000 * 2 * 4, "the speaker heard the notes"


def main(build: Path) -> int:
    program = build / "voicenote-qml-chat"
    assert program.exists(), f"no {program}"
    with tempfile.TemporaryDirectory(prefix="voicenote-qml-chat.") as name:
        folder = Path(name)
        make_conversation(folder)
        started = time.monotonic()
        session = Session(program, folder)
        failure: Optional[BaseException] = None
        try:
            drive(session)
        except AssertionError as error:
            failure = error
        errors = session.close()
        if failure is not None:
            print(f"FAIL: the QML chat example: {failure}\n{errors[-3000:]}", file=sys.stderr)
            return 1
        print(f"PASS: the QML chat example driven through X input in {time.monotonic() - started:.1f} s")
        return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
