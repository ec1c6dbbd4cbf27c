/*
 * player.c: VnPlayer (voicenote-glib's vn-player.h) on a GMainLoop, playing a real note to a file speaker.
 *
 * The note is a sentence spoken by espeak-ng and encoded by opusenc, made at start in the test's own temporary
 * directory; the speaker is ALSA's `file` plugin over `null` (configuration text, not paced), writing mono S16 at
 * 48 kHz, so the frames written say how much audio played.
 * - /player/plays-to-finished: at 2x the note plays to `finished`; every notify and signal runs on the main
 *   context's thread, in order (LOADING, PLAYING, then STOPPED with `finished`); each notify carries a new value
 *   (once per change; setting the same rate again notifies nothing); the speaker got the note's duration / 2;
 *   `location` is NULL before the load, then the note's (one notify), kept after the end.
 * - /player/failed: a missing file is `failed` (VN_ERROR_NOT_FOUND), then the state NOT_LOADED, its location kept.
 * - /player/dispose-in-finished, /player/dispose-in-notify: the last reference dropped inside the player's own
 *   `finished` handler, and inside notify::state as it starts playing; nothing of it runs afterwards and it is
 *   finalized.
 * - /player/one-source-per-context: players made in one context share one polled descriptor; another context gets
 *   its own; the last player gone, the descriptor goes too (g_main_context_query counts them).
 * - /player/mpris: `mpris-identity` and `mpris-desktop-entry` are kept; vng_player_set_metadata takes the host's
 *   words (an empty key is VN_ERROR_INVALID_ARG); an idle player is on no bus (what a desktop sees of a loaded note
 *   is the C and Python suites', on a private session bus).
 * - /player/stream-role: `stream-role` is kept; an empty one is VN_ERROR_INVALID_ARG (what a role does on a sound
 *   server is the Swift and Python suites', on a private PulseAudio with its ducking).
 * Every wait is bounded: the main loop runs until its condition, with a timeout that fails the test.
 */
#include <voicenote-glib.h>

#include <glib/gstdio.h>

#include "event-log.h"

#define WAIT_MS 30000
#define SPEAKER_RATE 48000

static gchar *directory;
static gchar *note_path;

/* ------------------------------------------------------------------------------------------------------------ */
/* Bounded main-loop runs */

typedef struct {
    GMainLoop *loop;
    gboolean timed_out;
} Run;

static gboolean run_timeout(gpointer data) {
    Run *run = data;
    run->timed_out = TRUE;
    g_main_loop_quit(run->loop);
    return G_SOURCE_REMOVE;
}

/* Runs the thread-default context's main loop until g_main_loop_quit(run->loop) or `ms` pass; FALSE on timeout. */
static gboolean run_until_quit(Run *run, guint ms) {
    GSource *timeout = g_timeout_source_new(ms);
    g_source_set_callback(timeout, run_timeout, run, NULL);
    g_source_attach(timeout, g_main_loop_get_context(run->loop));
    g_main_loop_run(run->loop);
    g_source_destroy(timeout);
    g_source_unref(timeout);
    return !run->timed_out;
}

