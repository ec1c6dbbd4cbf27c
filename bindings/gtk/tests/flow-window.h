/*
 * flow-window.h: what the tests of widgets over a VnFlow share, on x-session.h and voicenote-glib's capture-rig.h:
 * a real flow (a VnRecorder on a virtual microphone, a VnPlayer on a file speaker, a VnManualClock), the states and
 * takes it announced, a window whose X button and key events are counted in the capture phase (so a test knows a
 * widget has handled one before it moves the clock), bounded waits on the flow's state, and real X input at a
 * widget's point. Not a test itself.
 */
#ifndef VOICENOTE_GTK_TESTS_FLOW_WINDOW_H
#define VOICENOTE_GTK_TESTS_FLOW_WINDOW_H

#include <voicenote-gtk.h>

#include "tests/capture-rig.h"
#include "x-session.h"

typedef struct {
    VnManualClock *clock;
    VnRecorder *recorder;
    VnPlayer *player;
    VnFlow *flow;
    GtkWidget *window;
    gchar *xid;
    GArray *states;            /* of gint: each state the flow notified, in order */
    guint attachments;         /* attachment-ready signals */
    gdouble attached_duration; /* the last one's duration */
    guint presses, releases, key_presses; /* X events the window saw (capture phase: before its widgets) */
    guint frames;              /* frames the window painted */
} FlowWindow;

static void flow_window_on_state(GObject *flow, GParamSpec *pspec, FlowWindow *rig) {
    (void)pspec;
    gint state = (gint)vng_flow_get_state(VNG_FLOW(flow));
    g_array_append_val(rig->states, state);
}

static void flow_window_on_attachment(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform,
                                      const gchar *payload, FlowWindow *rig) {
    (void)flow, (void)path, (void)waveform, (void)payload;
    g_test_message("attachment-ready: %.3f s", duration);
    rig->attachments++;
    rig->attached_duration = duration;
}

static gboolean flow_window_on_event(GtkEventControllerLegacy *controller, GdkEvent *event, FlowWindow *rig) {
    (void)controller;
    GdkEventType type = gdk_event_get_event_type(event);
    if (type == GDK_BUTTON_PRESS) rig->presses++;
    if (type == GDK_BUTTON_RELEASE) rig->releases++;
    if (type == GDK_KEY_PRESS) rig->key_presses++;
    return FALSE;
}

static void flow_window_on_after_paint(GdkFrameClock *clock, FlowWindow *rig) {
    (void)clock;
    rig->frames++;
}

/* The flow (key inputs on or off) over a recorder reading `microphone` (capture-rig.h's ALSA configuration), its
 * takes under `directory`, its player on `speaker` (the ALSA configuration of `vn_spk`, e.g. paced-speaker.h's; NULL
 * for capture-rig.h's file speaker, not paced). */
G_GNUC_UNUSED static void flow_window_make_flow(FlowWindow *rig, const gchar *directory, const gchar *microphone,
                                                gboolean key_inputs, const gchar *speaker_configuration) {
    GError *error = NULL;
    *rig = (FlowWindow){.states = g_array_new(FALSE, FALSE, sizeof(gint))};
    gchar *takes = g_build_filename(directory, "takes", NULL);
    gchar *heard = g_build_filename(directory, "heard.raw", NULL);
    gchar *speaker = speaker_configuration ? g_strdup(speaker_configuration) : rig_speaker(heard);
    rig->clock = vng_manual_clock_new(&error);
    g_assert_no_error(error);
    rig->recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "device", "vn_mic", "configuration", microphone,
                                   "directory", takes, NULL);
    g_assert_no_error(error);
    rig->player = vng_player_new_for_device("vn_spk", speaker, &error);
    g_assert_no_error(error);
    rig->flow = g_initable_new(VNG_TYPE_FLOW, NULL, &error, "recorder", rig->recorder, "player", rig->player, "clock",
                               rig->clock, "key-inputs", key_inputs, NULL);
    g_assert_no_error(error);
    g_signal_connect(rig->flow, "notify::state", G_CALLBACK(flow_window_on_state), rig);
    g_signal_connect(rig->flow, "attachment-ready", G_CALLBACK(flow_window_on_attachment), rig);
    g_free(takes);
    g_free(heard);
    g_free(speaker);
}

typedef struct {
    FlowWindow *rig;
    GtkWidget *widget;
} FlowWindowShown;

