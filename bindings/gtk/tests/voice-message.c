/*
 * voice-message.c: two VnVoiceMessage rows sharing one VnPlayer in a real GtkWindow on an X server (make test runs
 * it under xvfb-run), driven by real X input from xdotool.
 *
 * The notes are tones made by sox and opusenc (20 s and 1 s). The speaker is ALSA's `file` plugin (over `null`)
 * writing into a FIFO (shrunk to 4 KiB) that a thread of this test reads at a sound card's pace, 48 kHz mono S16:
 * the player's writes block as on a real card, so a note plays in real time (the `file` plugin alone is not paced,
 * and a note would end before the first click). A player handler records what the rows showed at the moment the
 * player got where a step wanted it (PLAYING; a position from 40 % of the note on).
 *
 * /voice-message/two-rows-one-player: click row 1's play → PLAYING, row 1 shows Pause (icon, accessible label,
 * description "playing at m:ss"), row 2 still Play; the window drawn to voice-message-playing.png is not blank;
 * the speed button twice → rate 1.5 then 2.0, labels "1.5x"/"2x" (and "Playback speed 2x"); a click at 50 % of
 * row 1's waveform → the player's position near half the note; row 2's play → row 2 PLAYING with Pause, row 1 back
 * to Play, the start and its duration; then `finished` for row 2's note, and row 2 back to Play.
 * Every wait iterates the main context under a 10 s deadline and fails the test when it passes; nothing sleeps.
 */
#include "paced-speaker.h" /* first: it asks for _GNU_SOURCE */

#include <voicenote-gtk.h>

#include "x11-rig.h"

#define ROW_WIDTH 360
#define VALUE_COUNT 60

/* What a row shows: its play button, waveform and time label. */
typedef struct {
    VnVoiceMessage *row;
    GtkWidget *play;
    VnWaveform *waveform;
    GtkWidget *time;
    GtkWidget *rate;
} Row;

/* A step's target: the player's item and state, or (seek) a position from `from` seconds on. Reached when a
 * notify of the player says so; what the rows showed then is kept. */
typedef struct {
    const gchar *location;
    VnPlayerState state;
    gdouble from; /* < 0: any position */
    gboolean reached;
    gdouble position;
    gchar *icons[2]; /* each row's play icon at that moment */
} Target;

typedef struct {
    GtkWidget *window;
    VnPlayer *player;
    Row rows[2];
    gchar *notes[2];
    gdouble durations[2];
    Speaker speaker;
    Target target;
    gchar *finished; /* the location `finished` said */
    guint frames;
} Rig;

static gchar *directory;

/* ------------------------------------------------------------------------------------------------------------ */
/* The rig */

static void make_note(Rig *rig, int index, const char *seconds, const char *frequency) {
    gchar *wav = g_strdup_printf("%s/note%d.wav", directory, index);
    rig->notes[index] = g_strdup_printf("%s/note%d.ogg", directory, index);
    run_bounded("30", (const char *const[]){"sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", seconds, "sine",
                                        frequency, "vol", "0.5", NULL});
    run_bounded("30", (const char *const[]){"opusenc", "--quiet", wav, rig->notes[index], NULL});
    rig->durations[index] = g_ascii_strtod(seconds, NULL);
    g_free(wav);
}

static void on_player_notify(GObject *object, GParamSpec *pspec, Rig *rig) {
    (void)pspec;
    VnPlayer *player = VNG_PLAYER(object);
    Target *target = &rig->target;
    if (target->reached || target->location == NULL ||
        g_strcmp0(vng_player_get_location(player), target->location) != 0 || vng_player_get_state(player) != target->state ||
        (target->from >= 0 && vng_player_get_position(player) < target->from))
        return;
    target->reached = TRUE;
    target->position = vng_player_get_position(player);
    for (int i = 0; i < 2; i++) target->icons[i] = g_strdup(gtk_button_get_icon_name(GTK_BUTTON(rig->rows[i].play)));
}

