/*
 * recorder.c: VnRecorder (voicenote-glib's vn-recorder.h) on the main context, recording from a virtual microphone:
 * ALSA's `file` plugin reading 30 s of a raw tone (unpaced), as bindings/c/tests/flow.c does.
 * - /recorder/records-to-finished: begin, pause, resume, stop: every notify and signal runs on the main context's
 *   thread, in order (RECORDING, PAUSED, RECORDING, then `finished` before STOPPED); each notify carries a new value
 *   (once per change); the levels moved with the tone (`levels`: each notify a change, up to 40 values, at least 10
 *   of the 1.5 s's 15 meter steps, the tone's level); the kept file exists and `finished` says its duration.
 * - /recorder/encoder-options: `encoder-options` (AAC at 64 kbit/s) and `meter-interval` 0.05 s set at construction:
 *   after 1 s the levels hold 19 or more values, and the finished take is an `.aac`.
 * - /recorder/too-short: with a minimum of 3600 s a stopped take is `too-short` (the seconds captured), no
 *   `finished`, and the file is gone.
 * - /recorder/maximum-duration: with a maximum of 1.5 s and the warning 1 s before: `maximum-duration-warning`
 *   (at most 1 s left), `maximum-duration-reached`, `finished` at 1.5 s, then STOPPED, in that order, with no stop asked.
 * - /recorder/errors: a missing device is VN_ERROR_DEVICE from begin; pause while stopped is VN_ERROR_MISUSE; a
 *   bad limit fails construction (VN_ERROR_INVALID_ARG is the library's word for it; GObject refuses it first).
 * - /recorder/dispose-in-notify, /recorder/dispose-in-finished: the last reference dropped inside the recorder's
 *   own handlers; nothing of it runs afterwards and it is finalized.
 * Every wait is bounded (rig_wait: the main context iterated until a condition, under a deadline).
 */
#include "capture-rig.h"
#include "event-log.h"

static gchar *directory;
static gchar *microphone;

/* Kinds of entries; the state first (event-log.h matches its value). */
typedef enum {
    SAID_STATE,
    SAID_DURATION,
    SAID_AVERAGE,
    SAID_PEAK,
    SAID_LEVELS,
    SAID_FINISHED,
    SAID_TOO_SHORT,
    SAID_WARNING,
    SAID_REACHED,
    SAID_FAILED
} Said;

typedef struct {
    EventLog events;
    gchar *finished_path;
    GPtrArray *levels; /* each `levels` notify's value (GVariant "ad") */
} Log;

static void on_notify(GObject *object, GParamSpec *pspec, gpointer data) {
    Log *log = data;
    VnRecorder *recorder = VNG_RECORDER(object);
    const gchar *name = g_param_spec_get_name(pspec);
    if (g_str_equal(name, "state")) log_add(&log->events, SAID_STATE, vng_recorder_get_state(recorder));
    else if (g_str_equal(name, "duration")) log_add(&log->events, SAID_DURATION, vng_recorder_get_duration(recorder));
    else if (g_str_equal(name, "average-power")) log_add(&log->events, SAID_AVERAGE, vng_recorder_get_average_power(recorder));
    else if (g_str_equal(name, "peak-power")) log_add(&log->events, SAID_PEAK, vng_recorder_get_peak_power(recorder));
    else if (g_str_equal(name, "levels")) {
        GVariant *levels = NULL;
        g_object_get(recorder, "levels", &levels, NULL);
        g_assert_true(levels == vng_recorder_get_levels(recorder));
        log_add(&log->events, SAID_LEVELS, (gdouble)g_variant_n_children(levels));
        g_ptr_array_add(log->levels, levels);
    }
}

static void on_finished(VnRecorder *recorder, const gchar *path, gdouble duration, gpointer data) {
    (void)recorder;
    Log *log = data;
    log_add(&log->events, SAID_FINISHED, duration);
    g_free(log->finished_path);
    log->finished_path = g_strdup(path);
}

