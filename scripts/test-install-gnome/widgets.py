#!/usr/bin/python3
"""voicenote-glib and voicenote-gtk through GObject Introspection from an installed prefix (scripts/test-install.sh
runs it with GI_TYPELIB_PATH=PREFIX/lib/girepository-1.0 and LD_LIBRARY_PATH=PREFIX/lib, under xvfb-run: a GTK
widget needs a display). Makes a Voicenote.Player and a VoicenoteGtk.Waveform and a VoicenoteGtk.VoiceMessage on
it, checks what they hold, then prints the typelibs and voicenote libraries the process used, one a line.
Usage: widgets.py DEVICE ALSA_CONFIGURATION
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Voicenote", "1.0")
gi.require_version("VoicenoteGtk", "1.0")
from gi.repository import Gtk, Voicenote, VoicenoteGtk  # noqa: E402 (after require_version)

device, configuration = sys.argv[1:3]
player = Voicenote.Player.new_for_device(device, configuration)
assert player.props.state == Voicenote.PlayerState.NOT_LOADED, player.props.state
waveform = VoicenoteGtk.Waveform.new()
waveform.set_values([0.0, 0.5, 1.0])
assert list(waveform.get_values()) == [0.0, 0.5, 1.0], list(waveform.get_values())
message = VoicenoteGtk.VoiceMessage.new(player, "note.ogg", 3.0)
assert message.props.player is player and message.props.location == "note.ogg"
assert isinstance(message, Gtk.Widget)

print(Voicenote.__path__)
print(VoicenoteGtk.__path__)
with open("/proc/self/maps") as maps:
    for path in sorted({line.split()[-1] for line in maps if "/libvoicenote" in line}):
        print(path)
