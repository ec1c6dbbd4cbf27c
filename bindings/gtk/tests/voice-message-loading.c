/*
 * voice-message-loading.c: a VnVoiceMessage's own waveform read, its loading and failed states, in a real GtkWindow
 * on an X server (make test runs it under xvfb-run), clicked through xdotool. The note is 3 s of a 440 Hz tone whose
 * loudness swings from silence to half scale once a second (sox's tremolo, then opusenc); URLs are served by a real
 * HTTP server on 127.0.0.1 in this process (voicenote-glib's tests/note-server.h, on the main context the waits
 * iterate); the player plays to ALSA's `file` plugin; the media cache is in the test's directory.
 *
 * - /voice-message-loading/reads-waveform: a row given no values, on the local note: once shown it holds the note's
 *   100 values (not all equal), no spinner; its waveform drawn to voice-message-read.png is not blank and its bars'
 *   heights differ (the loud part's tallest at least twice the quiet part's shortest).
 * - /voice-message-loading/url-spinner: a row given no values on a slow URL (2 KiB, then 4 KiB every 100 ms): while
 *   the server trickles, the spinner shows and spins, the row is busy with the description "loading"; once the body
 *   has ended, the bars are there, the spinner gone, busy off (drawn while loading: voice-message-loading.png). A second row with values on another slow URL: its
 *   play click puts the player in LOADING for its note, and at that moment its spinner shows (busy); once PLAYING,
 *   the spinner is gone.
 * - /voice-message-loading/failed: a corrupt note (random bytes named .ogg) and a 404 URL, given no values: each
 *   shows the failed state (the error icon and text in the waveform's place, the button "Retry", the description "Can't play this
 *   voice message: ..."); a row with values on the corrupt note: play → the player's `failed` → the failed state;
 *   its button again → the player loads it again (LOADING) and fails again; the three drawn to
 *   voice-message-failed.png, their icons and texts in the theme's error colour (red pixels; none while loading).
 * - /voice-message-loading/http-options: a row on an authenticated URL (`/auth/`: 401 without `Authorization: Bearer`
 *   and the server's token): the failed state; given the header through `http-options`, it reads again by itself
 *   (its bars, quiet), and its play loads the note with the same header (PLAYING; the server refused nothing more).
 * - /voice-message-loading/dispose-in-flight: a row whose read of a slow URL is in flight (started under a main
 *   context of the test's, so its callback waits there) is disposed: the server sees the connection closed (the
 *   download stopped), the read's callback comes and leaves the disposed row alone (a touch would be a critical,
 *   fatal here, or values on its old waveform), and the threads go back to their count after a completed read.
 * Every wait is bounded (x11-rig.h's rig_wait: 10 s); nothing sleeps.
 */
#include <glib/gstdio.h>
#include <voicenote-gtk.h>

#include "tests/note-server.h"
#include "tests/process-threads.h"
#include "x11-rig.h"

#define ROW_WIDTH 360
#define READ_SAMPLES 100
#define FAST_TRICKLE 4096

static gchar *directory;
static gchar *note_path;    /* the tone whose loudness swings */
static gchar *corrupt_path; /* random bytes named .ogg */
static VnPlayer *player;

/* ------------------------------------------------------------------------------------------------------------ */
/* The rig */

static void make_notes(void) {
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-gtk-loading-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *wav = g_build_filename(directory, "note.wav", NULL);
    note_path = g_build_filename(directory, "note.ogg", NULL);
    run_bounded("30", (const char *const[]){"sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "3",
                                            "sine", "440", "vol", "0.5", "tremolo", "1", "100", NULL});
    run_bounded("30", (const char *const[]){"opusenc", "--quiet", wav, note_path, NULL});
    g_remove(wav);
    g_free(wav);
    corrupt_path = g_build_filename(directory, "corrupt.ogg", NULL);
    guint8 noise[16384];
    GRand *rand = g_rand_new_with_seed(36);
    for (gsize i = 0; i < sizeof noise; i++) noise[i] = (guint8)g_rand_int_range(rand, 0, 256);
    g_rand_free(rand);
    g_assert_true(g_file_set_contents(corrupt_path, (const gchar *)noise, sizeof noise, &error));
    g_assert_no_error(error);
}

