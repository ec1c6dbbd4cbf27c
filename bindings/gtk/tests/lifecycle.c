/*
 * lifecycle.c: every widget made, used and destroyed again and again in a real GtkWindow on an X server (make test
 * runs it under xvfb-run), and nothing kept alive: after each round's window is destroyed and the test's own
 * references are dropped, every widget and every object they held is finalized (weak references count them).
 *
 * - /lifecycle/rounds: ROUNDS rounds, each with a VnRecorder (ALSA `null` PCM), a VnPlayer (`null`), a VnFlow over
 *   them, and in one window a VnWaveform (values set, clicked: its `seek`, then the click's release), a
 *   VnRecordButton and a VnComposer on the flow, and a VnVoiceMessage on the player given no values (it reads the note's waveform itself: the round waits
 *   for the bars). Half the rounds destroy the window while the row's read of a slow source is still under way (a
 *   FIFO nobody writes yet). Each round: once the window is destroyed and the test's references dropped, all seven
 *   objects are finalized within the bounded wait (a reference cycle or a lost unref would leave one alive).
 * Every wait is bounded (x11-rig.h's rig_wait: 10 s); nothing sleeps.
 */
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <voicenote-gtk.h>

#include "x11-rig.h"

#define ROUNDS 12

static gchar *directory;
static gchar *note_path;
static guint finalized;
static GHashTable *alive; /* the watched objects not finalized yet → their type names */

static void count_finalized(gpointer data, GObject *gone) {
    (void)data;
    g_hash_table_remove(alive, gone);
    finalized++;
}

static gpointer watched(gpointer object) {
    g_hash_table_insert(alive, object, (gpointer)G_OBJECT_TYPE_NAME(object));
    g_object_weak_ref(object, count_finalized, NULL);
    return object;
}

/* The objects still alive, for the failure's message. */
static gchar *alive_names(void) {
    GString *names = g_string_new(NULL);
    GHashTableIter iter;
    gpointer object, name;
    g_hash_table_iter_init(&iter, alive);
    while (g_hash_table_iter_next(&iter, &object, &name))
        g_string_append_printf(names, "%s%s (%u refs)", names->len ? ", " : "", (const gchar *)name,
                               G_OBJECT(object)->ref_count);
    return g_string_free(names, FALSE);
}

static gboolean all_finalized(gpointer data) {
    return finalized >= GPOINTER_TO_UINT(data);
}

static gboolean has_values(gpointer data) {
    gsize n = 0;
    vngtk_waveform_get_values(vngtk_voice_message_get_waveform(data), &n);
    return n > 0;
}

static void on_seek(VnWaveform *waveform, gdouble fraction, gpointer data) {
    (void)waveform, (void)fraction;
    (*(guint *)data)++;
}

/* A counter (a guint the handlers raise) has counted something. */
static gboolean counted(gpointer data) {
    return *(guint *)data > 0;
}

static gboolean count_release(GtkEventControllerLegacy *controller, GdkEvent *event, guint *releases) {
    (void)controller;
    if (gdk_event_get_event_type(event) == GDK_BUTTON_RELEASE) (*releases)++;
    return FALSE;
}

static void round_of_everything(guint round) {
    GError *error = NULL;
    gboolean in_flight = round % 2 == 1;
    gchar *takes = g_build_filename(directory, "takes", NULL);
    VnRecorder *recorder = watched(vng_recorder_new("null", NULL, takes, &error));
    g_assert_no_error(error);
    VnPlayer *player = watched(vng_player_new_for_device("null", NULL, &error));
    g_assert_no_error(error);
    VnFlow *flow = watched(vng_flow_new(recorder, player, NULL, NULL, &error));
    g_assert_no_error(error);

    /* A slow source: a FIFO no one writes, so the row's read waits in the library until the window goes. */
    gchar *fifo = g_build_filename(directory, "slow.ogg", NULL);
    if (in_flight) g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    GtkWidget *waveform = watched(vngtk_waveform_new());
    gtk_widget_set_size_request(waveform, 300, 32);
    gfloat values[40];
    for (int i = 0; i < 40; i++) values[i] = (gfloat)(i % 7) / 7.0f;
    vngtk_waveform_set_values(VNGTK_WAVEFORM(waveform), values, 40);
    guint seeks = 0;
    g_signal_connect(waveform, "seek", G_CALLBACK(on_seek), &seeks);
    GtkWidget *button = watched(vngtk_record_button_new(flow));
    GtkWidget *composer = watched(vngtk_composer_new(flow));
    VnVoiceMessage *row = watched(vngtk_voice_message_new(player, in_flight ? fifo : note_path, 1));
    gtk_widget_set_size_request(GTK_WIDGET(row), 360, -1);
    gtk_box_append(GTK_BOX(box), waveform);
    gtk_box_append(GTK_BOX(box), button);
    gtk_box_append(GTK_BOX(box), composer);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(row));
    guint frames = 0;
    GtkWidget *window = rig_window_show("voicenote-gtk lifecycle", box, &frames);
    guint releases = 0;
    GtkEventController *legacy = gtk_event_controller_legacy_new();
    gtk_event_controller_set_propagation_phase(legacy, GTK_PHASE_CAPTURE);
    g_signal_connect(legacy, "event", G_CALLBACK(count_release), &releases);
    gtk_widget_add_controller(window, legacy);
    rig_click(waveform, 0.5, 0.5);
    g_assert_true(rig_wait(counted, &seeks));
    /* The click ended (its release handled) before the window goes: GTK 4.8 keeps any widget, a plain GtkDrawingArea
     * with a click gesture too, whose window goes while a button is still pressed on it. */
    g_assert_true(rig_wait(counted, &releases));
    if (!in_flight) g_assert_true(rig_wait(has_values, row));

    guint before = finalized;
    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(flow);
    g_object_unref(player);
    g_object_unref(recorder);
    if (!rig_wait(all_finalized, GUINT_TO_POINTER(before + 7))) {
        gchar *names = alive_names();
        g_error("round %u: %u of 7 finalized; still alive after the window's destroy: %s", round, finalized - before,
                names);
    }
    g_assert_cmpuint(finalized, ==, before + 7);
    if (in_flight) g_remove(fifo);
    g_free(fifo);
    g_free(takes);
}

static void test_rounds(void) {
    finalized = 0;
    alive = g_hash_table_new(NULL, NULL);
    for (guint round = 0; round < ROUNDS; round++) round_of_everything(round);
    g_test_message("%u rounds, %u objects finalized", ROUNDS, finalized);
    g_assert_cmpuint(finalized, ==, ROUNDS * 7);
    g_hash_table_unref(alive);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-gtk-lifecycle-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *wav = g_build_filename(directory, "note.wav", NULL);
    note_path = g_build_filename(directory, "note.ogg", NULL);
    run_bounded("30", (const char *const[]){"sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "1",
                                            "sine", "440", NULL});
    run_bounded("30", (const char *const[]){"opusenc", "--quiet", wav, note_path, NULL});
    g_remove(wav);
    g_free(wav);
    /* The media cache in the test's directory (the user's untouched). */
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_assert_cmpint(vn_cache_set_directory(cache), ==, VN_OK);
    g_free(cache);
    g_test_add_func("/lifecycle/rounds", test_rounds);
    int status = g_test_run();
    run_bounded("10", (const char *const[]){"rm", "-rf", directory, NULL});
    g_free(note_path);
    g_free(directory);
    return status;
}
