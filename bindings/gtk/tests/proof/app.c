/*
 * app.c: the proof program in C: a chat window with a VnComposer over a VnFlow and two received notes as
 * VnVoiceMessage rows on one VnPlayer, driven from outside by drive.py (its docstring has the protocol: state lines
 * out, commands in). The same program as app.py.
 *
 *     app WORK OUTPUT_DIR
 *
 * WORK holds what drive.py made: tone.raw (the microphone: an ALSA `file` PCM reading it), takes/, note1.ogg,
 * note2.ogg and speaker.fifo (the notes' speaker). The flow's own player writes to WORK/heard.raw; its timers run on a
 * VnManualClock (the `clock` construct property) that only `advance` moves. A failure is g_error(): the program aborts.
 */
#include <gdk/x11/gdkx.h>
#include <gio/gunixinputstream.h>
#include <math.h>
#include <stdio.h>
#include <voicenote-gtk.h>

static const char *work, *output;
static VnManualClock *clock_;
static GtkWidget *composer, *first_row, *window;
static GMainLoop *loop;
static GPtrArray *shots; /* the names asked for, rendered after the next frame */
static gboolean ready;   /* once the window is mapped and painted */

static void say(const char *format, ...) G_GNUC_PRINTF(1, 2);
static void say(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vprintf(format, arguments);
    va_end(arguments);
    putchar('\n');
    fflush(stdout);
}

/* An enum value's nick in capitals, '-' as '_' (RECORDING, SHOWING_TIP). */
static gchar *name_of(GType type, gint value) {
    GEnumClass *class = g_type_class_ref(type);
    gchar *name = g_ascii_strup(g_enum_get_value(class, value)->value_nick, -1);
    g_strdelimit(name, "-", '_');
    g_type_class_unref(class);
    return name;
}

static gchar *in_work(const char *name) {
    return g_build_filename(work, name, NULL);
}

static gchar *speaker(const char *name) {
    gchar *path = in_work(name);
    gchar *text = g_strdup_printf("pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0600 }", path);
    g_free(path);
    return text;
}

static void on_flow_state(VnFlow *flow) {
    gchar *name = name_of(VNG_TYPE_FLOW_STATE, (gint)vng_flow_get_state(flow));
    say("state %s %.3f", name, vng_flow_get_duration(flow));
    g_free(name);
}

static void on_trimmed(VnFlow *flow, const gchar *path, gdouble duration) {
    (void)flow, (void)path;
    say("trimmed %.3f", duration);
}

static void on_attachment(VnFlow *flow, const gchar *path, gdouble duration) {
    (void)flow, (void)path;
    say("attachment-ready %.3f", duration);
}

static void on_failed(GObject *object, GError *error) {
    say("failed %s %s", VNG_IS_FLOW(object) ? "flow" : "player", error->message);
}

static void on_player_state(VnPlayer *player) {
    gchar *name = name_of(VNG_TYPE_PLAYER_STATE, (gint)vng_player_get_state(player));
    say("player %s rate %g", name, vng_player_get_rate(player));
    g_free(name);
}

static void on_rate(VnPlayer *player) {
    say("rate %g", vng_player_get_rate(player));
}

static void on_finished(void) {
    say("finished");
}

static void on_press(void) {
    say("press");
}

/* The first child of `parent` with this CSS name and, when given, this style class (or this icon, for buttons). */
static GtkWidget *child(GtkWidget *parent, const char *css_name, const char *css_class, const char *icon) {
    for (GtkWidget *widget = gtk_widget_get_first_child(parent); widget; widget = gtk_widget_get_next_sibling(widget))
        if (g_str_equal(gtk_widget_get_css_name(widget), css_name) &&
            (css_class == NULL || gtk_widget_has_css_class(widget, css_class)) &&
            (icon == NULL || g_strcmp0(gtk_button_get_icon_name(GTK_BUTTON(widget)), icon) == 0))
            return widget;
    g_error("no %s under %s", css_name, gtk_widget_get_css_name(parent));
}

/* The X window point at (fx, fy) of the widget's size, moved right by dx, as "X Y"; free it. */
static gchar *point(GtkWidget *widget, double fx, double fy, double dx) {
    double x = 0, y = 0, sx = 0, sy = 0;
    if (!gtk_widget_translate_coordinates(widget, window, gtk_widget_get_width(widget) * fx + dx,
                                          gtk_widget_get_height(widget) * fy, &x, &y))
        g_error("not in the window");
    gtk_native_get_surface_transform(GTK_NATIVE(window), &sx, &sy);
    return g_strdup_printf("%ld %ld", lround(x + sx), lround(y + sy));
}

