/*
 * record-button.c: VnRecordButton in a real GtkWindow on an X server (make test runs it under xvfb-run), driven by
 * real X input from xdotool, over a real VnFlow: a VnRecorder on a virtual microphone (ALSA's `file` plugin
 * reading a raw tone, unpaced), a VnPlayer on a file speaker and a VnManualClock for the flow's timers (the rig of
 * bindings/glib/tests/flow.c, in flow-window.h with the window, shared with composer.c). Every wait iterates the main context until the flow (or the window) says so, under
 * a deadline; nothing sleeps.
 * - /record-button/hold-lock-stop: mousedown on the button, the clock past the minimum press: recording; the
 *   pointer up by more than the lock distance: locked; mouseup: still locked; a click (the locked button is a stop
 *   button): preview. Nothing is sent.
 * - /record-button/slide-to-cancel: mousedown, the clock: recording; left 30 px: the hint fades (drawn to a PNG,
 *   not blank where the hint is); left past the cancel distance: idle, nothing sent.
 * - /record-button/tap-shows-tip: a click: the tip (its popover shows), until the clock moves 2 s.
 * - /record-button/space-records: with the button focused, Space held past the minimum press records and its
 *   release sends the take (the flow's key inputs off: the button acts as the pointer held at its centre).
 * - /record-button/focus-ring: in a window showing its focus, the focused button is drawn with a focus ring (its PNG
 *   differs from the button focused before).
 * - /record-button/hidden-mid-take: Space held past the minimum press (recording), then the button hidden (the
 *   application switched conversation): the flow deactivated (preview, the take kept, nothing sent); Space let go
 *   elsewhere; shown again, discarded: Space records again (the key was not left held).
 * Each checks the accessible role, label and description (the flow's) as GTK's accessibility backend holds them.
 */
#include <voicenote-gtk.h>

#include "flow-window.h"

#define MARGIN_LEFT 220 /* room for the hint left of the button */
#define MARGIN_TOP 110  /* and for the lock above it */
#define MARGIN 20
#define LOCK_MOVE 60   /* px up: past the lock distance (50) */
#define SLIDE_MOVE 30  /* px left: the hint at (75 − 30) / 75 */
#define CANCEL_MOVE 100 /* px left: past the cancel distance (75) */

static gchar *directory;
static gchar *microphone;

/* The flow and its window (flow-window.h), and the button with room around it in the window's box. */
typedef struct {
    FlowWindow base;
    GtkWidget *box;
    GtkWidget *button;
} Rig;

static void rig_open(Rig *rig, gboolean key_inputs) {
    flow_window_make_flow(&rig->base, directory, microphone, key_inputs, NULL);
    rig->box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
    rig->button = vngtk_record_button_new(rig->base.flow);
    g_object_set(rig->button, "margin-start", MARGIN_LEFT, "margin-top", MARGIN_TOP, "margin-end", MARGIN,
                 "margin-bottom", MARGIN, "halign", GTK_ALIGN_START, "valign", GTK_ALIGN_START, NULL);
    gtk_box_append(GTK_BOX(rig->box), rig->button);
    flow_window_show(&rig->base, "VnRecordButton test", rig->box, rig->button);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Waits and input */

static void wait_for_state(Rig *rig, VnFlowState state, gdouble duration) {
    flow_window_wait_for_state(&rig->base, state, duration);
}

static gdouble alpha_below;
static gboolean hint_faded(gpointer data) {
    gdouble alpha = 1;
    g_object_get(((Rig *)data)->base.flow, "slide-to-cancel-alpha", &alpha, NULL);
    return alpha < alpha_below;
}

/* The pointer to the button's centre moved by (dx, dy), then `then` (flow-window.h). */
static void pointer_at(Rig *rig, int dx, int dy, const char *then) {
    flow_window_pointer_at(&rig->base, rig->button, dx, dy, then);
}

/* The button's accessible role, label, and description: the flow's. */
static void assert_accessible(Rig *rig) {
    GtkAccessible *accessible = GTK_ACCESSIBLE(rig->button);
    const gchar *description = vng_flow_get_accessible_description(rig->base.flow);
    g_test_message("accessible description: %s", description);
    g_assert_cmpstr(description, !=, "");
    gtk_test_accessible_assert_role(accessible, GTK_ACCESSIBLE_ROLE_BUTTON);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, "Record voice message");
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_hold_lock_stop(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    assert_accessible(&rig);
    flow_window_hold(&rig.base, rig.button);
    assert_accessible(&rig);
    pointer_at(&rig, 0, -LOCK_MOVE, NULL);
    wait_for_state(&rig, VN_FLOW_STATE_LOCKED, 0);
    assert_accessible(&rig);
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.base.releases, 1);
    rig_drain();
    g_assert_cmpint(vng_flow_get_state(rig.base.flow), ==, VN_FLOW_STATE_LOCKED);
    /* The locked button is a stop button. */
    pointer_at(&rig, 0, 0, "click");
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    assert_accessible(&rig);
    rig_drain();
    /* The mouseup left the take locked: it was neither sent (idle) nor stopped before the click. */
    flow_window_assert_states(&rig.base, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_LOCKED, VN_FLOW_STATE_PREVIEW}, 3);
    g_assert_cmpuint(rig.base.attachments, ==, 0);
    flow_window_close(&rig.base);
}

