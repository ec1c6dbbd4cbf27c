#!/usr/bin/python3
"""A GTK 4 chat window with voice messages, built on voicenote: a model for Linux chat clients to copy.

- **The composer**: a hold-to-record button driven by :class:`voicenote.RecordingFlow` — hold it to record (live
  bars), slide left to cancel, slide up to lock; stop puts the take in preview, with trim handles and play; send adds
  it to the conversation. The keyboard works too (the flow's key inputs: hold R to record, Escape cancels, Enter
  sends) and every control carries an accessible label.
- **The conversation**: messages from a JSON file in Stream's shape (``{"messages": [...]}``, oldest first), each
  voice message drawn with its waveform (click or drag on it to scrub), play/pause, a rate button (1x → 1.5x → 2x →
  0.5x, kept by the player) and its position; when one ends, the next plays by itself
  (:meth:`voicenote.QueuePlayer.use_messages`).
- **Events reach GTK through the library's event loop**: the recorder, player and flow deliver into one
  :class:`voicenote.EventLoop` whose file descriptor GLib watches (``GLib.unix_fd_add``), so every callback runs on
  the GTK thread, and nothing polls.

Run it with the system interpreter (PyGObject comes from Debian: python3-gi, gir1.2-gtk-4.0)::

    /usr/bin/python3 voicenote_chat.py --messages conversation.json --user-id me

``--mic``/``--mic-config`` and ``--speaker``/``--speaker-config`` name other ALSA devices (configuration text, as the
library takes it: a virtual microphone or a file speaker in tests).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

import voicenote  # noqa: E402

#: The rates the rate button steps through, as Stream's and most chat apps do.
RATES = (1.0, 1.5, 2.0, 0.5)
#: How far (px) the pointer may slide up to lock, and left to cancel (the flow's defaults).
LOCK_DISTANCE, CANCEL_DISTANCE = 50.0, 75.0


def clock(seconds: float) -> str:
    """m:ss"""
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def label(widget: Gtk.Widget, text: str) -> None:
    """The accessible label a screen reader says for ``widget`` (and its tooltip)."""
    widget.update_property([Gtk.AccessibleProperty.LABEL], [text])
    widget.set_tooltip_text(text)


class WaveformView(Gtk.DrawingArea):
    """A waveform as Stream draws it (voicenote.bars: 1.5 px bars, 2 px apart), the played part in the accent colour.
    ``on_scrub(fraction)`` is called for a click or a drag on it; trim handles are drawn when set."""

    def __init__(self, values: List[float], height: int = 36, on_scrub: Optional[Callable[[float], None]] = None) -> None:
        super().__init__()
        self.values = list(values)
        self.progress = 0.0
        self.trim: Optional[List[float]] = None  # [start, end] as fractions
        self.set_content_height(height)
        self.set_content_width(220)
        self.set_hexpand(True)
        self.set_draw_func(self._draw)
        self.on_scrub = on_scrub
        if on_scrub is not None:
            click = Gtk.GestureClick()
            click.connect("pressed", lambda _g, _n, x, _y: self._scrub(x))
            self.add_controller(click)
            drag = Gtk.GestureDrag()
            drag.connect("drag-update", self._dragged)
            self.add_controller(drag)
            label(self, "Waveform: click or drag to move in the voice message")

    def _dragged(self, gesture: Gtk.GestureDrag, dx: float, _dy: float) -> None:
        ok, x, _y = gesture.get_start_point()
        if ok:
            self._scrub(x + dx)

    def _scrub(self, x: float) -> None:
        width = max(1, self.get_width())
        if self.on_scrub is not None:
            self.on_scrub(min(1.0, max(0.0, x / width)))

    def set_values(self, values: List[float]) -> None:
        self.values = list(values)
        self.queue_draw()

    def set_progress(self, fraction: float) -> None:
        self.progress = min(1.0, max(0.0, fraction))
        self.queue_draw()

    def _draw(self, _area: Gtk.DrawingArea, cr: Any, width: int, height: int) -> None:
        heights = voicenote.bars(self.values, width, height) if self.values and width > 0 else []
        played = self.progress * width
        for index, bar in enumerate(heights):
            x = index * voicenote.BAR_PITCH
            inside = self.trim is None or self.trim[0] * width <= x <= self.trim[1] * width
            if x < played:
                cr.set_source_rgb(0.12, 0.44, 0.92)
            elif inside:
                cr.set_source_rgb(0.45, 0.48, 0.53)
            else:
                cr.set_source_rgb(0.82, 0.83, 0.85)
            cr.rectangle(x, (height - bar) / 2, voicenote.BAR_WIDTH, bar)
            cr.fill()
        if self.trim is not None:
            cr.set_source_rgb(0.9, 0.55, 0.1)
            for fraction in self.trim:
                cr.rectangle(min(width - 2, fraction * width), 0, 2, height)
                cr.fill()


class MessageRow(Gtk.Box):
    """One message: who sent it, its text, and for a voice message its player controls."""

    def __init__(self, chat: "ChatWindow", message: Dict[str, Any]) -> None:
        super().__init__(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        self.set_margin_top(6)
        self.set_margin_bottom(6)
        self.set_margin_start(10)
        self.set_margin_end(10)
        self.chat = chat
        sender = (message.get("user") or {}).get("id", "?")
        header = Gtk.Label(xalign=0)
        header.set_markup(f"<b>{GLib.markup_escape_text(sender)}</b>")
        self.append(header)
        if message.get("text"):
            self.append(Gtk.Label(label=message["text"], xalign=0, wrap=True))
        self.voice = next((a for a in message.get("attachments") or [] if a.get("type") == "voiceRecording"), None)
        if self.voice is None:
            return
        self.url: str = self.voice["asset_url"]
        self.duration: float = float(self.voice.get("duration") or 0)
        controls = Gtk.Box(spacing=8)
        self.play_button = Gtk.Button(icon_name="media-playback-start-symbolic")
        label(self.play_button, f"Play voice message from {sender}, {clock(self.duration)}")
        self.play_button.connect("clicked", lambda _b: chat.toggle(self))
        self.waveform = WaveformView(self.voice.get("waveform_data") or [],
                                     on_scrub=lambda fraction: chat.scrub(self, fraction))
        self.position = Gtk.Label(label=clock(self.duration), width_chars=5)
        self.rate_button = Gtk.Button(label="1x")
        label(self.rate_button, "Playback speed 1x")
        self.rate_button.connect("clicked", lambda _b: chat.next_rate())
        for widget in (self.play_button, self.waveform, self.position, self.rate_button):
            controls.append(widget)
        self.append(controls)

    def show_state(self, playing: bool, position: float, duration: float) -> None:
        self.play_button.set_icon_name("media-playback-pause-symbolic" if playing else "media-playback-start-symbolic")
        label(self.play_button, ("Pause" if playing else "Play") + f" voice message, {clock(position)} of {clock(duration)}")
        self.position.set_label(clock(position if playing or position > 0 else duration))
        self.waveform.set_progress(position / duration if duration > 0 else 0)


class Composer(Gtk.Box):
    """The hold-to-record button and what the flow's view says: live bars, slide to cancel, the lock, the preview
    with trim handles, and send."""

    def __init__(self, chat: "ChatWindow") -> None:
        super().__init__(orientation=Gtk.Orientation.VERTICAL, spacing=4)
        self.set_margin_top(6)
        self.set_margin_bottom(8)
        self.set_margin_start(10)
        self.set_margin_end(10)
        self.chat = chat
        self.view = voicenote.FlowView()
        row = Gtk.Box(spacing=8)
        self.status = Gtk.Label(label="Hold to record", xalign=0, hexpand=True)
        self.bars = WaveformView([], height=28)
        self.bars.set_visible(False)
        self.lock_label = Gtk.Label(label="🔒")
        self.lock_label.set_visible(False)
        self.record = Gtk.Button(icon_name="audio-input-microphone-symbolic")
        label(self.record, "Record a voice message: hold to record")
        self.press = Gtk.GestureDrag()  # a press, its moves and its release on the button
        self.press_point = (0.0, 0.0)
        self.press.connect("drag-begin", self._pressed)
        self.press.connect("drag-update", self._moved)
        self.press.connect("drag-end", lambda _g, _x, _y: chat.flow.release())
        self.record.add_controller(self.press)
        for widget in (self.status, self.bars, self.lock_label, self.record):
            row.append(widget)
        self.append(row)
        # The preview: play, the waveform with the trim handles, cut, discard, send.
        self.preview = Gtk.Box(spacing=8)
        self.preview_play = Gtk.Button(icon_name="media-playback-start-symbolic")
        label(self.preview_play, "Play the recording")
        self.preview_play.connect("clicked", lambda _b: chat.flow.pause() if self.view.preview_playing else chat.flow.play())
        self.preview_wave = WaveformView([], on_scrub=lambda f: chat.flow.seek(f * self.view.duration))
        self.trim_start = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 1, 0.01)
        self.trim_end = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 1, 0.01)
        for scale, name in ((self.trim_start, "Trim start"), (self.trim_end, "Trim end")):
            scale.set_size_request(90, -1)
            label(scale, name)
            scale.connect("value-changed", lambda _s: self._trim_moved())
        self.cut = Gtk.Button(label="Cut")
        label(self.cut, "Cut the recording to the trim handles")
        self.cut.connect("clicked", lambda _b: self.apply_trim())
        self.discard = Gtk.Button(icon_name="user-trash-symbolic")
        label(self.discard, "Discard the recording")
        self.discard.connect("clicked", lambda _b: chat.flow.discard())
        self.send = Gtk.Button(label="Send")
        label(self.send, "Send the voice message")
        self.send.connect("clicked", lambda _b: chat.flow.send())
        for widget in (self.preview_play, self.preview_wave, self.trim_start, self.trim_end, self.cut, self.discard,
                       self.send):
            self.preview.append(widget)
        self.preview.set_visible(False)
        self.append(self.preview)
        self.stop = Gtk.Button(label="Stop")
        label(self.stop, "Stop recording and listen")
        self.stop.connect("clicked", lambda _b: chat.flow.stop())
        self.stop.set_visible(False)
        row.append(self.stop)

    def _pressed(self, _gesture: Gtk.GestureDrag, x: float, y: float) -> None:
        self.press_point = (x, y)
        self.chat.flow.press(x, y)

    def _moved(self, _gesture: Gtk.GestureDrag, dx: float, dy: float) -> None:
        x, y = self.press_point  # drags report offsets from the press
        self.chat.flow.move(x + dx, y + dy)

    def _trim_moved(self) -> None:
        start, end = self.trim_start.get_value(), self.trim_end.get_value()
        self.preview_wave.trim = [start, max(start, end)]
        self.preview_wave.queue_draw()

    def apply_trim(self) -> None:
        start, end = self.trim_start.get_value(), self.trim_end.get_value()
        if self.view.duration > 0 and end > start and (start > 0 or end < 1):
            self.chat.flow.trim(start * self.view.duration, end * self.view.duration)

    def show(self, view: voicenote.FlowView) -> None:
        """Draws what the flow's view says."""
        entering_preview = view.state is voicenote.FlowState.PREVIEW and (
            self.view.state is not voicenote.FlowState.PREVIEW or view.duration != self.view.duration)
        self.view = view
        state = view.state
        taking = state in (voicenote.FlowState.RECORDING, voicenote.FlowState.LOCKED)
        self.bars.set_visible(taking)
        self.bars.set_values(view.levels)
        self.lock_label.set_visible(state is voicenote.FlowState.RECORDING)
        self.lock_label.set_margin_bottom(int(view.lock_padding))
        self.lock_label.set_opacity(view.chevron_alpha)
        self.stop.set_visible(state is voicenote.FlowState.LOCKED)
        self.record.set_visible(state is not voicenote.FlowState.PREVIEW)
        self.preview.set_visible(state is voicenote.FlowState.PREVIEW)
        if state is voicenote.FlowState.RECORDING:
            self.status.set_label(f"● {clock(view.duration)}   ‹ slide to cancel")
            self.status.set_opacity(max(0.2, view.slide_to_cancel_alpha))
        elif state is voicenote.FlowState.LOCKED:
            self.status.set_label(f"● {clock(view.duration)}   locked")
            self.status.set_opacity(1)
        elif state is voicenote.FlowState.SHOWING_TIP:
            self.status.set_label("Hold to record, release to send")
        elif state is voicenote.FlowState.PREVIEW:
            self.status.set_label(f"{clock(view.preview_position)} / {clock(view.duration)}")
            self.preview_wave.set_values(view.waveform)
            self.preview_wave.set_progress(view.preview_position / view.duration if view.duration else 0)
            self.preview_play.set_icon_name("media-playback-pause-symbolic" if view.preview_playing
                                            else "media-playback-start-symbolic")
            if entering_preview:
                self.trim_start.set_value(0)
                self.trim_end.set_value(1)
        else:
            self.status.set_label("Hold to record")
            self.status.set_opacity(1)
        label(self.record, view.accessible_description)


