/*
 * vn-queue-player.c: VnQueuePlayer, a list of locations answering a VnPlayer's data source (vn_player_set_data_source)
 * and following its ITEM_CHANGED and FINISHED events through a subscription of its own on the player.
 */
#include "vn-queue-player.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"

/* The list's HTTP options as one set made them (a GLib atomic reference-counted box): a load takes a reference
 * under the list's lock and uses them after, so no library call runs under the lock, while a new set replaces them. */
typedef struct {
    vn_http_options *handle;
} VngHttp;

static void http_clear(gpointer data) {
    vn_http_options_destroy(((VngHttp *)data)->handle);
}

static void http_release(VngHttp *http) {
    if (http != NULL) g_atomic_rc_box_release_full(http, http_clear);
}

/* The list, shared with the data source hook (the player's decoder thread); reference-counted, because the player
 * lets the hook's data go only once no call of it runs any more, which may be after the object is gone. */
typedef struct {
    gatomicrefcount refs;
    GMutex lock;
    GStrv locations;
    GStrv keys;          /* "" for none; as many as locations */
    gint current;        /* the index the main context last knew, where searches start; -1 for none */
    gchar *ended_after;  /* the location the hook last found nothing after; NULL when it last answered */
    gboolean skip_listened; /* "play unplayed": listened items are passed over */
    VngHttp *http;       /* how http(s) items are requested; NULL for the library's defaults */
} Queue;

struct _VnQueuePlayer {
    GObject parent_instance;
    VnPlayer *player; /* construct-only; a reference */
    vn_player *handle; /* the player's, while this object lives (NULL after dispose) */
    vn_subscription_id subscription;
    Queue *queue;
    gint current_index; /* as the last delivered ITEM_CHANGED said */
};

enum { PROP_0, PROP_PLAYER, PROP_CURRENT_INDEX, PROP_N_ITEMS, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_ITEM_CHANGED, SIGNAL_ENDED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void vng_queue_player_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnQueuePlayer, vng_queue_player, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_queue_player_initable_init))

/* ------------------------------------------------------------------------------------------------------------ */
/* The list */

static Queue *queue_new(void) {
    Queue *queue = g_new0(Queue, 1);
    g_atomic_ref_count_init(&queue->refs);
    g_mutex_init(&queue->lock);
    queue->locations = g_new0(gchar *, 1);
    queue->keys = g_new0(gchar *, 1);
    queue->current = -1;
    return queue;
}

static Queue *queue_ref(Queue *queue) {
    g_atomic_ref_count_inc(&queue->refs);
    return queue;
}

static void queue_unref(void *data) {
    Queue *queue = data;
    if (!g_atomic_ref_count_dec(&queue->refs)) return;
    g_strfreev(queue->locations);
    g_strfreev(queue->keys);
    g_free(queue->ended_after);
    http_release(queue->http);
    g_mutex_clear(&queue->lock);
    g_free(queue);
}

/* The index of `location` in the list: the first at or after the current index, else the first before it; -1 when
 * it is not there. Under the lock. */
static gint queue_find(Queue *queue, const char *location) {
    guint n = g_strv_length(queue->locations);
    guint start = queue->current > 0 && (guint)queue->current < n ? (guint)queue->current : 0;
    for (guint step = 0; location != NULL && step < n; step++) {
        guint i = (start + step) % n;
        if (g_strcmp0(queue->locations[i], location) == 0) return (gint)i;
    }
    return -1;
}

static gboolean is_http_url(const gchar *location) {
    return g_str_has_prefix(location, "http://") || g_str_has_prefix(location, "https://");
}

/* Loads a location of the list with its key and the list's HTTP options (an http(s) URL is loaded with them, under
 * its key when it has one). */
static int load_item(vn_player *handle, const VngHttp *http, const gchar *location, const gchar *key, int autoplay) {
    if (is_http_url(location))
        return vn_player_load_url(handle, location, http != NULL ? http->handle : NULL, key[0] != '\0' ? key : NULL,
                                  autoplay, -1);
    return vn_player_load(handle, location, autoplay, -1);
}