static void on_too_short(VnRecorder *recorder, gdouble duration, gpointer data) {
    (void)recorder;
    log_add(&((Log *)data)->events, SAID_TOO_SHORT, duration);
}

static void on_warning(VnRecorder *recorder, gdouble remaining, gpointer data) {
    (void)recorder;
    log_add(&((Log *)data)->events, SAID_WARNING, remaining);
}

static void on_reached(VnRecorder *recorder, gpointer data) {
    (void)recorder;
    log_add(&((Log *)data)->events, SAID_REACHED, 0);
}

static void on_failed(VnRecorder *recorder, GError *error, gpointer data) {
    (void)recorder;
    g_assert_true(error->domain == VN_ERROR);
    log_add(&((Log *)data)->events, SAID_FAILED, error->code);
}

/* The `levels` notifies of a take on the steady tone: at least one, each a change from the one before (starting
 * empty), of "ad" values 0…1, at most 40, the newest of each longest run the tone's level; the most values one
 * carried. */
static gsize expect_levels(Log *log) {
    g_assert_cmpuint(log->levels->len, >, 0);
    GVariant *before = g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, NULL, 0, sizeof(gdouble));
    g_variant_ref_sink(before);
    gsize most = 0;
    for (guint i = 0; i < log->levels->len; i++) {
        GVariant *levels = g_ptr_array_index(log->levels, i);
        g_assert_true(g_variant_is_of_type(levels, G_VARIANT_TYPE("ad")));
        if (g_variant_equal(levels, before)) g_error("levels notify %u without a change", i);
        gsize n = 0;
        const gdouble *values = g_variant_get_fixed_array(levels, &n, sizeof(gdouble));
        g_assert_cmpuint(n, <=, 40);
        for (gsize j = 0; j < n; j++) g_assert_true(values[j] >= 0 && values[j] <= 1);
        if (n > most) {
            most = n;
            g_assert_cmpfloat(values[n - 1], >, 0.05);
        }
        g_variant_unref(before);
        before = g_variant_ref(levels);
    }
    g_variant_unref(before);
    g_test_message("levels notified %u times, at most %zu values", log->levels->len, (size_t)most);
    return most;
}

static VnRecorder *attach_log(VnRecorder *recorder, Log *log);

/* A recorder on the virtual microphone with these limits, writing into the test directory; its log attached. */
static VnRecorder *microphone_recorder(Log *log, gdouble maximum, gdouble warning, gdouble minimum) {
    GError *error = NULL;
    VnRecorder *recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "device", "vn_mic", "configuration",
                                          microphone, "directory", directory, "maximum-duration", maximum,
                                          "warning-duration", warning, "minimum-duration", minimum, NULL);
    g_assert_no_error(error);
    g_assert_nonnull(recorder);
    return attach_log(recorder, log);
}

/* The test's log attached to a recorder's signals and notifies. */
static VnRecorder *attach_log(VnRecorder *recorder, Log *log) {
    *log = (Log){.levels = g_ptr_array_new_with_free_func((GDestroyNotify)g_variant_unref)};
    g_signal_connect(recorder, "notify", G_CALLBACK(on_notify), log);
    g_signal_connect(recorder, "finished", G_CALLBACK(on_finished), log);
    g_signal_connect(recorder, "too-short", G_CALLBACK(on_too_short), log);
    g_signal_connect(recorder, "maximum-duration-warning", G_CALLBACK(on_warning), log);
    g_signal_connect(recorder, "maximum-duration-reached", G_CALLBACK(on_reached), log);
    g_signal_connect(recorder, "failed", G_CALLBACK(on_failed), log);
    event_log_init(&log->events, recorder);
    return recorder;
}

static void log_clear(Log *log) {
    event_log_clear(&log->events);
    g_free(log->finished_path);
    g_ptr_array_unref(log->levels);
}

