/*
 * payload.c: VnPayload (voicenote-glib's vn-payload.h): JSON in both forms, and bad input.
 *
 * - /payload/stream-round-trip: a Stream attachment object with extra keys reads into its properties and writes
 *   back byte for byte; setting properties notifies once per change and lands in the JSON.
 * - /payload/matrix-round-trip: a payload made from a real recorded note (espeak-ng, opusenc) writes a Matrix
 *   voice message content that reads back with the same URL, MIME type, size, duration and waveform (to the
 *   content's 1/1024 steps), marked a voice message; its Stream JSON reads back equal.
 * - /payload/malformed: malformed JSON, a missing asset URL, a non-voice content and a relative URL are VN_ERROR
 *   errors with their codes, and a failed setter changes nothing.
 */
#include <voicenote-glib.h>

#include <math.h>

#include "notes.h"

static const gchar *stream_json =
    "{\"type\":\"voiceRecording\",\"title\":\"note.ogg\",\"asset_url\":\"https://cdn.example.org/a/note.ogg\","
    "\"file_size\":12345,\"mime_type\":\"audio/ogg\",\"duration\":2.5,\"waveform_data\":[0,0.25,0.5,1],"
    "\"custom\":{\"n\":9007199254740993}}";

static void count_notify(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)object;
    (void)pspec;
    (*(guint *)data)++;
}

