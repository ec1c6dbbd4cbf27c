/*
 * vn-audio-info.h: VnAudioInfo, the facts of a voice note's audio stream, read off the caller's thread and
 * cancellable (`_async`/`_finish`).
 */
#ifndef VOICENOTE_GLIB_AUDIO_INFO_H
#define VOICENOTE_GLIB_AUDIO_INFO_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"

G_BEGIN_DECLS

/**
 * VnAudioInfo:
 * @duration: the duration in seconds, never more than the packets hold; 0 when unknown.
 * @duration_is_estimate: %TRUE when @duration is estimated from the bitrate (an MP3 or ADTS file whose frames
 *   cannot all be counted).
 * @sample_rate: the stream's sample rate in Hz (48000 for Opus).
 * @channels: the channels in the stream.
 * @bitrate: the average bitrate in bits per second; 0 when unknown.
 * @codec: the codec as FFmpeg names it ("opus", "aac", "mp3", "pcm_s16le"...).
 *
 * Facts about a note's audio stream (libvoicenote's `vn_audio_info`), from [func@Voicenote.AudioInfo.read_finish]. A
 * boxed type: copy with [method@Voicenote.AudioInfo.copy], free with [method@Voicenote.AudioInfo.free].
 */
typedef struct {
    gdouble duration;
    gboolean duration_is_estimate;
    gint sample_rate;
    gint channels;
    gint64 bitrate;
    gchar *codec;
} VnAudioInfo;

/**
 * VNG_TYPE_AUDIO_INFO:
 *
 * The [type@GObject.Type] of [struct@Voicenote.AudioInfo].
 */
#define VNG_TYPE_AUDIO_INFO (vng_audio_info_get_type())

/**
 * vng_audio_info_get_type:
 *
 * Registers (once) and returns the boxed type of [struct@Voicenote.AudioInfo].
 *
 * Returns: the [type@GObject.Type] of [struct@Voicenote.AudioInfo].
 */
GType vng_audio_info_get_type(void) G_GNUC_CONST;

/**
 * vng_audio_info_copy:
 * @info: the facts.
 *
 * Copies @info (its codec too).
 *
 * Returns: (transfer full): the copy; free with [method@Voicenote.AudioInfo.free].
 */
VnAudioInfo *vng_audio_info_copy(const VnAudioInfo *info);

/**
 * vng_audio_info_free:
 * @info: (nullable): the facts, or %NULL (nothing happens).
 *
 * Frees @info and its codec.
 */
void vng_audio_info_free(VnAudioInfo *info);

/**
 * vng_audio_info_read_async:
 * @location: a local path, a `file://` URL or an `http://`/`https://` URL (downloaded through libvoicenote's
 *   media cache).
 * @http_options: (nullable): how an http(s) @location is requested (headers, CA file, timeouts, size limit), as
 *   they are at this call; %NULL for libvoicenote's defaults. Not used for a file.
 * @cancellable: (nullable): cancels the read, or %NULL.
 * @callback: (scope async): called with the result, on the thread-default [struct@GLib.MainContext] of the calling
 * thread.
 * @user_data: (closure): data for @callback.
 *
 * Reads the facts of a note's audio (libvoicenote's vn_audio_info_source(), without decoding it all where the
 * format allows) on a worker thread; call [func@Voicenote.AudioInfo.read_finish] in @callback. Cancelling @cancellable
 * cancels the library's read (a download waiting for the network ends at once); @callback then gets
 * %G_IO_ERROR_CANCELLED. It runs only after the library's work has ended.
 */
void vng_audio_info_read_async(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);

/**
 * vng_audio_info_read_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback of [func@Voicenote.AudioInfo.read_async].
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The facts [func@Voicenote.AudioInfo.read_async] read.
 *
 * Returns: (transfer full) (nullable): the facts (free with [method@Voicenote.AudioInfo.free]), or %NULL with @error
 * set:
 *   %G_IO_ERROR_CANCELLED after a cancel; in %VN_ERROR, %VN_ERROR_NOT_FOUND for a missing file or an HTTP 404/410,
 *   %VN_ERROR_FORMAT for a file that is not audio, %VN_ERROR_UNSUPPORTED for a scheme other than file and http(s),
 *   %VN_ERROR_PERMISSION for an HTTP 401/403, %VN_ERROR_NETWORK (also a timeout of the HTTP options) and others as
 *   libvoicenote reports them.
 */
VnAudioInfo *vng_audio_info_read_finish(GAsyncResult *result, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_AUDIO_INFO_H */
