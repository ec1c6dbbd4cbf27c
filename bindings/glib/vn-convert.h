/*
 * vn-convert.h: a voice note converted to a new note (Ogg Opus or AAC) at another speed (pitch kept), off the
 * caller's thread and cancellable (`_async`/`_finish`).
 */
#ifndef VOICENOTE_GLIB_CONVERT_H
#define VOICENOTE_GLIB_CONVERT_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-encoder-options.h"
#include "vn-http-options.h"

G_BEGIN_DECLS

/**
 * vng_convert_async:
 * @location: the note to read: a local path, a `file://` URL or an `http://`/`https://` URL (downloaded through
 *   libvoicenote's media cache).
 * @out_path: the file to write (replaced when it exists; its directory must exist).
 * @rate: the new note's speed, 0.5…2.5 (1 keeps it; the pitch is kept either way).
 * @encoder_options: (nullable): the new note's format and encoder, as they are at this call; %NULL for Ogg Opus at
 *   32 kbit/s.
 * @http_options: (nullable): how an http(s) @location is requested (headers, CA file, timeouts, size limit), as
 *   they are at this call; %NULL for libvoicenote's defaults. Not used for a file.
 * @cancellable: (nullable): cancels the conversion, or %NULL.
 * @callback: (scope async): called with the result, on the thread-default [struct@GLib.MainContext] of the calling
 * thread.
 * @user_data: (closure): data for @callback.
 *
 * Converts a note (libvoicenote's `vn_convert_source()`) on a worker thread; call [func@Voicenote.convert_finish]
 * in @callback. The note is written beside @out_path and renamed over it once complete, so a failure or a cancel
 * leaves @out_path as it was and no partial file. Cancelling @cancellable cancels the library's work (a download waiting for the network ends at once, a decode at its next
 * read); @callback then gets %G_IO_ERROR_CANCELLED. It runs only after the library's work has ended.
 */
void vng_convert_async(const gchar *location, const gchar *out_path, gdouble rate, VnEncoderOptions *encoder_options,
                       VnHttpOptions *http_options, GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data);

/**
 * vng_convert_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback of [func@Voicenote.convert_async].
 * @duration: (out) (optional): receives the new note's length in seconds (0 on failure), or %NULL.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Whether [func@Voicenote.convert_async] wrote the note.
 *
 * Returns: %TRUE, or %FALSE with @error set: %G_IO_ERROR_CANCELLED after a cancel; in %VN_ERROR,
 *   %VN_ERROR_INVALID_ARG for a rate out of range or an empty path, %VN_ERROR_NOT_FOUND or %VN_ERROR_PERMISSION for
 *   either file, %VN_ERROR_FORMAT for a note that is not audio, %VN_ERROR_NO_SPACE, %VN_ERROR_PERMISSION for an HTTP 401/403, %VN_ERROR_NETWORK
 *   (also a timeout of @http_options) and others as
 *   libvoicenote reports them.
 */
gboolean vng_convert_finish(GAsyncResult *result, gdouble *duration, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_CONVERT_H */