static void on_finished(VnPlayer *player, const gchar *location, Rig *rig) {
    (void)player;
    g_free(rig->finished);
    rig->finished = g_strdup(location);
}

static gboolean target_reached(gpointer data) {
    return ((Rig *)data)->target.reached;
}

/* A speech-like waveform for the app to set, as it would from the message. */
static void set_values(VnWaveform *waveform, double phase) {
    gfloat values[VALUE_COUNT];
    for (int i = 0; i < VALUE_COUNT; i++) values[i] = (gfloat)(0.3 + 0.6 * fabs(sin(i * 0.23 + phase)));
    vngtk_waveform_set_values(waveform, values, VALUE_COUNT);
}

static void rig_open(Rig *rig) {
    *rig = (Rig){0};
    make_note(rig, 0, "20", "440");
    make_note(rig, 1, "1", "660");
    speaker_start(&rig->speaker, directory);
    gchar *configuration = speaker_configuration(&rig->speaker);
    GError *error = NULL;
    rig->player = vng_player_new_for_device("vn_spk", configuration, &error);
    g_assert_no_error(error);
    g_free(configuration);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    for (int i = 0; i < 2; i++) {
        Row *row = &rig->rows[i];
        row->row = VNGTK_VOICE_MESSAGE(vngtk_voice_message_new(rig->player, rig->notes[i], rig->durations[i]));
        gtk_widget_set_size_request(GTK_WIDGET(row->row), ROW_WIDTH, -1);
        row->play = gtk_widget_get_first_child(GTK_WIDGET(row->row));
        row->waveform = vngtk_voice_message_get_waveform(row->row);
        row->rate = gtk_widget_get_last_child(GTK_WIDGET(row->row));
        row->time = gtk_widget_get_prev_sibling(row->rate);
        g_assert_true(GTK_IS_BUTTON(row->play) && GTK_IS_LABEL(row->time) && GTK_IS_BUTTON(row->rate));
        set_values(row->waveform, i);
        gtk_box_append(GTK_BOX(box), GTK_WIDGET(row->row));
    }
    /* After the rows' own handlers: when this one runs, the rows already show the new state. */
    g_signal_connect(rig->player, "notify", G_CALLBACK(on_player_notify), rig);
    g_signal_connect(rig->player, "finished", G_CALLBACK(on_finished), rig);
    rig->window = rig_window_show("VnVoiceMessage test", box, &rig->frames);
}

static void target_clear(Target *target) {
    for (int i = 0; i < 2; i++) g_free(target->icons[i]);
    *target = (Target){0};
}

static void rig_close(Rig *rig) {
    gtk_window_destroy(GTK_WINDOW(rig->window));
    g_object_unref(rig->player);
    speaker_stop(&rig->speaker);
    target_clear(&rig->target);
    for (int i = 0; i < 2; i++) {
        g_remove(rig->notes[i]);
        g_free(rig->notes[i]);
    }
    g_free(rig->finished);
}

/* Waits until the player is at `location` in `state` (at `from` seconds or later, when ≥ 0); whether it got there.
 * How long it took goes to the log. */
