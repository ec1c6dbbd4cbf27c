/*
 * record-button.c: VnRecordButton in a real GtkWindow on an X server (make test runs it under xvfb-run), driven by
 * real X input from xdotool, over a real VnFlow: a VnRecorder on a virtual microphone (ALSA's `file` plugin
 * reading a raw tone, unpaced), a VnPlayer on a file speaker and a VnManualClock for the flow's timers (the rig of
 * bindings/glib/tests/flow.c). Every wait iterates the main context until the flow (or the window) says so, under
 * a deadline; nothing sleeps.
 * - /record-button/hold-lock-stop: mousedown on the button, the clock past the minimum press: recording; the
 *   pointer up by more than the lock distance: locked; mouseup: still locked; a click (the locked button is a stop
 *   button): preview. Nothing is sent.
 * - /record-button/slide-to-cancel: mousedown, the clock: recording; left 30 px: the hint fades (drawn to a PNG,
 *   not blank where the hint is); left past the cancel distance: idle, nothing sent.
 * - /record-button/tap-shows-tip: a click: the tip (its popover shows), until the clock moves 2 s.
 * - /record-button/space-records: with the button focused, Space held past the minimum press records and its
 *   release sends the take (the flow's key inputs off: the button acts as the pointer held at its centre).
 * Each checks the accessible role, label and description (the flow's) as GTK's accessibility backend holds them.
 */
#include <voicenote-gtk.h>

#include "tests/capture-rig.h"
#include "x-session.h"

#define MARGIN_LEFT 220 /* room for the hint left of the button */
#define MARGIN_TOP 110  /* and for the lock above it */
#define MARGIN 20
#define LOCK_MOVE 60   /* px up: past the lock distance (50) */
#define SLIDE_MOVE 30  /* px left: the hint at (75 − 30) / 75 */
#define CANCEL_MOVE 100 /* px left: past the cancel distance (75) */

static gchar *directory;
static gchar *microphone;

typedef struct {
    VnManualClock *clock;
    VnRecorder *recorder;
    VnPlayer *player;
    VnFlow *flow;
    GtkWidget *window;
    GtkWidget *box; /* the window's child, holding the button with room around it */
    GtkWidget *button;
    gchar *xid;
    GArray *states;        /* of gint: each state the flow notified, in order */
    guint attachments;     /* attachment-ready signals */
    guint presses, releases, key_presses; /* events the window saw (capture phase: before the button's) */
    guint frames;
} Rig;

static void on_state(GObject *flow, GParamSpec *pspec, Rig *rig) {
    (void)pspec;
    gint state = (gint)vng_flow_get_state(VNG_FLOW(flow));
    g_array_append_val(rig->states, state);
}

static void on_attachment(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform, const gchar *payload,
                          Rig *rig) {
    (void)flow, (void)path, (void)waveform, (void)payload;
    g_test_message("attachment-ready: %.3f s", duration);
    rig->attachments++;
}

static gboolean on_window_event(GtkEventControllerLegacy *controller, GdkEvent *event, Rig *rig) {
    (void)controller;
    GdkEventType type = gdk_event_get_event_type(event);
    if (type == GDK_BUTTON_PRESS) rig->presses++;
    if (type == GDK_BUTTON_RELEASE) rig->releases++;
    if (type == GDK_KEY_PRESS) rig->key_presses++;
    return FALSE;
}

static void on_after_paint(GdkFrameClock *clock, Rig *rig) {
    (void)clock;
    rig->frames++;
}

static gboolean is_shown(gpointer data) {
    Rig *rig = data;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(rig->window));
    return surface != NULL && gdk_surface_get_mapped(surface) && gtk_widget_get_width(rig->button) > 0 &&
           rig->frames > 0 && vng_flow_get_accessible_description(rig->flow)[0] != '\0';
}

