#!/usr/bin/python3
"""Drives the GTK 4 example (bindings/python/examples/gtk/voicenote_chat.py) through its widgets' own signals, under
Xvfb, with the system interpreter (PyGObject is Debian's); run by test_gtk_client.py.

    gtk_driver.py --messages M.json --out DIR --mic-config TEXT --speaker-config TEXT

Script: press the record button, hold (the flow's manual clock passes the minimum press), slide up (locked), stop,
move the trim handles and cut, send; the new message appears in the list; play the first note, and the next one
plays by itself. Then a screenshot of the window (DIR/window.png) and a report (DIR/report.json): what each step
saw, the waveform areas' pixels against the background, the player's item changes. Every wait is bounded: a step
that does not come within its time ends the run with the report saying which.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

import voicenote  # noqa: E402
import voicenote_chat  # noqa: E402

STEP_SECONDS = 30


class Driver:
    def __init__(self, app: Gtk.Application, options: argparse.Namespace) -> None:
        self.out = Path(options.out)
        self.clock = voicenote.ManualClock()
        chat_options = voicenote_chat.parse(["--messages", options.messages, "--user-id", "me",
                                             "--recordings", str(self.out / "takes"), "--mic", "vn_mic",
                                             "--mic-config", options.mic_config, "--speaker", "vn_spk",
                                             "--speaker-config", options.speaker_config])
        self.window = voicenote_chat.ChatWindow(app, chat_options, clock_=self.clock)
        self.window.set_decorated(False)  # its content at the screen's top left, for the screenshot
        self.window.present()
        self.report: Dict[str, Any] = {"steps": [], "items": []}
        self.window.player.subscribe(self._player_event)
        self.steps = self.script()
        self.waiting: Optional[Callable[[], bool]] = None
        self.deadline = 0.0
        GLib.timeout_add(20, self._tick)

    def _player_event(self, event: Any) -> None:
        if isinstance(event, voicenote.PlayerItemChanged):
            self.report["items"].append(event.location)
        elif isinstance(event, voicenote.PlaybackFinished):
            self.report["items"].append("finished " + event.location)


    def until(self, what: str, condition: Callable[[], bool]) -> Callable[[], bool]:
        self.report["steps"].append(what)
        return condition

    def script(self) -> Iterator[Callable[[], bool]]:
        composer = self.window.composer
        flow = self.window.flow
        yield self.until("the window is shown", lambda: self.window.get_mapped() and composer.record.get_width() > 0)
        yield self.until("the first view", lambda: composer.view.state is voicenote.FlowState.IDLE)
        x, y = composer.record.get_width() / 2, composer.record.get_height() / 2
        composer.press.emit("drag-begin", x, y)
        self.clock.advance(0.5)  # held for the minimum press
        yield self.until("recording, live bars", lambda: composer.view.state is voicenote.FlowState.RECORDING
                         and composer.view.duration >= 1.0 and bool(composer.view.levels))
        self.report["recording_label"] = composer.status.get_label()
        composer.press.emit("drag-update", 0.0, -(voicenote_chat.LOCK_DISTANCE + 10))
        composer.press.emit("drag-end", 0.0, -(voicenote_chat.LOCK_DISTANCE + 10))
        yield self.until("locked", lambda: composer.view.state is voicenote.FlowState.LOCKED
                         and composer.view.duration >= 2.0)
        composer.stop.emit("clicked")
        yield self.until("preview", lambda: composer.view.state is voicenote.FlowState.PREVIEW)
        recorded = composer.view.duration
        composer.trim_start.set_value(0.1)
        composer.trim_end.set_value(0.9)
        composer.cut.emit("clicked")
        yield self.until("the cut preview", lambda: composer.view.state is voicenote.FlowState.PREVIEW
                         and abs(composer.view.duration - recorded * 0.8) < 0.01)
        composer.trim_start.set_value(0.05)  # handles shown on the cut take, for the picture
        composer.trim_end.set_value(0.95)
        yield self.until("the preview drawn", lambda: True)
        self.screenshot("preview.png")
        self.report["recorded"], self.report["cut"] = recorded, composer.view.duration
        rows_before = len(self.window.rows)
        composer.send.emit("clicked")
        yield self.until("the new message in the list", lambda: len(self.window.rows) == rows_before + 1
                         and composer.view.state is voicenote.FlowState.IDLE)
        self.report["sent"] = {"path": self.window.sent[0].path, "duration": self.window.sent[0].duration}
        # The keyboard: R held records like the button (the clock passes the minimum press), released it sends.
        self.window.keys.emit("key-pressed", Gdk.KEY_r, 0, Gdk.ModifierType(0))
        self.clock.advance(0.5)
        yield self.until("recording from the keyboard", lambda: composer.view.state is voicenote.FlowState.RECORDING
                         and composer.view.duration >= 1.0)
        self.window.keys.emit("key-released", Gdk.KEY_r, 0, Gdk.ModifierType(0))
        yield self.until("the keyboard's note in the list", lambda: len(self.window.rows) == rows_before + 2
                         and composer.view.state is voicenote.FlowState.IDLE)
        self.report["sent_by_keyboard"] = self.window.sent[1].duration
        first = self.window.rows[0]
        first.play_button.emit("clicked")
        last = self.window.rows[-1].url
        yield self.until("every note after the first plays by itself, the sent ones too",
                         lambda: "finished " + last in self.report["items"])
        yield self.until("a frame drawn after the end", lambda: True)
        self.report["rows"] = len(self.window.rows)
        self.report["accessible_record_label"] = composer.record.get_tooltip_text()
        self.report["rate_label"] = first.rate_button.get_label()
        self.screenshot("window.png")

    def screenshot(self, name: str) -> None:
        """The window as the X server shows it (FFmpeg's x11grab: PyGObject 3.42 cannot hand over GTK's render
        nodes), to window.png; and how many pixels of each waveform area differ from the background beside it. The
        window is undecorated at the screen's top left (no window manager runs under Xvfb)."""
        width, height = self.window.get_width(), self.window.get_height()
        grab = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "x11grab", "-video_size", f"{width}x{height}",
                "-draw_mouse", "0", "-i", os.environ["DISPLAY"] + "+0,0", "-frames:v", "1"]
        subprocess.run(grab + [str(self.out / name)], check=True, timeout=STEP_SECONDS)
        pixels = subprocess.run(grab + ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"], check=True, capture_output=True,
                                timeout=STEP_SECONDS).stdout
        stride = width * 3
        areas = []
        for row in self.window.rows:
            ok, bounds = row.waveform.compute_bounds(self.window)
            if not ok:
                continue
            x0, y0 = int(bounds.get_x()), int(bounds.get_y())
            w, h = int(bounds.get_width()), int(bounds.get_height())
            background = pixels[y0 * stride + x0 * 3: y0 * stride + x0 * 3 + 3]
            differing = sum(1 for yy in range(y0, min(y0 + h, height)) for xx in range(x0, min(x0 + w, width))
                            if pixels[yy * stride + xx * 3: yy * stride + xx * 3 + 3] != background)
            areas.append({"width": w, "height": h, "differing_pixels": differing})
        self.report.setdefault("waveform_areas", {})[name] = areas

    def _tick(self) -> bool:
        try:
            if self.waiting is not None:
                if not self.waiting():
                    if GLib.get_monotonic_time() / 1e6 > self.deadline:
                        self.finish(f"timed out: {self.report['steps'][-1]}")
                        return False
                    return True
            self.waiting = next(self.steps)
            self.deadline = GLib.get_monotonic_time() / 1e6 + STEP_SECONDS
        except StopIteration:
            self.finish(None)
            return False
        except Exception:  # noqa: BLE001 - the report says what failed
            self.finish(traceback.format_exc())
            return False
        return True

    def finish(self, failure: Optional[str]) -> None:
        self.report["failure"] = failure
        (self.out / "report.json").write_text(json.dumps(self.report, indent=2))
        self.window.close_voicenote()
        self.clock.close()
        self.window.get_application().quit()


def main() -> int:
    parser = argparse.ArgumentParser()
    for name in ("--messages", "--out", "--mic-config", "--speaker-config"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    app = Gtk.Application(application_id="org.voicenote.ChatTest")
    drivers: List[Driver] = []
    def activate(application: Gtk.Application) -> None:
        try:
            drivers.append(Driver(application, options))
        except Exception:  # noqa: BLE001 - the report says what failed, and the run ends
            (Path(options.out) / "report.json").write_text(json.dumps({"failure": traceback.format_exc()}))
            application.quit()

    app.connect("activate", activate)
    app.run([sys.argv[0]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
