/*
 * vn-uploader.h: VnUploader, libvoicenote's uploader (Stream's multipart file upload, Matrix's media upload) as a
 * GObject: each upload has an id, its progress and outcome come as signals on the thread-default main context of
 * the thread that made it.
 */
#ifndef VOICENOTE_GLIB_UPLOADER_H
#define VOICENOTE_GLIB_UPLOADER_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-payload.h"

G_BEGIN_DECLS

/**
 * VnUploadMode:
 * @VN_UPLOAD_MODE_MULTIPART: multipart/form-data, Stream's `POST /channels/{type}/{id}/file`; the response's
 *   `file` is the uploaded URL (`VN_UPLOAD_MULTIPART`).
 * @VN_UPLOAD_MODE_RAW: the bare body, Matrix's `/_matrix/media/v3/upload`; the response's `content_uri` is the
 *   uploaded `mxc://` URI (`VN_UPLOAD_RAW`).
 * @VN_UPLOAD_MODE_MATRIX: Matrix's upload to a content URI created first (MSC2246): the endpoint is the
 *   homeserver's base URL; the `mxc://` URI is reserved, then the bytes are put there with their length
 *   (`VN_UPLOAD_MATRIX`).
 * @VN_UPLOAD_MODE_TUS: tus 1.0.0, the resumable-upload protocol: the endpoint is the server's creation URL; the
 *   upload's URL is the uploaded one (`VN_UPLOAD_TUS`).
 *
 * How a [class@Voicenote.Uploader] frames its uploads: libvoicenote's `vn_upload_mode` values, the same numbers.
 */
typedef enum {
    VN_UPLOAD_MODE_MULTIPART = VN_UPLOAD_MULTIPART,
    VN_UPLOAD_MODE_RAW = VN_UPLOAD_RAW,
    VN_UPLOAD_MODE_MATRIX = VN_UPLOAD_MATRIX,
    VN_UPLOAD_MODE_TUS = VN_UPLOAD_TUS
} VnUploadMode;

/**
 * VNG_TYPE_UPLOAD_MODE:
 *
 * The #GType of [enum@Voicenote.UploadMode].
 */
#define VNG_TYPE_UPLOAD_MODE (vng_upload_mode_get_type())

/**
 * vng_upload_mode_get_type:
 *
 * Registers (once) and returns the enum type of [enum@Voicenote.UploadMode].
 *
 * Returns: the #GType of [enum@Voicenote.UploadMode].
 */
GType vng_upload_mode_get_type(void) G_GNUC_CONST;

/**
 * VNG_TYPE_UPLOADER:
 *
 * The #GType of [class@Voicenote.Uploader].
 */
#define VNG_TYPE_UPLOADER (vng_uploader_get_type())

/**
 * VnUploader:
 *
 * Uploads voice notes to an http(s) endpoint with libvoicenote's uploader, one at a time, on the library's threads.
 * Each upload started gets an id (1, 2, …); its [signal@Voicenote.Uploader::progress] steps, then
 * [signal@Voicenote.Uploader::completed] with the uploaded payload or [signal@Voicenote.Uploader::failed] with a
 * [struct@GLib.Error], arrive on the thread-default [struct@GLib.MainContext] of the thread that made the uploader
 * (through the context's one voicenote event source), in order. The local file is never changed or deleted.
 *
 * The endpoint, mode, headers, HTTP options and limits are construct-only properties. Disposing it (the last unref, or
 * [method@GObject.Object.run_dispose]) ends its subscription first, then destroys the uploader, cancelling a running
 * upload: no signal of it runs afterwards. Methods may be called from any thread.
 */
G_DECLARE_FINAL_TYPE(VnUploader, vng_uploader, VNG, UPLOADER, GObject)

/**
 * vng_uploader_new:
 * @endpoint: the http(s) URL uploads go to (Stream:
 *   `https://chat.stream-io-api.com/channels/{type}/{id}/file?api_key=…`;
 *   Matrix: `https://{homeserver}/_matrix/media/v3/upload`).
 * @mode: how uploads are framed.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes an uploader with the default headers (none) and limits (100 MiB, type "voiceRecording"); for headers
 * (`Authorization`) and the rest, [func@Gio.Initable.new] with [property@Voicenote.Uploader:headers],
 * [property@Voicenote.Uploader:url-key], [property@Voicenote.Uploader:attachment-type],
 * [property@Voicenote.Uploader:max-bytes] and [property@Voicenote.Uploader:http-options].
 *
 * Returns: (transfer full) (nullable): the uploader, or %NULL with @error set (%VN_ERROR_INVALID_ARG for an
 *   endpoint that is not an http(s) URL).
 */
VnUploader *vng_uploader_new(const gchar *endpoint, VnUploadMode mode, GError **error);

