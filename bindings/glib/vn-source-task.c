/*
 * vn-source-task.c: a location read by one blocking libvoicenote call on a GTask worker thread, cancelled through
 * vn_source_cancel() (vn-source-task.h).
 */
#include "vn-source-task.h"

#include "vn-error.h"
#include "vn-handles.h"

/* What the worker thread reads: the location and the call, with the caller's data (the task data). */
typedef struct {
    gchar *location;
    vn_http_options *http; /* the caller's options as they were at the call */
    VngSourceRead read;
} SourceJob;

static void source_job_free(gpointer data) {
    SourceJob *job = data;
    g_free(job->location);
    vn_http_options_destroy(job->http);
    g_free(job);
}

/* Opens a location: http(s) URLs through the network (and the media cache), `file://` URLs and paths as files;
 * any other scheme is VN_ERROR_UNSUPPORTED before anything is opened. */
static vn_source *open_location(const gchar *location, const vn_http_options *http, GError **error) {
    vn_source *source = NULL;
    const gchar *scheme = g_uri_peek_scheme(location);
    if (scheme != NULL && (strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0)) {
        if (!vng_error_set_from_status(error, vn_source_create_url(location, http, &source))) return NULL;
        return source;
    }
    if (scheme != NULL && strcmp(scheme, "file") != 0) {
        g_set_error(error, VN_ERROR, VN_ERROR_UNSUPPORTED, "voicenote reads files and http(s) URLs, not %s: URLs",
                    scheme);
        return NULL;
    }
    gchar *path = scheme != NULL ? g_filename_from_uri(location, NULL, NULL) : g_strdup(location);
    if (path == NULL) {
        g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "not a local file: URL: %s", location);
        return NULL;
    }
    int status = vn_source_create_file(path, &source);
    g_free(path);
    if (!vng_error_set_from_status(error, status)) return NULL;
    return source;
}

/* A cancel handler; may run on any thread (the canceller's), or at once in g_cancellable_connect(). The source
 * outlives it: the worker disconnects (which waits for a handler in progress) before destroying the source. */
static void cancel_source(GCancellable *cancellable, gpointer source) {
    (void)cancellable;
    vn_source_cancel(source);
}

static void run_source_job(GTask *task, gpointer object, gpointer task_data, GCancellable *cancellable) {
    (void)object;
    const SourceJob *job = g_object_get_data(G_OBJECT(task), "vng-source-job");
    GError *error = NULL;
    /* Cancelled before anything started: no file opened, no request made. */
    if (g_cancellable_set_error_if_cancelled(cancellable, &error)) {
        g_task_return_error(task, error);
        return;
    }
    vn_source *source = open_location(job->location, job->http, &error);
    if (source == NULL) {
        g_task_return_error(task, error);
        return;
    }
    gulong handler = cancellable != NULL ? g_cancellable_connect(cancellable, G_CALLBACK(cancel_source), source, NULL)
                                         : 0;
    int status = job->read(source, task_data);
    /* A cancel through the cancellable is GIO's G_IO_ERROR_CANCELLED, not VN_ERROR; any other failure's message is
     * this thread's, left by the failing call: taken before any other vn_ call. */
    if (status != VN_E_CANCELLED || !g_cancellable_set_error_if_cancelled(cancellable, &error)) {
        vng_error_set_from_status(&error, status);
    }
    if (handler != 0) g_cancellable_disconnect(cancellable, handler);
    vn_source_destroy(source);
    if (error != NULL) {
        g_task_return_error(task, error);
    } else {
        g_task_return_boolean(task, TRUE);
    }
}

void vng_source_task_start(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data, gpointer source_tag, VngSourceRead read,
                           gpointer data, GDestroyNotify free_data) {
    GTask *task = g_task_new(NULL, cancellable, callback, user_data);
    g_task_set_source_tag(task, source_tag);
    g_task_set_task_data(task, data, free_data);
    SourceJob *job = g_new0(SourceJob, 1);
    job->location = g_strdup(location);
    job->http = vng_http_options_create_handle(http_options);
    job->read = read;
    g_object_set_data_full(G_OBJECT(task), "vng-source-job", job, source_job_free);
    g_task_run_in_thread(task, run_source_job);
    g_object_unref(task);
}

gpointer vng_source_task_finish(GAsyncResult *result, gpointer source_tag, GError **error) {
    g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
    g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == source_tag, NULL);
    if (!g_task_propagate_boolean(G_TASK(result), error)) return NULL;
    return g_task_get_task_data(G_TASK(result));
}
