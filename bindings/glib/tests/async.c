/*
 * async.c: the `_async`/`_finish` pairs (vn-waveform.h, vn-audio-info.h, vn-convert.h) on the main context, over a
 * real note (3 s of tone, encoded by opusenc at start) read from its file and from a real HTTP server on 127.0.0.1
 * in this process (note-server.h: a GSocketService on the same main context): `/fast/...` sends the note at once,
 * `/slow/...` sends the headers and 2 KiB, then 100 bytes every 100 ms (the whole note would take tens of seconds).
 * Their HTTP and encoder options: http-options.c.
 * - /async/waveform, /async/audio-info, /async/convert: a local note's 100 values in 0…1 (the tone's well above 0),
 *   the same through a `file://` URL; its facts (opus, 48 kHz, mono, 3 s); converted at 2x, 1.5 s; each callback on
 *   the calling thread.
 * - /async/missing-file: waveform, info and convert of a missing file are VN_ERROR_NOT_FOUND; 0 samples is
 *   VN_ERROR_INVALID_ARG; an `mxc:` URL VN_ERROR_UNSUPPORTED.
 * - /async/already-cancelled: a cancelled GCancellable gives G_IO_ERROR_CANCELLED for the three, and the server never
 *   sees a request; convert leaves no file.
 * - /async/cancel-url-waveform, /async/cancel-url-convert: g_cancellable_cancel() once the server has sent the first
 *   2 KiB and two trickles after them (the library reads past what it has and waits): the callback gets G_IO_ERROR_CANCELLED within 1 s (libvoicenote promises 100 ms), long before the body
 *   would have ended; the server then sees the connection closed (the library's download stopped); the process has no
 *   more threads than after a completed download (GLib's worker pool and the library's network thread included);
 *   the media cache holds no more bytes than before; convert left no file (no partial output).
 * Every wait is bounded (rig_wait: the main context iterated until a condition, under a deadline; rig_wait_polled for
 * the thread count and the cache size, which change without waking the context); nothing sleeps.
 */
#include "note-fixture.h"

#define CANCEL_LIMIT_MS 1000

/* ------------------------------------------------------------------------------------------------------------ */
/* Results and process facts */

static guint thread_baseline;

static gboolean threads_at_baseline(gpointer data) {
    (void)data;
    return count_threads() <= thread_baseline;
}

static gint64 cache_size(void) {
    gint64 bytes = -1;
    g_assert_cmpint(vn_cache_get_size(&bytes), ==, VN_OK);
    return bytes;
}

static gint64 cache_baseline;

static gboolean cache_at_baseline(gpointer data) {
    (void)data;
    return cache_size() <= cache_baseline;
}

