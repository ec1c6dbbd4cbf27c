#!/usr/bin/python3
"""Drives the GTK 4 example (bindings/python/examples/gtk/voicenote_chat.py) under Xvfb with the system interpreter
(PyGObject is Debian's), through real X input (xdotool) on voicenote-gtk's widgets; run by test_gtk_client.py.

    gtk_driver.py --messages M.json --out DIR --mic-config TEXT --speaker-config TEXT

Script: press the composer's record button, hold (the flow's manual clock passes the minimum press), slide up
(locked), release, click it (stop: preview), trim the take to its middle 80 % (the flow's trim: the composer's handles
move by pixels or 5 % steps), click send; the new message appears in the list; R held and released on the window
sends another; click the first note's play button, and every note after it plays by itself. Then a screenshot of the
window (DIR/window.png) and a report (DIR/report.json): what each step saw, the waveform areas' pixels against the
background, the player's item changes. Every wait is bounded: a step that does not come within its time ends the run
with the report saying which. Widgets are found through the widgets' public API and their documented children
(a VoiceMessage's play button first, its speed button last; the composer's send button `.suggested-action`).
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
gi.require_version("Voicenote", "1.0")
from gi.repository import Gdk, GLib, Gtk, Voicenote  # noqa: E402

import voicenote_chat  # noqa: E402

STEP_SECONDS = 30
LOCK_SLIDE = 60  # px up: past the flow's lock distance (50 px)
State = Voicenote.FlowState


def descendants(widget: Gtk.Widget) -> Iterator[Gtk.Widget]:
    child = widget.get_first_child()
    while child is not None:
        yield child
        yield from descendants(child)
        child = child.get_next_sibling()


class Driver:
    def __init__(self, app: Gtk.Application, options: argparse.Namespace) -> None:
        self.out = Path(options.out)
        self.clock = Voicenote.ManualClock.new()
        chat_options = voicenote_chat.parse(["--messages", options.messages, "--user-id", "me",
                                             "--recordings", str(self.out / "takes"), "--mic", "vn_mic",
                                             "--mic-config", options.mic_config, "--speaker", "vn_spk",
                                             "--speaker-config", options.speaker_config])
        self.window = voicenote_chat.ChatWindow(app, chat_options, clock=self.clock)
        self.window.set_decorated(False)  # its content at the screen's top left: X coordinates are the window's
        self.presses = 0  # X button presses the window has seen (capture phase: before the widget under them)
        counter = Gtk.GestureClick(button=0, propagation_phase=Gtk.PropagationPhase.CAPTURE)  # never claims
        counter.connect("pressed", self._count_press)
        self.window.add_controller(counter)
        self.window.present()
        self.report: Dict[str, Any] = {"steps": [], "items": []}
        self.window.player.connect("item-changed", lambda _p, location, _key: self.report["items"].append(location))
        self.window.player.connect("finished", lambda _p, location: self.report["items"].append("finished " + location))
        self.steps = self.script()
        self.waiting: Optional[Callable[[], bool]] = None
        self.waiting_for = ""
        self.deadline = 0.0
        GLib.timeout_add(20, self._tick)

    def _count_press(self, *_args: Any) -> None:
        self.presses += 1

    def until(self, what: str, condition: Callable[[], bool]) -> Callable[[], bool]:
        self.report["steps"].append(what)
        self.waiting_for = what
        return condition

    def pressed(self, before: int) -> Callable[[], bool]:
        """A wait (not a step of the report) for the window to have seen a press after `before`."""
        self.waiting_for = "the X press reaching the window"
        return lambda: self.presses > before

    def xdotool(self, widget: Gtk.Widget, *actions: str) -> None:
        """Moves the pointer to the centre of `widget`, then runs `actions` (xdotool commands)."""
        ok, bounds = widget.compute_bounds(self.window)
        assert ok, f"{widget} is not in the window"
        x, y = bounds.get_x() + bounds.get_width() / 2, bounds.get_y() + bounds.get_height() / 2
        subprocess.run(["xdotool", "mousemove", str(round(x)), str(round(y)), *actions], check=True,
                       timeout=STEP_SECONDS)

    def frame_drawn(self) -> Callable[[], bool]:
        """A new frame of the window painted from now."""
        frame_clock = self.window.get_frame_clock()
        before = frame_clock.get_frame_counter()
        self.window.queue_draw()
        return lambda: frame_clock.get_frame_counter() > before

    def script(self) -> Iterator[Callable[[], bool]]:
        flow = self.window.flow
        composer = self.window.composer
        button = composer.get_record_button()
        yield self.until("the window is shown", lambda: self.window.get_mapped() and button.get_width() > 0)
        yield self.until("the first view", lambda: flow.props.state == State.IDLE)
        presses = self.presses
        self.xdotool(button, "mousedown", "1")
        yield self.pressed(presses)
        self.clock.advance(0.5)  # held for the minimum press
        yield self.until("recording, live bars", lambda: flow.props.state == State.RECORDING
                         and flow.props.duration >= 1.0 and bool(flow.props.levels.unpack()))
        self.report["recording_label"] = button.get_tooltip_text()
        subprocess.run(["xdotool", "mousemove_relative", "--", "0", str(-LOCK_SLIDE)], check=True, timeout=STEP_SECONDS)
        yield self.until("locked", lambda: flow.props.state == State.LOCKED and flow.props.duration >= 2.0)
        presses = self.presses
        subprocess.run(["xdotool", "mouseup", "1"], check=True, timeout=STEP_SECONDS)  # released up there
        self.xdotool(button, "click", "1")  # then a click on it, the stop button now
        yield self.until("preview", lambda: flow.props.state == State.PREVIEW and self.presses > presses)
        recorded = flow.props.duration
        flow.trim(recorded * 0.1, recorded * 0.9)
        yield self.until("the cut preview", lambda: flow.props.state == State.PREVIEW
                         and abs(flow.props.duration - recorded * 0.8) < 0.01)
        yield self.until("the preview drawn", self.frame_drawn())
        self.screenshot("preview.png")
        self.report["recorded"], self.report["cut"] = recorded, flow.props.duration
        rows_before = len(self.window.rows)
        send = next(w for w in descendants(composer) if isinstance(w, Gtk.Button) and w.get_mapped()
                    and w.has_css_class("suggested-action"))
        self.xdotool(send, "click", "1")
        yield self.until("the new message in the list", lambda: len(self.window.rows) == rows_before + 1
                         and flow.props.state == State.IDLE)
        self.report["sent"] = dict(self.window.sent[0])
        # The keyboard: R held records like the button (the clock passes the minimum press), released it sends.
        self.window.keys.emit("key-pressed", Gdk.KEY_r, 0, Gdk.ModifierType(0))
        self.clock.advance(0.5)
        yield self.until("recording from the keyboard", lambda: flow.props.state == State.RECORDING
                         and flow.props.duration >= 1.0)
        self.window.keys.emit("key-released", Gdk.KEY_r, 0, Gdk.ModifierType(0))
        yield self.until("the keyboard's note in the list", lambda: len(self.window.rows) == rows_before + 2
                         and flow.props.state == State.IDLE)
        self.report["sent_by_keyboard"] = self.window.sent[1]["duration"]
        first = self.window.rows[0]
        yield self.until("the new rows laid out", lambda: all(row.get_width() > 0 for row in self.window.rows))
        self.xdotool(first.get_first_child(), "click", "1")  # its play button
        last = self.window.rows[-1].get_location()
        yield self.until("every note after the first plays by itself, the sent ones too",
                         lambda: "finished " + last in self.report["items"])
        yield self.until("a frame drawn after the end", self.frame_drawn())
        self.report["rows"] = len(self.window.rows)
        self.report["accessible_record_label"] = button.get_tooltip_text()
        self.report["rate_label"] = first.get_last_child().get_label()
        self.screenshot("window.png")
        # The first note's transcript (carried by its message): its words shown; a click on "world" seeks there.
        view = first.get_next_sibling()
        self.report["transcript_text"] = view.get_text()
        view.emit("activate-link", "word:1")
        location = first.get_location()
        player = self.window.player
        yield self.until("a click on a word seeks the note there",
                         lambda: player.get_location() == location and abs(player.props.position - 1.15) < 0.01)
        self.report["seek_position"] = player.props.position
        # Loaded and paused there: the player is on the desktop's media controls (MPRIS) with the sender's name.
        if os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
            yield self.until("on the desktop's media controls", lambda: self.media_controls() != "")
            self.report["media_controls"] = self.media_controls()

    def media_controls(self) -> str:
        """What playerctl (the media keys' side) shows of the client's player: "title|artist", or "" for none."""
        shown = subprocess.run(["playerctl", "--no-messages", "metadata", "--format", "{{title}}|{{artist}}"],
                               capture_output=True, text=True, timeout=STEP_SECONDS)
        return shown.stdout.strip()

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
            ok, bounds = row.get_waveform().compute_bounds(self.window)
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
                        self.finish(f"timed out: {self.waiting_for}")
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
        self.clock.run_dispose()
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