static void rig_open(Rig *rig, gboolean key_inputs) {
    GError *error = NULL;
    *rig = (Rig){.states = g_array_new(FALSE, FALSE, sizeof(gint))};
    gchar *takes = g_build_filename(directory, "takes", NULL);
    gchar *heard = g_build_filename(directory, "heard.raw", NULL);
    gchar *speaker = rig_speaker(heard);
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
    g_signal_connect(rig->flow, "notify::state", G_CALLBACK(on_state), rig);
    g_signal_connect(rig->flow, "attachment-ready", G_CALLBACK(on_attachment), rig);
    g_free(takes);
    g_free(heard);
    g_free(speaker);

    rig->window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(rig->window), "VnRecordButton test");
    gtk_window_set_decorated(GTK_WINDOW(rig->window), FALSE);
    rig->box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    rig->button = vngtk_record_button_new(rig->flow);
    g_object_set(rig->button, "margin-start", MARGIN_LEFT, "margin-top", MARGIN_TOP, "margin-end", MARGIN,
                 "margin-bottom", MARGIN, "halign", GTK_ALIGN_START, "valign", GTK_ALIGN_START, NULL);
    gtk_box_append(GTK_BOX(rig->box), rig->button);
    gtk_window_set_child(GTK_WINDOW(rig->window), rig->box);
    GtkEventController *legacy = gtk_event_controller_legacy_new();
    gtk_event_controller_set_propagation_phase(legacy, GTK_PHASE_CAPTURE);
    g_signal_connect(legacy, "event", G_CALLBACK(on_window_event), rig);
    gtk_widget_add_controller(rig->window, legacy);
    gtk_widget_realize(rig->window);
    g_signal_connect(gtk_widget_get_frame_clock(rig->window), "after-paint", G_CALLBACK(on_after_paint), rig);
    gtk_window_present(GTK_WINDOW(rig->window));
    g_assert_true(rig_wait(is_shown, rig, WAIT_MS));
    rig->xid = x_window_id(rig->window);
}

static void rig_close(Rig *rig) {
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
    Rig *rig;
    VnFlowState state;
    gdouble duration;
} Until;

static gboolean in_state(gpointer data) {
    Until *until = data;
    return vng_flow_get_state(until->rig->flow) == until->state &&
           vng_flow_get_duration(until->rig->flow) >= until->duration;
}

static void wait_for_state(Rig *rig, VnFlowState state, gdouble duration) {
    Until until = {.rig = rig, .state = state, .duration = duration};
    if (!rig_wait(in_state, &until, WAIT_MS))
        g_error("no state %d with %.2f s within %d ms (state %d, %.2f s)", state, duration, WAIT_MS,
                vng_flow_get_state(rig->flow), vng_flow_get_duration(rig->flow));
    g_test_message("state %d (%.2f s)", state, vng_flow_get_duration(rig->flow));
}

static guint events_wanted;
static gboolean pressed_enough(gpointer data) {
    return ((Rig *)data)->presses >= events_wanted;
}
static gboolean released_enough(gpointer data) {
    return ((Rig *)data)->releases >= events_wanted;
}

/* The window (and so the button, in the same dispatch) has seen `n` presses. */
static void wait_for_presses(Rig *rig, guint n) {
    events_wanted = n;
    g_assert_true(rig_wait(pressed_enough, rig, WAIT_MS));
}

static void wait_for_releases(Rig *rig, guint n) {
    events_wanted = n;
    g_assert_true(rig_wait(released_enough, rig, WAIT_MS));
}

static gboolean key_pressed_enough(gpointer data) {
    return ((Rig *)data)->key_presses >= events_wanted;
}

static guint frames_wanted;
static gboolean painted_enough(gpointer data) {
    return ((Rig *)data)->frames >= frames_wanted;
}