static gboolean run_to(Rig *rig, const gchar *location, VnPlayerState state, gdouble from, const char *step) {
    target_clear(&rig->target);
    rig->target = (Target){.location = location, .state = state, .from = from};
    gint64 start = g_get_monotonic_time();
    gboolean reached = rig_wait(target_reached, rig);
    g_test_message("%s: %s after %.1f ms, position %.3f s, %" G_GUINT64_FORMAT " bytes played so far", step,
                   reached ? "reached" : "NOT reached", (g_get_monotonic_time() - start) / 1000.0,
                   rig->target.position, speaker_bytes(&rig->speaker));
    return reached;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Checks */

static gchar *m_ss(gdouble seconds) {
    guint whole = (guint)floor(seconds);
    return g_strdup_printf("%u:%02u", whole / 60, whole % 60);
}

/* The row at rest: Play, the start, its duration, no description. */
static void assert_at_rest(Row *row, gdouble duration) {
    gchar *length = m_ss(duration), *label = g_strconcat("Voice message, ", length, NULL);
    g_assert_cmpstr(gtk_button_get_icon_name(GTK_BUTTON(row->play)), ==, "media-playback-start-symbolic");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row->play), GTK_ACCESSIBLE_PROPERTY_LABEL, "Play");
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(row->time)), ==, length);
    g_assert_cmpfloat(vngtk_waveform_get_position(row->waveform), ==, 0);
    gtk_test_accessible_assert_role(GTK_ACCESSIBLE(row->row), GTK_ACCESSIBLE_ROLE_GROUP);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row->row), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
    g_assert_false(gtk_test_accessible_has_property(GTK_ACCESSIBLE(row->row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));
    g_free(label);
    g_free(length);
}

/* The row playing at the player's position: Pause, the position as time and waveform, "playing at m:ss". */
static void assert_playing(Row *row, VnPlayer *player, gdouble duration) {
    gdouble position = vng_player_get_position(player);
    gchar *length = m_ss(duration), *label = g_strconcat("Voice message, ", length, NULL);
    gchar *at = m_ss(position), *description = g_strconcat("playing at ", at, NULL);
    g_assert_cmpstr(gtk_button_get_icon_name(GTK_BUTTON(row->play)), ==, "media-playback-pause-symbolic");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row->play), GTK_ACCESSIBLE_PROPERTY_LABEL, "Pause");
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(row->time)), ==, at);
    g_assert_cmpfloat_with_epsilon(vngtk_waveform_get_position(row->waveform),
                                   position / vng_player_get_duration(player), 1e-9);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row->row), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row->row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description);
    g_free(description);
    g_free(at);
    g_free(label);
    g_free(length);
}

static gdouble rate_wanted;
static gboolean has_rate(gpointer data) {
    Rig *rig = data;
    return vng_player_get_rate(rig->player) == rate_wanted;
}

/* A click on row 1's speed button: the player's rate becomes `rate`, every row's button says it. */
static void click_rate(Rig *rig, gdouble rate, const char *text) {
    rig_click(rig->rows[0].rate, 0.5, 0.5);
    rate_wanted = rate;
    g_assert_true(rig_wait(has_rate, rig));
    gchar *label = g_strconcat("Playback speed ", text, NULL);
    for (int i = 0; i < 2; i++) {
        g_assert_cmpstr(gtk_button_get_label(GTK_BUTTON(rig->rows[i].rate)), ==, text);
        gtk_test_accessible_assert_property(GTK_ACCESSIBLE(rig->rows[i].rate), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
    }
    g_free(label);
}

/* The window's content (its child, all of it: the window is undecorated; a toplevel does not draw itself into a
 * widget paintable) drawn while row 1 plays: saved, and more than a few pixels differ from its top-left corner (the
 * transparent background between the rows' parts). */
static void assert_window_drawn(Rig *rig) {
    /* The paintable draws what the widgets last painted: let the window paint what they show now. */
    rig_wait_for_frame(rig->window, &rig->frames);
    GtkWidget *content = gtk_window_get_child(GTK_WINDOW(rig->window));
    int width = gtk_widget_get_width(content), height = gtk_widget_get_height(content);
    GdkTexture *texture = render_widget(content, rig->window, "voice-message-playing.png");
    gsize stride = (gsize)width * 4;
    guint8 *data = texture_pixels(texture);
    g_object_unref(texture);
    const guint8 *background = data;
    gsize differing = 0;
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            const guint8 *p = data + (gsize)y * stride + (gsize)x * 4;
            differing += abs(p[0] - background[0]) + abs(p[1] - background[1]) + abs(p[2] - background[2]) +
                             abs(p[3] - background[3]) >
                         24;
        }
    }
    g_test_message("voice-message-playing.png: %d×%d, %" G_GSIZE_FORMAT " pixels differ from the background", width,
                   height, differing);
    g_assert_cmpuint(differing, >, (gsize)width * height / 50);
    g_free(data);
}

