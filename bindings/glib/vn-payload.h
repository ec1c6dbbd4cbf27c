/*
 * vn-payload.h: VnPayload, libvoicenote's attachment payload (Stream's `voiceRecording` attachment, Matrix's m.audio
 * voice message content) as a GObject with properties.
 */
#ifndef VOICENOTE_GLIB_PAYLOAD_H
#define VOICENOTE_GLIB_PAYLOAD_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VNG_TYPE_PAYLOAD:
 *
 * The #GType of [class@Voicenote.Payload].
 */
#define VNG_TYPE_PAYLOAD (vng_payload_get_type())

/**
 * VnPayload:
 *
 * A voice message's attachment payload: Stream's `voiceRecording` attachment object (`type`, `title`, `asset_url`,
 * `file_size`, `mime_type`, `duration`, `waveform_data`, any other key kept as extra data, every key in its place
 * and every value exact when read and written back), which also reads and writes Matrix's `m.audio` voice message
 * content (MSC3245, with MSC1767's duration and waveform).
 *
 * Made from JSON ([ctor@Voicenote.Payload.new_from_json], [ctor@Voicenote.Payload.new_from_matrix_content]), from a
 * recorded file ([ctor@Voicenote.Payload.new_from_recording]) or from an asset URL ([ctor@Voicenote.Payload.new]);
 * written with [method@Voicenote.Payload.to_json] and [method@Voicenote.Payload.to_matrix_content]. Setting a property
 * changes the payload and notifies when the value differs. No events and no threads: one thread uses a payload at a
 * time.
 */
G_DECLARE_FINAL_TYPE(VnPayload, vng_payload, VNG, PAYLOAD, GObject)

/**
 * vng_payload_new:
 * @asset_url: an absolute URL (`https://…`, `mxc://…`, `file://…`).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a payload with the attachment type "voiceRecording" and an asset URL, nothing else.
 *
 * Returns: (transfer full) (nullable): the payload, or %NULL with @error set (%VN_ERROR_INVALID_ARG for a relative
 *   URL).
 */
VnPayload *vng_payload_new(const gchar *asset_url, GError **error);

/**
 * vng_payload_new_from_json:
 * @json: a `voiceRecording` attachment object as JSON text (at most 1 MiB); only `asset_url` is required.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Reads a Stream attachment payload.
 *
 * Returns: (transfer full) (nullable): the payload, or %NULL with @error set: %VN_ERROR_FORMAT for text that is not
 *   JSON, not an object, lacks an absolute `asset_url` or has a known key of the wrong type; %VN_ERROR_TOO_LARGE.
 */
VnPayload *vng_payload_new_from_json(const gchar *json, GError **error);

/**
 * vng_payload_new_from_matrix_content:
 * @content_json: a received Matrix `m.audio` message content as JSON text.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Reads a Matrix audio message: [property@Voicenote.Payload:asset-url] its `url` (an `mxc://` URI),
 * [property@Voicenote.Payload:title] its `body`, the MIME type and size from `info`, the duration in seconds and the
 * waveform (decoded to 0…1) from `org.matrix.msc1767.audio`. Other keys are not kept.
 * [property@Voicenote.Payload:is-voice] says whether the content was marked a voice message.
 *
 * Returns: (transfer full) (nullable): the payload, or %NULL with @error set (%VN_ERROR_FORMAT for anything but an
 *   `m.audio` content with an `mxc://` URL and fields of the right types).
 */
VnPayload *vng_payload_new_from_matrix_content(const gchar *content_json, GError **error);

/**
 * vng_payload_new_from_recording:
 * @path: a recorded file (UTF-8 path).
 * @duration: its duration in seconds (a recorder's [signal@Voicenote.Recorder::finished] gives it), or a negative
 *   number to read it from the file.
 * @waveform: (array length=n_levels) (nullable): its waveform levels 0…1, or %NULL to compute 100 from the file.
 * @n_levels: how many levels @waveform holds.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The payload of a finished recording before upload: the title is the file name, the asset URL its `file://` URL,
 * the size read from disk, the MIME type from the extension, and the duration and waveform. Reading the duration or
 * computing the waveform decodes the file on the calling thread.
 *
 * Returns: (transfer full) (nullable): the payload, or %NULL with @error set: %VN_ERROR_NOT_FOUND,
 *   %VN_ERROR_PERMISSION, %VN_ERROR_FORMAT (not audio), %VN_ERROR_INVALID_ARG (a directory, NaN or infinite
 *   values).
 */
VnPayload *vng_payload_new_from_recording(const gchar *path, gdouble duration, const gfloat *waveform,
                                          gsize n_levels, GError **error);

/**
 * vng_payload_to_json:
 * @self: the payload.
 * @indent: 0 for compact text, else spaces per level (at most 16).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Writes the payload as a Stream attachment object: its keys in their order (a new payload: `type`, `title`,
 * `asset_url`, `file_size`, `mime_type`, `duration`, `waveform_data`, then the extra data); absent values left out.
 *
 * Returns: (transfer full) (nullable): the JSON text, or %NULL with @error set (%VN_ERROR_INVALID_ARG for an
 *   indent outside 0…16).
 */
gchar *vng_payload_to_json(VnPayload *self, gint indent, GError **error);

/**
 * vng_payload_to_matrix_content:
 * @self: the payload.
 * @body: (nullable): the text clients without voice messages show, or %NULL for "Voice message".
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Writes the content of a Matrix voice message, as Element sends one: `msgtype` `m.audio`, `body`, `url` (the asset
 * URL), `info` (duration in milliseconds, MIME type, size), `org.matrix.msc1767.audio` (duration, and the waveform
 * as 100 integers 0…1024) and `org.matrix.msc3245.voice`.
 *
 * Returns: (transfer full) (nullable): the content as compact JSON, or %NULL with @error set
 *   (%VN_ERROR_INVALID_ARG when the asset URL is not an `mxc://<server>/<media id>` URI or the duration is missing).
 */