static gboolean flow_window_is_shown(gpointer data) {
    FlowWindowShown *shown = data;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(shown->rig->window));
    return surface != NULL && gdk_surface_get_mapped(surface) && gtk_widget_get_width(shown->widget) > 0 &&
           shown->rig->frames > 0 && vng_flow_get_accessible_description(shown->rig->flow)[0] != '\0';
}

/* An undecorated window titled `title` holding `child`, its X events and frames counted; shown, and returned once it
 * painted with `widget` laid out and the flow's first view arrived. */
G_GNUC_UNUSED static void flow_window_show(FlowWindow *rig, const char *title, GtkWidget *child, GtkWidget *widget) {
    rig->window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(rig->window), title);
    gtk_window_set_decorated(GTK_WINDOW(rig->window), FALSE);
    gtk_window_set_child(GTK_WINDOW(rig->window), child);
    GtkEventController *legacy = gtk_event_controller_legacy_new();
    gtk_event_controller_set_propagation_phase(legacy, GTK_PHASE_CAPTURE);
    g_signal_connect(legacy, "event", G_CALLBACK(flow_window_on_event), rig);
    gtk_widget_add_controller(rig->window, legacy);
    gtk_widget_realize(rig->window);
    g_signal_connect(gtk_widget_get_frame_clock(rig->window), "after-paint", G_CALLBACK(flow_window_on_after_paint),
                     rig);
    gtk_window_present(GTK_WINDOW(rig->window));
    FlowWindowShown shown = {rig, widget};
    g_assert_true(rig_wait(flow_window_is_shown, &shown, WAIT_MS));
    rig->xid = x_window_id(rig->window);
}