static void test_stream_round_trip(void) {
    GError *error = NULL;
    VnPayload *payload = vng_payload_new_from_json(stream_json, &error);
    g_assert_no_error(error);
    gchar *json = vng_payload_to_json(payload, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(json, ==, stream_json);
    g_free(json);

    gchar *type = NULL, *title = NULL, *url = NULL, *mime = NULL, *extra = NULL;
    gint64 size = 0;
    gdouble duration = 0;
    g_object_get(payload, "attachment-type", &type, "title", &title, "asset-url", &url, "mime-type", &mime,
                 "file-size", &size, "duration", &duration, "extra-data", &extra, NULL);
    g_assert_cmpstr(type, ==, "voiceRecording");
    g_assert_cmpstr(title, ==, "note.ogg");
    g_assert_cmpstr(url, ==, "https://cdn.example.org/a/note.ogg");
    g_assert_cmpstr(mime, ==, "audio/ogg");
    g_assert_cmpint(size, ==, 12345);
    g_assert_cmpfloat(duration, ==, 2.5);
    g_assert_cmpstr(extra, ==, "{\"custom\":{\"n\":9007199254740993}}");
    g_free(type);
    g_free(title);
    g_free(url);
    g_free(mime);
    g_free(extra);
    gsize n = 0;
    gdouble *waveform = vng_payload_get_waveform(payload, &n);
    g_assert_cmpuint(n, ==, 4);
    g_assert_cmpfloat(waveform[1], ==, 0.25);
    g_assert_cmpfloat(waveform[3], ==, 1.0);
    g_free(waveform);
    g_assert_false(vng_payload_get_is_voice(payload));

    guint notified = 0;
    g_signal_connect(payload, "notify", G_CALLBACK(count_notify), &notified);
    g_object_set(payload, "title", "renamed.ogg", "duration", 3.0, NULL);
    g_object_set(payload, "title", "renamed.ogg", "duration", 3.0, NULL); /* the same values: no notify */
    g_assert_cmpuint(notified, ==, 2);
    json = vng_payload_to_json(payload, 0, &error);
    g_assert_no_error(error);
    VnPayload *again = vng_payload_new_from_json(json, &error);
    g_assert_no_error(error);
    gchar *again_title = vng_payload_get_title(again);
    g_assert_cmpstr(again_title, ==, "renamed.ogg");
    g_assert_cmpfloat(vng_payload_get_duration(again), ==, 3.0);
    g_free(again_title);
    g_free(json);
    g_object_unref(again);
    g_object_unref(payload);
}

static void test_matrix_round_trip(void) {
    GError *error = NULL;
    gchar *directory = g_dir_make_tmp("vn-glib-payload-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *note = notes_make(directory, "note", "A payload for Matrix.");
    VnPayload *recorded = vng_payload_new_from_recording(note, -1, NULL, 0, &error);
    g_assert_no_error(error);
    gchar *title = vng_payload_get_title(recorded);
    g_assert_cmpstr(title, ==, "note.ogg");
    g_free(title);
    g_assert_cmpfloat(vng_payload_get_duration(recorded), >, 0.5);
    g_assert_cmpint(vng_payload_get_file_size(recorded), >, 0);

    /* Uploaded to a homeserver: the asset URL is the mxc:// URI it answered. */
    g_assert_true(vng_payload_set_text(recorded, "asset-url", "mxc://matrix.example.org/AbCdEf123", &error));
    g_assert_no_error(error);
    gchar *content = vng_payload_to_matrix_content(recorded, NULL, &error);
    g_assert_no_error(error);
    g_assert_nonnull(strstr(content, "\"msgtype\":\"m.audio\""));
    g_assert_nonnull(strstr(content, "org.matrix.msc3245.voice"));
    VnPayload *received = vng_payload_new_from_matrix_content(content, &error);
    g_assert_no_error(error);
    g_assert_true(vng_payload_get_is_voice(received));
    gchar *url = vng_payload_get_asset_url(received);
    g_assert_cmpstr(url, ==, "mxc://matrix.example.org/AbCdEf123");
    g_free(url);
    gchar *mime_sent = vng_payload_get_mime_type(recorded), *mime_received = vng_payload_get_mime_type(received);
    g_assert_cmpstr(mime_received, ==, mime_sent);
    g_assert_cmpstr(mime_received, ==, "audio/ogg");
    g_free(mime_sent);
    g_free(mime_received);
    g_assert_cmpint(vng_payload_get_file_size(received), ==, vng_payload_get_file_size(recorded));
    /* Matrix carries whole milliseconds. */
    g_assert_cmpfloat_with_epsilon(vng_payload_get_duration(received), vng_payload_get_duration(recorded), 0.001);
    gsize n_sent = 0, n_received = 0;
    gdouble *sent = vng_payload_get_waveform(recorded, &n_sent);
    gdouble *got = vng_payload_get_waveform(received, &n_received);
    g_assert_cmpuint(n_sent, ==, 100);
    g_assert_cmpuint(n_received, ==, n_sent);
    for (gsize i = 0; i < n_sent; i++) g_assert_cmpfloat_with_epsilon(got[i], sent[i], 1.0 / 1024);
    g_free(sent);
    g_free(got);

    /* Its Stream form reads back equal, too. */
    gchar *json = vng_payload_to_json(received, 2, &error);
    g_assert_no_error(error);
    VnPayload *again = vng_payload_new_from_json(json, &error);
    g_assert_no_error(error);
    gchar *json_again = vng_payload_to_json(again, 2, &error);
    g_assert_cmpstr(json_again, ==, json);
    g_free(json);
    g_free(json_again);
    g_free(content);
    g_object_unref(again);
    g_object_unref(received);
    g_object_unref(recorded);
    g_free(note);
    rig_remove_tree(directory);
    g_free(directory);
}

static void test_malformed(void) {
    GError *error = NULL;
    g_assert_null(vng_payload_new_from_json("{\"asset_url\": \"https://x.example/a.ogg\",", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_FORMAT);
    g_assert_cmpstr(error->message, !=, "");
    g_clear_error(&error);
    g_assert_null(vng_payload_new_from_json("{\"title\": \"no url\"}", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_FORMAT);
    g_clear_error(&error);
    g_assert_null(vng_payload_new_from_json("{\"asset_url\": \"https://x.example/a.ogg\", \"duration\": \"2\"}",
                                            &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_FORMAT);
    g_clear_error(&error);
    g_assert_null(vng_payload_new_from_matrix_content("{\"msgtype\": \"m.text\", \"body\": \"hi\"}", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_FORMAT);
    g_clear_error(&error);
    g_assert_null(vng_payload_new("relative/note.ogg", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);

    VnPayload *payload = vng_payload_new("https://x.example/a.ogg", &error);
    g_assert_no_error(error);
    g_assert_false(vng_payload_set_text(payload, "asset-url", "not a url", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_false(vng_payload_set_duration(payload, NAN, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_false(vng_payload_set_extra_data(payload, "[1]", &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_FORMAT);
    g_clear_error(&error);
    g_assert_null(vng_payload_to_matrix_content(payload, NULL, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG); /* not mxc://, no duration */
    g_clear_error(&error);
    gchar *json = vng_payload_to_json(payload, 0, &error);
    g_assert_cmpstr(json, ==, "{\"type\":\"voiceRecording\",\"asset_url\":\"https://x.example/a.ogg\"}");
    g_free(json);
    g_object_unref(payload);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/payload/stream-round-trip", test_stream_round_trip);
    g_test_add_func("/payload/matrix-round-trip", test_matrix_round_trip);
    g_test_add_func("/payload/malformed", test_malformed);
    return g_test_run();
}
