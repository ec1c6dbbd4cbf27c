/*
 * composer.c: VnComposer in a real GtkWindow on an X server (make test runs it under xvfb-run), driven by real X
 * input from xdotool, over a real VnFlow made as record-button.c makes it (flow-window.h: a VnRecorder on a virtual
 * microphone, a VnPlayer on a file speaker, a VnManualClock). Every wait iterates the main context until the flow
 * (or the window) says so, under a deadline; nothing sleeps.
 *
 * /composer/record-lock-trim-send: idle, only the record button shows; mousedown on it and the clock 0.5 s:
 * recording, the composer shows live bars (the flow's levels) and the timer (drawn to composer-recording.png with
 * the record button's hint, not blank); the pointer 60 px up: locked, discard
 * and send show (drawn to composer-locked.png, not blank); mouseup, then a click on the record button (a stop
 * button now): preview, with the take's waveform, play, the trim handles; the start handle dragged to 25 % of the
 * waveform: `trimmed`, the take about 75 % of what it was, the handles back at its ends (drawn to
 * composer-preview.png, the handles there); send: `attachment-ready` with the trimmed take, idle. At each step the
 * group's accessible label and description (the flow's), and the buttons' and handles' labels.
 */
#include "paced-speaker.h" /* first: it asks for _GNU_SOURCE */

#include <string.h>

#include "flow-window.h"

#define MARGIN_TOP 110 /* room for the record button's lock above it */
#define MARGIN 20
#define COMPOSER_WIDTH 560
#define LOCK_MOVE 60 /* px up: past the lock distance (50) */
#define TRIM_TO 0.25 /* of the waveform, where the start handle is dragged */

static gchar *directory;
static gchar *microphone;

/* The composer's parts, found by what they are (the composer's children, in its row's order). */
typedef struct {
    GtkWidget *composer, *discard, *play, *timer, *send, *record, *trim, *start, *end;
    VnWaveform *bars, *waveform;
} Parts;

static GtkWidget *button_labelled(GtkWidget *composer, const char *icon) {
    for (GtkWidget *child = gtk_widget_get_first_child(composer); child; child = gtk_widget_get_next_sibling(child))
        if (GTK_IS_BUTTON(child) && g_strcmp0(gtk_button_get_icon_name(GTK_BUTTON(child)), icon) == 0) return child;
    g_error("no button with %s", icon);
}

static Parts parts_of(GtkWidget *composer) {
    Parts parts = {.composer = composer};
    parts.discard = button_labelled(composer, "user-trash-symbolic");
    parts.play = button_labelled(composer, "media-playback-start-symbolic");
    parts.send = button_labelled(composer, "document-send-symbolic");
    parts.timer = flow_window_child(composer, "label", NULL);
    parts.record = GTK_WIDGET(vngtk_composer_get_record_button(VNGTK_COMPOSER(composer)));
    parts.bars = VNGTK_WAVEFORM(flow_window_child(composer, "waveform", "live"));
    parts.trim = flow_window_child(composer, "trim", NULL);
    parts.waveform = VNGTK_WAVEFORM(flow_window_child(parts.trim, "waveform", NULL));
    parts.start = flow_window_child(parts.trim, "trimhandle", "start");
    parts.end = flow_window_child(parts.trim, "trimhandle", "end");
    return parts;
}

/* Which parts show: exactly these. */
static void assert_shown(Parts *parts, gboolean discard, gboolean play, gboolean bars, gboolean trim, gboolean timer,
                         gboolean send, gboolean record) {
    g_assert_cmpint(gtk_widget_get_visible(parts->discard), ==, discard);
    g_assert_cmpint(gtk_widget_get_visible(parts->play), ==, play);
    g_assert_cmpint(gtk_widget_get_visible(GTK_WIDGET(parts->bars)), ==, bars);
    g_assert_cmpint(gtk_widget_get_visible(parts->trim), ==, trim);
    g_assert_cmpint(gtk_widget_get_visible(parts->timer), ==, timer);
    g_assert_cmpint(gtk_widget_get_visible(parts->send), ==, send);
    g_assert_cmpint(gtk_widget_get_visible(parts->record), ==, record);
}

