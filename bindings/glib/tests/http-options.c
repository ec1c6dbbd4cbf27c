/*
 * http-options.c: VnHttpOptions and VnEncoderOptions (vn-http-options.h, vn-encoder-options.h) with the `_async` calls
 * and the players' loads by URL, over a real note (3 s of tone, opusenc) served by a real HTTP server on 127.0.0.1
 * in this process (note-server.h): `/auth/...` answers 401 unless the request carries `Authorization: Bearer
 * secret-token`, `/silent/...` sends its headers and then nothing.
 * - /http-options/checked: a malformed header, timeouts and a size out of range, a missing CA file, a bad bitrate or
 *   format are VN_ERROR errors from the setters (the library's check, at once).
 * - /http-options/authorization: waveform, audio info and convert of `/auth/` URLs: without options
 *   VN_ERROR_PERMISSION (the server answered 401); with the header each succeeds (the server saw no more 401s); a
 *   header added just after a call started does not reach its request (401 again).
 * - /http-options/stall-timeout: a waveform of `/silent/` with a 0.3 s stall timeout is VN_ERROR_NETWORK well
 *   before the default 30 s (under 5 s), and the connection is closed.
 * - /http-options/max-bytes: a 1000-byte limit makes the note (some kB) VN_ERROR_TOO_LARGE.
 * - /http-options/convert-format: a conversion to AAC reads back as `aac` (vng_audio_info_read_async), at the
 *   asked length; Opus at 16 and 64 kbit/s read back as `opus`, the second file larger.
 * - /http-options/player-load-url: VnPlayer's load_url of an `/auth/` URL without options fails with
 *   VN_ERROR_PERMISSION; with the header it loads (PAUSED, a duration, `location` the URL); a VnQueuePlayer
 *   with the options plays an `/auth/` item to its end (`ended`, no `failed`).
 * Every wait is bounded (rig_wait: the main context iterated until a condition, under a deadline).
 */
#include "note-fixture.h"

/* ------------------------------------------------------------------------------------------------------------ */
/* The calls, run to their callbacks */

