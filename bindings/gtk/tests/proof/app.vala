/*
 * app.vala: the proof program in Vala, compiled through a vapi of VoicenoteGtk-1.0.gir (vapigen, in the tests' build
 * directory: see the Makefile) and voicenote-glib's voicenote-glib-1.vapi, as a user's program would be: a chat window
 * with a VnComposer over a VnFlow and two received notes as VnVoiceMessage rows on one VnPlayer, driven from outside
 * by drive.py (its docstring has the protocol: state lines out, commands in). The same program as app.py.
 *
 *     app WORK OUTPUT_DIR
 *
 * WORK holds what drive.py made: tone.raw (the microphone: an ALSA `file` PCM reading it), takes/, note1.ogg,
 * note2.ogg and speaker.fifo (the notes' speaker). The flow's own player writes to WORK/heard.raw; its timers run on a
 * VnManualClock (the `clock` construct property) that only `advance` moves. A failure is error(): the program aborts.
 */
string work;
string output;
Voicenote.ManualClock manual_clock;
VoicenoteGtk.Composer composer;
VoicenoteGtk.VoiceMessage first_row;
Gtk.Window window;
MainLoop loop;
GenericArray<string> shots;

void say (string line) {
    stdout.printf ("%s\n", line);
    stdout.flush ();
}

string name_of (Type type, int value) {
    return ((EnumClass) type.class_ref ()).get_value (value).value_nick.up ().replace ("-", "_");
}

string microphone (string path) {
    return "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }".printf (path);
}

string speaker (string path) {
    return "pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0600 }".printf (path);
}

delegate bool WidgetTest (Gtk.Widget widget);

Gtk.Widget child (Gtk.Widget parent, string css_name, WidgetTest test = (w) => true) {
    for (var widget = parent.get_first_child (); widget != null; widget = widget.get_next_sibling ()) {
        if (widget.get_css_name () == css_name && test (widget)) {
            return widget;
        }
    }
    error ("no %s under %s", css_name, parent.get_css_name ());
}

/* The X window point at (fx, fy) of the widget's size, moved right by dx. */
string point (Gtk.Widget widget, double fx, double fy, double dx = 0) {
    double x, y, sx, sy;
    if (!widget.translate_coordinates (window, widget.get_width () * fx + dx, widget.get_height () * fy, out x, out y)) {
        error ("not in the window");
    }
    window.get_surface_transform (out sx, out sy);
    return "%d %d".printf ((int) Math.round (x + sx), (int) Math.round (y + sy));
}

string where (string part) {
    var trim = child (composer, "trim");
    var start = child (trim, "trimhandle", (w) => w.has_css_class ("start"));
    switch (part) {
    case "record":
        return point (composer.get_record_button (), 0.5, 0.5);
    case "start":
        return point (start, 0.5, 0.5);
    case "trim-to":
        return point (trim, 0.25, 0.5, start.get_width () / 2.0);
    case "send":
        return point (child (composer, "button", (w) => ((Gtk.Button) w).get_icon_name () == "document-send-symbolic"),
                      0.5, 0.5);
    case "rate":
        return point (first_row.get_last_child (), 0.5, 0.5);
    case "play":
        return point (first_row.get_first_child (), 0.5, 0.5);
    default:
        error ("no part %s", part);
    }
}

/* The window's content (a widget paintable, snapshotted) rendered by the window's renderer to OUTPUT/name.png. */
void render (string name) {
    var content = window.get_child ();
    int width = content.get_width (), height = content.get_height ();
    var snapshot = new Gtk.Snapshot ();
    new Gtk.WidgetPaintable (content).snapshot (snapshot, width, height);
    var node = snapshot.to_node ();
    if (node == null) {
        error ("nothing drawn");
    }
    var bounds = Graphene.Rect () {
        origin = Graphene.Point () { x = 0, y = 0 },
        size = Graphene.Size () { width = width, height = height }
    };
    var texture = window.get_renderer ().render_texture (node, bounds);
    var path = Path.build_filename (output, name + ".png");
    if (!texture.save_to_png (path)) {
        error ("not saved: %s", path);
    }
    say ("saved " + path);
}