/* The names in a directory, sorted, joined by spaces ("" when empty). */
static gchar *list_directory(const gchar *path) {
    GDir *dir = g_dir_open(path, 0, NULL);
    g_assert_nonnull(dir);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const gchar *name;
    while ((name = g_dir_read_name(dir)) != NULL) g_ptr_array_add(names, g_strdup(name));
    g_dir_close(dir);
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    g_ptr_array_add(names, NULL);
    gchar *joined = g_strjoinv(" ", (gchar **)names->pdata);
    g_ptr_array_free(names, TRUE);
    return joined;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Tests */

static gfloat *waveform_of(const gchar *location, guint samples, GCancellable *cancellable, gsize *n, GError **error) {
    Outcome outcome = {0};
    vng_waveform_async(location, samples, NULL, cancellable, keep_result, &outcome);
    g_assert_null(outcome.result); /* never called back before the call returns */
    wait_outcome(&outcome);
    gfloat *values = vng_waveform_finish(outcome.result, n, error);
    outcome_clear(&outcome);
    return values;
}

static void test_waveform(void) {
    gsize n = 0;
    GError *error = NULL;
    gfloat *values = waveform_of(note_path, 100, NULL, &n, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(n, ==, 100);
    for (gsize i = 0; i < n; i++) {
        g_assert_cmpfloat(values[i], >=, 0);
        g_assert_cmpfloat(values[i], <=, 1);
    }
    g_assert_cmpfloat(values[50], >, 0.5); /* the tone is at half scale: about -9 dB, 0.8 */
    gchar *uri = g_filename_to_uri(note_path, NULL, &error);
    g_assert_no_error(error);
    gsize n_uri = 0;
    gfloat *from_uri = waveform_of(uri, 100, NULL, &n_uri, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(n_uri, ==, n);
    g_assert_cmpmem(from_uri, n_uri * sizeof(gfloat), values, n * sizeof(gfloat));
    g_free(from_uri);
    g_free(uri);
    g_free(values);
}

static void test_audio_info(void) {
    Outcome outcome = {0};
    vng_audio_info_read_async(note_path, NULL, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    GError *error = NULL;
    VnAudioInfo *info = vng_audio_info_read_finish(outcome.result, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(info->codec, ==, "opus");
    g_assert_cmpint(info->sample_rate, ==, 48000);
    g_assert_cmpint(info->channels, ==, 1);
    g_assert_cmpfloat_with_epsilon(info->duration, NOTE_SECONDS, 0.03);
    g_assert_false(info->duration_is_estimate);
    VnAudioInfo *copy = g_boxed_copy(VNG_TYPE_AUDIO_INFO, info);
    g_assert_cmpstr(copy->codec, ==, "opus");
    g_assert_true(copy->codec != info->codec);
    g_boxed_free(VNG_TYPE_AUDIO_INFO, copy);
    vng_audio_info_free(info);
    outcome_clear(&outcome);
}

static gboolean convert(const gchar *location, const gchar *out_path, gdouble rate, GCancellable *cancellable,
                        gdouble *duration, GError **error) {
    Outcome outcome = {0};
    vng_convert_async(location, out_path, rate, NULL, NULL, cancellable, keep_result, &outcome);
    wait_outcome(&outcome);
    gboolean ok = vng_convert_finish(outcome.result, duration, error);
    outcome_clear(&outcome);
    return ok;
}

static void test_convert(void) {
    gchar *out_path = g_build_filename(directory, "fast.ogg", NULL);
    gdouble duration = 0;
    GError *error = NULL;
    g_assert_true(convert(note_path, out_path, 2.0, NULL, &duration, &error));
    g_assert_no_error(error);
    g_assert_cmpfloat_with_epsilon(duration, NOTE_SECONDS / 2, 0.05);
    Outcome outcome = {0};
    vng_audio_info_read_async(out_path, NULL, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    VnAudioInfo *info = vng_audio_info_read_finish(outcome.result, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(info->codec, ==, "opus");
    g_assert_cmpfloat_with_epsilon(info->duration, duration, 0.03);
    vng_audio_info_free(info);
    outcome_clear(&outcome);
    /* A rate out of range is the library's clear error, and nothing is written. */
    g_assert_false(convert(note_path, out_path, 3.0, NULL, &duration, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_remove(out_path);
    g_free(out_path);
}

static void test_missing_file(void) {
    gchar *missing = g_build_filename(directory, "missing.ogg", NULL);
    gchar *out_path = g_build_filename(directory, "never.ogg", NULL);
    GError *error = NULL;
    gsize n = 1;
    g_assert_null(waveform_of(missing, 100, NULL, &n, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_NOT_FOUND);
    g_assert_cmpuint(n, ==, 0);
    g_clear_error(&error);
    Outcome outcome = {0};
    vng_audio_info_read_async(missing, NULL, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    g_assert_null(vng_audio_info_read_finish(outcome.result, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_NOT_FOUND);
    g_clear_error(&error);
    outcome_clear(&outcome);
    gdouble duration = -1;
    g_assert_false(convert(missing, out_path, 1.0, NULL, &duration, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_NOT_FOUND);
    g_assert_cmpfloat(duration, ==, 0);
    g_clear_error(&error);
    g_assert_false(g_file_test(out_path, G_FILE_TEST_EXISTS));
    g_assert_null(waveform_of(note_path, 0, NULL, &n, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_null(waveform_of("mxc://example.org/abc", 100, NULL, &n, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_UNSUPPORTED);
    g_clear_error(&error);
    g_free(out_path);
    g_free(missing);
}

static void test_already_cancelled(void) {
    gchar *url = note_server_url("/slow/already-cancelled.ogg");
    gchar *out_directory = g_build_filename(directory, "already-cancelled", NULL);
    g_assert_cmpint(g_mkdir(out_directory, 0700), ==, 0);
    gchar *out_path = g_build_filename(out_directory, "never.ogg", NULL);
    guint requests = note_server.requests;
    GCancellable *cancellable = g_cancellable_new();
    g_cancellable_cancel(cancellable);
    GError *error = NULL;
    gsize n = 1;
    g_assert_null(waveform_of(url, 100, cancellable, &n, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    Outcome outcome = {0};
    vng_audio_info_read_async(note_path, NULL, cancellable, keep_result, &outcome);
    wait_outcome(&outcome);
    g_assert_null(vng_audio_info_read_finish(outcome.result, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    outcome_clear(&outcome);
    g_assert_false(convert(url, out_path, 1.0, cancellable, NULL, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    rig_drain();
    g_assert_cmpuint(note_server.requests, ==, requests);
    gchar *left = list_directory(out_directory);
    g_assert_cmpstr(left, ==, "");
    g_free(left);
    g_rmdir(out_directory);
    g_object_unref(cancellable);
    g_free(out_path);
    g_free(out_directory);
    g_free(url);
}

/* The baselines a cancel is compared with: the threads and the cache after a completed URL waveform (GLib's worker
 * pool and libvoicenote's network thread exist by then). */
static void take_baselines(void) {
    gchar *url = note_server_url("/fast/warm-up.ogg");
    gsize n = 0;
    GError *error = NULL;
    gfloat *values = waveform_of(url, 100, NULL, &n, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(n, ==, 100);
    g_free(values);
    g_free(url);
    g_assert_true(rig_wait(note_server_all_closed, NULL, WAIT_MS));
    thread_baseline = count_threads();
    cache_baseline = cache_size();
}

/* Starts `start` on a slow URL, cancels once the server has sent its first chunk, and checks the cancel: the callback
 * within CANCEL_LIMIT_MS, the connection closed, no thread and no cache bytes left over. Returns the outcome. */
static void cancel_slow_download(void (*start)(const gchar *url, GCancellable *cancellable, Outcome *outcome),
                                 const gchar *path, Outcome *outcome) {
    if (thread_baseline == 0) take_baselines();
    gchar *url = note_server_url(path);
    guint chunks = note_server.slow_chunks;
    GCancellable *cancellable = g_cancellable_new();
    gint64 started = g_get_monotonic_time();
    start(url, cancellable, outcome);
    g_assert_true(rig_wait(note_server_trickling, &chunks, WAIT_MS));
    g_assert_null(outcome->result);
    gint64 cancelled = g_get_monotonic_time();
    g_cancellable_cancel(cancellable);
    wait_outcome(outcome);
    gdouble cancel_ms = (gdouble)(outcome->at - cancelled) / 1000;
    gsize size = g_bytes_get_size(note_bytes);
    gint64 body_ms = (gint64)((size - NOTE_SERVER_FIRST_CHUNK) / NOTE_SERVER_TRICKLE_BYTES) * NOTE_SERVER_TRICKLE_MS;
    g_test_message("%s: cancelled %.1f ms after the request; callback %.1f ms after the cancel; the body would have "
                   "taken %" G_GINT64_FORMAT " ms in all",
                   path, (gdouble)(cancelled - started) / 1000, cancel_ms, body_ms);
    g_assert_cmpint(body_ms, >=, 10000);
    g_assert_cmpfloat(cancel_ms, <, CANCEL_LIMIT_MS);
    /* The library's download stopped: the server sees the client close the connection. */
    g_assert_true(rig_wait(note_server_all_closed, NULL, WAIT_MS));
    g_test_message("%s: connection closed %.1f ms after the cancel; %u threads (after a completed download: %u)", path,
                   (gdouble)(g_get_monotonic_time() - cancelled) / 1000, count_threads(), thread_baseline);
    g_assert_true(rig_wait_polled(threads_at_baseline, NULL, WAIT_MS));
    g_assert_true(rig_wait_polled(cache_at_baseline, NULL, WAIT_MS));
    g_test_message("%s: threads and cache at their baselines %.1f ms after the cancel", path,
                   (gdouble)(g_get_monotonic_time() - cancelled) / 1000);
    g_object_unref(cancellable);
    g_free(url);
}

static void start_waveform(const gchar *url, GCancellable *cancellable, Outcome *outcome) {
    vng_waveform_async(url, 100, NULL, cancellable, keep_result, outcome);
}

static void test_cancel_url_waveform(void) {
    Outcome outcome = {0};
    cancel_slow_download(start_waveform, "/slow/waveform.ogg", &outcome);
    gsize n = 1;
    GError *error = NULL;
    g_assert_null(vng_waveform_finish(outcome.result, &n, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_cmpuint(n, ==, 0);
    g_clear_error(&error);
    outcome_clear(&outcome);
}

static gchar *convert_directory;

static void start_convert(const gchar *url, GCancellable *cancellable, Outcome *outcome) {
    gchar *out_path = g_build_filename(convert_directory, "converted.ogg", NULL);
    vng_convert_async(url, out_path, 1.5, NULL, NULL, cancellable, keep_result, outcome);
    g_free(out_path);
}

static void test_cancel_url_convert(void) {
    convert_directory = g_build_filename(directory, "convert", NULL);
    g_assert_cmpint(g_mkdir(convert_directory, 0700), ==, 0);
    Outcome outcome = {0};
    cancel_slow_download(start_convert, "/slow/convert.ogg", &outcome);
    gdouble duration = -1;
    GError *error = NULL;
    g_assert_false(vng_convert_finish(outcome.result, &duration, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_cmpfloat(duration, ==, 0);
    g_clear_error(&error);
    outcome_clear(&outcome);
    gchar *left = list_directory(convert_directory);
    g_assert_cmpstr(left, ==, ""); /* neither the note nor a part file */
    g_free(left);
    g_free(convert_directory);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    note_fixture_start();
    g_test_add_func("/async/waveform", test_waveform);
    g_test_add_func("/async/audio-info", test_audio_info);
    g_test_add_func("/async/convert", test_convert);
    g_test_add_func("/async/missing-file", test_missing_file);
    g_test_add_func("/async/already-cancelled", test_already_cancelled);
    g_test_add_func("/async/cancel-url-waveform", test_cancel_url_waveform);
    g_test_add_func("/async/cancel-url-convert", test_cancel_url_convert);
    int status = g_test_run();
    note_fixture_stop();
    return status;
}