/* Dispatches whatever is ready now (bounded); what a disposed player might still have queued would run here. */
static void drain_context(void) {
    for (int i = 0; i < 1000 && g_main_context_iteration(NULL, FALSE); i++) {}
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Fixture: the note, made with espeak-ng and opusenc */

static void child_done(GObject *source, GAsyncResult *result, gpointer data) {
    Run *run = data;
    GError *error = NULL;
    if (!g_subprocess_wait_check_finish(G_SUBPROCESS(source), result, &error)) {
        g_printerr("%s\n", error->message);
        g_error_free(error);
        run->timed_out = TRUE; /* a failure: the caller only asks whether it succeeded */
    }
    g_main_loop_quit(run->loop);
}

/* Runs argv to its end within WAIT_MS (killed after that); TRUE when it exited 0. */
static gboolean run_child(const gchar *const *argv) {
    GError *error = NULL;
    GSubprocess *child = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
    g_assert_no_error(error);
    Run run = {.loop = g_main_loop_new(NULL, FALSE)};
    g_subprocess_wait_check_async(child, NULL, child_done, &run);
    gboolean ok = run_until_quit(&run, WAIT_MS);
    if (!g_subprocess_get_if_exited(child)) {
        g_subprocess_force_exit(child);
        ok = FALSE;
    }
    g_main_loop_unref(run.loop);
    g_object_unref(child);
    return ok;
}

static void make_note(void) {
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-player-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *wav = g_build_filename(directory, "note.wav", NULL);
    note_path = g_build_filename(directory, "note.ogg", NULL);
    const gchar *speak[] = {"espeak-ng", "-w", wav, "A voice note for the GLib player.", NULL};
    const gchar *encode[] = {"opusenc", "--quiet", wav, note_path, NULL};
    g_assert_true(run_child(speak));
    g_assert_true(run_child(encode));
    g_free(wav);
}

static void remove_directory(void) {
    GDir *dir = g_dir_open(directory, 0, NULL);
    const gchar *name;
    while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
        gchar *path = g_build_filename(directory, name, NULL);
        g_remove(path);
        g_free(path);
    }
    if (dir != NULL) g_dir_close(dir);
    g_rmdir(directory);
}

/* A player on a file speaker writing to `output`. */
static VnPlayer *speaker_player(const gchar *output) {
    gchar *configuration =
        g_strdup_printf("pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0644 }", output);
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device("vn_spk", configuration, &error);
    g_assert_no_error(error);
    g_assert_nonnull(player);
    g_free(configuration);
    return player;
}

static gchar *speaker_path(const gchar *name) {
    return g_build_filename(directory, name, NULL);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* A log of everything the player said, in order */

/* Kinds of entries; the state first (event-log.h matches its value). */
typedef enum { SAID_STATE, SAID_DURATION, SAID_POSITION, SAID_RATE, SAID_FINISHED, SAID_FAILED } Said;

typedef struct {
    EventLog events;
    Run run;
    gchar *finished_location;
    guint location_notifies; /* notify::location, which carries no number for the event log */
} Log;

/* The end of a note: `finished`, and the state STOPPED (the context that says so may come just after). */
static void quit_when_done(Log *log, VnPlayer *player) {
    if (log->finished_location != NULL && vng_player_get_state(player) == VN_PLAYER_STATE_STOPPED)
        g_main_loop_quit(log->run.loop);
}

static void on_notify(GObject *object, GParamSpec *pspec, gpointer data) {
    Log *log = data;
    VnPlayer *player = VNG_PLAYER(object);
    const gchar *name = g_param_spec_get_name(pspec);
    if (g_str_equal(name, "state")) log_add(&log->events, SAID_STATE, vng_player_get_state(player));
    else if (g_str_equal(name, "duration")) log_add(&log->events, SAID_DURATION, vng_player_get_duration(player));
    else if (g_str_equal(name, "position")) log_add(&log->events, SAID_POSITION, vng_player_get_position(player));
    else if (g_str_equal(name, "rate")) log_add(&log->events, SAID_RATE, vng_player_get_rate(player));
    quit_when_done(log, player);
}

static void on_finished(VnPlayer *player, const gchar *location, gpointer data) {
    Log *log = data;
    log_add(&log->events, SAID_FINISHED, 0);
    g_free(log->finished_location);
    log->finished_location = g_strdup(location);
    quit_when_done(log, player);
}

static void on_failed(VnPlayer *player, GError *error, gpointer data) {
    (void)player;
    Log *log = data;
    g_assert_true(error->domain == VN_ERROR);
    g_assert_cmpstr(error->message, !=, "");
    log_add(&log->events, SAID_FAILED, error->code);
}

static void on_location(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)object, (void)pspec;
    ((Log *)data)->location_notifies++;
}

static void log_init(Log *log, VnPlayer *player) {
    *log = (Log){.run = {.loop = g_main_loop_new(NULL, FALSE)}};
    g_assert_null(vng_player_get_location(player)); /* nothing loaded yet */
    g_signal_connect(player, "notify", G_CALLBACK(on_notify), log);
    g_signal_connect(player, "notify::location", G_CALLBACK(on_location), log);
    g_signal_connect(player, "finished", G_CALLBACK(on_finished), log);
    g_signal_connect(player, "failed", G_CALLBACK(on_failed), log);
    event_log_init(&log->events, player);
}

