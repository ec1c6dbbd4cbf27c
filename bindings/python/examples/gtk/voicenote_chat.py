#!/usr/bin/python3
"""A GTK 4 chat window with voice messages, built on voicenote's GTK widgets: a model for Linux chat clients to copy.

Everything voice is a widget of voicenote-gtk (``VoicenoteGtk``) over voicenote-glib (``Voicenote``), both through
GObject Introspection; this file only lays them out and keeps the conversation:

- **The composer**: a ``VoicenoteGtk.Composer`` over a ``Voicenote.Flow`` — hold its record button to record (live
  bars), slide left to cancel, slide up to lock; stop puts the take in preview (play, the waveform, trim handles);
  send adds it to the conversation. Hold R anywhere in the window to record by keyboard (Escape cancels, Enter sends).
- **The conversation**: messages from a JSON file in Stream's shape (``{"messages": [...]}``, oldest first); each
  voice message is a ``VoicenoteGtk.VoiceMessage`` row (play/pause, waveform to scrub, time, speed). All rows share
  one ``Voicenote.Player``, made a ``Voicenote.QueuePlayer`` over the conversation's notes: when one ends, the next
  plays by itself. Every note plays at one loudness (levelled playback, −19 LUFS, peaks under −1 dBTP).
- **Transcripts**: under each voice message its words, each a link that seeks the note there — from the transcript
  the message carries (``voicenote_transcript`` in the attachment), else recognised on this machine by
  ``Voicenote.Transcript.transcribe_async`` (PocketSphinx; kept in the media cache).
- **Sending**: the flow's ``attachment-ready`` gives the take's ``voiceRecording`` payload, added to the list as the
  user's message (this example has no server; a client would upload it with ``Voicenote.Uploader``).
- The objects' signals run on GTK's main context (voicenote-glib's event bridge): nothing polls.

Run it with the system interpreter (Debian: python3-gi, gir1.2-gtk-4.0) and voicenote-glib's and voicenote-gtk's
typelibs and libraries (``make test-gtk`` builds them into build/glib and build/gtk)::

    GI_TYPELIB_PATH=build/glib/lib/girepository-1.0:build/gtk/lib/girepository-1.0 \\
    LD_LIBRARY_PATH=build/glib/lib:build/gtk/lib /usr/bin/python3 voicenote_chat.py --messages conversation.json

``--mic``/``--mic-config`` and ``--speaker``/``--speaker-config`` name other ALSA devices (configuration text, as the
library takes it: a virtual microphone or a file speaker in tests).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("Voicenote", "1.0")
gi.require_version("VoicenoteGtk", "1.0")
from gi.repository import Gdk, GLib, GObject, Gtk, Voicenote, VoicenoteGtk  # noqa: E402

#: The window's keys forwarded to the flow: R held records, Escape cancels, Enter sends.
KEYS = {Gdk.KEY_r: Voicenote.FlowInputKey.RECORD, Gdk.KEY_Escape: Voicenote.FlowInputKey.ESCAPE,
        Gdk.KEY_Return: Voicenote.FlowInputKey.ENTER}


def voice_attachment(message: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The message's ``voiceRecording`` attachment, or None."""
    return next((a for a in message.get("attachments") or [] if a.get("type") == "voiceRecording"), None)


