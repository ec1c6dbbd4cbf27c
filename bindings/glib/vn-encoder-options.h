/*
 * vn-encoder-options.h: the format and encoder a note is written with (for now by vng_convert_async()).
 */
#ifndef VOICENOTE_GLIB_ENCODER_OPTIONS_H
#define VOICENOTE_GLIB_ENCODER_OPTIONS_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VnRecordingFormat:
 * @VN_RECORDING_FORMAT_OPUS: Ogg Opus, `.ogg`, `audio/ogg` (the default).
 * @VN_RECORDING_FORMAT_AAC: AAC-LC in ADTS, `.aac`, `audio/aac` (what Stream's iOS and Android apps send).
 *
 * The file formats libvoicenote writes (its `vn_recording_format`, same values).
 */
typedef enum {
    VN_RECORDING_FORMAT_OPUS = 0,
    VN_RECORDING_FORMAT_AAC = 1
} VnRecordingFormat;

GType vng_recording_format_get_type(void);
#define VNG_TYPE_RECORDING_FORMAT (vng_recording_format_get_type())

#define VNG_TYPE_ENCODER_OPTIONS (vng_encoder_options_get_type())
G_DECLARE_FINAL_TYPE(VnEncoderOptions, vng_encoder_options, VNG, ENCODER_OPTIONS, GObject)

/**
 * VnEncoderOptions:
 *
 * How a note is encoded: its format and the encoder's bitrate, complexity and frame duration. Made with
 * libvoicenote's defaults: Ogg Opus at 32 kbit/s, complexity 10, 20 ms frames. Each setter checks its values with
 * the library at once and fails with a %VN_ERROR error, the options unchanged. A call given the options
 * ([func@Voicenote.convert_async]) takes them as they are then. One thread changes an options object at a time.
 */

/**
 * vng_encoder_options_new:
 *
 * Makes encoder options with libvoicenote's defaults.
 *
 * Returns: (transfer full): the options.
 */
VnEncoderOptions *vng_encoder_options_new(void);

/**
 * vng_encoder_options_set_format:
 * @self: the options.
 * @format: the format written.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets the format written.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for a value that is no
 *   [enum@Voicenote.RecordingFormat]).
 */
gboolean vng_encoder_options_set_format(VnEncoderOptions *self, VnRecordingFormat format, GError **error);

/**
 * vng_encoder_options_set_encoder:
 * @self: the options.
 * @bitrate: bits per second, 6000…256000.
 * @complexity: Opus complexity 0…10 (not used for AAC).
 * @frame_duration: Opus frame duration in milliseconds: 2.5, 5, 10, 20, 40 or 60 (not used for AAC).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets the encoder.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG, naming the allowed values, for a value out of
 *   range).
 */
gboolean vng_encoder_options_set_encoder(VnEncoderOptions *self, gint bitrate, gint complexity,
                                         gdouble frame_duration, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_ENCODER_OPTIONS_H */