G_GNUC_UNUSED static void flow_window_close(FlowWindow *rig) {
    gtk_window_destroy(GTK_WINDOW(rig->window));
    rig_drain();
    g_object_unref(rig->flow);
    g_object_unref(rig->recorder);
    g_object_unref(rig->player);
    g_object_unref(rig->clock);
    g_array_unref(rig->states);
    g_free(rig->xid);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Waits */

typedef struct {
    FlowWindow *rig;
    VnFlowState state;
    gdouble duration;
} FlowWindowUntil;

static gboolean flow_window_in_state(gpointer data) {
    FlowWindowUntil *until = data;
    return vng_flow_get_state(until->rig->flow) == until->state &&
           vng_flow_get_duration(until->rig->flow) >= until->duration;
}

/* Waits until the flow is in `state` with at least `duration` seconds; fails the test after WAIT_MS. */
G_GNUC_UNUSED static void flow_window_wait_for_state(FlowWindow *rig, VnFlowState state, gdouble duration) {
    FlowWindowUntil until = {.rig = rig, .state = state, .duration = duration};
    if (!rig_wait(flow_window_in_state, &until, WAIT_MS))
        g_error("no state %d with %.2f s within %d ms (state %d, %.2f s)", state, duration, WAIT_MS,
                vng_flow_get_state(rig->flow), vng_flow_get_duration(rig->flow));
    g_test_message("state %d (%.2f s)", state, vng_flow_get_duration(rig->flow));
}

typedef struct {
    guint *count;
    guint wanted;
} FlowWindowCount;

static gboolean flow_window_counted(gpointer data) {
    FlowWindowCount *count = data;
    return *count->count >= count->wanted;
}

/* Waits until `*count` (one of the rig's counters) reaches `wanted`; fails the test after WAIT_MS. */
G_GNUC_UNUSED static void flow_window_wait_for_count(guint *count, guint wanted) {
    FlowWindowCount until = {count, wanted};
    g_assert_true(rig_wait(flow_window_counted, &until, WAIT_MS));
}

/* Has the window paint once more (what a render then draws is what the widgets show now) and waits for it. */
G_GNUC_UNUSED static void flow_window_wait_for_frame(FlowWindow *rig) {
    guint wanted = rig->frames + 1;
    gtk_widget_queue_draw(rig->window);
    flow_window_wait_for_count(&rig->frames, wanted);
}

/* The files in `directory`'s takes (flow_window_make_flow()'s recorder writes them there). */
G_GNUC_UNUSED static guint flow_window_count_takes(const gchar *directory) {
    gchar *takes = g_build_filename(directory, "takes", NULL);
    GDir *dir = g_dir_open(takes, 0, NULL);
    guint count = 0;
    if (dir != NULL) {
        while (g_dir_read_name(dir) != NULL) count++;
        g_dir_close(dir);
    }
    g_free(takes);
    return count;
}

/* The first child of `parent` with this CSS name (and style class, unless NULL); fails the test when there is none. */
G_GNUC_UNUSED static GtkWidget *flow_window_child(GtkWidget *parent, const char *css_name, const char *css_class) {
    for (GtkWidget *child = gtk_widget_get_first_child(parent); child; child = gtk_widget_get_next_sibling(child))
        if (g_str_equal(gtk_widget_get_css_name(child), css_name) &&
            (css_class == NULL || gtk_widget_has_css_class(child, css_class)))
            return child;
    g_error("no %s.%s under %s", css_name, css_class ? css_class : "", gtk_widget_get_css_name(parent));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Input */

/* The X window coordinates of `widget`'s point at (fx, fy) of its size, moved by (dx, dy) pixels, as strings. */
G_GNUC_UNUSED static void flow_window_point(FlowWindow *rig, GtkWidget *widget, double fx, double fy, int dx, int dy,
                                            gchar **sx, gchar **sy) {
    int x = 0, y = 0;
    widget_point_in_window(widget, rig->window, gtk_widget_get_width(widget) * fx + dx,
                           gtk_widget_get_height(widget) * fy + dy, &x, &y);
    *sx = g_strdup_printf("%d", x);
    *sy = g_strdup_printf("%d", y);
}

/* Runs xdotool: the pointer to `widget`'s centre moved by (dx, dy), then `then` (an action on button 1, or NULL).
 * Not `--sync`: it would wait forever when the pointer is already there (the last test's window was at the same
 * place); the X server takes the motion and the button in order, and the callers wait for what they lead to. */
G_GNUC_UNUSED static void flow_window_pointer_at(FlowWindow *rig, GtkWidget *widget, int dx, int dy, const char *then) {
    gchar *sx = NULL, *sy = NULL;
    flow_window_point(rig, widget, 0.5, 0.5, dx, dy, &sx, &sy);
    if (then != NULL) xdotool((const char *const[]){"mousemove", "--window", rig->xid, sx, sy, then, "1", NULL});
    else xdotool((const char *const[]){"mousemove", "--window", rig->xid, sx, sy, NULL});
    g_free(sx);
    g_free(sy);
}

/* Moves the manual clock. */
G_GNUC_UNUSED static void flow_window_advance(FlowWindow *rig, gdouble seconds) {
    GError *error = NULL;
    g_assert_true(vng_manual_clock_advance(rig->clock, seconds, &error));
    g_assert_no_error(error);
}

/* A press on `button` held past the flow's minimum press: recording, with some audio. */
G_GNUC_UNUSED static void flow_window_hold(FlowWindow *rig, GtkWidget *button) {
    flow_window_pointer_at(rig, button, 0, 0, "mousedown");
    flow_window_wait_for_count(&rig->presses, rig->presses + 1);
    flow_window_advance(rig, 0.5);
    flow_window_wait_for_state(rig, VN_FLOW_STATE_RECORDING, 0.3);
}

/* The states the flow went through, exactly these. */
G_GNUC_UNUSED static void flow_window_assert_states(FlowWindow *rig, const gint *states, guint n) {
    GString *seen = g_string_new(NULL);
    for (guint i = 0; i < rig->states->len; i++)
        g_string_append_printf(seen, " %d", g_array_index(rig->states, gint, i));
    g_test_message("states:%s", seen->str);
    g_string_free(seen, TRUE);
    g_assert_cmpuint(rig->states->len, ==, n);
    for (guint i = 0; i < n; i++) g_assert_cmpint(g_array_index(rig->states, gint, i), ==, states[i]);
}

/* Pixels with any alpha in columns [from, to) of the texture. */
G_GNUC_UNUSED static gsize flow_window_drawn_pixels(GdkTexture *texture, int from, int to) {
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    guint8 *data = texture_pixels(texture);
    gsize drawn = 0;
    for (int y = 0; y < height; y++)
        for (int x = MAX(from, 0); x < MIN(to, width); x++)
            drawn += data[((gsize)y * (gsize)width + (gsize)x) * 4 + 3] != 0;
    g_free(data);
    return drawn;
}

#endif /* VOICENOTE_GTK_TESTS_FLOW_WINDOW_H */
