/*
 * vn-event-bridge.h (private, not installed): libvoicenote's event loop on a GLib main context.
 *
 * One vn_event_loop per GMainContext, shared by every voicenote-glib object made while that context is the
 * thread-default one. A GSource watches the loop's descriptor (readable while events wait) and dispatches them with
 * vn_event_loop_dispatch() on the context's thread: no timer polls, and no callback of ours runs on another thread.
 * The bridge lives while an object holds it; the last release detaches the source, and the loop is destroyed when
 * GLib finalizes the source, which is after a dispatch in progress returns (so an object may release it from inside
 * its own event's handler).
 */
#ifndef VOICENOTE_GLIB_EVENT_BRIDGE_H
#define VOICENOTE_GLIB_EVENT_BRIDGE_H

#include <glib-object.h>
#include <voicenote.h>

G_BEGIN_DECLS

typedef struct _VngEventBridge VngEventBridge;

/* The bridge of the thread-default main context, made on first use; one more holder. NULL with @error set when
 * no vn_event_loop can be made. Any thread. */
G_GNUC_INTERNAL VngEventBridge *vng_event_bridge_acquire(GError **error);

/* The bridge's loop, to give to the objects' options (vn_*_options_set_event_loop). */
G_GNUC_INTERNAL vn_event_loop *vng_event_bridge_loop(VngEventBridge *bridge);

/* One holder fewer; the last one detaches the source. Destroy the objects made with the loop first. Any thread. */
G_GNUC_INTERNAL void vng_event_bridge_release(VngEventBridge *bridge);

/* Inside an object's event callback (which holds one reference of its own): whether handlers still want its
 * signals, that is its library handle (`*handle`) is still there (not disposed) and someone besides that callback
 * keeps a reference (a handler that dropped the last one is about to see it disposed). */
G_GNUC_INTERNAL gboolean vng_event_still_wanted(GObject *object, void *const *handle);

/* Notifies `count` properties, in order, while vng_event_still_wanted(): a handler that disposes the object, or
 * drops its last reference, ends the notifications. */
G_GNUC_INTERNAL void vng_event_notify(GObject *object, void *const *handle, GParamSpec *const *changed, guint count);

/* A FAILED event's status and message as a VN_ERROR GError (the status's text when the message is empty). */
G_GNUC_INTERNAL GError *vng_event_error(int status, const char *message);

G_END_DECLS

#endif /* VOICENOTE_GLIB_EVENT_BRIDGE_H */