static void test_slide_to_cancel(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    flow_window_hold(&rig.base, rig.button);
    pointer_at(&rig, -SLIDE_MOVE, 0, NULL);
    alpha_below = 1.0;
    g_assert_true(rig_wait(hint_faded, &rig, WAIT_MS));
    gdouble alpha = 0;
    g_object_get(rig.base.flow, "slide-to-cancel-alpha", &alpha, NULL);
    g_test_message("slide-to-cancel-alpha %.3f", alpha);
    g_assert_cmpfloat_with_epsilon(alpha, (75.0 - SLIDE_MOVE) / 75.0, 0.02);
    assert_accessible(&rig);

    /* Drawn once the window painted the faded hint: the hint (left of the button) and the button are there. */
    flow_window_wait_for_frame(&rig.base);
    GdkTexture *texture = render_widget(rig.box, rig.base.window, "record-button-recording.png");
    double button_x = 0, button_y = 0;
    g_assert_true(gtk_widget_translate_coordinates(rig.button, rig.box, 0, 0, &button_x, &button_y));
    int left = (int)button_x, right = left + gtk_widget_get_width(rig.button);
    gsize hint = flow_window_drawn_pixels(texture, 0, left), button = flow_window_drawn_pixels(texture, left, right);
    g_test_message("drawn: %" G_GSIZE_FORMAT " pixels of the hint, %" G_GSIZE_FORMAT " of the button (%d×%d)", hint,
                   button, gdk_texture_get_width(texture), gdk_texture_get_height(texture));
    g_assert_cmpuint(hint, >, 200);   /* an arrow and "Slide to cancel" */
    g_assert_cmpuint(button, >, 400); /* the red circle */
    g_object_unref(texture);

    pointer_at(&rig, -CANCEL_MOVE, 0, NULL);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    assert_accessible(&rig);
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.base.releases, 1);
    rig_drain();
    flow_window_assert_states(&rig.base, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE}, 2);
    g_assert_cmpuint(rig.base.attachments, ==, 0);
    flow_window_close(&rig.base);
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
    g_object_get(rig.base.flow, "tip-visible", &visible, NULL);
    g_assert_true(visible);
    g_assert_true(rig_wait(tip_mapped, &rig, WAIT_MS));
    GtkWidget *label = gtk_popover_get_child(GTK_POPOVER(tip));
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(label)), ==, "Hold to record, release to send");
    assert_accessible(&rig);
    flow_window_advance(&rig.base, 2.0);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    g_assert_false(gtk_widget_get_visible(tip));
    assert_accessible(&rig);
    flow_window_assert_states(&rig.base, (const gint[]){VN_FLOW_STATE_SHOWING_TIP, VN_FLOW_STATE_IDLE}, 2);
    flow_window_close(&rig.base);
}

static gboolean has_focus(gpointer data) {
    Rig *rig = data;
    return gtk_window_is_active(GTK_WINDOW(rig->base.window)) && gtk_widget_has_focus(rig->button);
}

static gboolean sent(gpointer data) {
    return ((Rig *)data)->base.attachments > 0;
}

/* The button focused (its window has the X focus), Space held past the minimum press: recording. */
static void hold_space(Rig *rig) {
    gtk_widget_grab_focus(rig->button);
    g_assert_true(rig_wait(has_focus, rig, WAIT_MS));
    guint presses = rig->base.key_presses;
    xdotool((const char *const[]){"keydown", "space", NULL});
    flow_window_wait_for_count(&rig->base.key_presses, presses + 1);
    flow_window_advance(&rig->base, 0.5);
    wait_for_state(rig, VN_FLOW_STATE_RECORDING, 0.3);
}

static void test_space_records(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    xdotool((const char *const[]){"windowfocus", "--sync", rig.base.xid, NULL});
    hold_space(&rig);
    xdotool((const char *const[]){"keyup", "space", NULL});
    g_assert_true(rig_wait(sent, &rig, WAIT_MS));
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    flow_window_assert_states(&rig.base, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE}, 2);
    flow_window_close(&rig.base);
}

