/*
 * vn-waveform.h: the waveform of a voice note (a file or an http(s) URL), read off the caller's thread and
 * cancellable (`_async`/`_finish`).
 */
#ifndef VOICENOTE_GLIB_WAVEFORM_H
#define VOICENOTE_GLIB_WAVEFORM_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"

G_BEGIN_DECLS

/**
 * vng_waveform_async:
 * @location: a local path, a `file://` URL or an `http://`/`https://` URL (downloaded through libvoicenote's
 *   media cache).
 * @samples: how many values, 1…1048576 (`VN_WAVEFORM_MAX_SAMPLES`); 100 is what voice messages carry.
 * @http_options: (nullable): how an http(s) @location is requested (headers, CA file, timeouts, size limit), as
 *   they are at this call; %NULL for libvoicenote's defaults. Not used for a file.
 * @cancellable: (nullable): cancels the read, or %NULL.
 * @callback: (scope async): called with the result, on the thread-default [struct@GLib.MainContext] of the calling
 * thread.
 * @user_data: (closure): data for @callback.
 *
 * Reads the waveform of a voice note (libvoicenote's vn_waveform_source(): the note decoded in full, each value the
 * mean clipped dB of its share of the frames, mapped to 0…1) on a worker thread; call [func@Voicenote.waveform_finish]
 * in @callback. Cancelling @cancellable cancels the library's read: a download waiting for the network ends at once
 * (and stops), a local decode at its next read; @callback then gets %G_IO_ERROR_CANCELLED. @callback runs only
 * after the library's work has ended.
 */
void vng_waveform_async(const gchar *location, guint samples, VnHttpOptions *http_options, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data);

/**
 * vng_waveform_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback of [func@Voicenote.waveform_async].
 * @n_values: (out): receives the number of values (the samples asked for), or 0 on failure.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The waveform [func@Voicenote.waveform_async] read.
 *
 * Returns: (array length=n_values) (transfer full) (nullable): the values in 0…1 (free with [func@GLib.free]), or %NULL
 *   with @error set: %G_IO_ERROR_CANCELLED after a cancel; in %VN_ERROR, %VN_ERROR_INVALID_ARG for @samples out of
 *   range or an empty location, %VN_ERROR_NOT_FOUND for a missing file or an HTTP 404/410, %VN_ERROR_FORMAT for a
 *   file that is not audio, %VN_ERROR_UNSUPPORTED for a scheme other than file and http(s), %VN_ERROR_PERMISSION
 *   for an HTTP 401/403, %VN_ERROR_NETWORK (also a timeout of @http_options), %VN_ERROR_TOO_LARGE and others as libvoicenote reports them.
 */
gfloat *vng_waveform_finish(GAsyncResult *result, gsize *n_values, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_WAVEFORM_H */
