/*
 * vn-waveform.c: vng_waveform_async()/_finish(): vn_waveform_source() on a worker thread (vn-source-task.c).
 */
#include "vn-waveform.h"

#include "vn-error.h"
#include "vn-source-task.h"

/* The GTasks' source tag (ISO C gives no function pointer as a gpointer). */
static gchar waveform_tag[] = "vng_waveform_async";

/* The task data: the values asked for, filled by the worker. */
typedef struct {
    gsize samples;
    gfloat *values;
} WaveformJob;

static void waveform_job_free(gpointer data) {
    WaveformJob *job = data;
    g_free(job->values);
    g_free(job);
}

static int read_waveform(vn_source *source, gpointer data) {
    WaveformJob *job = data;
    size_t count = 0;
    return vn_waveform_source(source, job->samples, job->values, job->samples, &count);
}

void vng_waveform_async(const gchar *location, guint samples, VnHttpOptions *http_options, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(location != NULL);
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    /* Checked before the buffer is allocated: the count becomes a size. */
    if (samples == 0 || samples > VN_WAVEFORM_MAX_SAMPLES) {
        g_task_report_new_error(NULL, callback, user_data, waveform_tag, VN_ERROR, VN_ERROR_INVALID_ARG,
                                "a waveform has 1…%d samples, not %u", VN_WAVEFORM_MAX_SAMPLES, samples);
        return;
    }
    WaveformJob *job = g_new0(WaveformJob, 1);
    job->samples = samples;
    job->values = g_new0(gfloat, samples);
    vng_source_task_start(location, http_options, cancellable, callback, user_data, waveform_tag, read_waveform, job,
                          waveform_job_free);
}

gfloat *vng_waveform_finish(GAsyncResult *result, gsize *n_values, GError **error) {
    g_return_val_if_fail(n_values != NULL, NULL);
    *n_values = 0;
    WaveformJob *job = vng_source_task_finish(result, waveform_tag, error);
    if (job == NULL) return NULL;
    *n_values = job->samples;
    return g_steal_pointer(&job->values);
}