static GtkWidget *play_button(VnVoiceMessage *row) {
    return gtk_widget_get_first_child(GTK_WIDGET(row));
}

static GtkWidget *spinner_of(VnVoiceMessage *row) {
    GtkWidget *spinner = gtk_widget_get_next_sibling(play_button(row));
    g_assert_true(GTK_IS_SPINNER(spinner));
    return spinner;
}

/* The failure's part: the error icon and the text, after the waveform. */
static GtkWidget *failure_of(VnVoiceMessage *row) {
    GtkWidget *failure = gtk_widget_get_next_sibling(GTK_WIDGET(vngtk_voice_message_get_waveform(row)));
    g_assert_true(GTK_IS_BOX(failure));
    return failure;
}

static VnVoiceMessage *new_row(const gchar *location, gboolean with_values) {
    VnVoiceMessage *row = VNGTK_VOICE_MESSAGE(vngtk_voice_message_new(player, location, 3));
    gtk_widget_set_size_request(GTK_WIDGET(row), ROW_WIDTH, -1);
    if (with_values) {
        gfloat values[READ_SAMPLES];
        for (int i = 0; i < READ_SAMPLES; i++) values[i] = (gfloat)(0.3 + 0.6 * fabs(sin(i * 0.23)));
        vngtk_waveform_set_values(vngtk_voice_message_get_waveform(row), values, READ_SAMPLES);
    }
    return row;
}

/* A window holding a vertical box of these rows (NULL-terminated), shown and painted. */
static GtkWidget *show_rows(guint *frames, VnVoiceMessage *first, ...) {
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    va_list rows;
    va_start(rows, first);
    for (VnVoiceMessage *row = first; row != NULL; row = va_arg(rows, VnVoiceMessage *))
        gtk_box_append(GTK_BOX(box), GTK_WIDGET(row));
    va_end(rows);
    return rig_window_show("VnVoiceMessage loading test", box, frames);
}

static gsize values_of(VnVoiceMessage *row) {
    gsize n = 0;
    VnWaveform *waveform = vngtk_voice_message_get_waveform(row);
    vngtk_waveform_get_values(waveform, &n);
    return n;
}

static gboolean has_values(gpointer data) {
    return values_of(data) > 0;
}

static gboolean shows_failure(gpointer data) {
    return gtk_widget_get_visible(failure_of(data));
}

/* The row neither loading nor failed. */
static void assert_quiet(VnVoiceMessage *row) {
    g_assert_false(gtk_widget_get_visible(spinner_of(row)));
    g_assert_false(gtk_widget_get_visible(failure_of(row)));
    g_assert_true(gtk_widget_get_visible(GTK_WIDGET(vngtk_voice_message_get_waveform(row))));
    gtk_test_accessible_assert_state(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_STATE_BUSY, FALSE);
    g_assert_false(gtk_test_accessible_has_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION));
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(play_button(row)), GTK_ACCESSIBLE_PROPERTY_LABEL, "Play");
}

static void assert_loading(VnVoiceMessage *row) {
    GtkWidget *spinner = spinner_of(row);
    g_assert_true(gtk_widget_get_mapped(spinner));
    g_assert_true(gtk_spinner_get_spinning(GTK_SPINNER(spinner)));
    gtk_test_accessible_assert_state(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_STATE_BUSY, TRUE);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "loading");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(spinner), GTK_ACCESSIBLE_PROPERTY_LABEL, "Loading");
}

/* The failed state: the description is "Can't play this voice message: " and the error's message (the text's
 * tooltip), logged with `what`. */