/* The group's role, label and description (the flow's), and the buttons' labels. */
static void assert_accessible(Parts *parts, VnFlow *flow) {
    const gchar *description = vng_flow_get_accessible_description(flow);
    g_test_message("accessible description: %s", description);
    g_assert_cmpstr(description, !=, "");
    GtkAccessible *composer = GTK_ACCESSIBLE(parts->composer);
    gtk_test_accessible_assert_role(composer, GTK_ACCESSIBLE_ROLE_GROUP);
    gtk_test_accessible_assert_property(composer, GTK_ACCESSIBLE_PROPERTY_LABEL, "Voice message composer");
    gtk_test_accessible_assert_property(composer, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(parts->discard), GTK_ACCESSIBLE_PROPERTY_LABEL, "Discard");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(parts->send), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        "Send voice message");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(parts->record), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        "Record voice message");
}

/* The timer says m:ss of `seconds`. */
static void assert_timer(Parts *parts, gdouble seconds) {
    guint whole = (guint)floor(seconds);
    gchar *text = g_strdup_printf("%u:%02u", whole / 60, whole % 60);
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(parts->timer)), ==, text);
    g_free(text);
}

static gboolean has_bars(gpointer data) {
    gsize n = 0;
    vngtk_waveform_get_values(((Parts *)data)->bars, &n);
    return n > 0;
}

/* Pixels differing from the top-left one (the background) by more than a little. */
static gsize differing_pixels(GdkTexture *texture) {
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    guint8 *data = texture_pixels(texture);
    gsize differing = 0;
    for (gsize i = 0; i < (gsize)width * (gsize)height; i++) {
        const guint8 *p = data + i * 4;
        differing += abs(p[0] - data[0]) + abs(p[1] - data[1]) + abs(p[2] - data[2]) + abs(p[3] - data[3]) > 24;
    }
    g_free(data);
    return differing;
}

/* The composer drawn (after the window painted what it shows now) to `name`; more than 2 % of it not background. */
static GdkTexture *render_composer(FlowWindow *rig, Parts *parts, const char *name) {
    flow_window_wait_for_frame(rig);
    GdkTexture *texture = render_widget(parts->composer, rig->window, name);
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    gsize differing = differing_pixels(texture);
    g_test_message("%s: %d×%d, %" G_GSIZE_FORMAT " pixels differ from the background", name, width, height,
                   differing);
    g_assert_cmpuint(differing, >, (gsize)width * height / 50);
    return texture;
}

/* The trim handle's accessible slider: its label, the take's seconds at `fraction`, 0 to the take's length. */
static void assert_handle(GtkWidget *handle, const char *label, gdouble fraction, gdouble duration) {
    gtk_test_accessible_assert_role(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_ROLE_SLIDER);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 0.0);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, duration);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, fraction * duration);
}

/* The trims the flow announced: how many, and the last one's length. */
typedef struct {
    guint count;
    gdouble duration;
    gdouble start_value; /* the start handle's place, in seconds, when the trim was asked for */
} Trims;

static void on_trimmed(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform, const gchar *payload,
                       Trims *trims) {
    (void)flow, (void)path, (void)waveform, (void)payload;
    g_test_message("trimmed: %.3f s", duration);
    trims->count++;
    trims->duration = duration;
}

static gboolean trimmed_and_shown(gpointer data) {
    FlowWindow *rig = data;
    Trims *trims = g_object_get_data(G_OBJECT(rig->flow), "trims");
    gdouble end = 0;
    g_object_get(rig->flow, "trim-end", &end, NULL);
    return trims->count > 0 && vng_flow_get_state(rig->flow) == VN_FLOW_STATE_PREVIEW &&
           vng_flow_get_duration(rig->flow) == trims->duration && end == trims->duration;
}

