/*
 * upload-async.c: vng_uploader_upload_async()/_finish() (vn-uploader.h) against upload-server.h's real HTTP server
 * on 127.0.0.1 in this process; the note is a sentence spoken by espeak-ng and encoded by opusenc.
 * - /upload-async/completed: the callback runs on this thread, after the `completed` signal of the upload's id and
 *   its `progress` up to 1; _finish gives the payload with the server's URL; the server got a POST holding the file.
 * - /upload-async/cancelled: after a completed upload (the thread baseline, once the library's `vn-upload` thread
 *   of it ended), an upload the server holds in flight is cancelled by g_cancellable_cancel(): the callback gets
 *   G_IO_ERROR_CANCELLED within 1 s, the server sees the client close the held connection, the upload's
 *   `vn-upload` thread ends and the process has no more threads than at the baseline; the same uploader then
 *   uploads again.
 * - /upload-async/already-cancelled: a cancelled GCancellable gives G_IO_ERROR_CANCELLED, never before the call
 *   returns, and no request reaches the server, no signal comes.
 * - /upload-async/refused: a port nobody listens on is a VN_ERROR_NETWORK GError with a message.
 * - /upload-async/busy: a second upload_async while the first is in flight gets VN_ERROR_BUSY (as upload_file does)
 *   while the first goes on, and completes once the server answers.
 * - /upload-async/disposed: g_object_run_dispose() on the uploader while an upload is held ends it with
 *   VN_ERROR_CANCELLED, and the server sees the connection closed; run by a `completed` handler, it leaves that
 *   upload's payload to the callback.
 * Every wait is bounded (rig_wait: the main context iterated until a condition, under a deadline; the server's
 * threads wake it at each change; rig_wait_polled for the threads, which end without waking it); nothing
 * sleeps.
 */
#include "async-outcome.h"
#include "notes.h"
#include "upload-server.h"

#define CANCEL_LIMIT_MS 1000

static gchar *directory;
static gchar *note_path;

/* A server (zeroed but for `hold`), started, with an uploader for it. */
typedef struct {
    Server server;
    GSocketService *service;
    VnUploader *uploader;
} Fixture;

static void fixture_start(Fixture *fixture, gboolean hold) {
    *fixture = (Fixture){.server = {.hold = hold}};
    guint16 port = 0;
    fixture->service = server_start(&fixture->server, &port);
    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/channels/messaging/general/file", port);
    GError *error = NULL;
    fixture->uploader = vng_uploader_new(endpoint, VN_UPLOAD_MODE_MULTIPART, &error);
    g_assert_no_error(error);
    g_free(endpoint);
}

static void fixture_stop(Fixture *fixture) {
    g_clear_object(&fixture->uploader);
    server_stop(fixture->service, &fixture->server);
}

/* Conditions on the server, read under its lock. */
static guint server_count(Server *server, const guint *field) {
    g_mutex_lock(&server->lock);
    guint value = *field;
    g_mutex_unlock(&server->lock);
    return value;
}

static gboolean server_holding(gpointer data) {
    Server *server = data;
    return server_count(server, &server->holding) > 0;
}

static gboolean server_saw_close(gpointer data) {
    Server *server = data;
    return server_count(server, &server->closed_while_held) > 0;
}

/* The signals of the uploader, in order: "progress 1", "completed 1", "failed 2"... (the id after the name). */
static void log_progress(VnUploader *uploader, guint id, gdouble fraction, gpointer data) {
    (void)uploader;
    if (fraction == 1.0) g_ptr_array_add(data, g_strdup_printf("progress %u", id));
}

static void log_completed(VnUploader *uploader, guint id, VnPayload *payload, gpointer data) {
    (void)uploader, (void)payload;
    g_ptr_array_add(data, g_strdup_printf("completed %u", id));
}

static void log_failed(VnUploader *uploader, guint id, GError *error, gpointer data) {
    (void)uploader, (void)error;
    g_ptr_array_add(data, g_strdup_printf("failed %u", id));
}