static gchar *where(const char *part) {
    GtkWidget *trim = child(composer, "trim", NULL, NULL);
    GtkWidget *start = child(trim, "trimhandle", "start", NULL);
    if (g_str_equal(part, "record"))
        return point(GTK_WIDGET(vngtk_composer_get_record_button(VNGTK_COMPOSER(composer))), 0.5, 0.5, 0);
    if (g_str_equal(part, "start")) return point(start, 0.5, 0.5, 0);
    if (g_str_equal(part, "trim-to")) return point(trim, 0.25, 0.5, gtk_widget_get_width(start) / 2.0);
    if (g_str_equal(part, "send"))
        return point(child(composer, "button", NULL, "document-send-symbolic"), 0.5, 0.5, 0);
    if (g_str_equal(part, "rate")) return point(gtk_widget_get_last_child(first_row), 0.5, 0.5, 0);
    if (g_str_equal(part, "play")) return point(gtk_widget_get_first_child(first_row), 0.5, 0.5, 0);
    g_error("no part %s", part);
}

/* The window's content (a widget paintable, snapshotted) rendered by the window's renderer to OUTPUT/name.png. */
static void render(const char *name) {
    GtkWidget *content = gtk_window_get_child(GTK_WINDOW(window));
    int width = gtk_widget_get_width(content), height = gtk_widget_get_height(content);
    GdkPaintable *paintable = gtk_widget_paintable_new(content);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    if (node == NULL) g_error("nothing drawn");
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    GdkTexture *texture = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(window)), node, &bounds);
    gchar *file = g_strconcat(name, ".png", NULL), *path = g_build_filename(output, file, NULL);
    if (!gdk_texture_save_to_png(texture, path)) g_error("not saved: %s", path);
    say("saved %s", path);
    g_free(path);
    g_free(file);
    g_object_unref(texture);
    gsk_render_node_unref(node);
    g_object_unref(paintable);
}

static void on_command(GObject *source, GAsyncResult *result, gpointer data) {
    (void)data;
    GDataInputStream *commands = G_DATA_INPUT_STREAM(source);
    GError *error = NULL;
    gchar *line = g_data_input_stream_read_line_finish_utf8(commands, result, NULL, &error);
    if (error != NULL) g_error("stdin: %s", error->message);
    gchar **words = g_strsplit(line != NULL ? line : "quit", " ", -1);
    gboolean quit = FALSE;
    if (g_str_equal(words[0], "where")) {
        gchar *at = where(words[1]);
        say("point %s %s", words[1], at);
        g_free(at);
    } else if (g_str_equal(words[0], "advance")) {
        if (!vng_manual_clock_advance(clock_, g_ascii_strtod(words[1], NULL), &error)) g_error("%s", error->message);
        say("advanced");
    } else if (g_str_equal(words[0], "bars")) {
        gsize n = 0;
        vngtk_waveform_get_values(VNGTK_WAVEFORM(child(composer, "waveform", "live", NULL)), &n);
        say("bars %" G_GSIZE_FORMAT, n);
    } else if (g_str_equal(words[0], "shot")) {
        g_ptr_array_add(shots, g_strdup(words[1]));
        gtk_widget_queue_draw(window);
    } else if (g_str_equal(words[0], "quit")) {
        quit = TRUE;
    }
    g_strfreev(words);
    g_free(line);
    if (quit) {
        gtk_window_destroy(GTK_WINDOW(window));
        g_main_loop_quit(loop);
        return;
    }
    g_data_input_stream_read_line_async(commands, G_PRIORITY_DEFAULT, NULL, on_command, NULL);
}

static void on_after_paint(GdkFrameClock *frame_clock, GDataInputStream *commands) {
    (void)frame_clock;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(window));
    if (!ready && gdk_surface_get_mapped(surface)) {
        ready = TRUE;
        say("ready %lu", (gulong)gdk_x11_surface_get_xid(surface));
        g_data_input_stream_read_line_async(commands, G_PRIORITY_DEFAULT, NULL, on_command, NULL);
    }
    /* Here, not later: the widgets' render nodes are the ones just painted (an update of the flow's view, e.g. the
     * live bars, drops them until the next frame). */
    while (shots->len > 0) {
        gchar *name = g_ptr_array_steal_index(shots, 0);
        render(name);
        g_free(name);
    }
}

static void on_realize(GtkWidget *widget, GDataInputStream *commands) {
    g_signal_connect(gtk_widget_get_frame_clock(widget), "after-paint", G_CALLBACK(on_after_paint), commands);
}