/* The start handle pressed at its centre, moved to TRIM_TO of the trim area (the centre's offset kept), released. */
static void drag_start_handle(FlowWindow *rig, Parts *parts) {
    gchar *from_x = NULL, *from_y = NULL, *to_x = NULL, *to_y = NULL;
    flow_window_point(rig, parts->start, 0.5, 0.5, 0, 0, &from_x, &from_y);
    double handle_x = 0, handle_y = 0;
    g_assert_true(gtk_widget_translate_coordinates(parts->start, parts->trim, 0, 0, &handle_x, &handle_y));
    g_test_message("start handle at x %.0f of the trim area's %d px", handle_x, gtk_widget_get_width(parts->trim));
    flow_window_point(rig, parts->trim, TRIM_TO, 0.5, (int)lround(gtk_widget_get_width(parts->start) / 2.0), 0, &to_x,
                      &to_y);
    xdotool((const char *const[]){"mousemove", "--window", rig->xid, from_x, from_y, "mousedown", "1", NULL});
    flow_window_wait_for_count(&rig->presses, rig->presses + 1);
    xdotool((const char *const[]){"mousemove", "--window", rig->xid, to_x, from_y, "mouseup", "1", NULL});
    g_free(from_x);
    g_free(from_y);
    g_free(to_x);
    g_free(to_y);
}

/* Idle again after a take recorded, locked and previewed: only the record button, the accessible state, the states
 * exactly recording, locked, preview, idle, and `attachments` sent. */
static void assert_idle_after_preview(FlowWindow *rig, Parts *parts, guint attachments) {
    assert_shown(parts, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE);
    assert_accessible(parts, rig->flow);
    rig_drain();
    flow_window_assert_states(rig, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_LOCKED,
                                                  VN_FLOW_STATE_PREVIEW, VN_FLOW_STATE_IDLE},
                              4);
    g_assert_cmpuint(rig->attachments, ==, attachments);
}

/* A composer over the rig's flow, with room above it for the record button's lock. */
static GtkWidget *composer_new(FlowWindow *rig) {
    GtkWidget *composer = vngtk_composer_new(rig->flow);
    g_object_set(composer, "margin-top", MARGIN_TOP, "margin-start", MARGIN, "margin-end", MARGIN, "margin-bottom",
                 MARGIN, "width-request", COMPOSER_WIDTH, NULL);
    return composer;
}

/* Trims counted on the rig's flow (trimmed_and_shown() finds them). */
static void count_trims(FlowWindow *rig, Trims *trims) {
    g_object_set_data(G_OBJECT(rig->flow), "trims", trims);
    g_signal_connect(rig->flow, "trimmed", G_CALLBACK(on_trimmed), trims);
}

