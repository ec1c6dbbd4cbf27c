/*
 * uploader.c: VnUploader (voicenote-glib's vn-uploader.h) against a real HTTP server on 127.0.0.1.
 *
 * The server is upload-server.h's (GThreadedSocketService in this process, answering the uploaded URL both ways;
 * told to hold, it answers only when released). The note is a sentence spoken by espeak-ng and encoded by opusenc.
 * - /uploader/completed: a multipart upload gets an id, then `progress` from 0 up to 1 (never down), then
 *   `completed` with that id and a payload whose asset URL is the server's; the server got a POST whose body holds
 *   the whole file; then a raw (Matrix) upload's payload has the mxc:// URI and the server got exactly the file.
 * - /uploader/bytes: bytes held in memory (a Matrix client's ciphertext) uploaded raw as application/octet-stream: the
 *   server gets exactly them and the payload the mxc:// URI; an empty file name is VN_ERROR_INVALID_ARG.
 * - /uploader/cancelled: an upload the server holds in flight, cancelled by its id once it sends, is `failed` with
 *   VN_ERROR_CANCELLED and that id, and no `completed`.
 * - /uploader/stall-timeout: with `http-options` (a VnHttpOptions) stalling after 0.5 s, an upload whose answer the
 *   server holds is `failed` with VN_ERROR_NETWORK in under 5 s (the default is 30 s).
 * - /uploader/refused: a port nobody listens on is `failed` with VN_ERROR_NETWORK and the id, and no `completed`;
 *   cancelling the ended id is harmless; a second upload while one runs is VN_ERROR_BUSY.
 * Every wait is bounded (the main context iterated until the condition, under a deadline).
 */
#include <voicenote-glib.h>

#include "notes.h"
#include "upload-server.h"

static gchar *directory;
static gchar *note_path;

/* ------------------------------------------------------------------------------------------------------------ */
/* What the uploader said */

typedef struct {
    GArray *progress; /* gdouble fractions, in order */
    guint progress_id;
    guint progress_other_ids;
    guint completed_id;
    VnPayload *payload;
    guint failed_id;
    GError *error;
    guint progress_after_end;
} Said;

static void on_progress(VnUploader *uploader, guint id, gdouble fraction, gpointer data) {
    (void)uploader;
    Said *said = data;
    if (said->completed_id != 0 || said->failed_id != 0) said->progress_after_end++;
    if (said->progress_id == 0) said->progress_id = id;
    if (id != said->progress_id) said->progress_other_ids++;
    g_array_append_val(said->progress, fraction);
}

static void on_completed(VnUploader *uploader, guint id, VnPayload *payload, gpointer data) {
    (void)uploader;
    Said *said = data;
    said->completed_id = id;
    g_set_object(&said->payload, payload);
}

static void on_failed(VnUploader *uploader, guint id, GError *error, gpointer data) {
    (void)uploader;
    Said *said = data;
    said->failed_id = id;
    g_clear_error(&said->error);
    said->error = g_error_copy(error);
}

static gboolean ended(gpointer data) {
    Said *said = data;
    return said->completed_id != 0 || said->failed_id != 0;
}

static void said_connect(Said *said, VnUploader *uploader) {
    *said = (Said){.progress = g_array_new(FALSE, FALSE, sizeof(gdouble))};
    g_signal_connect(uploader, "progress", G_CALLBACK(on_progress), said);
    g_signal_connect(uploader, "completed", G_CALLBACK(on_completed), said);
    g_signal_connect(uploader, "failed", G_CALLBACK(on_failed), said);
}

static void said_reset(Said *said) {
    g_array_set_size(said->progress, 0);
    said->progress_id = said->progress_other_ids = said->completed_id = said->failed_id = 0;
    said->progress_after_end = 0;
    g_clear_object(&said->payload);
    g_clear_error(&said->error);
}

static void said_clear(Said *said) {
    said_reset(said);
    g_array_unref(said->progress);
}