static void assert_failed(VnVoiceMessage *row, const gchar *what) {
    GtkWidget *button = play_button(row), *failure = failure_of(row);
    GtkWidget *icon = gtk_widget_get_first_child(failure), *label = gtk_widget_get_last_child(failure);
    g_assert_true(GTK_IS_IMAGE(icon) && GTK_IS_LABEL(label));
    g_assert_cmpstr(gtk_button_get_icon_name(GTK_BUTTON(button)), ==, "view-refresh-symbolic");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Retry");
    g_assert_true(gtk_widget_get_mapped(failure));
    g_assert_true(gtk_widget_has_css_class(failure, "failure") && gtk_widget_has_css_class(label, "error"));
    g_assert_cmpstr(gtk_image_get_icon_name(GTK_IMAGE(icon)), ==, "dialog-error-symbolic");
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(label)), ==, "Can't play this voice message");
    g_assert_false(gtk_widget_get_visible(GTK_WIDGET(vngtk_voice_message_get_waveform(row))));
    g_assert_false(gtk_widget_get_visible(spinner_of(row)));
    gtk_test_accessible_assert_state(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_STATE_BUSY, FALSE);
    const gchar *tooltip = gtk_widget_get_tooltip_text(label);
    g_assert_nonnull(tooltip);
    gchar *description = g_strconcat("Can't play this voice message: ", tooltip, NULL);
    g_test_message("%s: failed: %s", what, description);
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description);
    g_assert_cmpuint(strlen(tooltip), >, 0);
    g_free(description);
}

/* The window's content drawn (after one more frame) to `name`: more than 2 % of it differs from its top-left pixel
 * (the transparent background). Returns how many pixels are red (the theme's error colour: Adwaita's #cc0000). */