static void test_record_lock_trim_send(void) {
    FlowWindow rig;
    flow_window_make_flow(&rig, directory, microphone, FALSE, NULL);
    Trims trims = {0};
    count_trims(&rig, &trims);
    GtkWidget *composer = composer_new(&rig);
    flow_window_show(&rig, "VnComposer test", composer, composer);
    Parts parts = parts_of(composer);
    g_assert_true(vngtk_composer_get_flow(VNGTK_COMPOSER(composer)) == rig.flow);
    g_assert_true(vngtk_record_button_get_flow(VNGTK_RECORD_BUTTON(parts.record)) == rig.flow);

    /* Idle: only the record button. */
    assert_shown(&parts, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE);
    assert_accessible(&parts, rig.flow);

    /* Held: recording, the live bars (the flow's levels) and the timer. */
    flow_window_hold(&rig, parts.record);
    g_assert_true(rig_wait(has_bars, &parts, WAIT_MS));
    assert_shown(&parts, FALSE, FALSE, TRUE, FALSE, TRUE, FALSE, TRUE);
    assert_timer(&parts, vng_flow_get_duration(rig.flow));
    guint levels = 0;
    const gfloat *live = vng_flow_get_levels(rig.flow, &levels);
    gsize shown = 0;
    const gfloat *bars = vngtk_waveform_get_values(parts.bars, &shown);
    g_test_message("live bars: %" G_GSIZE_FORMAT " levels, the last %.3f", shown, shown ? bars[shown - 1] : 0);
    g_assert_cmpuint(shown, ==, levels);
    g_assert_true(memcmp(bars, live, levels * sizeof *live) == 0);
    g_assert_false(gtk_widget_get_can_target(GTK_WIDGET(parts.bars))); /* no scrubbing while recording */
    assert_accessible(&parts, rig.flow);
    g_object_unref(render_composer(&rig, &parts, "composer-recording.png"));

    /* Up: locked, discard and send show. */
    flow_window_pointer_at(&rig, parts.record, 0, -LOCK_MOVE, NULL);
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_LOCKED, 0);
    assert_shown(&parts, TRUE, FALSE, TRUE, FALSE, TRUE, TRUE, TRUE);
    assert_timer(&parts, vng_flow_get_duration(rig.flow));
    assert_accessible(&parts, rig.flow);
    g_object_unref(render_composer(&rig, &parts, "composer-locked.png"));
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.releases, 1);

    /* The record button stops the take: preview, the take's waveform and the trim handles at its ends. */
    flow_window_pointer_at(&rig, parts.record, 0, 0, "click");
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    gdouble recorded = vng_flow_get_duration(rig.flow);
    assert_shown(&parts, TRUE, TRUE, FALSE, TRUE, TRUE, TRUE, FALSE);
    guint n_waveform = 0;
    const gfloat *waveform = vng_flow_get_waveform(rig.flow, &n_waveform);
    const gfloat *drawn = vngtk_waveform_get_values(parts.waveform, &shown);
    g_test_message("preview: %.3f s, %u waveform values", recorded, n_waveform);
    g_assert_cmpuint(n_waveform, >, 0);
    g_assert_cmpuint(shown, ==, n_waveform);
    g_assert_true(memcmp(drawn, waveform, n_waveform * sizeof *waveform) == 0);
    assert_timer(&parts, recorded);
    assert_accessible(&parts, rig.flow);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(parts.play), GTK_ACCESSIBLE_PROPERTY_LABEL, "Play");
    assert_handle(parts.start, "Trim start", 0, recorded);
    assert_handle(parts.end, "Trim end", 1, recorded);
    flow_window_wait_for_frame(&rig); /* the handles laid out where the view says */

    /* The start handle to 25 %: the take is cut to its last 75 %, and the handles are at the ends of the new take. */
    gint64 start = g_get_monotonic_time();
    drag_start_handle(&rig, &parts);
    g_assert_true(rig_wait(trimmed_and_shown, &rig, WAIT_MS));
    gdouble trimmed = vng_flow_get_duration(rig.flow), trim_start = -1, trim_end = -1;
    g_object_get(rig.flow, "trim-start", &trim_start, "trim-end", &trim_end, NULL);
    g_test_message("trimmed after %.1f ms: %.3f s of %.3f (%.1f %%); the view's trim %.3f…%.3f s",
                   (g_get_monotonic_time() - start) / 1000.0, trimmed, recorded, trimmed / recorded * 100, trim_start,
                   trim_end);
    g_assert_cmpuint(trims.count, ==, 1);
    g_assert_cmpfloat_with_epsilon(trimmed / recorded, 1 - TRIM_TO, 0.03);
    g_assert_cmpfloat(trim_start, ==, 0);
    g_assert_cmpfloat(trim_end, ==, trimmed);
    assert_handle(parts.start, "Trim start", 0, trimmed);
    assert_handle(parts.end, "Trim end", 1, trimmed);
    g_assert_true(gtk_widget_get_sensitive(parts.trim));
    g_assert_true(gtk_widget_get_sensitive(parts.play));
    assert_timer(&parts, trimmed);
    assert_accessible(&parts, rig.flow);

    /* Drawn with the handles: the start handle's columns are drawn (the accent), as the end handle's. */
    GdkTexture *texture = render_composer(&rig, &parts, "composer-preview.png");
    double start_x = 0, end_x = 0, y = 0;
    g_assert_true(gtk_widget_translate_coordinates(parts.start, composer, 0, 0, &start_x, &y));
    g_assert_true(gtk_widget_translate_coordinates(parts.end, composer, 0, 0, &end_x, &y));
    int handle_width = gtk_widget_get_width(parts.start), handle_height = gtk_widget_get_height(parts.start);
    gsize start_drawn = flow_window_drawn_pixels(texture, (int)start_x, (int)start_x + handle_width);
    gsize end_drawn = flow_window_drawn_pixels(texture, (int)end_x, (int)end_x + handle_width);
    g_test_message("trim handles %d×%d: %" G_GSIZE_FORMAT " and %" G_GSIZE_FORMAT " pixels drawn in their columns",
                   handle_width, handle_height, start_drawn, end_drawn);
    g_assert_cmpint(handle_width, >=, 6);
    g_assert_cmpuint(start_drawn, >=, (gsize)(handle_width * handle_height) * 3 / 4);
    g_assert_cmpuint(end_drawn, >=, (gsize)(handle_width * handle_height) * 3 / 4);
    g_object_unref(texture);

    /* Send: the trimmed take is the attachment, and the composer is idle again. */
    flow_window_pointer_at(&rig, parts.send, 0, 0, "click");
    flow_window_wait_for_count(&rig.attachments, 1);
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    g_assert_cmpfloat(rig.attached_duration, ==, trimmed);
    assert_idle_after_preview(&rig, &parts, 1);
    flow_window_close(&rig);
}

