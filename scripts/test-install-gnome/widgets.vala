/* voicenote-gtk from Vala, compiled by scripts/test-install.sh with `valac --pkg voicenote-gtk-1` and only the
 * installed prefix's vapidir and pkg-config files, run under xvfb-run (a GTK widget needs a display): a
 * VoicenoteGtk.Waveform and a VoicenoteGtk.VoiceMessage on a Voicenote.Player, each checked.
 *   widgets DEVICE ALSA_CONFIGURATION            exit 0 when every check holds */
int main (string[] args) {
    if (args.length != 3) {
        stderr.printf ("usage: %s DEVICE ALSA_CONFIGURATION\n", args[0]);
        return 2;
    }
    Gtk.init ();
    try {
        var player = new Voicenote.Player.for_device (args[1], args[2]);
        var waveform = new VoicenoteGtk.Waveform ();
        waveform.position = 0.25;
        var message = new VoicenoteGtk.VoiceMessage (player, "note.ogg", 3.0);
        if (waveform.position != 0.25 || message.player != player || message.location != "note.ogg") {
            stderr.printf ("unexpected values: position %g, location %s\n", waveform.position, message.location);
            return 1;
        }
    } catch (GLib.Error e) {
        stderr.printf ("%s\n", e.message);
        return 1;
    }
    return 0;
}