/* The driver's commands, one line each, until `quit` (or the end of stdin). */
async void serve () {
    var commands = new DataInputStream (new UnixInputStream (0, false));
    while (true) {
        string? line = null;
        try {
            line = yield commands.read_line_async (Priority.DEFAULT, null);
        } catch (Error e) {
            error ("stdin: %s", e.message);
        }
        var words = (line ?? "quit").split (" ");
        switch (words[0]) {
        case "where":
            say ("point %s %s".printf (words[1], where (words[1])));
            break;
        case "advance":
            try {
                manual_clock.advance (double.parse (words[1]));
            } catch (Error e) {
                error ("advance: %s", e.message);
            }
            say ("advanced");
            break;
        case "bars":
            unowned float[]? values = ((VoicenoteGtk.Waveform) child (composer, "waveform",
                                                                      (w) => w.has_css_class ("live"))).get_values ();
            say ("bars %d".printf (values == null ? 0 : values.length));
            break;
        case "shot":
            shots.add (words[1]);
            window.queue_draw ();
            break;
        case "quit":
            window.destroy ();
            loop.quit ();
            return;
        }
    }
}

int main (string[] args) {
    work = args[1];
    output = args[2];
    shots = new GenericArray<string> ();
    Gtk.disable_setlocale (); /* numbers printed with a point */
    Gtk.init ();
    Voicenote.Flow flow;
    Voicenote.Player player;
    try {
        manual_clock = new Voicenote.ManualClock ();
        var recorder = new Voicenote.Recorder ("vn_mic", microphone (Path.build_filename (work, "tone.raw")),
                                               Path.build_filename (work, "takes"));
        var flow_player = new Voicenote.Player.for_device ("vn_spk", speaker (Path.build_filename (work, "heard.raw")));
        flow = (Voicenote.Flow) Initable.new (typeof (Voicenote.Flow), null, "recorder", recorder, "player",
                                             flow_player, "clock", manual_clock);
        player = new Voicenote.Player.for_device ("vn_spk", speaker (Path.build_filename (work, "speaker.fifo")));
    } catch (Error e) {
        error ("%s", e.message);
    }
    flow.notify["state"].connect (() => {
        say ("state %s %.3f".printf (name_of (typeof (Voicenote.FlowState), flow.state), flow.duration));
    });
    flow.trimmed.connect ((path, duration) => say ("trimmed %.3f".printf (duration)));
    flow.attachment_ready.connect ((path, duration) => say ("attachment-ready %.3f".printf (duration)));
    flow.failed.connect ((e) => say ("failed flow " + e.message));
    player.notify["state"].connect (() => {
        say ("player %s rate %g".printf (name_of (typeof (Voicenote.PlayerState), player.state), player.rate));
    });
    player.notify["rate"].connect (() => say ("rate %g".printf (player.rate)));
    player.finished.connect (() => say ("finished"));
    player.failed.connect ((e) => say ("failed player " + e.message));

    composer = new VoicenoteGtk.Composer (flow);
    composer.set_size_request (560, -1);
    composer.margin_top = 110; /* room for the record button's lock */
    var box = new Gtk.Box (Gtk.Orientation.VERTICAL, 6) { margin_start = 20, margin_end = 20, margin_bottom = 20 };
    box.append (composer);
    for (int index = 1; index <= 2; index++) {
        var row = new VoicenoteGtk.VoiceMessage (player, Path.build_filename (work, "note%d.ogg".printf (index)),
                                                 index == 1 ? 2.0 : 1.0);
        var values = new float[60];
        for (int i = 0; i < 60; i++) {
            values[i] = (float) (0.3 + 0.6 * Math.fabs (Math.sin (i * 0.23 + index)));
        }
        row.get_waveform ().set_values (values);
        box.append (row);
        if (index == 1) {
            first_row = row;
        }
    }

    window = new Gtk.Window () { title = "voicenote proof (Vala)", decorated = false, child = box };
    /* Every press, before the widget under it takes it (capture phase), so the driver knows the flow has it. */
    var presses = new Gtk.GestureClick () { propagation_phase = Gtk.PropagationPhase.CAPTURE };
    presses.pressed.connect (() => say ("press"));
    ((Gtk.Widget) window).add_controller (presses); /* not Gtk.Window.add_controller (shortcuts only, in gtk4.vapi) */

    bool ready = false; /* once the window is mapped and painted */
    /* Connected once realized. (A window's `realize` is Gtk.Native's in the vapi, not the widget's.) */
    ((Gtk.Widget) window).realize.connect (() => window.get_frame_clock ().after_paint.connect (() => {
        if (!ready && window.get_surface ().get_mapped ()) {
            ready = true;
            say ("ready %lu".printf ((ulong) ((Gdk.X11.Surface) window.get_surface ()).get_xid ()));
            serve.begin ();
        }
        /* Here, not later: the widgets' render nodes are the ones just painted (an update of the flow's view, e.g.
         * the live bars, drops them until the next frame). */
        while (shots.length > 0) {
            var name = shots[0];
            shots.remove_index (0);
            render (name);
        }
    }));
    window.present ();
    loop = new MainLoop ();
    loop.run ();
    return 0;
}
