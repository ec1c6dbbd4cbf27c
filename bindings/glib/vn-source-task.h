/*
 * vn-source-task.h (private, not installed): the `_async`/`_finish` pairs' common part: a location (a path, a
 * `file://` URL or an http(s) URL) opened as a vn_source on a GTask's worker thread, read by one blocking libvoicenote
 * call, with the task's GCancellable connected to vn_source_cancel() for as long as that call runs.
 */
#ifndef VOICENOTE_GLIB_SOURCE_TASK_H
#define VOICENOTE_GLIB_SOURCE_TASK_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"

G_BEGIN_DECLS

/* One blocking read of a source (vn_waveform_source, vn_audio_info_source, vn_convert_source...): returns its
 * vn_status; `data` is the task's task data. */
typedef int (*VngSourceRead)(vn_source *source, gpointer data);

/* Starts a GTask (on the caller's thread-default main context, `source_tag` its tag, `data` its task data freed by
 * `free_data`) that runs `read` on `location` in GLib's worker pool and returns a boolean: TRUE, or the error. An
 * http(s) location is requested with `http_options` as they are now (NULL: the library's defaults).
 * Cancelling `cancellable` cancels the source: a read waiting for the network ends at once, a local decode at its
 * next read, and the task then returns G_IO_ERROR_CANCELLED; the callback runs only after the library's call has
 * returned. Other failures are VN_ERROR GErrors. */
G_GNUC_INTERNAL void vng_source_task_start(const gchar *location, VnHttpOptions *http_options,
                                           GCancellable *cancellable, GAsyncReadyCallback callback,
                                           gpointer user_data, gpointer source_tag, VngSourceRead read,
                                           gpointer data, GDestroyNotify free_data);

/* The task's task data after vng_source_task_start(), when it succeeded (`result` must be one of its tasks, made with
 * `source_tag`); NULL with @error set otherwise. */
G_GNUC_INTERNAL gpointer vng_source_task_finish(GAsyncResult *result, gpointer source_tag, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_SOURCE_TASK_H */