class TranscriptView(Gtk.Label):
    """A voice message's words under its row, each a link: a click loads the note in `player` (paused) when another
    is loaded and seeks to the word."""

    def __init__(self, player: Voicenote.Player, location: str, duration: float) -> None:
        super().__init__(xalign=0, wrap=True, visible=False, selectable=False)
        self.add_css_class("dim-label")
        self.player, self.location, self.duration = player, location, duration
        self.starts: List[float] = []
        self.connect("activate-link", self._activate)

    def set_words(self, words: List["tuple[str, float]"]) -> None:
        """The words and where each begins, in seconds."""
        self.starts = [start for _text, start in words]
        self.set_markup(" ".join(f'<a href="word:{index}">{GLib.markup_escape_text(text)}</a>'
                                 for index, (text, _start) in enumerate(words)))
        self.set_visible(bool(words))

    def transcribe(self) -> None:
        """Recognises the note's words off the main thread (PocketSphinx), shown when they come."""
        Voicenote.Transcript.transcribe_async(self.location, None, None, self._transcribed)

    def _transcribed(self, _source: Any, result: Any) -> None:
        try:
            transcript = Voicenote.Transcript.transcribe_finish(result)
        except GLib.Error:  # no PocketSphinx, a note that cannot be read: no words shown
            return
        words = []
        for index in range(transcript.get_n_words()):
            text, start, _end, _confidence = transcript.get_word(index)
            words.append((text, start))
        self.set_words(words)

    def _activate(self, _label: Gtk.Label, uri: str) -> bool:
        index = int(uri.split(":", 1)[1])
        if self.player.get_location() != self.location:
            self.player.load(self.location, False, self.duration)
        self.player.seek_to_word(self.starts[index])
        return True


def carried_words(attachment: Dict[str, Any]) -> Optional[List["tuple[str, float]"]]:
    """The words of the transcript an attachment carries (``voicenote_transcript``), or None."""
    carried = attachment.get("voicenote_transcript")
    if not isinstance(carried, dict) or not isinstance(carried.get("words"), list):
        return None
    try:
        return [(str(word["text"]), float(word["start"])) for word in carried["words"]]
    except (KeyError, TypeError, ValueError):
        return None


def message_row(message: Dict[str, Any],
                player: Voicenote.Player) -> "tuple[Gtk.Box, Optional[VoicenoteGtk.VoiceMessage]]":
    """One message: who sent it, its text, and for a voice message its VoiceMessage row on `player` with its
    transcript under it."""
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4, margin_top=6, margin_bottom=6, margin_start=10,
                  margin_end=10)
    header = Gtk.Label(xalign=0)
    header.set_markup(f"<b>{GLib.markup_escape_text((message.get('user') or {}).get('id', '?'))}</b>")
    box.append(header)
    if message.get("text"):
        box.append(Gtk.Label(label=message["text"], xalign=0, wrap=True))
    voice = voice_attachment(message)
    if voice is None:
        return box, None
    duration = float(voice.get("duration") or 0)
    # What the desktop's media controls show for it: who sent it (only the client knows).
    player.set_metadata(voice["asset_url"], "Voice message", (message.get("user") or {}).get("id"), None)
    row = VoicenoteGtk.VoiceMessage.new(player, voice["asset_url"], duration)
    row.get_waveform().set_values(voice.get("waveform_data") or [])
    box.append(row)
    transcript = TranscriptView(player, voice["asset_url"], duration)
    words = carried_words(voice)
    if words is not None:
        transcript.set_words(words)
    else:
        transcript.transcribe()
    box.append(transcript)
    return box, row