/* The data source hook, on the player's decoder thread: the item after the current one, or nothing at the end. */
static void answer_next(void *user_data, const char *current_location, const char *current_key,
                        vn_queue_answer *answer) {
    (void)current_key;
    Queue *queue = user_data;
    g_mutex_lock(&queue->lock);
    gint i = queue_find(queue, current_location);
    gboolean found = i >= 0 && queue->locations[i + 1] != NULL;
    gchar *location = found ? g_strdup(queue->locations[i + 1]) : NULL;
    gchar *key = found ? g_strdup(queue->keys[i + 1]) : NULL;
    VngHttp *http = found && queue->http != NULL ? g_atomic_rc_box_acquire(queue->http) : NULL;
    g_free(queue->ended_after);
    queue->ended_after = found ? NULL : g_strdup(current_location);
    g_mutex_unlock(&queue->lock);
    if (!found) return;
    if (is_http_url(location))
        vn_queue_answer_set_url(answer, location, http != NULL ? http->handle : NULL, key[0] != '\0' ? key : NULL);
    else vn_queue_answer_set_location(answer, location);
    http_release(http);
    g_free(location);
    g_free(key);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Events, on the player's context's thread (inside vn_event_loop_dispatch) */

static void set_current_index(VnQueuePlayer *self, gint index) {
    if (index == self->current_index) return;
    self->current_index = index;
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_CURRENT_INDEX]);
}

static void on_item_changed(VnQueuePlayer *self, const char *location, const char *key) {
    g_mutex_lock(&self->queue->lock);
    gint index = queue_find(self->queue, location);
    self->queue->current = index;
    g_mutex_unlock(&self->queue->lock);
    set_current_index(self, index);
    if (vng_event_still_wanted(G_OBJECT(self), (void *const *)&self->handle))
        g_signal_emit(self, signals[SIGNAL_ITEM_CHANGED], 0, index, location, key);
}

/* Whether every one of `locations` (with their `keys`) is listened: the player passes them over with skip_listened. */
static gboolean all_listened(GStrv locations, GStrv keys) {
    for (guint i = 0; locations[i] != NULL; i++) {
        int listened = 0;
        if (vn_listened(locations[i], keys[i][0] != '\0' ? keys[i] : NULL, &listened) != VN_OK || !listened) return FALSE;
    }
    return TRUE;
}

/* The end of the list: the item that finished is the one the hook last found nothing after, or, passing over
 * listened items, one followed by listened items only. */
static void on_finished(VnQueuePlayer *self, const char *location) {
    g_mutex_lock(&self->queue->lock);
    Queue *queue = self->queue;
    gboolean last = queue->ended_after != NULL && g_strcmp0(queue->ended_after, location) == 0;
    /* Not ended_after: while the player passes over listened items, the hook is asked about the finished one again
     * (it answers the next) before the listened ones (nothing after the last). */
    gint index = !last && queue->skip_listened ? queue_find(queue, location) : -1;
    /* The items after it, copied: the store is read with no lock held. */
    GStrv after = index >= 0 ? g_strdupv(queue->locations + index + 1) : NULL;
    GStrv after_keys = index >= 0 ? g_strdupv(queue->keys + index + 1) : NULL;
    g_mutex_unlock(&queue->lock);
    if (after != NULL) last = all_listened(after, after_keys);
    g_strfreev(after);
    g_strfreev(after_keys);
    if (last) g_signal_emit(self, signals[SIGNAL_ENDED], 0);
}