int main(int argc, char **argv) {
    if (argc != 3) g_error("usage: %s WORK OUTPUT_DIR", argv[0]);
    work = argv[1];
    output = argv[2];
    gtk_disable_setlocale(); /* numbers printed with a point */
    gtk_init();
    GError *error = NULL;
    clock_ = vng_manual_clock_new(&error);
    gchar *tone = in_work("tone.raw"), *takes = in_work("takes");
    gchar *microphone = g_strdup_printf(
        "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }", tone);
    VnRecorder *recorder = error ? NULL : vng_recorder_new("vn_mic", microphone, takes, &error);
    gchar *heard = speaker("heard.raw"), *notes = speaker("speaker.fifo");
    VnPlayer *flow_player = error ? NULL : vng_player_new_for_device("vn_spk", heard, &error);
    VnFlow *flow = error ? NULL
                         : g_initable_new(VNG_TYPE_FLOW, NULL, &error, "recorder", recorder, "player", flow_player,
                                          "clock", clock_, NULL);
    VnPlayer *player = error ? NULL : vng_player_new_for_device("vn_spk", notes, &error);
    if (error != NULL) g_error("%s", error->message);
    g_free(tone), g_free(takes), g_free(microphone), g_free(heard), g_free(notes);
    g_signal_connect(flow, "notify::state", G_CALLBACK(on_flow_state), NULL);
    g_signal_connect(flow, "trimmed", G_CALLBACK(on_trimmed), NULL);
    g_signal_connect(flow, "attachment-ready", G_CALLBACK(on_attachment), NULL);
    g_signal_connect(flow, "failed", G_CALLBACK(on_failed), NULL);
    g_signal_connect(player, "notify::state", G_CALLBACK(on_player_state), NULL);
    g_signal_connect(player, "notify::rate", G_CALLBACK(on_rate), NULL);
    g_signal_connect(player, "finished", G_CALLBACK(on_finished), NULL);
    g_signal_connect(player, "failed", G_CALLBACK(on_failed), NULL);

    composer = vngtk_composer_new(flow);
    gtk_widget_set_size_request(composer, 560, -1);
    gtk_widget_set_margin_top(composer, 110); /* room for the record button's lock */
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    g_object_set(box, "margin-start", 20, "margin-end", 20, "margin-bottom", 20, NULL);
    gtk_box_append(GTK_BOX(box), composer);
    for (int index = 1; index <= 2; index++) {
        gchar *name = g_strdup_printf("note%d.ogg", index), *note = in_work(name);
        GtkWidget *row = vngtk_voice_message_new(player, note, index == 1 ? 2.0 : 1.0);
        gfloat values[60];
        for (int i = 0; i < 60; i++) values[i] = (gfloat)(0.3 + 0.6 * fabs(sin(i * 0.23 + index)));
        vngtk_waveform_set_values(vngtk_voice_message_get_waveform(VNGTK_VOICE_MESSAGE(row)), values, 60);
        gtk_box_append(GTK_BOX(box), row);
        if (index == 1) first_row = row;
        g_free(note);
        g_free(name);
    }

    window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), "voicenote proof (C)");
    gtk_window_set_decorated(GTK_WINDOW(window), FALSE);
    gtk_window_set_child(GTK_WINDOW(window), box);
    /* Every press, before the widget under it takes it (capture phase), so the driver knows the flow has it. */
    GtkGesture *presses = gtk_gesture_click_new();
    gtk_event_controller_set_propagation_phase(GTK_EVENT_CONTROLLER(presses), GTK_PHASE_CAPTURE);
    g_signal_connect(presses, "pressed", G_CALLBACK(on_press), NULL);
    gtk_widget_add_controller(window, GTK_EVENT_CONTROLLER(presses));

    GInputStream *in = g_unix_input_stream_new(0, FALSE);
    GDataInputStream *commands = g_data_input_stream_new(in);
    shots = g_ptr_array_new_with_free_func(g_free);
    g_signal_connect(window, "realize", G_CALLBACK(on_realize), commands);
    gtk_window_present(GTK_WINDOW(window));
    loop = g_main_loop_new(NULL, FALSE);
    g_main_loop_run(loop);

    g_main_loop_unref(loop);
    g_ptr_array_unref(shots);
    g_object_unref(commands);
    g_object_unref(in);
    g_object_unref(player);
    g_object_unref(flow);
    g_object_unref(flow_player);
    g_object_unref(recorder);
    g_object_unref(clock_);
    return 0;
}