class ChatWindow(Gtk.ApplicationWindow):
    """The conversation above, the composer below."""

    def __init__(self, app: Gtk.Application, options: argparse.Namespace,
                 clock: Optional[Voicenote.ManualClock] = None) -> None:
        super().__init__(application=app, title="voicenote chat")
        self.set_default_size(560, 640)
        self.user_id = options.user_id
        self.messages: List[Dict[str, Any]] = []
        if options.messages:
            with open(options.messages, encoding="utf-8") as file:
                self.messages = json.load(file).get("messages", [])
        os.makedirs(options.recordings, exist_ok=True)
        # The music pauses while a take is recorded, and resumes after.
        recorder = GObject.new(Voicenote.Recorder, device=options.mic or "default", configuration=options.mic_config,
                               directory=options.recordings, pause_other_players=True)
        recorder.init(None)
        # Notes play as "phone" streams: on PulseAudio (and pipewire-pulse) the sound server's own policies cork or
        # duck the music while one plays.
        preview_player = GObject.new(Voicenote.Player, device=options.speaker or "default",
                                     configuration=options.speaker_config, stream_role="phone")
        preview_player.init(None)
        # The conversation's player shows itself to the desktop's media keys and controls while a note is loaded.
        self.player = GObject.new(Voicenote.Player, device=options.speaker or "default",
                                  configuration=options.speaker_config, mpris_identity="voicenote chat",
                                  stream_role="phone")
        self.player.init(None)
        self.player.set_leveling(True, -19.0, 0.0)  # the whisperer and the shouter at one loudness
        self.queue = Voicenote.QueuePlayer.new(self.player)
        # A manual clock and key inputs are construct-only: the flow is made as a GInitable.
        self.flow = GObject.new(Voicenote.Flow, recorder=recorder, player=preview_player, clock=clock,
                                key_inputs=True, confirmation_required=False)
        self.flow.init(None)
        self.rows: List[VoicenoteGtk.VoiceMessage] = []
        self.sent: List[Dict[str, Any]] = []  # the takes sent: path, duration

        self.list = Gtk.ListBox(selection_mode=Gtk.SelectionMode.NONE)
        self.status = Gtk.Label(xalign=0, margin_start=10, visible=False)  # a failure, when one comes
        self.composer = VoicenoteGtk.Composer.new(self.flow)
        self.composer.set_margin_top(80)  # room for the record button's lock above it
        self.composer.set_margin_bottom(8)
        self.composer.set_margin_end(10)
        # Sighted users get the flow's description ("Record a voice message: hold to record") as a tooltip too.
        self.flow.bind_property("accessible-description", self.composer.get_record_button(), "tooltip-text",
                                GObject.BindingFlags.SYNC_CREATE)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        box.append(Gtk.ScrolledWindow(vexpand=True, child=self.list))
        box.append(Gtk.Separator())
        box.append(self.status)
        box.append(self.composer)
        self.set_child(box)
        for message in self.messages:
            self._add_row(message)
        self._queue_the_notes()

        self.keys = Gtk.EventControllerKey()
        self.keys.connect("key-pressed", self._key_pressed)
        self.keys.connect("key-released", self._key_released)
        self.add_controller(self.keys)
        self.flow.connect("attachment-ready", self._attachment_ready)
        self.flow.connect("failed", lambda _f, error: self._show_failure(error))
        self.player.connect("failed", lambda _p, error: self._show_failure(error))
        self.connect("close-request", lambda _w: self.close_voicenote() or False)

    def _attachment_ready(self, _flow: Voicenote.Flow, path: str, duration: float, waveform: List[float],
                          payload: str) -> None:
        self.sent.append({"path": path, "duration": duration})
        attachment = json.loads(payload) if payload else {
            "type": "voiceRecording", "asset_url": "file://" + path, "duration": duration, "waveform_data": waveform}
        message = {"id": f"local-{len(self.messages)}", "user": {"id": self.user_id}, "attachments": [attachment]}
        self.messages.append(message)
        self._add_row(message)
        self._queue_the_notes()

    def _show_failure(self, error: GLib.Error) -> None:
        self.status.set_label(f"⚠ {error.message}")
        self.status.set_visible(True)

    def _add_row(self, message: Dict[str, Any]) -> None:
        box, row = message_row(message, self.player)
        if row is not None:
            self.rows.append(row)
        self.list.append(box)

    def _queue_the_notes(self) -> None:
        """The conversation's notes, in order, as the queue's items: the one after the note that ends plays next."""
        locations = [row.get_location() for row in self.rows]
        self.queue.set_items(locations, [""] * len(locations))

    def _key_pressed(self, _c: Any, keyval: int, _code: int, _state: Any) -> bool:
        key = KEYS.get(keyval)
        if key is None:
            return False
        self.flow.key_down(key)
        return True

    def _key_released(self, _c: Any, keyval: int, _code: int, _state: Any) -> None:
        if keyval == Gdk.KEY_r:
            self.flow.key_up(Voicenote.FlowInputKey.RECORD)

    def close_voicenote(self) -> None:
        """Unbinds the widgets, then disposes the flow (it uses the recorder and the preview player), then the queue
        and the players: no signal of them runs afterwards."""
        self.composer.set_flow(None)
        for row in self.rows:
            row.set_player(None)
        for thing in (self.flow, self.queue, self.player):
            thing.run_dispose()


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