static void on_player_event(void *user_data, const vn_player_event *event) {
    VnQueuePlayer *self = user_data;
    g_object_ref(self); /* a handler may drop the last reference */
    if (event->type == VN_PLAYER_EVENT_ITEM_CHANGED) on_item_changed(self, event->location, event->key);
    else if (event->type == VN_PLAYER_EVENT_FINISHED) on_finished(self, event->location);
    g_object_unref(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction and disposal */

static gboolean vng_queue_player_initable_init_instance(GInitable *initable, GCancellable *cancellable,
                                                        GError **error) {
    (void)cancellable;
    VnQueuePlayer *self = VNG_QUEUE_PLAYER(initable);
    g_return_val_if_fail(self->handle == NULL, FALSE);
    if (self->player == NULL) {
        g_set_error_literal(error, VN_ERROR, VN_ERROR_INVALID_ARG, "VnQueuePlayer:player is required");
        return FALSE;
    }
    vn_player *handle = vng_player_handle(self->player);
    if (!vng_error_set_from_status(error, vn_player_set_data_source(handle, answer_next, queue_ref(self->queue),
                                                                    queue_unref)))
        return FALSE;
    self->handle = handle;
    /* No reference in user_data: dispose ends the subscription before the object goes. */
    return vng_error_set_from_status(error, vn_player_subscribe(handle, on_player_event, self, NULL,
                                                                &self->subscription));
}

static void vng_queue_player_initable_init(GInitableIface *iface) {
    iface->init = vng_queue_player_initable_init_instance;
}

/* Unsubscribes first, then makes the player plain again (the hook's list goes once no call of it runs), then lets
 * the player go. */
static void vng_queue_player_dispose(GObject *object) {
    VnQueuePlayer *self = VNG_QUEUE_PLAYER(object);
    if (self->subscription != 0) {
        vn_unsubscribe(self->subscription);
        self->subscription = 0;
    }
    if (self->handle != NULL && self->player != NULL && vng_player_handle(self->player) != NULL)
        vn_player_set_data_source(self->handle, NULL, NULL, NULL);
    self->handle = NULL;
    g_clear_object(&self->player);
    G_OBJECT_CLASS(vng_queue_player_parent_class)->dispose(object);
}

static void vng_queue_player_finalize(GObject *object) {
    VnQueuePlayer *self = VNG_QUEUE_PLAYER(object);
    queue_unref(self->queue);
    G_OBJECT_CLASS(vng_queue_player_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_queue_player_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnQueuePlayer *self = VNG_QUEUE_PLAYER(object);
    switch (id) {
    case PROP_PLAYER: g_value_set_object(value, self->player); break;
    case PROP_CURRENT_INDEX: g_value_set_int(value, self->current_index); break;
    case PROP_N_ITEMS: g_value_set_uint(value, vng_queue_player_get_n_items(self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_queue_player_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnQueuePlayer *self = VNG_QUEUE_PLAYER(object);
    switch (id) {
    case PROP_PLAYER: self->player = g_value_dup_object(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_queue_player_class_init(VnQueuePlayerClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = vng_queue_player_dispose;
    object_class->finalize = vng_queue_player_finalize;
    object_class->get_property = vng_queue_player_get_property;
    object_class->set_property = vng_queue_player_set_property;

    /**
     * VnQueuePlayer:player:
     *
     * The player the list plays on, kept until the queue player is finalized. Set at construction.
     */
    properties[PROP_PLAYER] = g_param_spec_object("player", NULL, NULL, VNG_TYPE_PLAYER,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnQueuePlayer:current-index:
     *
     * Which item of the list plays, -1 for none; notifies once per change, just before
     * [signal@Voicenote.QueuePlayer::item-changed].
     */
    properties[PROP_CURRENT_INDEX] = g_param_spec_int("current-index", NULL, NULL, -1, G_MAXINT, -1,
                                                      G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                          G_PARAM_STATIC_STRINGS);
    /**
     * VnQueuePlayer:n-items:
     *
     * How many items the list has; notifies when [method@Voicenote.QueuePlayer.set_items] changes it.
     */
    properties[PROP_N_ITEMS] = g_param_spec_uint("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                                                 G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * VnQueuePlayer::item-changed:
     * @self: the queue player.
     * @index: the item's index in the list, or -1 for a location not in it (loaded on the player directly).
     * @location: the item's location.
     * @key: the item's key: a URL's key or the URL, or the absolute path.
     *
     * Another item plays: the first one [method@Voicenote.QueuePlayer.play_item] loaded, or the next one (when the item
     * before it is heard to its end on a back-to-back change), before the player's state for it changes.
     */
    signals[SIGNAL_ITEM_CHANGED] = g_signal_new("item-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                                NULL, NULL, G_TYPE_NONE, 3, G_TYPE_INT, G_TYPE_STRING, G_TYPE_STRING);
    /**
     * VnQueuePlayer::ended:
     * @self: the queue player.
     *
     * The last item of the list (or one with nothing after it in the list) played to its end; the player stops.
     * Comes after the player's [signal@Voicenote.Player::finished] for it.
     */
    signals[SIGNAL_ENDED] = g_signal_new("ended", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 0);
}

static void vng_queue_player_init(VnQueuePlayer *self) {
    self->queue = queue_new();
    self->current_index = -1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnQueuePlayer *vng_queue_player_new(VnPlayer *player, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(player), NULL);
    return g_initable_new(VNG_TYPE_QUEUE_PLAYER, NULL, error, "player", player, NULL);
}

VnPlayer *vng_queue_player_get_player(VnQueuePlayer *self) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), NULL);
    return self->player;
}

gboolean vng_queue_player_set_items(VnQueuePlayer *self, const gchar *const *locations, const gchar *const *keys,
                                    GError **error) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), FALSE);
    g_return_val_if_fail(locations != NULL, FALSE);
    guint n = g_strv_length((gchar **)locations);
    for (guint i = 0; i < n; i++) {
        if (locations[i][0] == '\0' || !g_utf8_validate(locations[i], -1, NULL)) {
            g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "item %u: an empty location, or not UTF-8", i);
            return FALSE;
        }
    }
    if (keys != NULL && g_strv_length((gchar **)keys) != n) {
        g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "%u keys for %u locations", g_strv_length((gchar **)keys),
                    n);
        return FALSE;
    }
    GStrv new_keys = g_new0(gchar *, n + 1);
    for (guint i = 0; i < n; i++) new_keys[i] = g_strdup(keys != NULL ? keys[i] : "");
    char *playing = NULL;
    if (self->handle != NULL) vn_player_copy_location(self->handle, &playing);
    g_mutex_lock(&self->queue->lock);
    guint before = g_strv_length(self->queue->locations);
    g_strfreev(self->queue->locations);
    g_strfreev(self->queue->keys);
    self->queue->locations = g_strdupv((gchar **)locations);
    self->queue->keys = new_keys;
    self->queue->current = -1;
    gint index = queue_find(self->queue, playing != NULL && playing[0] != '\0' ? playing : NULL);
    self->queue->current = index;
    g_mutex_unlock(&self->queue->lock);
    vn_free(playing);
    if (n != before) g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_N_ITEMS]);
    set_current_index(self, index);
    return TRUE;
}

gboolean vng_queue_player_play_item(VnQueuePlayer *self, guint index, GError **error) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), FALSE);
    if (self->handle == NULL) return vng_error_set_from_status(error, vn_player_load(NULL, "", 1, -1));
    g_mutex_lock(&self->queue->lock);
    gboolean inside = index < g_strv_length(self->queue->locations);
    gchar *location = inside ? g_strdup(self->queue->locations[index]) : NULL;
    gchar *key = inside ? g_strdup(self->queue->keys[index]) : NULL;
    VngHttp *http = inside && self->queue->http != NULL ? g_atomic_rc_box_acquire(self->queue->http) : NULL;
    if (inside) self->queue->current = (gint)index;
    g_mutex_unlock(&self->queue->lock);
    if (!inside) {
        g_set_error(error, VN_ERROR, VN_ERROR_INVALID_ARG, "no item %u in a list of %u", index,
                    vng_queue_player_get_n_items(self));
        return FALSE;
    }
    /* A stop first: a load interrupting a playing note would bring that note back after this one (Element's rule). */
    gboolean ok = vng_error_set_from_status(error, vn_player_stop(self->handle)) &&
                  vng_error_set_from_status(error, load_item(self->handle, http, location, key, 1));
    http_release(http);
    g_free(location);
    g_free(key);
    return ok;
}