/* Conditions for rig_wait */

typedef struct {
    VnRecorder *recorder;
    Log *log;
    VnRecorderState state;
    gdouble duration;
} Until;

static gboolean reached(gpointer data) {
    Until *until = data;
    return vng_recorder_get_state(until->recorder) == until->state &&
           vng_recorder_get_duration(until->recorder) >= until->duration;
}

static gboolean ended(gpointer data) {
    Until *until = data;
    return (count(&until->log->events, SAID_FINISHED) + count(&until->log->events, SAID_TOO_SHORT)) > 0 &&
           vng_recorder_get_state(until->recorder) == VN_RECORDER_STATE_STOPPED;
}

static void wait_for(VnRecorder *recorder, Log *log, VnRecorderState state, gdouble duration) {
    Until until = {recorder, log, state, duration};
    if (!rig_wait(reached, &until, WAIT_MS))
        g_error("no state %d with %.2f s within %d ms (state %d, %.2f s)", state, duration, WAIT_MS,
                vng_recorder_get_state(recorder), vng_recorder_get_duration(recorder));
}

static void wait_for_end(VnRecorder *recorder, Log *log) {
    Until until = {recorder, log, VN_RECORDER_STATE_STOPPED, 0};
    g_assert_true(rig_wait(ended, &until, WAIT_MS));
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_records_to_finished(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 3600, 10, 0);
    GError *error = NULL;
    g_assert_true(vng_recorder_begin(recorder, &error));
    g_assert_no_error(error);
    wait_for(recorder, &log, VN_RECORDER_STATE_RECORDING, 1.0);
    g_assert_true(vng_recorder_pause(recorder, &error));
    wait_for(recorder, &log, VN_RECORDER_STATE_PAUSED, 0);
    g_assert_true(vng_recorder_resume(recorder, &error));
    wait_for(recorder, &log, VN_RECORDER_STATE_RECORDING, 1.5);
    guint n_levels = 0;
    gfloat *levels = vng_recorder_copy_levels(recorder, 10, &n_levels, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(n_levels, ==, 10);
    for (guint i = 0; i < n_levels; i++) g_assert_cmpfloat(levels[i], >, 0.05);
    g_free(levels);
    g_assert_true(vng_recorder_stop(recorder, &error));
    g_assert_no_error(error);
    wait_for_end(recorder, &log);

    expect_once_per_change(&log.events, (const gdouble[]){VN_RECORDER_STATE_STOPPED, 0, 0, 0}, 4);
    /* 1.5 s captured is 15 meter steps (how many notifies carried them depends on how the unpaced capture's steps
     * coalesce). */
    g_assert_cmpuint(expect_levels(&log), >=, 10);
    gint recording = find(&log.events, 0, SAID_STATE, VN_RECORDER_STATE_RECORDING);
    gint paused = find(&log.events, 0, SAID_STATE, VN_RECORDER_STATE_PAUSED);
    gint resumed = find(&log.events, (guint)paused + 1, SAID_STATE, VN_RECORDER_STATE_RECORDING);
    gint finished = find(&log.events, 0, SAID_FINISHED, 0);
    gint stopped = find(&log.events, 0, SAID_STATE, VN_RECORDER_STATE_STOPPED);
    g_assert_cmpint(recording, >=, 0);
    g_assert_cmpint(paused, >, recording);
    g_assert_cmpint(resumed, >, paused);
    g_assert_cmpint(finished, >, resumed);
    g_assert_cmpint(stopped, >, finished);
    g_assert_cmpuint(count(&log.events, SAID_FINISHED), ==, 1);
    g_assert_cmpuint(count(&log.events, SAID_FAILED) + count(&log.events, SAID_TOO_SHORT), ==, 0);
    /* The tone is steady: its level shows, and its many equal meter steps notify once, not once each. */
    gint average = find(&log.events, 0, SAID_AVERAGE, 0);
    g_assert_cmpint(average, >, recording);
    g_assert_cmpfloat(entry_at(&log.events, (guint)average)->value, >, 0.05);
    g_assert_cmpuint(count(&log.events, SAID_PEAK), >, 0);
    /* The duration only grows within the take and steps more than once. */
    gdouble duration = 0;
    guint steps = 0;
    for (guint i = (guint)recording; i < (guint)finished; i++) {
        Entry *entry = entry_at(&log.events, i);
        if (entry->what != SAID_DURATION) continue;
        g_assert_cmpfloat(entry->value, >=, duration);
        duration = entry->value;
        steps++;
    }
    g_assert_cmpuint(steps, >, 1);
    gdouble kept = entry_at(&log.events, (guint)finished)->value;
    g_test_message("kept %.3f s in %s after %u duration steps", kept, log.finished_path, steps);
    g_assert_cmpfloat(kept, >=, 1.5);
    g_assert_true(g_str_has_prefix(log.finished_path, directory));
    g_assert_true(g_str_has_suffix(log.finished_path, ".ogg"));
    g_assert_true(g_file_test(log.finished_path, G_FILE_TEST_IS_REGULAR));

    g_object_unref(recorder);
    g_assert_true(log.events.finalized);
    log_clear(&log);
}

/* The takes' format and encoder and the meter's step, set at construction: an AAC take at 64 kbit/s whose levels
 * come every 0.05 s of audio. */
static void test_encoder_options(void) {
    GError *error = NULL;
    VnEncoderOptions *encoder = vng_encoder_options_new();
    g_assert_true(vng_encoder_options_set_format(encoder, VN_RECORDING_FORMAT_AAC, &error));
    g_assert_true(vng_encoder_options_set_encoder(encoder, 64000, 10, 20, &error));
    g_assert_no_error(error);
    VnRecorder *recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "device", "vn_mic", "configuration",
                                          microphone, "directory", directory, "encoder-options", encoder,
                                          "meter-interval", 0.05, "duration-interval", 0.25, NULL);
    g_assert_no_error(error);
    g_object_unref(encoder); /* the recorder keeps what it needs */
    VnEncoderOptions *kept = NULL;
    gdouble meter = 0;
    g_object_get(recorder, "encoder-options", &kept, "meter-interval", &meter, NULL);
    g_assert_true(kept == encoder);
    g_object_unref(kept);
    g_assert_cmpfloat(meter, ==, 0.05);
    Log log;
    attach_log(recorder, &log);
    g_assert_true(vng_recorder_begin(recorder, &error));
    g_assert_no_error(error);
    wait_for(recorder, &log, VN_RECORDER_STATE_RECORDING, 1.0);
    /* 40 levels at 0.05 s are the last 2 s of audio: after 1 s, 20 or more are there. */
    gsize n = 0;
    g_variant_get_fixed_array(vng_recorder_get_levels(recorder), &n, sizeof(gdouble));
    g_assert_cmpuint(n, >=, 19);
    g_assert_true(vng_recorder_stop(recorder, &error));
    wait_for_end(recorder, &log);
    g_assert_true(g_str_has_suffix(log.finished_path, ".aac"));
    g_test_message("AAC take %s", log.finished_path);
    g_object_unref(recorder);
    log_clear(&log);
}

