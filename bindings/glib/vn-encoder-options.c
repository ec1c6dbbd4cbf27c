/*
 * vn-encoder-options.c: VnEncoderOptions, a format and encoder checked by libvoicenote as they are set and kept, to
 * be applied to each call's own options (vn-encoder-options.h, vn-handles.h).
 */
#include "vn-encoder-options.h"

#include "vn-error.h"
#include "vn-handles.h"

/* libvoicenote's defaults (vn_convert_options_create). */
#define DEFAULT_BITRATE 32000
#define DEFAULT_COMPLEXITY 10
#define DEFAULT_FRAME_MS 20.0

struct _VnEncoderOptions {
    GObject parent_instance;
    vn_convert_options *checker; /* where each value is tried first: the library's check and message */
    VnRecordingFormat format;
    gint bitrate;
    gint complexity;
    gdouble frame_duration;
};

G_DEFINE_FINAL_TYPE(VnEncoderOptions, vng_encoder_options, G_TYPE_OBJECT)

GType vng_recording_format_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_RECORDING_FORMAT_OPUS, "VN_RECORDING_FORMAT_OPUS", "opus"},
        {VN_RECORDING_FORMAT_AAC, "VN_RECORDING_FORMAT_AAC", "aac"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnRecordingFormat"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

static void vng_encoder_options_finalize(GObject *object) {
    vn_convert_options_destroy(VNG_ENCODER_OPTIONS(object)->checker);
    G_OBJECT_CLASS(vng_encoder_options_parent_class)->finalize(object);
}

static void vng_encoder_options_class_init(VnEncoderOptionsClass *klass) {
    G_OBJECT_CLASS(klass)->finalize = vng_encoder_options_finalize;
}

static void vng_encoder_options_init(VnEncoderOptions *self) {
    /* Only a NULL out or no memory fail, neither of which can happen here (GLib aborts without memory). */
    if (vn_convert_options_create(&self->checker) != VN_OK) g_error("vn_convert_options_create failed");
    self->format = VN_RECORDING_FORMAT_OPUS;
    self->bitrate = DEFAULT_BITRATE;
    self->complexity = DEFAULT_COMPLEXITY;
    self->frame_duration = DEFAULT_FRAME_MS;
}

VnEncoderOptions *vng_encoder_options_new(void) {
    return g_object_new(VNG_TYPE_ENCODER_OPTIONS, NULL);
}

gboolean vng_encoder_options_set_format(VnEncoderOptions *self, VnRecordingFormat format, GError **error) {
    g_return_val_if_fail(VNG_IS_ENCODER_OPTIONS(self), FALSE);
    if (!vng_error_set_from_status(error, vn_convert_options_set_format(self->checker, (int)format))) return FALSE;
    self->format = format;
    return TRUE;
}

gboolean vng_encoder_options_set_encoder(VnEncoderOptions *self, gint bitrate, gint complexity,
                                         gdouble frame_duration, GError **error) {
    g_return_val_if_fail(VNG_IS_ENCODER_OPTIONS(self), FALSE);
    if (!vng_error_set_from_status(error, vn_convert_options_set_encoder(self->checker, bitrate, complexity,
                                                                         frame_duration)))
        return FALSE;
    self->bitrate = bitrate;
    self->complexity = complexity;
    self->frame_duration = frame_duration;
    return TRUE;
}

gboolean vng_encoder_options_apply(VnEncoderOptions *options, vn_convert_options *convert, GError **error) {
    return options == NULL ||
           (vng_error_set_from_status(error, vn_convert_options_set_format(convert, (int)options->format)) &&
            vng_error_set_from_status(error, vn_convert_options_set_encoder(convert, options->bitrate,
                                                                            options->complexity,
                                                                            options->frame_duration)));
}

gboolean vng_encoder_options_apply_to_recorder(VnEncoderOptions *options, vn_recorder_options *recorder,
                                               GError **error) {
    return options == NULL ||
           (vng_error_set_from_status(error, vn_recorder_options_set_format(recorder, (int)options->format)) &&
            vng_error_set_from_status(error, vn_recorder_options_set_encoder(recorder, options->bitrate,
                                                                             options->complexity,
                                                                             options->frame_duration)));
}