static GPtrArray *log_signals(VnUploader *uploader) {
    GPtrArray *log = g_ptr_array_new_with_free_func(g_free);
    g_signal_connect(uploader, "progress", G_CALLBACK(log_progress), log);
    g_signal_connect(uploader, "completed", G_CALLBACK(log_completed), log);
    g_signal_connect(uploader, "failed", G_CALLBACK(log_failed), log);
    return log;
}

/* The callback: the outcome, and what the signal log held then. */
typedef struct {
    Outcome outcome;
    GPtrArray *log;
    guint logged_before; /* the log's length when the callback ran */
} Upload;

static void upload_done(GObject *source, GAsyncResult *result, gpointer data) {
    Upload *upload = data;
    if (upload->log != NULL) upload->logged_before = upload->log->len;
    keep_result(source, result, &upload->outcome);
}

/* Starts an upload of the note; the callback never runs before this returns. */
static void upload_start(VnUploader *uploader, GCancellable *cancellable, Upload *upload) {
    vng_uploader_upload_async(uploader, note_path, NULL, cancellable, upload_done, upload);
    g_assert_null(upload->outcome.result);
}

/* Waits (bounded) for the callback, on this thread, then returns what _finish gives. */
static VnPayload *upload_finish(VnUploader *uploader, Upload *upload, GError **error) {
    wait_outcome(&upload->outcome);
    VnPayload *payload = vng_uploader_upload_finish(uploader, upload->outcome.result, error);
    outcome_clear(&upload->outcome);
    return payload;
}