static void test_too_short(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 3600, 10, 3600);
    g_assert_true(vng_recorder_begin(recorder, NULL));
    wait_for(recorder, &log, VN_RECORDER_STATE_RECORDING, 0.5);
    g_assert_true(vng_recorder_stop(recorder, NULL));
    wait_for_end(recorder, &log);
    expect_once_per_change(&log.events, (const gdouble[]){VN_RECORDER_STATE_STOPPED, 0, 0, 0}, 4);
    (void)expect_levels(&log);
    gint too_short = find(&log.events, 0, SAID_TOO_SHORT, 0);
    g_assert_cmpint(too_short, >=, 0);
    g_assert_cmpfloat(entry_at(&log.events, (guint)too_short)->value, >=, 0.5);
    g_assert_cmpint(find(&log.events, (guint)too_short, SAID_STATE, VN_RECORDER_STATE_STOPPED), >, too_short);
    g_assert_cmpuint(count(&log.events, SAID_FINISHED), ==, 0);
    g_object_unref(recorder);
    log_clear(&log);
}

static void test_voice_cleanup(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 1.5, 1.0, 0);
    g_assert_false(vng_recorder_get_voice_cleanup(recorder));
    g_assert_true(vng_recorder_set_voice_cleanup(recorder, TRUE, NULL));
    g_assert_true(vng_recorder_get_voice_cleanup(recorder));
    g_assert_true(vng_recorder_begin(recorder, NULL));
    wait_for_end(recorder, &log);
    gint finished = find(&log.events, 0, SAID_FINISHED, 0);
    g_assert_cmpint(finished, >=, 0);
    g_assert_cmpfloat_with_epsilon(entry_at(&log.events, (guint)finished)->value, 1.5, 1e-9);
    g_assert_true(vng_recorder_set_voice_cleanup(recorder, FALSE, NULL));
    g_assert_false(vng_recorder_get_voice_cleanup(recorder));
    g_object_unref(recorder);
    log_clear(&log);
}