static gdouble alpha_below;
static gboolean hint_faded(gpointer data) {
    gdouble alpha = 1;
    g_object_get(((Rig *)data)->flow, "slide-to-cancel-alpha", &alpha, NULL);
    return alpha < alpha_below;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Input */

/* Runs xdotool: the pointer to the button's centre moved by (dx, dy), then `then` (an action or NULL). Not
 * `--sync`: it would wait forever when the pointer is already there (the last test's window was at the same place);
 * the X server takes the motion and the button in order, and the callers wait for what they lead to. */
static void pointer_at(Rig *rig, int dx, int dy, const char *then) {
    int x = 0, y = 0;
    widget_point_in_window(rig->button, rig->window, gtk_widget_get_width(rig->button) / 2.0 + dx,
                           gtk_widget_get_height(rig->button) / 2.0 + dy, &x, &y);
    gchar *sx = g_strdup_printf("%d", x), *sy = g_strdup_printf("%d", y);
    if (then != NULL) xdotool((const char *const[]){"mousemove", "--window", rig->xid, sx, sy, then, "1", NULL});
    else xdotool((const char *const[]){"mousemove", "--window", rig->xid, sx, sy, NULL});
    g_free(sx);
    g_free(sy);
}

static void advance(Rig *rig, gdouble seconds) {
    GError *error = NULL;
    g_assert_true(vng_manual_clock_advance(rig->clock, seconds, &error));
    g_assert_no_error(error);
}

/* A press on the button held past the minimum press: recording, with some audio. */
static void hold(Rig *rig) {
    pointer_at(rig, 0, 0, "mousedown");
    wait_for_presses(rig, rig->presses + 1);
    advance(rig, 0.5);
    wait_for_state(rig, VN_FLOW_STATE_RECORDING, 0.3);
}

/* The button's accessible role, label, and description: the flow's. */
static void assert_accessible(Rig *rig) {
    GtkAccessible *accessible = GTK_ACCESSIBLE(rig->button);
    const gchar *description = vng_flow_get_accessible_description(rig->flow);
    g_test_message("accessible description: %s", description);
    g_assert_cmpstr(description, !=, "");
    gtk_test_accessible_assert_role(accessible, GTK_ACCESSIBLE_ROLE_BUTTON);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, "Record voice message");
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description);
}

/* The states the flow went through, exactly these. */
static void assert_states(Rig *rig, const gint *states, guint n) {
    GString *seen = g_string_new(NULL);
    for (guint i = 0; i < rig->states->len; i++) g_string_append_printf(seen, " %d", g_array_index(rig->states, gint, i));
    g_test_message("states:%s", seen->str);
    g_string_free(seen, TRUE);
    g_assert_cmpuint(rig->states->len, ==, n);
    for (guint i = 0; i < n; i++) g_assert_cmpint(g_array_index(rig->states, gint, i), ==, states[i]);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_hold_lock_stop(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    assert_accessible(&rig);
    hold(&rig);
    assert_accessible(&rig);
    pointer_at(&rig, 0, -LOCK_MOVE, NULL);
    wait_for_state(&rig, VN_FLOW_STATE_LOCKED, 0);
    assert_accessible(&rig);
    xdotool((const char *const[]){"mouseup", "1", NULL});
    wait_for_releases(&rig, 1);
    rig_drain();
    g_assert_cmpint(vng_flow_get_state(rig.flow), ==, VN_FLOW_STATE_LOCKED);
    /* The locked button is a stop button. */
    pointer_at(&rig, 0, 0, "click");
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    assert_accessible(&rig);
    rig_drain();
    /* The mouseup left the take locked: it was neither sent (idle) nor stopped before the click. */
    assert_states(&rig, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_LOCKED, VN_FLOW_STATE_PREVIEW}, 3);
    g_assert_cmpuint(rig.attachments, ==, 0);
    rig_close(&rig);
}

/* Pixels with any alpha in columns [from, to) of the texture. */
static gsize drawn_pixels(GdkTexture *texture, int from, int to) {
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    guint8 *data = texture_pixels(texture);
    gsize drawn = 0;
    for (int y = 0; y < height; y++)
        for (int x = from; x < to; x++) drawn += data[((gsize)y * (gsize)width + (gsize)x) * 4 + 3] != 0;
    g_free(data);
    return drawn;
}