static void expect_uploaded(VnPayload *payload) {
    g_assert_nonnull(payload);
    gchar *url = vng_payload_get_asset_url(payload);
    g_assert_cmpstr(url, ==, "https://cdn.example.org/uploads/note.ogg");
    g_free(url);
    g_assert_cmpfloat(vng_payload_get_duration(payload), >, 0.5);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_completed(void) {
    Fixture fixture;
    fixture_start(&fixture, FALSE);
    GPtrArray *log = log_signals(fixture.uploader);
    Upload upload = {.log = log};
    upload_start(fixture.uploader, NULL, &upload);
    GError *error = NULL;
    VnPayload *payload = upload_finish(fixture.uploader, &upload, &error);
    g_assert_no_error(error);
    expect_uploaded(payload);
    /* The callback came after the upload's last signal. */
    g_assert_cmpuint(upload.logged_before, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(log, 0), ==, "progress 1");
    g_assert_cmpstr(g_ptr_array_index(log, 1), ==, "completed 1");
    gchar *file = NULL;
    gsize file_length = 0;
    g_assert_true(g_file_get_contents(note_path, &file, &file_length, NULL));
    g_mutex_lock(&fixture.server.lock);
    g_assert_cmpuint(fixture.server.requests, ==, 1);
    g_assert_cmpstr(fixture.server.method, ==, "POST");
    g_assert_true(bytes_contain(fixture.server.body, file, file_length));
    g_mutex_unlock(&fixture.server.lock);
    g_free(file);
    g_object_unref(payload);
    fixture_stop(&fixture);
    g_ptr_array_unref(log);
}

/* Whether a thread of this process is named `name` (/proc/self/task/N/comm). */
static gboolean has_thread_named(const gchar *name) {
    GDir *dir = g_dir_open("/proc/self/task", 0, NULL);
    g_assert_nonnull(dir);
    gboolean found = FALSE;
    const gchar *task;
    while (!found && (task = g_dir_read_name(dir)) != NULL) {
        gchar *path = g_build_filename("/proc/self/task", task, "comm", NULL);
        gchar *comm = NULL;
        found = g_file_get_contents(path, &comm, NULL, NULL) && g_strcmp0(g_strstrip(comm), name) == 0;
        g_free(comm);
        g_free(path);
    }
    g_dir_close(dir);
    return found;
}

/* libvoicenote's thread of one upload (`vn-upload`) has ended: it ends just after the upload's last event. */
static gboolean upload_thread_gone(gpointer data) {
    (void)data;
    return !has_thread_named("vn-upload");
}

static guint thread_baseline;

static gboolean threads_at_baseline(gpointer data) {
    return upload_thread_gone(data) && count_threads() <= thread_baseline;
}

static void test_cancelled(void) {
    Fixture fixture;
    fixture_start(&fixture, FALSE);
    GError *error = NULL;
    /* The baseline: the threads after a completed upload (the library's and the server's exist by then). */
    Upload upload = {0};
    upload_start(fixture.uploader, NULL, &upload);
    VnPayload *payload = upload_finish(fixture.uploader, &upload, &error);
    g_assert_no_error(error);
    g_clear_object(&payload);
    g_assert_true(rig_wait_polled(upload_thread_gone, NULL, WAIT_MS));
    thread_baseline = count_threads();

    g_mutex_lock(&fixture.server.lock);
    fixture.server.hold = TRUE;
    g_mutex_unlock(&fixture.server.lock);
    GCancellable *cancellable = g_cancellable_new();
    gint64 started = g_get_monotonic_time();
    upload_start(fixture.uploader, cancellable, &upload);
    g_assert_true(rig_wait(server_holding, &fixture.server, WAIT_MS));
    g_assert_null(upload.outcome.result);
    gint64 cancelled = g_get_monotonic_time();
    g_cancellable_cancel(cancellable);
    wait_outcome(&upload.outcome);
    gdouble callback_ms = (gdouble)(upload.outcome.at - cancelled) / 1000;
    g_assert_null(vng_uploader_upload_finish(fixture.uploader, upload.outcome.result, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    outcome_clear(&upload.outcome);
    g_assert_cmpfloat(callback_ms, <, CANCEL_LIMIT_MS);
    /* The library's upload stopped: the server sees the client close the connection it held. */
    g_assert_true(rig_wait(server_saw_close, &fixture.server, WAIT_MS));
    gdouble closed_ms = (gdouble)(g_get_monotonic_time() - cancelled) / 1000;
    g_test_message("cancelled %.1f ms after the start; callback %.1f ms after the cancel, connection closed %.1f ms "
                   "after it; %u threads (after a completed upload: %u)",
                   (gdouble)(cancelled - started) / 1000, callback_ms, closed_ms, count_threads(), thread_baseline);
    g_assert_true(rig_wait_polled(threads_at_baseline, NULL, WAIT_MS));
    g_test_message("threads at the baseline %.1f ms after the cancel",
                   (gdouble)(g_get_monotonic_time() - cancelled) / 1000);

    /* The uploader uploads again. */
    g_mutex_lock(&fixture.server.lock);
    fixture.server.hold = FALSE;
    g_mutex_unlock(&fixture.server.lock);
    upload_start(fixture.uploader, NULL, &upload);
    payload = upload_finish(fixture.uploader, &upload, &error);
    g_assert_no_error(error);
    expect_uploaded(payload);
    g_assert_cmpuint(server_count(&fixture.server, &fixture.server.requests), ==, 3);
    g_object_unref(payload);
    g_object_unref(cancellable);
    fixture_stop(&fixture);
}

static void test_already_cancelled(void) {
    Fixture fixture;
    fixture_start(&fixture, FALSE);
    GPtrArray *log = log_signals(fixture.uploader);
    GCancellable *cancellable = g_cancellable_new();
    g_cancellable_cancel(cancellable);
    Upload upload = {0};
    upload_start(fixture.uploader, cancellable, &upload);
    GError *error = NULL;
    g_assert_null(upload_finish(fixture.uploader, &upload, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    rig_drain();
    g_assert_cmpuint(server_count(&fixture.server, &fixture.server.requests), ==, 0);
    g_assert_cmpuint(log->len, ==, 0);
    g_object_unref(cancellable);
    fixture_stop(&fixture);
    g_ptr_array_unref(log);
}

static void test_refused(void) {
    gchar *endpoint = g_strdup_printf("http://127.0.0.1:%u/upload", closed_port());
    GError *error = NULL;
    VnUploader *uploader = vng_uploader_new(endpoint, VN_UPLOAD_MODE_MULTIPART, &error);
    g_assert_no_error(error);
    Upload upload = {0};
    upload_start(uploader, NULL, &upload);
    g_assert_null(upload_finish(uploader, &upload, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_NETWORK);
    g_assert_cmpstr(error->message, !=, "");
    g_clear_error(&error);
    g_object_unref(uploader);
    g_free(endpoint);
}

static void test_busy(void) {
    Fixture fixture;
    fixture_start(&fixture, TRUE);
    GPtrArray *log = log_signals(fixture.uploader);
    Upload first = {0}, second = {0};
    upload_start(fixture.uploader, NULL, &first);
    upload_start(fixture.uploader, NULL, &second);
    GError *error = NULL;
    g_assert_null(upload_finish(fixture.uploader, &second, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_BUSY);
    g_clear_error(&error);
    /* The first goes on: the server gets it in full and holds it; nothing of it ended. */
    g_assert_true(rig_wait(server_holding, &fixture.server, WAIT_MS));
    g_assert_null(first.outcome.result);
    for (guint i = 0; i < log->len; i++) g_assert_false(g_str_has_prefix(g_ptr_array_index(log, i), "failed"));
    g_cancellable_cancel(fixture.server.release);
    VnPayload *payload = upload_finish(fixture.uploader, &first, &error);
    g_assert_no_error(error);
    expect_uploaded(payload);
    g_assert_cmpstr(g_ptr_array_index(log, log->len - 1), ==, "completed 1");
    g_object_unref(payload);
    fixture_stop(&fixture);
    g_ptr_array_unref(log);
}

static void dispose_uploader(VnUploader *uploader, guint id, VnPayload *payload, gpointer data) {
    (void)id, (void)payload, (void)data;
    g_object_run_dispose(G_OBJECT(uploader));
}

static void test_disposed(void) {
    Fixture fixture;
    fixture_start(&fixture, TRUE);
    Upload upload = {0};
    upload_start(fixture.uploader, NULL, &upload);
    g_assert_true(rig_wait(server_holding, &fixture.server, WAIT_MS));
    g_object_run_dispose(G_OBJECT(fixture.uploader));
    GError *error = NULL;
    g_assert_null(upload_finish(fixture.uploader, &upload, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_CANCELLED);
    g_clear_error(&error);
    g_assert_true(rig_wait(server_saw_close, &fixture.server, WAIT_MS));
    fixture_stop(&fixture);

    /* A `completed` handler that disposes the uploader leaves the upload's own outcome to its callback. */
    fixture_start(&fixture, FALSE);
    g_signal_connect(fixture.uploader, "completed", G_CALLBACK(dispose_uploader), NULL);
    upload_start(fixture.uploader, NULL, &upload);
    VnPayload *payload = upload_finish(fixture.uploader, &upload, &error);
    g_assert_no_error(error);
    expect_uploaded(payload);
    g_object_unref(payload);
    fixture_stop(&fixture);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-upload-async-XXXXXX", &error);
    g_assert_no_error(error);
    note_path = notes_make(directory, "note", "A voice note to upload.");
    g_test_add_func("/upload-async/completed", test_completed);
    g_test_add_func("/upload-async/cancelled", test_cancelled);
    g_test_add_func("/upload-async/already-cancelled", test_already_cancelled);
    g_test_add_func("/upload-async/refused", test_refused);
    g_test_add_func("/upload-async/busy", test_busy);
    g_test_add_func("/upload-async/disposed", test_disposed);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(note_path);
    return status;
}