/* `pause-other-players` is taken and kept (what it does to other players is the C library's, tested with fake MPRIS
 * players on a private bus in the Python suite). */
static void test_pause_other_players(void) {
    GError *error = NULL;
    VnRecorder *recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "pause-other-players", TRUE, NULL);
    g_assert_no_error(error);
    gboolean pausing = FALSE;
    g_object_get(recorder, "pause-other-players", &pausing, NULL);
    g_assert_true(pausing);
    g_object_unref(recorder);
}

/* `stream-role` is taken and kept; an empty one is refused (what a role does on a sound server is the Swift and
 * Python suites', on a private PulseAudio with its ducking). */
static void test_stream_role(void) {
    GError *error = NULL;
    VnRecorder *recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "stream-role", "phone", NULL);
    g_assert_no_error(error);
    gchar *role = NULL;
    g_object_get(recorder, "stream-role", &role, NULL);
    g_assert_cmpstr(role, ==, "phone");
    g_free(role);
    g_object_unref(recorder);
    recorder = g_initable_new(VNG_TYPE_RECORDER, NULL, &error, "stream-role", "", NULL);
    g_assert_null(recorder);
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
}

static void test_maximum_duration(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 1.5, 1.0, 0);
    g_assert_true(vng_recorder_begin(recorder, NULL));
    wait_for_end(recorder, &log);
    expect_once_per_change(&log.events, (const gdouble[]){VN_RECORDER_STATE_STOPPED, 0, 0, 0}, 4);
    (void)expect_levels(&log);
    gint warning = find(&log.events, 0, SAID_WARNING, 0);
    gint reached_at = find(&log.events, 0, SAID_REACHED, 0);
    gint finished = find(&log.events, 0, SAID_FINISHED, 0);
    gint stopped = find(&log.events, 0, SAID_STATE, VN_RECORDER_STATE_STOPPED);
    g_assert_cmpint(warning, >=, 0);
    g_assert_cmpint(reached_at, >, warning);
    g_assert_cmpint(finished, >, reached_at);
    g_assert_cmpint(stopped, >, finished);
    /* The warning comes at the first capture step at or past 1 s before the maximum: at most 1 s left, less by up
     * to a step (ALSA periods; 0.89…1.0 s seen). */
    gdouble remaining = entry_at(&log.events, (guint)warning)->value;
    g_assert_cmpfloat(remaining, <=, 1.0 + 1e-9);
    g_assert_cmpfloat(remaining, >, 0.5);
    g_assert_cmpfloat_with_epsilon(entry_at(&log.events, (guint)finished)->value, 1.5, 0.05);
    g_object_unref(recorder);
    log_clear(&log);
}