void vng_queue_player_set_http_options(VnQueuePlayer *self, VnHttpOptions *http_options) {
    g_return_if_fail(VNG_IS_QUEUE_PLAYER(self));
    g_return_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options));
    VngHttp *http = NULL;
    if (http_options != NULL) {
        http = g_atomic_rc_box_new(VngHttp);
        http->handle = vng_http_options_create_handle(http_options);
    }
    g_mutex_lock(&self->queue->lock);
    VngHttp *before = self->queue->http;
    self->queue->http = http;
    g_mutex_unlock(&self->queue->lock);
    http_release(before);
}

gboolean vng_queue_player_next(VnQueuePlayer *self, GError **error) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_next(self->handle));
}

void vng_queue_player_set_skip_listened(VnQueuePlayer *self, gboolean skip) {
    g_return_if_fail(VNG_IS_QUEUE_PLAYER(self));
    g_mutex_lock(&self->queue->lock);
    self->queue->skip_listened = skip;
    g_mutex_unlock(&self->queue->lock);
    if (self->handle != NULL) vn_player_set_skip_listened(self->handle, skip ? 1 : 0);
}

gboolean vng_queue_player_previous(VnQueuePlayer *self, GError **error) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), FALSE);
    gint current = self->current_index;
    if (current <= 0) {
        g_set_error_literal(error, VN_ERROR, VN_ERROR_MISUSE,
                            current == 0 ? "the current item is the first one" : "no item of the list is current");
        return FALSE;
    }
    return vng_queue_player_play_item(self, (guint)current - 1, error);
}

gint vng_queue_player_get_current_index(VnQueuePlayer *self) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), -1);
    return self->current_index;
}

guint vng_queue_player_get_n_items(VnQueuePlayer *self) {
    g_return_val_if_fail(VNG_IS_QUEUE_PLAYER(self), 0);
    g_mutex_lock(&self->queue->lock);
    guint n = g_strv_length(self->queue->locations);
    g_mutex_unlock(&self->queue->lock);
    return n;
}