/* A take held, locked (the pointer up), let go and stopped with the record button: preview, laid out. */
static void record_into_preview(FlowWindow *rig, Parts *parts) {
    flow_window_hold(rig, parts->record);
    flow_window_pointer_at(rig, parts->record, 0, -LOCK_MOVE, NULL);
    flow_window_wait_for_state(rig, VN_FLOW_STATE_LOCKED, 0);
    guint releases = rig->releases;
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig->releases, releases + 1);
    flow_window_pointer_at(rig, parts->record, 0, 0, "click");
    flow_window_wait_for_state(rig, VN_FLOW_STATE_PREVIEW, 0.3);
    flow_window_wait_for_frame(rig);
}

typedef struct {
    FlowWindow *rig;
    gboolean playing;
    gdouble from, to; /* the preview's position, seconds */
} PreviewUntil;

static gboolean preview_is(gpointer data) {
    PreviewUntil *until = data;
    gboolean playing = FALSE;
    gdouble position = 0;
    g_object_get(until->rig->flow, "preview-playing", &playing, "preview-position", &position, NULL);
    return playing == until->playing && position >= until->from && position <= until->to;
}

/* Waits until the preview plays (or not) at a position within [from, to] seconds; returns the position. */
static gdouble wait_for_preview(FlowWindow *rig, gboolean playing, gdouble from, gdouble to) {
    PreviewUntil until = {rig, playing, from, to};
    gint64 start = g_get_monotonic_time();
    gboolean reached = rig_wait(preview_is, &until, WAIT_MS);
    gdouble position = 0;
    g_object_get(rig->flow, "preview-playing", &playing, "preview-position", &position, NULL);
    g_test_message("preview %s at %.3f s after %.0f ms (wanted %s within %.3f…%.3f s)",
                   playing ? "playing" : "not playing", position, (g_get_monotonic_time() - start) / 1000.0,
                   until.playing ? "playing" : "not playing", from, to);
    g_assert_true(reached);
    return position;
}

static void assert_play_button(Parts *parts, gboolean playing) {
    g_assert_cmpstr(gtk_button_get_icon_name(GTK_BUTTON(parts->play)), ==,
                    playing ? "media-playback-pause-symbolic" : "media-playback-start-symbolic");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(parts->play), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        playing ? "Pause" : "Play");
}

typedef struct {
    FlowWindow *rig;
    Trims *trims;
    guint wanted;
} TrimUntil;

static gboolean trims_shown(gpointer data) {
    TrimUntil *until = data;
    return until->trims->count >= until->wanted && trimmed_and_shown(until->rig);
}

static gboolean is_focused(gpointer data) {
    GtkWidget *widget = data;
    return gtk_window_is_active(GTK_WINDOW(gtk_widget_get_root(widget))) && gtk_widget_has_focus(widget);
}

/* `handle` clicked (it takes the focus; a click moves nothing, so nothing is trimmed), then `key` tapped: exactly one
 * trim, when the key is let go; returns the take's new length once the view shows it. */
static gdouble trim_by_key(FlowWindow *rig, GtkWidget *handle, const char *key, Trims *trims) {
    guint count = trims->count;
    flow_window_pointer_at(rig, handle, 0, 0, "click");
    g_assert_true(rig_wait(is_focused, handle, WAIT_MS));
    g_assert_cmpuint(trims->count, ==, count);
    gint64 start = g_get_monotonic_time();
    xdotool((const char *const[]){"key", key, NULL});
    TrimUntil until = {rig, trims, count + 1};
    g_assert_true(rig_wait(trims_shown, &until, WAIT_MS));
    g_assert_cmpuint(trims->count, ==, count + 1);
    g_test_message("%s: trimmed to %.3f s after %.0f ms", key, trims->duration,
                   (g_get_monotonic_time() - start) / 1000.0);
    return trims->duration;
}

