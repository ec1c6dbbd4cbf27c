/*
 * vn-convert.c: vng_convert_async()/_finish(): vn_convert_source() on a worker thread (vn-source-task.c), with the
 * caller's encoder and HTTP options as they were at the call.
 */
#include "vn-convert.h"

#include "vn-error.h"
#include "vn-handles.h"
#include "vn-source-task.h"

/* The GTasks' source tag (ISO C gives no function pointer as a gpointer). */
static gchar convert_tag[] = "vng_convert_async";

/* The task data: where to write, how, and the new note's length once written. */
typedef struct {
    gchar *out_path;
    vn_convert_options *options;
    gdouble duration;
} ConvertJob;

static void convert_job_free(gpointer data) {
    ConvertJob *job = data;
    g_free(job->out_path);
    vn_convert_options_destroy(job->options);
    g_free(job);
}

static int read_and_convert(vn_source *source, gpointer data) {
    ConvertJob *job = data;
    return vn_convert_source(source, job->out_path, job->options, &job->duration);
}

/* The options for `rate` and the encoder options as they are now, or NULL with @error set (the library checks the
 * range). */
static vn_convert_options *convert_options(gdouble rate, VnEncoderOptions *encoder_options, GError **error) {
    vn_convert_options *options = NULL;
    if (!vng_error_set_from_status(error, vn_convert_options_create(&options))) return NULL;
    if (!vng_error_set_from_status(error, vn_convert_options_set_rate(options, rate)) ||
        !vng_encoder_options_apply(encoder_options, options, error)) {
        vn_convert_options_destroy(options);
        return NULL;
    }
    return options;
}

void vng_convert_async(const gchar *location, const gchar *out_path, gdouble rate, VnEncoderOptions *encoder_options,
                       VnHttpOptions *http_options, GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data) {
    g_return_if_fail(location != NULL);
    g_return_if_fail(out_path != NULL);
    g_return_if_fail(encoder_options == NULL || VNG_IS_ENCODER_OPTIONS(encoder_options));
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    GError *error = NULL;
    vn_convert_options *options = convert_options(rate, encoder_options, &error);
    if (options == NULL) {
        g_task_report_error(NULL, callback, user_data, convert_tag, error);
        return;
    }
    ConvertJob *job = g_new0(ConvertJob, 1);
    job->out_path = g_strdup(out_path);
    job->options = options;
    vng_source_task_start(location, http_options, cancellable, callback, user_data, convert_tag, read_and_convert, job,
                          convert_job_free);
}

gboolean vng_convert_finish(GAsyncResult *result, gdouble *duration, GError **error) {
    if (duration != NULL) *duration = 0;
    const ConvertJob *job = vng_source_task_finish(result, convert_tag, error);
    if (job == NULL) return FALSE;
    if (duration != NULL) *duration = job->duration;
    return TRUE;
}
