/*
 * vn-audio-info.c: VnAudioInfo and vng_audio_info_read_async()/_finish(): vn_audio_info_source() on a worker thread
 * (vn-source-task.c).
 */
#include "vn-audio-info.h"

#include "vn-source-task.h"

/* Registered by hand: G_DEFINE_BOXED_TYPE's transparent-union arguments are not ISO C (-Wpedantic). */
GType vng_audio_info_get_type(void) {
    static gsize type_once = 0;
    if (g_once_init_enter(&type_once)) {
        GType type = g_boxed_type_register_static(g_intern_static_string("VnAudioInfo"),
                                                  (GBoxedCopyFunc)vng_audio_info_copy,
                                                  (GBoxedFreeFunc)vng_audio_info_free);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

VnAudioInfo *vng_audio_info_copy(const VnAudioInfo *info) {
    g_return_val_if_fail(info != NULL, NULL);
    VnAudioInfo *copy = g_new(VnAudioInfo, 1);
    *copy = *info;
    copy->codec = g_strdup(info->codec);
    return copy;
}

void vng_audio_info_free(VnAudioInfo *info) {
    if (info == NULL) return;
    g_free(info->codec);
    g_free(info);
}

/* The GTasks' source tag (ISO C gives no function pointer as a gpointer). */
static gchar audio_info_tag[] = "vng_audio_info_read_async";

static int read_audio_info(vn_source *source, gpointer data) {
    vn_audio_info *info = data;
    info->size = sizeof *info;
    return vn_audio_info_source(source, info);
}

void vng_audio_info_read_async(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data) {
    g_return_if_fail(location != NULL);
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    g_return_if_fail(cancellable == NULL || G_IS_CANCELLABLE(cancellable));
    vng_source_task_start(location, http_options, cancellable, callback, user_data, audio_info_tag, read_audio_info,
                          g_new0(vn_audio_info, 1), g_free);
}

VnAudioInfo *vng_audio_info_read_finish(GAsyncResult *result, GError **error) {
    const vn_audio_info *facts = vng_source_task_finish(result, audio_info_tag, error);
    if (facts == NULL) return NULL;
    VnAudioInfo *info = g_new0(VnAudioInfo, 1);
    info->duration = facts->duration_s;
    info->duration_is_estimate = facts->duration_is_estimate != 0;
    info->sample_rate = facts->sample_rate;
    info->channels = facts->channels;
    info->bitrate = facts->bitrate;
    /* The library's codec field is NUL-terminated within its 32 bytes. */
    info->codec = g_strndup(facts->codec, sizeof facts->codec);
    return info;
}
