/*
 * vn-event-bridge.c: one vn_event_loop per GMainContext, dispatched by a GSource on the loop's descriptor.
 */
#include "vn-event-bridge.h"

#include "vn-error.h"

struct _VngEventBridge {
    GSource source;
    vn_event_loop *loop;
    GMainContext *context; /* a reference: the key of `bridges` stays a live context while the bridge lives */
    guint holders;         /* guarded by `bridges` */
};

/* GMainContext* → VngEventBridge*, guarded by G_LOCK(bridges). */
static GHashTable *bridges;
G_LOCK_DEFINE_STATIC(bridges);

/* Runs the waiting events' callbacks on the context's thread. The descriptor stays readable while more wait
 * (events that arrived during this dispatch), so the next iteration takes them. */
static gboolean bridge_dispatch(GSource *source, GSourceFunc callback, gpointer user_data) {
    (void)callback;
    (void)user_data;
    VngEventBridge *bridge = (VngEventBridge *)source;
    int status = vn_event_loop_dispatch(bridge->loop, NULL);
    if (status != VN_OK) g_critical("voicenote-glib: vn_event_loop_dispatch: %s", vn_last_error_message());
    return G_SOURCE_CONTINUE;
}

/* GLib finalizes the source after its last reference goes, never inside its own dispatch: the loop goes here. */
static void bridge_finalize(GSource *source) {
    VngEventBridge *bridge = (VngEventBridge *)source;
    vn_event_loop_destroy(bridge->loop);
    bridge->loop = NULL;
}

/* No prepare and no check: GLib finds the source ready when its descriptor polled readable. */
static GSourceFuncs bridge_funcs = {
    .prepare = NULL,
    .check = NULL,
    .dispatch = bridge_dispatch,
    .finalize = bridge_finalize,
};

static VngEventBridge *bridge_new(GMainContext *context, GError **error) {
    vn_event_loop *loop = NULL;
    if (!vng_error_set_from_status(error, vn_event_loop_create(&loop))) return NULL;
    int fd = vn_event_loop_fd(loop);
    if (fd < 0) {
        vng_error_set_from_status(error, fd);
        vn_event_loop_destroy(loop);
        return NULL;
    }
    VngEventBridge *bridge = (VngEventBridge *)g_source_new(&bridge_funcs, sizeof(VngEventBridge));
    bridge->loop = loop;
    bridge->context = g_main_context_ref(context);
    bridge->holders = 1;
    g_source_set_static_name(&bridge->source, "voicenote events");
    g_source_add_unix_fd(&bridge->source, fd, G_IO_IN);
    g_source_attach(&bridge->source, context);
    return bridge;
}

VngEventBridge *vng_event_bridge_acquire(GError **error) {
    GMainContext *context = g_main_context_ref_thread_default();
    G_LOCK(bridges);
    if (bridges == NULL) bridges = g_hash_table_new(g_direct_hash, g_direct_equal);
    VngEventBridge *bridge = g_hash_table_lookup(bridges, context);
    if (bridge != NULL) {
        bridge->holders++;
    } else {
        bridge = bridge_new(context, error);
        if (bridge != NULL) g_hash_table_insert(bridges, context, bridge);
    }
    G_UNLOCK(bridges);
    g_main_context_unref(context);
    return bridge;
}

vn_event_loop *vng_event_bridge_loop(VngEventBridge *bridge) {
    return bridge->loop;
}

void vng_event_bridge_release(VngEventBridge *bridge) {
    G_LOCK(bridges);
    gboolean last = --bridge->holders == 0;
    if (last) g_hash_table_remove(bridges, bridge->context);
    G_UNLOCK(bridges);
    if (!last) return;
    GMainContext *context = bridge->context;
    g_source_destroy(&bridge->source);
    g_source_unref(&bridge->source); /* finalized now, or when a dispatch in progress returns */
    g_main_context_unref(context);
}

gboolean vng_event_still_wanted(GObject *object, void *const *handle) {
    return *handle != NULL && g_atomic_int_get(&object->ref_count) > 1;
}

void vng_event_notify(GObject *object, void *const *handle, GParamSpec *const *changed, guint count) {
    for (guint i = 0; i < count && vng_event_still_wanted(object, handle); i++)
        g_object_notify_by_pspec(object, changed[i]);
}

GError *vng_event_error(int status, const char *message) {
    return g_error_new_literal(VN_ERROR, status, message != NULL && message[0] != '\0' ? message : vn_strerror(status));
}