/**
 * vng_uploader_upload_file:
 * @self: the uploader.
 * @location: a path or a `file://` URL (UTF-8).
 * @payload: (nullable): the payload to complete (for example [ctor@Voicenote.Payload.new_from_recording] with the
 *   recorder's duration and waveform; copied), or %NULL to make it from the file.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Starts uploading a file and returns at once. What comes of it arrives as signals carrying the id returned.
 *
 * Returns: the upload's id (1 or more), or 0 with @error set: %VN_ERROR_BUSY while an upload runs;
 *   %VN_ERROR_NOT_FOUND, %VN_ERROR_PERMISSION, %VN_ERROR_INVALID_ARG (a directory, another URL scheme),
 *   %VN_ERROR_UNSUPPORTED or %VN_ERROR_TOO_LARGE for the file; %VN_ERROR_MISUSE after dispose.
 */
guint vng_uploader_upload_file(VnUploader *self, const gchar *location, VnPayload *payload, GError **error);

/**
 * vng_uploader_upload_bytes:
 * @self: the uploader.
 * @bytes: what to upload: for a Matrix encrypted room, the ciphertext the client made of the note (the encryption
 *   and the `file` object of the event are the client's; the library sends the bytes as they are). Copied.
 * @file_name: the name it is sent under (UTF-8, not empty).
 * @mime_type: (nullable): its MIME type (`application/octet-stream` for ciphertext), or %NULL for the one of
 *   @file_name's extension.
 * @payload: (nullable): the payload to complete (copied), or %NULL for one with the name, size and MIME type.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Starts uploading bytes the application holds and returns at once, as [method@Voicenote.Uploader.upload_file]
 * uploads a file: what comes of it arrives as signals carrying the id returned, and
 * [method@Voicenote.Uploader.retry] sends the same bytes again.
 *
 * Returns: the upload's id (1 or more), or 0 with @error set: %VN_ERROR_BUSY while an upload runs,
 *   %VN_ERROR_TOO_LARGE over the uploader's limit, %VN_ERROR_INVALID_ARG for an empty @file_name,
 *   %VN_ERROR_MISUSE after dispose.
 */
guint vng_uploader_upload_bytes(VnUploader *self, GBytes *bytes, const gchar *file_name, const gchar *mime_type,
                                VnPayload *payload, GError **error);

/**
 * vng_uploader_retry:
 * @self: the uploader.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sends the last upload again, after it failed or was cancelled, as a new upload with a new id.
 *
 * Returns: the new upload's id, or 0 with @error set (%VN_ERROR_MISUSE when the last upload did not fail or after
 *   dispose).
 */
guint vng_uploader_retry(VnUploader *self, GError **error);

/**
 * vng_uploader_cancel:
 * @self: the uploader.
 * @id: an upload's id.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Cancels the upload @id when it is still running: it ends with [signal@Voicenote.Uploader::failed] and
 * %VN_ERROR_CANCELLED (unless it ended first). An upload that already ended, or an id never given, is left alone (a
 * later upload is never cancelled by an earlier id).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_uploader_cancel(VnUploader *self, guint id, GError **error);

/**
 * vng_uploader_upload_async:
 * @self: the uploader.
 * @location: a path or a `file://` URL (UTF-8).
 * @payload: (nullable): the payload to complete (copied), or %NULL to make it from the file, as for
 *   [method@Voicenote.Uploader.upload_file].
 * @cancellable: (nullable): cancels the upload in the library, or %NULL.
 * @callback: (scope async): called with the result, on the thread-default [struct@GLib.MainContext] of the calling
 *   thread.
 * @user_data: (closure): data for @callback.
 *
 * Uploads a file as [method@Voicenote.Uploader.upload_file] does and calls @callback once it ended; call
 * [method@Voicenote.Uploader.upload_finish] there. No thread is used: the upload runs on the library's threads and
 * its end comes through the uploader's own events, after its [signal@Voicenote.Uploader::completed] or
 * [signal@Voicenote.Uploader::failed] handlers ran; its progress comes as [signal@Voicenote.Uploader::progress]
 * meanwhile. The uploader is kept until then.
 *
 * Cancelling @cancellable cancels this upload in the library (the connection closes) and @callback gets
 * %G_IO_ERROR_CANCELLED; a @cancellable already cancelled starts nothing. Disposing the uploader while the upload
 * runs ends it with %VN_ERROR_CANCELLED.
 */
void vng_uploader_upload_async(VnUploader *self, const gchar *location, VnPayload *payload, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);

/**
 * vng_uploader_upload_finish:
 * @self: the uploader.
 * @result: the [iface@Gio.AsyncResult] given to the callback of [method@Voicenote.Uploader.upload_async].
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The outcome of [method@Voicenote.Uploader.upload_async].
 *
 * Returns: (transfer full) (nullable): the uploaded payload (its [property@Voicenote.Payload:asset-url] is the URL
 *   the server answered), or %NULL with @error set: %G_IO_ERROR_CANCELLED after a cancel through the cancellable;
 *   in %VN_ERROR, what [method@Voicenote.Uploader.upload_file] refuses (%VN_ERROR_BUSY while another upload runs,
 *   %VN_ERROR_NOT_FOUND...) or what [signal@Voicenote.Uploader::failed] carries (%VN_ERROR_NETWORK,
 *   %VN_ERROR_PERMISSION...).
 */
VnPayload *vng_uploader_upload_finish(VnUploader *self, GAsyncResult *result, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_UPLOADER_H */