gchar *vng_payload_to_matrix_content(VnPayload *self, const gchar *body, GError **error);

/**
 * vng_payload_get_attachment_type:
 * @self: the payload.
 *
 * The payload's `type` ([property@Voicenote.Payload:attachment-type]).
 *
 * Returns: (transfer full) (nullable): the type, normally "voiceRecording", or %NULL when it has none.
 */
gchar *vng_payload_get_attachment_type(VnPayload *self);

/**
 * vng_payload_get_title:
 * @self: the payload.
 *
 * The payload's `title` ([property@Voicenote.Payload:title]).
 *
 * Returns: (transfer full) (nullable): the title, or %NULL when it has none.
 */
gchar *vng_payload_get_title(VnPayload *self);

/**
 * vng_payload_get_asset_url:
 * @self: the payload.
 *
 * The payload's `asset_url` ([property@Voicenote.Payload:asset-url]), always present.
 *
 * Returns: (transfer full): the URL.
 */
gchar *vng_payload_get_asset_url(VnPayload *self);

/**
 * vng_payload_get_mime_type:
 * @self: the payload.
 *
 * The payload's `mime_type` ([property@Voicenote.Payload:mime-type]).
 *
 * Returns: (transfer full) (nullable): the MIME type, or %NULL when it has none.
 */
gchar *vng_payload_get_mime_type(VnPayload *self);

/**
 * vng_payload_get_file_size:
 * @self: the payload.
 *
 * The payload's `file_size` in bytes ([property@Voicenote.Payload:file-size]).
 *
 * Returns: the size, or -1 when it has none.
 */
gint64 vng_payload_get_file_size(VnPayload *self);

/**
 * vng_payload_get_duration:
 * @self: the payload.
 *
 * The payload's `duration` in seconds ([property@Voicenote.Payload:duration]).
 *
 * Returns: the duration, or -1 when it has none.
 */
gdouble vng_payload_get_duration(VnPayload *self);

/**
 * vng_payload_get_waveform:
 * @self: the payload.
 * @n_values: (out): receives how many values there are (0 when it has none).
 *
 * The payload's `waveform_data`: levels 0…1, as doubles so that they round-trip exactly.
 *
 * Returns: (transfer full) (array length=n_values) (nullable): the values (free with [func@GLib.free]), or %NULL when
 *   it has none.
 */
gdouble *vng_payload_get_waveform(VnPayload *self, gsize *n_values);

/**
 * vng_payload_get_extra_data:
 * @self: the payload.
 *
 * Every member whose key is not a known one, in order, as a JSON object ([property@Voicenote.Payload:extra-data]).
 *
 * Returns: (transfer full): the JSON object text, `{}` when there is none.
 */
gchar *vng_payload_get_extra_data(VnPayload *self);

/**
 * vng_payload_get_is_voice:
 * @self: the payload.
 *
 * Whether the Matrix content it was read from was marked a voice message ([property@Voicenote.Payload:is-voice]).
 *
 * Returns: %TRUE for a content with `org.matrix.msc3245.voice`; %FALSE for one without, or a payload made
 *   otherwise.
 */
gboolean vng_payload_get_is_voice(VnPayload *self);

/**
 * vng_payload_set_text:
 * @self: the payload.
 * @property: the name of a text property: "attachment-type", "title", "asset-url" or "mime-type".
 * @text: (nullable): the new text, or %NULL to remove the value (not for "asset-url").
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets one of the text fields, notifying the property when the value differs. An existing key keeps its place in
 * the JSON; a new one goes to its place among the known keys.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for another property name, invalid UTF-8, or a
 *   relative or %NULL asset URL.
 */
gboolean vng_payload_set_text(VnPayload *self, const gchar *property, const gchar *text, GError **error);

/**
 * vng_payload_set_file_size:
 * @self: the payload.
 * @bytes: the size in bytes, or a negative number to remove it.
 *
 * Sets `file_size` ([property@Voicenote.Payload:file-size]), notifying when the value differs.
 */
void vng_payload_set_file_size(VnPayload *self, gint64 bytes);

/**
 * vng_payload_set_duration:
 * @self: the payload.
 * @seconds: the duration, or a negative number to remove it.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets `duration` ([property@Voicenote.Payload:duration]), notifying when the value differs.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for NaN or infinity).
 */
gboolean vng_payload_set_duration(VnPayload *self, gdouble seconds, GError **error);

/**
 * vng_payload_set_waveform:
 * @self: the payload.
 * @values: (array length=n_values) (nullable): the levels (copied), or %NULL to remove them.
 * @n_values: how many (at most 1048576).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets `waveform_data`.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for NaN or infinite values, or too many).
 */
gboolean vng_payload_set_waveform(VnPayload *self, const gdouble *values, gsize n_values, GError **error);

/**
 * vng_payload_set_extra_data:
 * @self: the payload.
 * @json: (nullable): a JSON object of keys that are not known ones, or %NULL for none.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Replaces the extra data ([property@Voicenote.Payload:extra-data]): a key kept stays in its place, a key dropped goes,
 * a new key is added at the end.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_FORMAT when @json is not a JSON object,
 *   %VN_ERROR_INVALID_ARG when it holds a known key.
 */
gboolean vng_payload_set_extra_data(VnPayload *self, const gchar *json, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_PAYLOAD_H */