static void log_clear(Log *log) {
    event_log_clear(&log->events);
    g_main_loop_unref(log->run.loop);
    g_free(log->finished_location);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_plays_to_finished(void) {
    gchar *output = speaker_path("plays.raw");
    VnPlayer *player = speaker_player(output);
    Log log;
    log_init(&log, player);
    GError *error = NULL;

    g_assert_true(vng_player_set_rate(player, 2.0, &error));
    g_assert_true(vng_player_set_rate(player, 2.0, &error)); /* the same value: no second notify */
    g_assert_false(vng_player_set_rate(player, 3.0, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_true(vng_player_set_leveling(player, TRUE, -16, 0, &error));
    g_assert_false(vng_player_set_leveling(player, TRUE, -5, 0, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_cmpuint(count(&log.events, SAID_RATE), ==, 1);
    g_assert_cmpfloat(vng_player_get_rate(player), ==, 2.0);

    g_assert_true(vng_player_load(player, note_path, TRUE, -1, &error));
    g_assert_no_error(error);
    g_assert_true(run_until_quit(&log.run, WAIT_MS));

    expect_once_per_change(&log.events, (const gdouble[]){VN_PLAYER_STATE_NOT_LOADED, 0, 0, 1.0}, 4);
    g_assert_cmpuint(count(&log.events, SAID_FAILED), ==, 0);
    g_assert_cmpuint(count(&log.events, SAID_FINISHED), ==, 1);
    g_assert_cmpstr(log.finished_location, ==, note_path);
    g_assert_cmpstr(vng_player_get_location(player), ==, note_path); /* kept after the end */
    g_assert_cmpuint(log.location_notifies, ==, 1);
    gint loading = find(&log.events, 0, SAID_STATE, VN_PLAYER_STATE_LOADING);
    gint playing = find(&log.events, 0, SAID_STATE, VN_PLAYER_STATE_PLAYING);
    gint finished = find(&log.events, 0, SAID_FINISHED, 0);
    g_assert_cmpint(loading, >=, 0);
    g_assert_cmpint(playing, >, loading);
    g_assert_cmpint(finished, >, playing);
    g_assert_cmpint(find(&log.events, (guint)finished + 1, SAID_STATE, VN_PLAYER_STATE_PLAYING), ==, -1);
    g_assert_cmpint(vng_player_get_state(player), ==, VN_PLAYER_STATE_STOPPED);
    g_assert_cmpint(find(&log.events, (guint)playing, SAID_STATE, VN_PLAYER_STATE_STOPPED), >, playing);
    /* While playing the position only grows, and progress came. (Not "more than once": the file speaker is not paced,
     * the library coalesces progress a slower subscriber has not taken, and a loaded CI machine ran the whole note
     * between two deliveries once: one step is all a fast writer promises.) */
    gdouble position = 0;
    guint steps = 0;
    gint stopped = find(&log.events, (guint)playing, SAID_STATE, VN_PLAYER_STATE_STOPPED);
    for (guint i = (guint)playing; i < (guint)MIN(finished, stopped); i++) {
        Entry *entry = entry_at(&log.events, i);
        if (entry->what != SAID_POSITION) continue;
        g_assert_cmpfloat(entry->value, >=, position);
        position = entry->value;
        steps++;
    }
    g_assert_cmpuint(steps, >=, 1);
    g_assert_cmpfloat(vng_player_get_position(player), ==, 0); /* STOPPED is at 0 */

    /* The speaker got the note at 2x: half its duration (±5 %). */
    gdouble duration = vng_player_get_duration(player);
    g_assert_cmpfloat(duration, >, 1.0);
    GStatBuf info;
    g_assert_cmpint(g_stat(output, &info), ==, 0);
    gdouble played_s = (gdouble)info.st_size / 2 / SPEAKER_RATE;
    g_test_message("duration %.3f s, played %.3f s at 2x, %u progress steps", duration, played_s, steps);
    g_assert_cmpfloat_with_epsilon(played_s, duration / 2, duration / 2 * 0.05);

    g_object_unref(player);
    g_assert_true(log.events.finalized);
    log_clear(&log);
    g_free(output);
}

static void quit_on_not_loaded(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    if (vng_player_get_state(VNG_PLAYER(object)) == VN_PLAYER_STATE_NOT_LOADED) g_main_loop_quit(((Log *)data)->run.loop);
}

static void test_failed(void) {
    gchar *output = speaker_path("failed.raw");
    gchar *missing = g_build_filename(directory, "missing.ogg", NULL);
    VnPlayer *player = speaker_player(output);
    Log log;
    log_init(&log, player);
    g_signal_connect(player, "notify::state", G_CALLBACK(quit_on_not_loaded), &log);
    GError *error = NULL;
    g_assert_true(vng_player_load(player, missing, TRUE, -1, &error));
    g_assert_true(run_until_quit(&log.run, WAIT_MS));

    expect_once_per_change(&log.events, (const gdouble[]){VN_PLAYER_STATE_NOT_LOADED, 0, 0, 1.0}, 4);
    gint failed = find(&log.events, 0, SAID_FAILED, 0);
    g_assert_cmpint(failed, >, find(&log.events, 0, SAID_STATE, VN_PLAYER_STATE_LOADING));
    g_assert_cmpfloat(entry_at(&log.events, (guint)failed)->value, ==, VN_ERROR_NOT_FOUND);
    g_assert_cmpint(find(&log.events, (guint)failed, SAID_STATE, VN_PLAYER_STATE_NOT_LOADED), >, failed);
    g_assert_cmpuint(count(&log.events, SAID_FAILED), ==, 1);
    g_assert_cmpstr(vng_player_get_location(player), ==, missing); /* a failed load keeps its location */
    g_assert_cmpuint(log.location_notifies, ==, 1);

    g_object_unref(player);
    log_clear(&log);
    g_free(missing);
    g_free(output);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Disposed inside its own handlers */

static void unref_on_finished(VnPlayer *player, const gchar *location, gpointer data) {
    (void)location;
    Log *log = data;
    log->events.disposed = TRUE;
    g_object_unref(player); /* the last reference */
    g_assert_false(log->events.finalized); /* the emission holds one until the handler returns */
    g_main_loop_quit(log->run.loop);
}

static void unref_when_playing(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    Log *log = data;
    if (log->events.disposed || vng_player_get_state(VNG_PLAYER(object)) != VN_PLAYER_STATE_PLAYING) return;
    log->events.disposed = TRUE;
    g_object_unref(object); /* the last reference, mid-play */
    g_main_loop_quit(log->run.loop);
}

static void expect_gone_quietly(Log *log) {
    drain_context();
    g_assert_true(log->events.disposed);
    g_assert_true(log->events.finalized);
    g_assert_cmpuint(log->events.after_dispose, ==, 0);
}

static void test_dispose_in_finished(void) {
    gchar *output = speaker_path("dispose-finished.raw");
    VnPlayer *player = speaker_player(output);
    Log log;
    log_init(&log, player);
    g_signal_connect_after(player, "finished", G_CALLBACK(unref_on_finished), &log);
    g_assert_true(vng_player_set_rate(player, 2.5, NULL));
    g_assert_true(vng_player_load(player, note_path, TRUE, -1, NULL));
    g_assert_true(run_until_quit(&log.run, WAIT_MS));
    expect_gone_quietly(&log);
    log_clear(&log);
    g_free(output);
}

static void test_dispose_in_notify(void) {
    gchar *output = speaker_path("dispose-notify.raw");
    VnPlayer *player = speaker_player(output);
    Log log;
    log_init(&log, player);
    g_signal_connect_after(player, "notify::state", G_CALLBACK(unref_when_playing), &log);
    g_assert_true(vng_player_load(player, note_path, TRUE, -1, NULL));
    g_assert_true(run_until_quit(&log.run, WAIT_MS));
    expect_gone_quietly(&log);
    g_assert_cmpint(find(&log.events, 0, SAID_FINISHED, 0), ==, -1);
    log_clear(&log);
    g_free(output);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* One event source per context */

/* How many descriptors `context` polls (its own wake-up descriptor included). */
static gint polled_descriptors(GMainContext *context) {
    GPollFD fds[32];
    gint priority = 0, timeout = 0;
    g_assert_true(g_main_context_acquire(context));
    g_main_context_prepare(context, &priority);
    gint n = g_main_context_query(context, G_MAXINT, &timeout, fds, G_N_ELEMENTS(fds));
    g_assert_cmpint(n, <=, (gint)G_N_ELEMENTS(fds));
    g_main_context_check(context, G_MAXINT, fds, n);
    g_main_context_release(context);
    return n;
}

static void test_one_source_per_context(void) {
    gchar *output = speaker_path("sources.raw");
    GMainContext *first = g_main_context_new(), *second = g_main_context_new();
    gint none = polled_descriptors(first);
    g_assert_cmpint(polled_descriptors(second), ==, none);

    g_main_context_push_thread_default(first);
    VnPlayer *a = speaker_player(output);
    g_assert_cmpint(polled_descriptors(first), ==, none + 1);
    VnPlayer *b = speaker_player(output);
    g_assert_cmpint(polled_descriptors(first), ==, none + 1);
    g_main_context_pop_thread_default(first);

    g_main_context_push_thread_default(second);
    VnPlayer *c = speaker_player(output);
    g_main_context_pop_thread_default(second);
    g_assert_cmpint(polled_descriptors(second), ==, none + 1);
    g_assert_cmpint(polled_descriptors(first), ==, none + 1);

    g_object_unref(a);
    g_assert_cmpint(polled_descriptors(first), ==, none + 1);
    g_object_unref(b);
    g_assert_cmpint(polled_descriptors(first), ==, none);
    g_object_unref(c);
    g_assert_cmpint(polled_descriptors(second), ==, none);
    g_main_context_unref(first);
    g_main_context_unref(second);
    g_free(output);
}

static void test_mpris(void) {
    GError *error = NULL;
    VnPlayer *player = g_initable_new(VNG_TYPE_PLAYER, NULL, &error, "mpris-identity", "Chat", "mpris-desktop-entry",
                                      "org.example.Chat", NULL);
    g_assert_no_error(error);
    gchar *identity = NULL, *entry = NULL;
    g_object_get(player, "mpris-identity", &identity, "mpris-desktop-entry", &entry, NULL);
    g_assert_cmpstr(identity, ==, "Chat");
    g_assert_cmpstr(entry, ==, "org.example.Chat");
    g_free(identity);
    g_free(entry);
    g_assert_true(vng_player_set_metadata(player, note_path, "Voice message", "Alice", NULL, &error));
    g_assert_false(vng_player_set_metadata(player, "", "Voice message", NULL, NULL, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_object_unref(player);
    player = g_initable_new(VNG_TYPE_PLAYER, NULL, &error, "mpris-identity", "", NULL);
    g_assert_null(player);
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
}

static void test_stream_role(void) {
    GError *error = NULL;
    VnPlayer *player = g_initable_new(VNG_TYPE_PLAYER, NULL, &error, "stream-role", "phone", NULL);
    g_assert_no_error(error);
    gchar *role = NULL;
    g_object_get(player, "stream-role", &role, NULL);
    g_assert_cmpstr(role, ==, "phone");
    g_free(role);
    g_object_unref(player);
    player = g_initable_new(VNG_TYPE_PLAYER, NULL, &error, "stream-role", "", NULL);
    g_assert_null(player);
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    make_note();
    g_test_add_func("/player/plays-to-finished", test_plays_to_finished);
    g_test_add_func("/player/failed", test_failed);
    g_test_add_func("/player/dispose-in-finished", test_dispose_in_finished);
    g_test_add_func("/player/dispose-in-notify", test_dispose_in_notify);
    g_test_add_func("/player/one-source-per-context", test_one_source_per_context);
    g_test_add_func("/player/mpris", test_mpris);
    g_test_add_func("/player/stream-role", test_stream_role);
    int status = g_test_run();
    remove_directory();
    g_free(note_path);
    g_free(directory);
    return status;
}