static void test_slide_to_cancel(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    hold(&rig);
    pointer_at(&rig, -SLIDE_MOVE, 0, NULL);
    alpha_below = 1.0;
    g_assert_true(rig_wait(hint_faded, &rig, WAIT_MS));
    gdouble alpha = 0;
    g_object_get(rig.flow, "slide-to-cancel-alpha", &alpha, NULL);
    g_test_message("slide-to-cancel-alpha %.3f", alpha);
    g_assert_cmpfloat_with_epsilon(alpha, (75.0 - SLIDE_MOVE) / 75.0, 0.02);
    assert_accessible(&rig);

    /* Drawn once the window painted the faded hint: the hint (left of the button) and the button are there. */
    frames_wanted = rig.frames + 1;
    gtk_widget_queue_draw(rig.window);
    g_assert_true(rig_wait(painted_enough, &rig, WAIT_MS));
    GdkTexture *texture = render_widget(rig.box, rig.window, "record-button-recording.png");
    double button_x = 0, button_y = 0;
    g_assert_true(gtk_widget_translate_coordinates(rig.button, rig.box, 0, 0, &button_x, &button_y));
    int left = (int)button_x, right = left + gtk_widget_get_width(rig.button);
    gsize hint = drawn_pixels(texture, 0, left), button = drawn_pixels(texture, left, right);
    g_test_message("drawn: %" G_GSIZE_FORMAT " pixels of the hint, %" G_GSIZE_FORMAT " of the button (%d×%d)", hint,
                   button, gdk_texture_get_width(texture), gdk_texture_get_height(texture));
    g_assert_cmpuint(hint, >, 200);   /* an arrow and "Slide to cancel" */
    g_assert_cmpuint(button, >, 400); /* the red circle */
    g_object_unref(texture);

    pointer_at(&rig, -CANCEL_MOVE, 0, NULL);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    assert_accessible(&rig);
    xdotool((const char *const[]){"mouseup", "1", NULL});
    wait_for_releases(&rig, 1);
    rig_drain();
    assert_states(&rig, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE}, 2);
    g_assert_cmpuint(rig.attachments, ==, 0);
    rig_close(&rig);
}

/* The button's GtkPopover (the tip), found among its children. */
static GtkWidget *tip_of(GtkWidget *button) {
    for (GtkWidget *child = gtk_widget_get_first_child(button); child; child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_POPOVER(child)) return child;
    g_assert_not_reached();
}

static gboolean tip_mapped(gpointer data) {
    return gtk_widget_get_mapped(tip_of(((Rig *)data)->button));
}

static void test_tap_shows_tip(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    GtkWidget *tip = tip_of(rig.button);
    g_assert_false(gtk_widget_get_visible(tip));
    pointer_at(&rig, 0, 0, "click");
    wait_for_state(&rig, VN_FLOW_STATE_SHOWING_TIP, 0);
    gboolean visible = FALSE;
    g_object_get(rig.flow, "tip-visible", &visible, NULL);
    g_assert_true(visible);
    g_assert_true(rig_wait(tip_mapped, &rig, WAIT_MS));
    GtkWidget *label = gtk_popover_get_child(GTK_POPOVER(tip));
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(label)), ==, "Hold to record, release to send");
    assert_accessible(&rig);
    advance(&rig, 2.0);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    g_assert_false(gtk_widget_get_visible(tip));
    assert_accessible(&rig);
    assert_states(&rig, (const gint[]){VN_FLOW_STATE_SHOWING_TIP, VN_FLOW_STATE_IDLE}, 2);
    rig_close(&rig);
}

static gboolean has_focus(gpointer data) {
    Rig *rig = data;
    return gtk_window_is_active(GTK_WINDOW(rig->window)) && gtk_widget_has_focus(rig->button);
}

static gboolean sent(gpointer data) {
    return ((Rig *)data)->attachments > 0;
}

static void test_space_records(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    xdotool((const char *const[]){"windowfocus", "--sync", rig.xid, NULL});
    gtk_widget_grab_focus(rig.button);
    g_assert_true(rig_wait(has_focus, &rig, WAIT_MS));
    xdotool((const char *const[]){"keydown", "space", NULL});
    events_wanted = 1;
    g_assert_true(rig_wait(key_pressed_enough, &rig, WAIT_MS));
    advance(&rig, 0.5);
    wait_for_state(&rig, VN_FLOW_STATE_RECORDING, 0.3);
    xdotool((const char *const[]){"keyup", "space", NULL});
    g_assert_true(rig_wait(sent, &rig, WAIT_MS));
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    assert_states(&rig, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE}, 2);
    rig_close(&rig);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    directory = rig_directory_with_tone("vn-gtk-record-button-XXXXXX", 30, &microphone);
    g_test_add_func("/record-button/hold-lock-stop", test_hold_lock_stop);
    g_test_add_func("/record-button/slide-to-cancel", test_slide_to_cancel);
    g_test_add_func("/record-button/tap-shows-tip", test_tap_shows_tip);
    g_test_add_func("/record-button/space-records", test_space_records);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
    return status;
}