static gsize assert_window_drawn(GtkWidget *window, guint *frames, const char *name) {
    rig_wait_for_frame(window, frames);
    GtkWidget *content = gtk_window_get_child(GTK_WINDOW(window));
    int width = gtk_widget_get_width(content), height = gtk_widget_get_height(content);
    GdkTexture *texture = render_widget(content, window, name);
    guint8 *pixels = texture_pixels(texture);
    g_object_unref(texture);
    gsize differing = 0, red = 0;
    for (gsize i = 0; i < (gsize)width * height; i++) {
        const guint8 *p = pixels + i * 4; /* B, G, R, A */
        differing += memcmp(p, pixels, 4) != 0;
        red += p[3] > 128 && p[2] > 2 * p[1] + 40 && p[2] > 2 * p[0] + 40;
    }
    g_free(pixels);
    g_test_message("%s: %d×%d, %" G_GSIZE_FORMAT " pixels differ from the background, %" G_GSIZE_FORMAT " red", name,
                   width, height, differing, red);
    g_assert_cmpuint(differing, >, (gsize)width * height / 50);
    return red;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The waveform read from the note */

static void test_reads_waveform(void) {
    VnVoiceMessage *row = new_row(note_path, FALSE);
    guint frames = 0;
    gint64 start = g_get_monotonic_time();
    GtkWidget *window = show_rows(&frames, row, NULL);
    g_assert_true(rig_wait(has_values, row));
    g_test_message("the waveform read %.1f ms after the window was shown", (g_get_monotonic_time() - start) / 1000.0);
    VnWaveform *waveform = vngtk_voice_message_get_waveform(row);
    gsize n = 0;
    const gfloat *values = vngtk_waveform_get_values(waveform, &n);
    g_assert_cmpuint(n, ==, READ_SAMPLES);
    gfloat low = 1, high = 0;
    for (gsize i = 0; i < n; i++) low = MIN(low, values[i]), high = MAX(high, values[i]);
    g_test_message("values %.3f…%.3f", low, high);
    g_assert_cmpfloat(high - low, >, 0.3);
    assert_quiet(row);

    /* Its bars drawn: not blank, and of differing heights. */
    rig_wait_for_frame(window, &frames);
    GtkWidget *widget = GTK_WIDGET(waveform);
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    GdkTexture *texture = render_widget(widget, window, "voice-message-read.png");
    guint8 *pixels = texture_pixels(texture);
    g_object_unref(texture);
    gsize drawn = 0;
    int shortest = height, tallest = 0;
    for (int x = 0; x < width; x++) {
        int column = 0;
        for (int y = 0; y < height; y++) column += pixels[((gsize)y * width + x) * 4 + 3] > 48; /* 45 % foreground */
        drawn += (gsize)column;
        if (column > 0) shortest = MIN(shortest, column), tallest = MAX(tallest, column);
    }
    g_free(pixels);
    g_test_message("voice-message-read.png: %d×%d, %" G_GSIZE_FORMAT " pixels drawn, bars %d…%d px tall", width, height,
                   drawn, shortest, tallest);
    g_assert_cmpuint(drawn, >, (gsize)width * height / 20);
    g_assert_cmpint(tallest, >=, 2 * shortest);
    g_assert_cmpint(tallest - shortest, >=, 8);
    gtk_window_destroy(GTK_WINDOW(window));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Loading */

static gboolean slow_done(gpointer data) {
    return note_server.slow_done >= *(guint *)data;
}

/* What the row showed when the player reached `state` for its note (kept by a handler after the rows'). */
typedef struct {
    VnVoiceMessage *row;
    VnPlayerState state;
    gboolean reached;
    gboolean spinner_shown;
    gboolean busy;
} Moment;

static void on_player_notify(GObject *object, GParamSpec *pspec, Moment *moment) {
    (void)pspec;
    VnPlayer *changed = VNG_PLAYER(object);
    if (moment->reached || vng_player_get_state(changed) != moment->state ||
        g_strcmp0(vng_player_get_location(changed), vngtk_voice_message_get_location(moment->row)) != 0)
        return;
    moment->reached = TRUE;
    moment->spinner_shown = gtk_widget_get_visible(spinner_of(moment->row)) &&
                            gtk_spinner_get_spinning(GTK_SPINNER(spinner_of(moment->row)));
    GtkAccessible *accessible = GTK_ACCESSIBLE(moment->row);
    moment->busy = gtk_test_accessible_check_state(accessible, GTK_ACCESSIBLE_STATE_BUSY, TRUE) == NULL;
}

static gboolean moment_reached(gpointer data) {
    return ((Moment *)data)->reached;
}

/* Clicks the row's play button and waits for the player to reach `state` for its note; what the row showed then. */
static void click_play_until(VnVoiceMessage *row, VnPlayerState state, Moment *moment) {
    *moment = (Moment){.row = row, .state = state};
    gulong handler = g_signal_connect(player, "notify", G_CALLBACK(on_player_notify), moment);
    rig_click(play_button(row), 0.5, 0.5);
    g_assert_true(rig_wait(moment_reached, moment));
    g_signal_handler_disconnect(player, handler);
}

static void test_url_spinner(void) {
    note_server.trickle_bytes = FAST_TRICKLE;
    gchar *url = note_server_url("/slow/spinner.ogg");
    VnVoiceMessage *row = new_row(url, FALSE);
    guint chunks = note_server.slow_chunks, done = note_server.slow_done + 1;
    guint frames = 0;
    gint64 start = g_get_monotonic_time();
    GtkWidget *window = show_rows(&frames, row, NULL);
    g_assert_true(rig_wait(note_server_trickling, &chunks));
    g_assert_cmpuint(values_of(row), ==, 0);
    assert_loading(row);
    g_assert_cmpuint(assert_window_drawn(window, &frames, "voice-message-loading.png"), ==, 0);
    g_assert_true(rig_wait(has_values, row));
    g_test_message("bars %.1f ms after the window was shown (the body trickled in %u chunks)",
                   (g_get_monotonic_time() - start) / 1000.0, note_server.slow_chunks - chunks);
    g_assert_true(slow_done(&done)); /* not before the whole note came */
    assert_quiet(row);
    g_assert_cmpuint(values_of(row), ==, READ_SAMPLES);
    gtk_window_destroy(GTK_WINDOW(window));
    g_free(url);

    /* The player loading a slow URL: the spinner from LOADING to PLAYING. */
    url = note_server_url("/slow/play.ogg");
    row = new_row(url, TRUE);
    window = show_rows(&frames, row, NULL);
    assert_quiet(row);
    Moment loading, playing;
    start = g_get_monotonic_time();
    click_play_until(row, VN_PLAYER_STATE_LOADING, &loading);
    g_assert_true(loading.spinner_shown);
    g_assert_true(loading.busy);
    playing = (Moment){.row = row, .state = VN_PLAYER_STATE_PLAYING};
    gulong handler = g_signal_connect(player, "notify", G_CALLBACK(on_player_notify), &playing);
    g_assert_true(rig_wait(moment_reached, &playing));
    g_signal_handler_disconnect(player, handler);
    g_test_message("the player loaded the slow URL in %.1f ms", (g_get_monotonic_time() - start) / 1000.0);
    g_assert_false(playing.spinner_shown);
    g_assert_false(playing.busy);
    GError *error = NULL;
    g_assert_true(vng_player_stop(player, &error));
    g_assert_no_error(error);
    gtk_window_destroy(GTK_WINDOW(window));
    g_free(url);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Failed */

static guint failures;
static void count_failure(VnPlayer *failing, const GError *error, gpointer data) {
    (void)failing, (void)data;
    g_test_message("the player failed: %s", error->message);
    failures++;
}

static gboolean failures_reach(gpointer data) {
    return failures >= GPOINTER_TO_UINT(data);
}

static void test_failed(void) {
    gchar *missing = note_server_url("/missing/note.ogg");
    VnVoiceMessage *corrupt = new_row(corrupt_path, FALSE), *absent = new_row(missing, FALSE);
    VnVoiceMessage *played = new_row(corrupt_path, TRUE);
    guint frames = 0;
    GtkWidget *window = show_rows(&frames, corrupt, absent, played, NULL);
    g_assert_true(rig_wait(shows_failure, corrupt));
    assert_failed(corrupt, "corrupt note, read");
    g_assert_true(rig_wait(shows_failure, absent));
    assert_failed(absent, "404 URL, read");
    assert_quiet(played);

    /* The player fails on the corrupt note; the button then retries the load, which fails again. */
    gulong handler = g_signal_connect(player, "failed", G_CALLBACK(count_failure), NULL);
    failures = 0;
    rig_click(play_button(played), 0.5, 0.5);
    g_assert_true(rig_wait(failures_reach, GUINT_TO_POINTER(1)));
    g_assert_true(rig_wait(shows_failure, played));
    assert_failed(played, "corrupt note, played");
    Moment retried;
    click_play_until(played, VN_PLAYER_STATE_LOADING, &retried);
    g_assert_true(rig_wait(failures_reach, GUINT_TO_POINTER(2)));
    g_assert_true(rig_wait(shows_failure, played));
    assert_failed(played, "corrupt note, played again");
    g_assert_cmpuint(failures, ==, 2);
    g_signal_handler_disconnect(player, handler);
    /* Each row's icon and text in the error colour. */
    g_assert_cmpuint(assert_window_drawn(window, &frames, "voice-message-failed.png"), >, 3 * 100);
    gtk_window_destroy(GTK_WINDOW(window));
    g_free(missing);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Authenticated media */

static void test_http_options(void) {
    gchar *url = note_server_url("/auth/note.ogg");
    VnVoiceMessage *row = new_row(url, FALSE);
    guint frames = 0, denied = note_server.denied;
    GtkWidget *window = show_rows(&frames, row, NULL);
    /* Without the token the server refuses the read: the failed state. */
    g_assert_true(rig_wait(shows_failure, row));
    assert_failed(row, "authenticated URL without a token");
    g_assert_cmpuint(note_server.denied, ==, denied + 1);
    /* With it, the row reads again by itself, and its play loads the note with the same header. */
    GError *error = NULL;
    VnHttpOptions *options = vng_http_options_new();
    g_assert_true(vng_http_options_add_header(options, "Authorization", "Bearer " NOTE_SERVER_AUTH_TOKEN, &error));
    g_assert_no_error(error);
    vngtk_voice_message_set_http_options(row, options);
    g_assert_true(vngtk_voice_message_get_http_options(row) == options);
    g_object_unref(options);
    g_assert_true(rig_wait(has_values, row));
    assert_quiet(row);
    Moment playing;
    click_play_until(row, VN_PLAYER_STATE_PLAYING, &playing); /* a notify: the note may play to its end at once */
    g_assert_cmpstr(vng_player_get_location(player), ==, url);
    g_assert_cmpuint(note_server.denied, ==, denied + 1); /* no request since went without the token */
    g_assert_true(vng_player_stop(player, &error));
    g_assert_no_error(error);
    gtk_window_destroy(GTK_WINDOW(window));
    g_free(url);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Disposed while reading */

static guint thread_baseline;
static gboolean threads_at_baseline(gpointer data) {
    (void)data;
    return count_threads() <= thread_baseline;
}

static gboolean context_pending(gpointer data) {
    return g_main_context_pending(data);
}

static void test_dispose_in_flight(void) {
    /* The baseline: the threads after a completed URL read (GLib's worker pool, libvoicenote's network thread). */
    gchar *warm_up = note_server_url("/fast/warm-up.ogg");
    VnVoiceMessage *row = new_row(warm_up, FALSE);
    guint frames = 0;
    GtkWidget *window = show_rows(&frames, row, NULL);
    g_assert_true(rig_wait(has_values, row));
    g_assert_true(rig_wait(note_server_all_closed, NULL));
    thread_baseline = count_threads();

    /* The read of a slow URL, its callback on a context of the test's, which only this test iterates. */
    note_server.trickle_bytes = NOTE_SERVER_TRICKLE_BYTES;
    gchar *url = note_server_url("/slow/disposed.ogg");
    guint chunks = note_server.slow_chunks;
    GMainContext *context = g_main_context_new();
    g_main_context_push_thread_default(context);
    vngtk_voice_message_set_location(row, url); /* realized, its values the old note's read: a new read */
    g_main_context_pop_thread_default(context);
    g_assert_cmpuint(values_of(row), ==, 0);
    g_assert_true(rig_wait(note_server_trickling, &chunks));
    assert_loading(row);

    /* Disposed (kept alive by the test: a callback touching it would find its parts gone). */
    VnWaveform *waveform = g_object_ref(vngtk_voice_message_get_waveform(row));
    g_object_ref(row);
    gtk_window_destroy(GTK_WINDOW(window));
    gint64 disposed = g_get_monotonic_time();
    g_object_run_dispose(G_OBJECT(row));
    g_assert_null(vngtk_voice_message_get_waveform(row));
    g_assert_true(rig_wait(note_server_all_closed, NULL));
    gdouble closed_ms = (g_get_monotonic_time() - disposed) / 1000.0;
    g_assert_true(rig_wait(context_pending, context));
    gdouble callback_ms = (g_get_monotonic_time() - disposed) / 1000.0;
    while (g_main_context_iteration(context, FALSE)) {} /* the read's callback, after the dispose */
    gsize left = 1;
    vngtk_waveform_get_values(waveform, &left);
    g_assert_cmpuint(left, ==, 0);
    g_assert_true(rig_wait(threads_at_baseline, NULL));
    g_test_message("disposed while reading: the connection closed %.1f ms after the dispose, the callback ready after "
                   "%.1f ms, %u threads (after a completed read: %u) after %.1f ms",
                   closed_ms, callback_ms, count_threads(), thread_baseline,
                   (g_get_monotonic_time() - disposed) / 1000.0);
    g_assert_false(g_main_context_pending(context));
    g_main_context_unref(context);
    g_object_unref(row);
    g_object_unref(waveform);
    g_free(url);
    g_free(warm_up);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    make_notes();
    /* The media cache in the test's directory: downloads land there, the user's cache is untouched. */
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_assert_cmpint(vn_cache_set_directory(cache), ==, VN_OK);
    g_free(cache);
    gchar *speaker = g_build_filename(directory, "speaker.raw", NULL);
    gchar *configuration =
        g_strdup_printf("pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0600 }", speaker);
    GError *error = NULL;
    player = vng_player_new_for_device("vn_spk", configuration, &error);
    g_assert_no_error(error);
    gchar *contents = NULL;
    gsize size = 0;
    g_assert_true(g_file_get_contents(note_path, &contents, &size, &error));
    GBytes *body = g_bytes_new_take(contents, size);
    note_server_start(body);
    g_bytes_unref(body);
    g_test_add_func("/voice-message-loading/reads-waveform", test_reads_waveform);
    g_test_add_func("/voice-message-loading/url-spinner", test_url_spinner);
    g_test_add_func("/voice-message-loading/failed", test_failed);
    g_test_add_func("/voice-message-loading/http-options", test_http_options);
    g_test_add_func("/voice-message-loading/dispose-in-flight", test_dispose_in_flight);
    int status = g_test_run();
    g_object_unref(player);
    note_server_stop();
    g_free(configuration);
    g_free(speaker);
    g_free(note_path);
    g_free(corrupt_path);
    run_bounded("10", (const char *const[]){"rm", "-rf", directory, NULL});
    g_free(directory);
    return status;
}