static gboolean finished_note_2(gpointer data) {
    Rig *rig = data;
    return g_strcmp0(rig->finished, rig->notes[1]) == 0 && vng_player_get_state(rig->player) == VN_PLAYER_STATE_STOPPED;
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_two_rows_one_player(void) {
    Rig rig;
    rig_open(&rig);
    Row *one = &rig.rows[0], *two = &rig.rows[1];
    assert_at_rest(one, rig.durations[0]);
    assert_at_rest(two, rig.durations[1]);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(one->rate), GTK_ACCESSIBLE_PROPERTY_LABEL, "Playback speed 1x");

    /* Row 1's play: loaded and playing; row 1 shows Pause at that moment, row 2 Play. */
    rig_click(one->play, 0.5, 0.5);
    g_assert_true(run_to(&rig, rig.notes[0], VN_PLAYER_STATE_PLAYING, -1, "row 1 play"));
    g_assert_cmpstr(rig.target.icons[0], ==, "media-playback-pause-symbolic");
    g_assert_cmpstr(rig.target.icons[1], ==, "media-playback-start-symbolic");
    g_assert_cmpint(vng_player_get_state(rig.player), ==, VN_PLAYER_STATE_PLAYING);
    assert_playing(one, rig.player, rig.durations[0]);
    assert_at_rest(two, rig.durations[1]);
    assert_window_drawn(&rig);

    /* The speed button twice: 1.5x, 2x. */
    click_rate(&rig, 1.5, "1.5x");
    click_rate(&rig, 2.0, "2x");

    /* Half way along row 1's waveform: the player goes there (the first position from 40 % of the note on). */
    gdouble duration = vng_player_get_duration(rig.player);
    rig_click(GTK_WIDGET(one->waveform), 0.5, 0.5);
    g_assert_true(run_to(&rig, rig.notes[0], VN_PLAYER_STATE_PLAYING, duration * 0.4, "row 1 seek to 50 %"));
    g_test_message("seek: duration %.3f s, position %.3f s (%.1f %%)", duration, rig.target.position,
                   rig.target.position / duration * 100);
    g_assert_cmpfloat(rig.target.position, >=, duration * 0.45);
    g_assert_cmpfloat(rig.target.position, <=, duration * 0.6);
    assert_playing(one, rig.player, rig.durations[0]);

    /* Row 2's play: row 2 plays, row 1 is back at rest. */
    rig_click(two->play, 0.5, 0.5);
    g_assert_true(run_to(&rig, rig.notes[1], VN_PLAYER_STATE_PLAYING, -1, "row 2 play"));
    g_assert_cmpstr(rig.target.icons[0], ==, "media-playback-start-symbolic");
    g_assert_cmpstr(rig.target.icons[1], ==, "media-playback-pause-symbolic");
    assert_playing(two, rig.player, rig.durations[1]);
    assert_at_rest(one, rig.durations[0]);

    /* To the end of row 2's note. */
    gint64 start = g_get_monotonic_time();
    g_assert_true(rig_wait(finished_note_2, &rig));
    g_test_message("row 2 finished after %.1f ms more, %" G_GUINT64_FORMAT " bytes played in all",
                   (g_get_monotonic_time() - start) / 1000.0, speaker_bytes(&rig.speaker));
    assert_at_rest(two, rig.durations[1]);
    assert_at_rest(one, rig.durations[0]);
    rig_close(&rig);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-gtk-voice-message-XXXXXX", &error);
    g_assert_no_error(error);
    g_test_add_func("/voice-message/two-rows-one-player", test_two_rows_one_player);
    int status = g_test_run();
    g_rmdir(directory);
    g_free(directory);
    return status;
}