static gboolean focus_visible(gpointer data) {
    return (gtk_widget_get_state_flags(data) & GTK_STATE_FLAG_FOCUS_VISIBLE) != 0;
}

/* The button drawn to `name`; how many of its pixels differ from `other` (of the same size), or 0 for none. */
static gsize pixels_differing(Rig *rig, const char *name, guint8 **pixels, const guint8 *other) {
    flow_window_wait_for_frame(&rig->base);
    GdkTexture *texture = render_widget(rig->button, rig->base.window, name);
    *pixels = texture_pixels(texture);
    gsize size = (gsize)gdk_texture_get_width(texture) * gdk_texture_get_height(texture), differing = 0;
    g_object_unref(texture);
    for (gsize i = 0; other != NULL && i < size; i++) differing += memcmp(*pixels + i * 4, other + i * 4, 4) != 0;
    return differing;
}

/* The focused button in a window showing its focus (as after keyboard use) has a focus ring around its face: drawn,
 * it differs from the same focused button before the window showed its focus. */
static void test_focus_ring(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    xdotool((const char *const[]){"windowfocus", "--sync", rig.base.xid, NULL});
    guint8 *plain = NULL, *ringed = NULL;
    g_assert_false(focus_visible(rig.button));
    pixels_differing(&rig, "record-button-unfocused.png", &plain, NULL);
    /* What keyboard use turns on (GTK's own heuristics for it are GTK's): the window shows where its focus is. */
    gtk_window_set_focus_visible(GTK_WINDOW(rig.base.window), TRUE);
    g_assert_true(rig_wait(focus_visible, rig.button, WAIT_MS));
    g_assert_true(gtk_widget_has_focus(rig.button));
    gsize ring = pixels_differing(&rig, "record-button-focus-ring.png", &ringed, plain);
    g_test_message("the focus ring changed %" G_GSIZE_FORMAT " pixels", ring);
    g_assert_cmpuint(ring, >, 50);
    g_free(plain);
    g_free(ringed);
    flow_window_close(&rig.base);
}

static gboolean is_mapped(gpointer data) {
    return gtk_widget_get_mapped(data);
}

/* Space held records; the button hidden mid-take stops it into preview (kept); shown again, Space records again. */
static void test_hidden_mid_take(void) {
    Rig rig;
    rig_open(&rig, FALSE);
    guint takes = flow_window_count_takes(directory);
    xdotool((const char *const[]){"windowfocus", "--sync", rig.base.xid, NULL});
    hold_space(&rig);

    gtk_widget_set_visible(rig.button, FALSE);
    g_assert_false(gtk_widget_get_mapped(rig.button));
    wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    g_assert_cmpuint(flow_window_count_takes(directory), ==, takes + 1);
    /* Stopped by the deactivation, at once: not by the recorder's maximum length (3600 s; the microphone is read
     * unpaced, about 100 s of audio a second, so a stop left to the maximum comes after half a minute). */
    g_assert_cmpfloat(vng_flow_get_duration(rig.base.flow), <, 600);
    xdotool((const char *const[]){"keyup", "space", NULL});
    gtk_widget_set_visible(rig.button, TRUE);
    g_assert_true(rig_wait(is_mapped, rig.button, WAIT_MS));
    g_assert_cmpint(vng_flow_get_state(rig.base.flow), ==, VN_FLOW_STATE_PREVIEW);
    g_assert_cmpuint(rig.base.attachments, ==, 0);
    g_assert_false(gtk_widget_get_state_flags(flow_window_child(rig.button, "button", NULL)) & GTK_STATE_FLAG_ACTIVE);

    GError *error = NULL;
    g_assert_true(vng_flow_discard(rig.base.flow, &error));
    g_assert_no_error(error);
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    hold_space(&rig);
    xdotool((const char *const[]){"keyup", "space", NULL});
    g_assert_true(rig_wait(sent, &rig, WAIT_MS));
    wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    flow_window_assert_states(&rig.base, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_PREVIEW,
                                                        VN_FLOW_STATE_IDLE, VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE},
                              5);
    g_assert_cmpuint(rig.base.attachments, ==, 1);
    flow_window_close(&rig.base);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    directory = rig_directory_with_tone("vn-gtk-record-button-XXXXXX", 30, &microphone);
    g_test_add_func("/record-button/hold-lock-stop", test_hold_lock_stop);
    g_test_add_func("/record-button/slide-to-cancel", test_slide_to_cancel);
    g_test_add_func("/record-button/tap-shows-tip", test_tap_shows_tip);
    g_test_add_func("/record-button/space-records", test_space_records);
    g_test_add_func("/record-button/focus-ring", test_focus_ring);
    g_test_add_func("/record-button/hidden-mid-take", test_hidden_mid_take);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
    return status;
}