typedef struct {
    const gchar *directory;
    guint takes;
} TakesUntil;

static gboolean takes_are(gpointer data) {
    TakesUntil *until = data;
    return flow_window_count_takes(until->directory) == until->takes;
}

/* What the speaker must read of the preview before it is paused: 0.25 s of its audio. */
#define HEARD_BYTES (SPEAKER_BYTES_PER_SECOND / 4)

typedef struct {
    Speaker *speaker;
    guint64 bytes;
} SpeakerUntil;

static gboolean speaker_read(gpointer data) {
    SpeakerUntil *until = data;
    return speaker_bytes(until->speaker) >= until->bytes;
}

/* Preview's controls through real input, over a speaker that plays in real time: play (the take sounds, Pause
 * shows), pause, a click at half the waveform (the preview there), the end handle moved with Left and the start
 * handle with End (each key's release one trim), discard (the take's file deleted, idle). */
static void test_play_seek_trim_keys_discard(void) {
    Speaker speaker = {0};
    speaker_start(&speaker, directory);
    gchar *configuration = speaker_configuration(&speaker);
    FlowWindow rig;
    flow_window_make_flow(&rig, directory, microphone, FALSE, configuration);
    g_free(configuration);
    Trims trims = {0};
    count_trims(&rig, &trims);
    GtkWidget *composer = composer_new(&rig);
    flow_window_show(&rig, "VnComposer test", composer, composer);
    Parts parts = parts_of(composer);
    guint takes = flow_window_count_takes(directory);
    record_into_preview(&rig, &parts);
    gdouble recorded = vng_flow_get_duration(rig.flow);
    g_assert_cmpuint(flow_window_count_takes(directory), ==, takes + 1);

    /* Play: the take sounds in real time; the button says Pause, the timer the position. */
    guint64 heard = speaker_bytes(&speaker);
    flow_window_pointer_at(&rig, parts.play, 0, 0, "click");
    wait_for_preview(&rig, TRUE, 0, recorded);
    SpeakerUntil sounded = {&speaker, heard + HEARD_BYTES};
    g_assert_true(rig_wait_polled(speaker_read, &sounded, WAIT_MS));
    gdouble position = wait_for_preview(&rig, TRUE, (gdouble)HEARD_BYTES / SPEAKER_BYTES_PER_SECOND, recorded);
    assert_play_button(&parts, TRUE);
    assert_timer(&parts, position);
    assert_accessible(&parts, rig.flow);

    /* Pause: Play again, the position where it stopped. */
    flow_window_pointer_at(&rig, parts.play, 0, 0, "click");
    position = wait_for_preview(&rig, FALSE, 0.2, recorded);
    assert_play_button(&parts, FALSE);
    assert_timer(&parts, position);

    /* Seek: a click at half the waveform is the preview at half the take. */
    flow_window_pointer_at(&rig, GTK_WIDGET(parts.waveform), 0, 0, "click");
    position = wait_for_preview(&rig, FALSE, recorded * 0.48, recorded * 0.52);
    g_assert_cmpfloat_with_epsilon(vngtk_waveform_get_position(parts.waveform), position / recorded, 0.01);
    assert_timer(&parts, position);

    /* The trim handles with the keyboard: the end handle a step left (5 % of the take), then the start handle to the
     * end (as far as the end handle lets it: 5 % kept). */
    xdotool((const char *const[]){"windowfocus", "--sync", rig.xid, NULL});
    gdouble cut = trim_by_key(&rig, parts.end, "Left", &trims);
    g_assert_cmpfloat_with_epsilon(cut, recorded * 0.95, 0.05);
    assert_handle(parts.start, "Trim start", 0, cut);
    assert_handle(parts.end, "Trim end", 1, cut);
    gdouble last = trim_by_key(&rig, parts.start, "End", &trims);
    g_assert_cmpfloat_with_epsilon(last, cut * 0.05, 0.05);
    assert_handle(parts.end, "Trim end", 1, last);
    assert_timer(&parts, last);
    g_assert_true(gtk_widget_get_sensitive(parts.trim));

    /* Discard: the take's file is deleted, idle. */
    flow_window_pointer_at(&rig, parts.discard, 0, 0, "click");
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    TakesUntil until = {directory, takes};
    g_assert_true(rig_wait_polled(takes_are, &until, WAIT_MS));
    assert_idle_after_preview(&rig, &parts, 0);
    flow_window_close(&rig);
    speaker_stop(&speaker);
}