/* The progress of one upload: its id, from 0, never down, to 1. */
static void expect_progress(Said *said, guint id) {
    g_assert_cmpuint(said->progress->len, >=, 2);
    g_assert_cmpuint(said->progress_id, ==, id);
    g_assert_cmpuint(said->progress_other_ids, ==, 0);
    g_assert_cmpuint(said->progress_after_end, ==, 0);
    g_assert_cmpfloat(g_array_index(said->progress, gdouble, 0), ==, 0.0);
    for (guint i = 1; i < said->progress->len; i++)
        g_assert_cmpfloat(g_array_index(said->progress, gdouble, i), >=, g_array_index(said->progress, gdouble, i - 1));
    g_assert_cmpfloat(g_array_index(said->progress, gdouble, said->progress->len - 1), ==, 1.0);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_completed(void) {
    Server server = {0};
    guint16 port = 0;
    GSocketService *service = server_start(&server, &port);
    gchar *file = NULL;
    gsize file_length = 0;
    g_assert_true(g_file_get_contents(note_path, &file, &file_length, NULL));

    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/channels/messaging/general/file?api_key=k", port);
    GError *error = NULL;
    const gchar *headers[] = {"Authorization: token", "Stream-Auth-Type: jwt", NULL};
    VnUploader *uploader = g_initable_new(VNG_TYPE_UPLOADER, NULL, &error, "endpoint", endpoint, "headers", headers,
                                          NULL);
    g_assert_no_error(error);
    Said said;
    said_connect(&said, uploader);
    guint id = vng_uploader_upload_file(uploader, note_path, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(id, ==, 1);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_no_error(said.error);
    g_assert_cmpuint(said.completed_id, ==, id);
    expect_progress(&said, id);
    gchar *url = vng_payload_get_asset_url(said.payload);
    g_assert_cmpstr(url, ==, "https://cdn.example.org/uploads/note.ogg");
    g_free(url);
    g_assert_cmpfloat(vng_payload_get_duration(said.payload), >, 0.5);
    g_mutex_lock(&server.lock);
    g_assert_cmpuint(server.requests, ==, 1);
    g_assert_cmpstr(server.method, ==, "POST");
    g_assert_cmpstr(server.path, ==, "/channels/messaging/general/file?api_key=k");
    g_assert_true(g_str_has_prefix(server.content_type, "multipart/form-data"));
    g_assert_true(bytes_contain(server.body, file, file_length));
    g_assert_true(bytes_contain(server.body, "note.ogg", 8));
    g_mutex_unlock(&server.lock);
    g_object_unref(uploader);

    /* Matrix: the raw body, the mxc:// URI. */
    gchar *matrix = g_strdup_printf("http://127.0.0.1:%u/_matrix/media/v3/upload", port);
    uploader = vng_uploader_new(matrix, VN_UPLOAD_MODE_RAW, &error);
    g_assert_no_error(error);
    said_clear(&said); /* said_connect() starts a new log */
    said_connect(&said, uploader);
    id = vng_uploader_upload_file(uploader, note_path, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_no_error(said.error);
    g_assert_cmpuint(said.completed_id, ==, id);
    expect_progress(&said, id);
    url = vng_payload_get_asset_url(said.payload);
    g_assert_cmpstr(url, ==, "mxc://matrix.example.org/UpLoAdEd42");
    g_free(url);
    g_mutex_lock(&server.lock);
    g_assert_cmpuint(server.requests, ==, 2);
    g_assert_cmpstr(server.content_type, ==, "audio/ogg");
    g_assert_cmpuint(server.body->len, ==, file_length);
    g_assert_true(memcmp(server.body->data, file, file_length) == 0);
    g_mutex_unlock(&server.lock);
    g_object_unref(uploader);

    said_clear(&said);
    g_free(matrix);
    g_free(endpoint);
    g_free(file);
    server_stop(service, &server);
}

/* Matrix's encrypted rooms: the client's ciphertext uploaded from memory as application/octet-stream; the server gets
 * exactly those bytes, the payload the mxc:// URI. */
static void test_bytes(void) {
    Server server = {0};
    guint16 port = 0;
    GSocketService *service = server_start(&server, &port);
    guint8 ciphertext[3000];
    for (gsize i = 0; i < sizeof ciphertext; i++) ciphertext[i] = (guint8)(i * 131 + 7);
    GBytes *bytes = g_bytes_new(ciphertext, sizeof ciphertext);
    gchar *matrix = g_strdup_printf("http://127.0.0.1:%u/_matrix/media/v3/upload", port);
    GError *error = NULL;
    VnUploader *uploader = vng_uploader_new(matrix, VN_UPLOAD_MODE_RAW, &error);
    g_assert_no_error(error);
    Said said;
    said_connect(&said, uploader);
    g_assert_cmpuint(vng_uploader_upload_bytes(uploader, bytes, "", NULL, NULL, &error), ==, 0);
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    guint id = vng_uploader_upload_bytes(uploader, bytes, "voice.ogg.enc", "application/octet-stream", NULL, &error);
    g_bytes_unref(bytes); /* copied */
    g_assert_no_error(error);
    g_assert_cmpuint(id, >=, 1);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_no_error(said.error);
    g_assert_cmpuint(said.completed_id, ==, id);
    expect_progress(&said, id);
    gchar *url = vng_payload_get_asset_url(said.payload);
    g_assert_cmpstr(url, ==, "mxc://matrix.example.org/UpLoAdEd42");
    g_free(url);
    g_mutex_lock(&server.lock);
    g_assert_cmpuint(server.requests, ==, 1);
    g_assert_cmpstr(server.content_type, ==, "application/octet-stream");
    g_assert_cmpuint(server.body->len, ==, sizeof ciphertext);
    g_assert_true(memcmp(server.body->data, ciphertext, sizeof ciphertext) == 0);
    g_mutex_unlock(&server.lock);
    g_object_unref(uploader);
    said_clear(&said);
    g_free(matrix);
    server_stop(service, &server);
}

/* A multipart uploader for `endpoint`, said connected to `said`, uploading the note; *id receives the upload's. */
static VnUploader *uploading_note(const gchar *endpoint, Said *said, guint *id) {
    GError *error = NULL;
    VnUploader *uploader = vng_uploader_new(endpoint, VN_UPLOAD_MODE_MULTIPART, &error);
    g_assert_no_error(error);
    said_connect(said, uploader);
    *id = vng_uploader_upload_file(uploader, note_path, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(*id, ==, 1);
    return uploader;
}

static gboolean progressed(gpointer data) {
    return ((Said *)data)->progress->len > 0;
}

static void test_cancelled(void) {
    Server server = {.hold = TRUE};
    guint16 port = 0;
    GSocketService *service = server_start(&server, &port);
    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/upload", port);
    Said said;
    guint id = 0;
    VnUploader *uploader = uploading_note(endpoint, &said, &id);
    GError *error = NULL;
    g_assert_true(rig_wait(progressed, &said, WAIT_MS));
    g_assert_true(vng_uploader_cancel(uploader, id, &error));
    g_assert_no_error(error);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_cmpuint(said.failed_id, ==, id);
    g_assert_cmpuint(said.completed_id, ==, 0);
    g_assert_error(said.error, VN_ERROR, VN_ERROR_CANCELLED);
    g_object_unref(uploader);
    said_clear(&said);
    g_free(endpoint);
    server_stop(service, &server);
}

static void test_stall_timeout(void) {
    Server server = {.hold = TRUE};
    guint16 port = 0;
    GSocketService *service = server_start(&server, &port);
    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/upload", port);
    VnHttpOptions *http = vng_http_options_new();
    GError *error = NULL;
    g_assert_true(vng_http_options_set_stall_timeout(http, 0.5, &error));
    VnUploader *uploader = g_initable_new(VNG_TYPE_UPLOADER, NULL, &error, "endpoint", endpoint, "http-options", http,
                                          NULL);
    g_assert_no_error(error);
    g_object_unref(http); /* the uploader keeps what it needs */
    Said said;
    said_connect(&said, uploader);
    gint64 started = g_get_monotonic_time();
    guint id = vng_uploader_upload_file(uploader, note_path, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    gdouble seconds = (gdouble)(g_get_monotonic_time() - started) / G_USEC_PER_SEC;
    g_assert_cmpuint(said.failed_id, ==, id);
    g_assert_error(said.error, VN_ERROR, VN_ERROR_NETWORK);
    g_test_message("the held answer stalled the upload after %.2f s: %s", seconds, said.error->message);
    g_assert_cmpfloat(seconds, >=, 0.5);
    g_assert_cmpfloat(seconds, <, 5); /* the default stall timeout is 30 s */
    g_object_unref(uploader);
    said_clear(&said);
    g_free(endpoint);
    server_stop(service, &server);
}

static void test_refused(void) {
    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/upload", closed_port());
    Said said;
    guint id = 0;
    VnUploader *uploader = uploading_note(endpoint, &said, &id);
    GError *error = NULL;
    /* One at a time. */
    g_assert_cmpuint(vng_uploader_upload_file(uploader, note_path, NULL, &error), ==, 0);
    g_assert_error(error, VN_ERROR, VN_ERROR_BUSY);
    g_clear_error(&error);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_cmpuint(said.failed_id, ==, id);
    g_assert_cmpuint(said.completed_id, ==, 0);
    g_assert_error(said.error, VN_ERROR, VN_ERROR_NETWORK);
    g_assert_cmpstr(said.error->message, !=, "");
    g_assert_true(vng_uploader_cancel(uploader, id, &error)); /* ended: nothing to do */
    g_assert_no_error(error);
    /* A retry is a new upload with a new id, failing the same way. */
    said_reset(&said);
    guint again = vng_uploader_retry(uploader, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(again, ==, 2);
    g_assert_true(rig_wait(ended, &said, WAIT_MS));
    g_assert_cmpuint(said.failed_id, ==, again);
    g_assert_error(said.error, VN_ERROR, VN_ERROR_NETWORK);
    g_object_unref(uploader);
    said_clear(&said);
    g_free(endpoint);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-uploader-XXXXXX", &error);
    g_assert_no_error(error);
    note_path = notes_make(directory, "note", "A voice note to upload.");
    g_test_add_func("/uploader/completed", test_completed);
    g_test_add_func("/uploader/bytes", test_bytes);
    g_test_add_func("/uploader/cancelled", test_cancelled);
    g_test_add_func("/uploader/stall-timeout", test_stall_timeout);
    g_test_add_func("/uploader/refused", test_refused);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(note_path);
    return status;
}