class ChatWindow(Gtk.ApplicationWindow):
    """The conversation above, the composer below; one event loop for every voicenote object, watched by GLib."""

    def __init__(self, app: Gtk.Application, options: argparse.Namespace,
                 clock_: Optional[voicenote.ManualClock] = None) -> None:
        super().__init__(application=app, title="voicenote chat")
        self.set_default_size(560, 640)
        self.user_id = options.user_id
        self.messages: List[Dict[str, Any]] = []
        if options.messages:
            with open(options.messages, encoding="utf-8") as file:
                self.messages = json.load(file).get("messages", [])
        # Events of the recorder, both players and the flow arrive here, on the GTK thread.
        self.loop = voicenote.EventLoop()
        GLib.unix_fd_add_full(GLib.PRIORITY_DEFAULT, self.loop.fileno(), GLib.IOCondition.IN, self._dispatch)
        self.recorder = voicenote.Recorder(options.recordings, device=options.mic, device_config=options.mic_config,
                                           loop=self.loop)
        self.preview_player = voicenote.Player(device=options.speaker, device_config=options.speaker_config,
                                               loop=self.loop)
        self.player = voicenote.QueuePlayer(device=options.speaker, device_config=options.speaker_config, loop=self.loop)
        self.flow = voicenote.RecordingFlow(self.recorder, self.preview_player, confirmation_required=False,
                                            key_inputs=True, clock=clock_, loop=self.loop)
        self.rows: List[MessageRow] = []
        self.current: Optional[MessageRow] = None
        self.sent: List[voicenote.FlowTake] = []

        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        self.list = Gtk.ListBox(selection_mode=Gtk.SelectionMode.NONE)
        scroller = Gtk.ScrolledWindow(vexpand=True)
        scroller.set_child(self.list)
        box.append(scroller)
        box.append(Gtk.Separator())
        self.composer = Composer(self)
        box.append(self.composer)
        self.set_child(box)
        for message in self.messages:
            self._add_row(message)
        self._use_messages()

        self.keys = Gtk.EventControllerKey()  # R held records like the button; Escape cancels; Enter sends
        self.keys.connect("key-pressed", self._key_pressed)
        self.keys.connect("key-released", self._key_released)
        self.add_controller(self.keys)
        self.flow.subscribe(self._flow_event)
        self.player.subscribe(self._player_event)
        self.connect("close-request", lambda _w: self.close_voicenote() or False)

    # -- events -------------------------------------------------------------------------------------------------

    def _dispatch(self, *_args: Any) -> bool:
        self.loop.dispatch()
        return True  # keep watching

    def _flow_event(self, event: Any) -> None:
        if isinstance(event, voicenote.FlowViewEvent):
            self.composer.show(event.view)
        elif isinstance(event, voicenote.AttachmentReady):
            self.sent.append(event.take)
            payload = json.loads(event.take.payload_json) if event.take.payload_json else {
                "type": "voiceRecording", "asset_url": "file://" + event.take.path, "duration": event.take.duration,
                "waveform_data": event.take.waveform}
            message = {"id": f"local-{len(self.messages)}", "user": {"id": self.user_id}, "attachments": [payload]}
            self.messages.append(message)
            self._add_row(message)
            self._use_messages()
        elif isinstance(event, voicenote.FlowFailed):
            self.composer.status.set_label(f"⚠ {event.error}")

    def _player_event(self, event: Any) -> None:
        if isinstance(event, voicenote.PlayerItemChanged):
            self.current = next((row for row in self.rows if self._same(row.url, event.location)), self.current)
        elif isinstance(event, voicenote.PlayerContextEvent) and self.current is not None:
            context = event.context
            playing = context.state is voicenote.PlayerState.PLAYING
            self.current.show_state(playing, context.current_time, context.duration or self.current.duration)
            for row in self.rows:
                if row is not self.current:
                    row.show_state(False, 0, row.duration)
                row.rate_button.set_label(f"{context.rate:g}x")
                label(row.rate_button, f"Playback speed {context.rate:g}x")

    @staticmethod
    def _same(url: str, location: str) -> bool:
        return url == location or (url.startswith("file://") and url[len("file://"):] == location)

    def _key_pressed(self, _c: Any, keyval: int, _code: int, _state: Any) -> bool:
        key = {Gdk.KEY_r: voicenote.FlowKey.RECORD, Gdk.KEY_Escape: voicenote.FlowKey.ESCAPE,
               Gdk.KEY_Return: voicenote.FlowKey.ENTER}.get(keyval)
        if key is None:
            return False
        self.flow.key_down(key)
        return True

    def _key_released(self, _c: Any, keyval: int, _code: int, _state: Any) -> None:
        if keyval == Gdk.KEY_r:
            self.flow.key_up(voicenote.FlowKey.RECORD)

    # -- actions ------------------------------------------------------------------------------------------------

    def _add_row(self, message: Dict[str, Any]) -> None:
        row = MessageRow(self, message)
        if row.voice is not None:
            self.rows.append(row)
        self.list.append(row)

    def _use_messages(self) -> None:
        self.player.use_messages({"messages": self.messages}, None, "consecutive")

    def toggle(self, row: MessageRow) -> None:
        """Play/pause: the same note pauses or plays on; another note loads (and the queue follows it)."""
        context = self.player.context
        if self.current is row and context.state is voicenote.PlayerState.PLAYING:
            self.player.pause()
            return
        self.current = row
        self.player.load(row.url, duration_hint=row.duration)  # as the message names it: the queue finds it there

    def scrub(self, row: MessageRow, fraction: float) -> None:
        if self.current is not row:
            self.current = row
            self.player.load(row.url, autoplay=False, duration_hint=row.duration)
        self.player.seek(fraction * (self.player.context.duration or row.duration))

    def next_rate(self) -> None:
        rate = self.player.rate
        following = RATES[(min(range(len(RATES)), key=lambda i: abs(RATES[i] - rate)) + 1) % len(RATES)]
        self.player.rate = following

    def close_voicenote(self) -> None:
        """Closes the flow first (it uses the recorder and a player), then the rest; the loop last."""
        for thing in (self.flow, self.recorder, self.preview_player, self.player, self.loop):
            thing.close()


def parse(arguments: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A GTK 4 chat window with voice messages (voicenote).")
    parser.add_argument("--messages", help="a JSON file of messages in Stream's shape, oldest first")
    parser.add_argument("--user-id", default="me", help="who you are in the conversation")
    parser.add_argument("--recordings", default=os.path.join(GLib.get_user_cache_dir(), "voicenote-chat"),
                        help="where takes are written")
    parser.add_argument("--mic", default=None, help="the ALSA capture device")
    parser.add_argument("--mic-config", default=None, help="ALSA configuration text defining --mic")
    parser.add_argument("--speaker", default=None, help="the ALSA playback device")
    parser.add_argument("--speaker-config", default=None, help="ALSA configuration text defining --speaker")
    return parser.parse_args(arguments)


def main() -> int:
    options = parse()
    app = Gtk.Application(application_id="org.voicenote.Chat")
    app.connect("activate", lambda application: ChatWindow(application, options).present())
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