static gfloat *waveform_of(const gchar *location, VnHttpOptions *http, gsize *n, GError **error) {
    Outcome outcome = {0};
    vng_waveform_async(location, 100, http, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    gfloat *values = vng_waveform_finish(outcome.result, n, error);
    outcome_clear(&outcome);
    return values;
}

static VnAudioInfo *info_of(const gchar *location, VnHttpOptions *http, GError **error) {
    Outcome outcome = {0};
    vng_audio_info_read_async(location, http, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    VnAudioInfo *info = vng_audio_info_read_finish(outcome.result, error);
    outcome_clear(&outcome);
    return info;
}

static gboolean convert(const gchar *location, const gchar *out_path, gdouble rate, VnEncoderOptions *encoder,
                        VnHttpOptions *http, gdouble *duration, GError **error) {
    Outcome outcome = {0};
    vng_convert_async(location, out_path, rate, encoder, http, NULL, keep_result, &outcome);
    wait_outcome(&outcome);
    gboolean ok = vng_convert_finish(outcome.result, duration, error);
    outcome_clear(&outcome);
    return ok;
}

static VnHttpOptions *authorized(void) {
    VnHttpOptions *http = vng_http_options_new();
    GError *error = NULL;
    g_assert_true(vng_http_options_add_header(http, "Authorization", "Bearer " NOTE_SERVER_AUTH_TOKEN, &error));
    g_assert_no_error(error);
    return http;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Tests */

static void expect_refused(gboolean ok, GError **error, gint code) {
    g_assert_false(ok);
    g_assert_error(*error, VN_ERROR, code);
    g_test_message("refused: %s", (*error)->message);
    g_clear_error(error);
}

static void test_checked(void) {
    VnHttpOptions *http = vng_http_options_new();
    GError *error = NULL;
    expect_refused(vng_http_options_add_header(http, "Bad:Name", "x", &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_http_options_add_header(http, "X-Token", "a\r\nb", &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_http_options_set_connect_timeout(http, 0, &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_http_options_set_stall_timeout(http, 5000, &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_http_options_set_transfer_timeout(http, 0.5, &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_http_options_set_max_bytes(http, 0, &error), &error, VN_ERROR_INVALID_ARG);
    gchar *missing = g_build_filename(directory, "missing.pem", NULL);
    expect_refused(vng_http_options_set_ca_file(http, missing, &error), &error, VN_ERROR_NOT_FOUND);
    g_free(missing);
    g_assert_true(vng_http_options_set_ca_file(http, NULL, &error));
    g_assert_no_error(error);
    g_object_unref(http);
    VnEncoderOptions *encoder = vng_encoder_options_new();
    expect_refused(vng_encoder_options_set_encoder(encoder, 1000, 10, 20, &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_encoder_options_set_encoder(encoder, 32000, 10, 7, &error), &error, VN_ERROR_INVALID_ARG);
    expect_refused(vng_encoder_options_set_format(encoder, (VnRecordingFormat)7, &error), &error,
                   VN_ERROR_INVALID_ARG);
    g_object_unref(encoder);
}

static void test_authorization(void) {
    gchar *url = note_server_url("/auth/waveform.ogg");
    GError *error = NULL;
    gsize n = 1;
    guint denied = note_server.denied;
    g_assert_null(waveform_of(url, NULL, &n, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_PERMISSION);
    g_test_message("without the header: %s", error->message);
    g_clear_error(&error);
    g_assert_cmpuint(note_server.denied, ==, denied + 1);

    VnHttpOptions *http = authorized();
    guint requests = note_server.requests;
    gfloat *values = waveform_of(url, http, &n, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(n, ==, 100);
    g_assert_cmpfloat(values[50], >, 0.5);
    g_free(values);
    g_free(url);

    url = note_server_url("/auth/info.ogg");
    VnAudioInfo *info = info_of(url, http, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(info->codec, ==, "opus");
    g_assert_cmpfloat_with_epsilon(info->duration, NOTE_SECONDS, 0.03);
    vng_audio_info_free(info);
    g_free(url);

    url = note_server_url("/auth/convert.ogg");
    gchar *out_path = g_build_filename(directory, "authorized.ogg", NULL);
    gdouble duration = 0;
    g_assert_true(convert(url, out_path, 2.0, NULL, http, &duration, &error));
    g_assert_no_error(error);
    g_assert_cmpfloat_with_epsilon(duration, NOTE_SECONDS / 2, 0.05);
    g_assert_cmpuint(note_server.requests, ==, requests + 3);
    g_assert_cmpuint(note_server.denied, ==, denied + 1);
    g_free(url);
    g_object_unref(http);

    /* The options as they were at the call: the header added just after it does not reach the request. */
    http = vng_http_options_new();
    url = note_server_url("/auth/late-header.ogg");
    Outcome outcome = {0};
    vng_convert_async(url, out_path, 2.0, NULL, http, NULL, keep_result, &outcome);
    g_assert_true(vng_http_options_add_header(http, "Authorization", "Bearer " NOTE_SERVER_AUTH_TOKEN, &error));
    wait_outcome(&outcome);
    g_assert_false(vng_convert_finish(outcome.result, &duration, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_PERMISSION);
    g_clear_error(&error);
    outcome_clear(&outcome);
    g_assert_cmpuint(note_server.denied, ==, denied + 2);
    g_remove(out_path);
    g_free(out_path);
    g_free(url);
    g_object_unref(http);
}

static void test_stall_timeout(void) {
    VnHttpOptions *http = vng_http_options_new();
    GError *error = NULL;
    g_assert_true(vng_http_options_set_stall_timeout(http, 0.3, &error));
    g_assert_no_error(error);
    gchar *url = note_server_url("/silent/stalled.ogg");
    gint64 started = g_get_monotonic_time();
    gsize n = 1;
    g_assert_null(waveform_of(url, http, &n, &error));
    gdouble seconds = (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC;
    g_assert_error(error, VN_ERROR, VN_ERROR_NETWORK);
    g_test_message("stalled after %.2f s: %s", seconds, error->message);
    g_clear_error(&error);
    g_assert_cmpfloat(seconds, >=, 0.3);
    g_assert_cmpfloat(seconds, <, 5); /* the default stall timeout is 30 s */
    g_assert_true(rig_wait(note_server_all_closed, NULL, WAIT_MS));
    g_free(url);
    g_object_unref(http);
}

static void test_max_bytes(void) {
    VnHttpOptions *http = vng_http_options_new();
    GError *error = NULL;
    g_assert_true(vng_http_options_set_max_bytes(http, 1000, &error));
    gchar *url = note_server_url("/fast/too-large.ogg");
    gsize n = 1;
    g_assert_null(waveform_of(url, http, &n, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_TOO_LARGE);
    g_test_message("%" G_GSIZE_FORMAT " bytes over a 1000-byte limit: %s", g_bytes_get_size(note_bytes),
                   error->message);
    g_clear_error(&error);
    g_free(url);
    g_object_unref(http);
}

/* Converts the note at 2x with `encoder` into `name`; reads it back: its codec must be `codec`. The file's size. */
static gint64 convert_and_read(VnEncoderOptions *encoder, const gchar *name, const gchar *codec) {
    gchar *out_path = g_build_filename(directory, name, NULL);
    gdouble duration = 0;
    GError *error = NULL;
    g_assert_true(convert(note_path, out_path, 2.0, encoder, NULL, &duration, &error));
    g_assert_no_error(error);
    VnAudioInfo *info = info_of(out_path, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(info->codec, ==, codec);
    g_assert_cmpfloat_with_epsilon(info->duration, NOTE_SECONDS / 2, 0.1);
    GStatBuf facts;
    g_assert_cmpint(g_stat(out_path, &facts), ==, 0);
    g_test_message("%s: %s, %.3f s, %" G_GINT64_FORMAT " bit/s, %" G_GINT64_FORMAT " bytes", name, info->codec,
                   info->duration, info->bitrate, (gint64)facts.st_size);
    vng_audio_info_free(info);
    g_remove(out_path);
    g_free(out_path);
    return (gint64)facts.st_size;
}

static void test_convert_format(void) {
    VnEncoderOptions *encoder = vng_encoder_options_new();
    GError *error = NULL;
    g_assert_true(vng_encoder_options_set_format(encoder, VN_RECORDING_FORMAT_AAC, &error));
    g_assert_true(vng_encoder_options_set_encoder(encoder, 64000, 10, 20, &error));
    g_assert_no_error(error);
    convert_and_read(encoder, "converted.aac", "aac");
    g_assert_true(vng_encoder_options_set_format(encoder, VN_RECORDING_FORMAT_OPUS, &error));
    g_assert_true(vng_encoder_options_set_encoder(encoder, 16000, 10, 20, &error));
    gint64 low = convert_and_read(encoder, "low.ogg", "opus");
    g_assert_true(vng_encoder_options_set_encoder(encoder, 64000, 10, 20, &error));
    g_assert_no_error(error);
    gint64 high = convert_and_read(encoder, "high.ogg", "opus");
    g_assert_cmpint(high, >, low * 2);
    g_object_unref(encoder);
}

/* What a player (and a queue player) said. */
typedef struct {
    GError *failed;
    guint finished;
    guint ended;
} Heard;

static void on_failed(VnPlayer *player, GError *error, gpointer data) {
    (void)player;
    Heard *heard = data;
    g_clear_error(&heard->failed);
    heard->failed = g_error_copy(error);
}

static void on_finished(VnPlayer *player, const gchar *location, gpointer data) {
    (void)player, (void)location;
    ((Heard *)data)->finished++;
}

static void on_ended(VnQueuePlayer *queue, gpointer data) {
    (void)queue;
    ((Heard *)data)->ended++;
}

static gboolean has_failed(gpointer data) {
    return ((Heard *)data)->failed != NULL;
}

static gboolean has_ended(gpointer data) {
    const Heard *heard = data;
    return heard->ended > 0 || heard->failed != NULL;
}

typedef struct {
    VnPlayer *player;
    Heard *heard;
} Loaded;

static gboolean is_loaded(gpointer data) {
    const Loaded *loaded = data;
    return vng_player_get_state(loaded->player) == VN_PLAYER_STATE_PAUSED || loaded->heard->failed != NULL;
}

static void test_player_load_url(void) {
    gchar *heard_path = g_build_filename(directory, "heard.raw", NULL);
    gchar *speaker = rig_speaker(heard_path);
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device("vn_spk", speaker, &error);
    g_assert_no_error(error);
    Heard heard = {0};
    g_signal_connect(player, "failed", G_CALLBACK(on_failed), &heard);
    g_signal_connect(player, "finished", G_CALLBACK(on_finished), &heard);

    gchar *url = note_server_url("/auth/player.ogg");
    g_assert_true(vng_player_load_url(player, url, NULL, NULL, FALSE, -1, &error));
    g_assert_no_error(error);
    g_assert_true(rig_wait(has_failed, &heard, WAIT_MS));
    g_assert_error(heard.failed, VN_ERROR, VN_ERROR_PERMISSION);
    g_clear_error(&heard.failed);

    VnHttpOptions *http = authorized();
    g_assert_true(vng_player_load_url(player, url, http, "message-1:0", FALSE, -1, &error));
    g_assert_no_error(error);
    Loaded loaded = {player, &heard};
    g_assert_true(rig_wait(is_loaded, &loaded, WAIT_MS));
    g_assert_no_error(heard.failed);
    g_assert_cmpfloat(vng_player_get_duration(player), >, 0); /* an estimate while the download runs */
    g_assert_cmpstr(vng_player_get_location(player), ==, url);
    g_free(url);

    /* A queue over the same player with the options plays an `/auth/` item to its end. */
    g_assert_true(vng_player_stop(player, &error));
    VnQueuePlayer *queue = vng_queue_player_new(player, &error);
    g_assert_no_error(error);
    g_signal_connect(queue, "ended", G_CALLBACK(on_ended), &heard);
    vng_queue_player_set_http_options(queue, http);
    g_object_unref(http); /* the queue took what it needs */
    url = note_server_url("/auth/queue.ogg");
    const gchar *items[] = {url, NULL};
    g_assert_true(vng_queue_player_set_items(queue, items, NULL, &error));
    g_assert_true(vng_queue_player_play_item(queue, 0, &error));
    g_assert_no_error(error);
    g_assert_true(rig_wait(has_ended, &heard, WAIT_MS));
    g_assert_no_error(heard.failed);
    g_assert_cmpuint(heard.ended, ==, 1);
    g_assert_cmpuint(heard.finished, >=, 1);
    g_free(url);

    g_object_unref(queue);
    g_object_unref(player);
    rig_drain();
    g_free(speaker);
    g_free(heard_path);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    note_fixture_start();
    g_test_add_func("/http-options/checked", test_checked);
    g_test_add_func("/http-options/authorization", test_authorization);
    g_test_add_func("/http-options/stall-timeout", test_stall_timeout);
    g_test_add_func("/http-options/max-bytes", test_max_bytes);
    g_test_add_func("/http-options/convert-format", test_convert_format);
    g_test_add_func("/http-options/player-load-url", test_player_load_url);
    int status = g_test_run();
    note_fixture_stop();
    return status;
}