static void test_errors(void) {
    GError *error = NULL;
    gchar *takes = g_build_filename(directory, "errors", NULL);
    VnRecorder *recorder = vng_recorder_new("vn_no_such_device", "pcm.vn_other { type null }", takes, &error);
    g_assert_no_error(error);
    g_assert_false(vng_recorder_pause(recorder, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_MISUSE);
    g_clear_error(&error);
    g_assert_false(vng_recorder_begin(recorder, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_DEVICE);
    g_assert_cmpstr(error->message, !=, "");
    g_clear_error(&error);
    g_assert_cmpint(vng_recorder_get_state(recorder), ==, VN_RECORDER_STATE_STOPPED);
    g_object_unref(recorder);

    g_assert_null(vng_recorder_new("", NULL, takes, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_null(vng_recorder_new(NULL, NULL, "", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_free(takes);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Disposed inside its own handlers */

static void unref_when_recording(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    Log *log = data;
    if (log->events.disposed || vng_recorder_get_state(VNG_RECORDER(object)) != VN_RECORDER_STATE_RECORDING) return;
    log->events.disposed = TRUE;
    g_object_unref(object); /* the last reference, mid-take */
    g_assert_false(log->events.finalized); /* the emission holds one until the handler returns */
}

static void unref_on_finished(VnRecorder *recorder, const gchar *path, gdouble duration, gpointer data) {
    (void)path;
    (void)duration;
    Log *log = data;
    log->events.disposed = TRUE;
    g_object_unref(recorder);
}

static gboolean disposed(gpointer data) {
    return ((Log *)data)->events.disposed;
}

static void expect_gone_quietly(Log *log) {
    g_assert_true(rig_wait(disposed, log, WAIT_MS));
    rig_drain();
    g_assert_true(log->events.finalized);
    g_assert_cmpuint(log->events.after_dispose, ==, 0);
}

static void test_dispose_in_notify(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 3600, 10, 0);
    g_signal_connect_after(recorder, "notify::state", G_CALLBACK(unref_when_recording), &log);
    g_assert_true(vng_recorder_begin(recorder, NULL));
    expect_gone_quietly(&log);
    log_clear(&log);
}

static void test_dispose_in_finished(void) {
    Log log;
    VnRecorder *recorder = microphone_recorder(&log, 0.5, 0, 0);
    g_signal_connect_after(recorder, "finished", G_CALLBACK(unref_on_finished), &log);
    g_assert_true(vng_recorder_begin(recorder, NULL));
    expect_gone_quietly(&log);
    g_assert_cmpint(find(&log.events, 0, SAID_FINISHED, 0), >=, 0);
    g_assert_cmpint(find(&log.events, 0, SAID_STATE, VN_RECORDER_STATE_STOPPED), ==, -1);
    log_clear(&log);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    directory = rig_directory_with_tone("vn-glib-recorder-XXXXXX", 30, &microphone);
    g_test_add_func("/recorder/records-to-finished", test_records_to_finished);
    g_test_add_func("/recorder/encoder-options", test_encoder_options);
    g_test_add_func("/recorder/too-short", test_too_short);
    g_test_add_func("/recorder/maximum-duration", test_maximum_duration);
    g_test_add_func("/recorder/voice-cleanup", test_voice_cleanup);
    g_test_add_func("/recorder/pause-other-players", test_pause_other_players);
    g_test_add_func("/recorder/stream-role", test_stream_role);
    g_test_add_func("/recorder/errors", test_errors);
    g_test_add_func("/recorder/dispose-in-notify", test_dispose_in_notify);
    g_test_add_func("/recorder/dispose-in-finished", test_dispose_in_finished);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(microphone);
    g_free(directory);
    return status;
}