static gboolean is_mapped(gpointer data) {
    return gtk_widget_get_mapped(data);
}

/* The composer on a GtkStack's page (a conversation); a take held when the application shows another page: the flow
 * deactivated (preview, the take kept, nothing sent), the pointer let go elsewhere; back on the page, the preview;
 * discarded, a new hold records (the press was not left held) and its release sends. */
static void test_hidden_mid_take(void) {
    FlowWindow rig;
    flow_window_make_flow(&rig, directory, microphone, FALSE, NULL);
    GtkWidget *composer = composer_new(&rig);
    GtkWidget *stack = gtk_stack_new();
    gtk_stack_set_transition_type(GTK_STACK(stack), GTK_STACK_TRANSITION_TYPE_NONE);
    gtk_stack_add_named(GTK_STACK(stack), composer, "voice");
    gtk_stack_add_named(GTK_STACK(stack), gtk_label_new("Another conversation"), "other");
    gtk_stack_set_visible_child_name(GTK_STACK(stack), "voice");
    flow_window_show(&rig, "VnComposer test", stack, composer);
    Parts parts = parts_of(composer);
    guint takes = flow_window_count_takes(directory);

    flow_window_hold(&rig, parts.record);
    gtk_stack_set_visible_child_name(GTK_STACK(stack), "other");
    g_assert_false(gtk_widget_get_mapped(composer));
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_PREVIEW, 0.3);
    g_assert_cmpuint(flow_window_count_takes(directory), ==, takes + 1);
    /* Stopped by the deactivation, at once: not by the recorder's maximum length (3600 s; the microphone is read
     * unpaced, about 100 s of audio a second, so a stop left to the maximum comes after half a minute). */
    g_assert_cmpfloat(vng_flow_get_duration(rig.flow), <, 600);
    guint releases = rig.releases;
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.releases, releases + 1);

    gtk_stack_set_visible_child_name(GTK_STACK(stack), "voice");
    g_assert_true(rig_wait(is_mapped, composer, WAIT_MS));
    flow_window_wait_for_frame(&rig);
    g_assert_cmpint(vng_flow_get_state(rig.flow), ==, VN_FLOW_STATE_PREVIEW);
    g_assert_cmpuint(rig.attachments, ==, 0);
    assert_shown(&parts, TRUE, TRUE, FALSE, TRUE, TRUE, TRUE, FALSE);
    assert_accessible(&parts, rig.flow);

    flow_window_pointer_at(&rig, parts.discard, 0, 0, "click");
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    TakesUntil until = {directory, takes};
    g_assert_true(rig_wait_polled(takes_are, &until, WAIT_MS));
    flow_window_wait_for_frame(&rig);
    flow_window_hold(&rig, parts.record);
    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.attachments, 1);
    flow_window_wait_for_state(&rig, VN_FLOW_STATE_IDLE, 0);
    rig_drain();
    flow_window_assert_states(&rig, (const gint[]){VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_PREVIEW,
                                                   VN_FLOW_STATE_IDLE, VN_FLOW_STATE_RECORDING, VN_FLOW_STATE_IDLE},
                              5);
    g_assert_cmpuint(rig.attachments, ==, 1);
    flow_window_close(&rig);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    directory = rig_directory_with_tone("vn-gtk-composer-XXXXXX", 30, &microphone);
    g_test_add_func("/composer/record-lock-trim-send", test_record_lock_trim_send);
    g_test_add_func("/composer/play-seek-trim-keys-discard", test_play_seek_trim_keys_discard);
    g_test_add_func("/composer/hidden-mid-take", test_hidden_mid_take);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
    return status;
}
