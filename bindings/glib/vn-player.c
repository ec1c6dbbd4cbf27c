/*
 * vn-player.c: VnPlayer, a GObject over vn_player whose events reach the thread-default main context through the
 * context's event bridge (vn-event-bridge.c).
 */
#include "vn-player.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"

struct _VnPlayer {
    GObject parent_instance;
    gchar *device;        /* construct-only; NULL for "default" */
    gchar *configuration; /* construct-only; may be NULL */
    gchar *mpris_identity;      /* construct-only; NULL: no MPRIS */
    gchar *mpris_desktop_entry; /* construct-only; may be NULL */
    gchar *stream_role;         /* construct-only; NULL: none */
    VngEventBridge *bridge;
    vn_player *handle;
    vn_subscription_id subscription;
    /* What the last delivered context said (the rate: what this object last set; see set_rate). */
    gchar *location; /* NULL when none */
    VnPlayerState state;
    gdouble duration;
    gdouble position;
    gdouble rate;
};

enum {
    PROP_0,
    PROP_DEVICE,
    PROP_CONFIGURATION,
    PROP_LOCATION,
    PROP_STATE,
    PROP_DURATION,
    PROP_POSITION,
    PROP_RATE,
    PROP_MPRIS_IDENTITY,
    PROP_MPRIS_DESKTOP_ENTRY,
    PROP_STREAM_ROLE,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_FINISHED, SIGNAL_FAILED, SIGNAL_ITEM_CHANGED, SIGNAL_LISTENED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void vng_player_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnPlayer, vng_player, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_player_initable_init))

GType vng_player_state_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_PLAYER_STATE_NOT_LOADED, "VN_PLAYER_STATE_NOT_LOADED", "not-loaded"},
        {VN_PLAYER_STATE_LOADING, "VN_PLAYER_STATE_LOADING", "loading"},
        {VN_PLAYER_STATE_PAUSED, "VN_PLAYER_STATE_PAUSED", "paused"},
        {VN_PLAYER_STATE_PLAYING, "VN_PLAYER_STATE_PLAYING", "playing"},
        {VN_PLAYER_STATE_STOPPED, "VN_PLAYER_STATE_STOPPED", "stopped"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnPlayerState"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Events, on the context's thread (inside vn_event_loop_dispatch) */

/* Keeps a location as given ("" and NULL both mean none); whether it differed. */
static gboolean take_location(VnPlayer *self, const char *location) {
    if (location != NULL && location[0] == '\0') location = NULL;
    if (g_strcmp0(location, self->location) == 0) return FALSE;
    g_free(self->location);
    self->location = g_strdup(location);
    return TRUE;
}

/* Takes a context's location, state, duration and position, then notifies each that changed, in that order;
 * handlers see the whole new context. A handler that disposes the player, or drops its last reference, ends the
 * notifications. */
static void apply_context(VnPlayer *self, const vn_player_context *context) {
    GParamSpec *changed[4];
    guint count = 0;
    if (take_location(self, context->location)) changed[count++] = properties[PROP_LOCATION];
    if ((VnPlayerState)context->state != self->state) {
        self->state = (VnPlayerState)context->state;
        changed[count++] = properties[PROP_STATE];
    }
    if (context->duration_s != self->duration) {
        self->duration = context->duration_s;
        changed[count++] = properties[PROP_DURATION];
    }
    if (context->current_time_s != self->position) {
        self->position = context->current_time_s;
        changed[count++] = properties[PROP_POSITION];
    }
    vng_event_notify(G_OBJECT(self), (void *const *)&self->handle, changed, count);
}

static void on_player_event(void *user_data, const vn_player_event *event) {
    VnPlayer *self = user_data;
    g_object_ref(self); /* a handler may drop the last reference */
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT:
        apply_context(self, &event->context);
        break;
    case VN_PLAYER_EVENT_FINISHED:
        g_signal_emit(self, signals[SIGNAL_FINISHED], 0, event->location);
        break;
    case VN_PLAYER_EVENT_FAILED: {
        GError *error = vng_event_error(event->status, event->message);
        g_signal_emit(self, signals[SIGNAL_FAILED], 0, error);
        g_error_free(error);
        break;
    }
    case VN_PLAYER_EVENT_ITEM_CHANGED:
        g_signal_emit(self, signals[SIGNAL_ITEM_CHANGED], 0, event->location, event->key);
        break;
    case VN_PLAYER_EVENT_LISTENED:
        g_signal_emit(self, signals[SIGNAL_LISTENED], 0, event->location, event->key);
        break;
    default: /* a kind a newer library added: nothing to say about it yet */
        break;
    }
    g_object_unref(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction and disposal */

static gboolean vng_player_initable_init_instance(GInitable *initable, GCancellable *cancellable, GError **error) {
    (void)cancellable;
    VnPlayer *self = VNG_PLAYER(initable);
    g_return_val_if_fail(self->bridge == NULL, FALSE);
    self->bridge = vng_event_bridge_acquire(error);
    if (self->bridge == NULL) return FALSE;
    vn_player_options *options = NULL;
    gboolean ok = vng_error_set_from_status(error, vn_player_options_create(&options)) &&
                  (self->device == NULL ||
                   vng_error_set_from_status(error, vn_player_options_set_device(options, self->device,
                                                                                  self->configuration))) &&
                  vng_error_set_from_status(error, vn_player_options_set_event_loop(
                                                       options, vng_event_bridge_loop(self->bridge))) &&
                  (self->mpris_identity == NULL ||
                   vng_error_set_from_status(error, vn_player_options_set_mpris(options, self->mpris_identity,
                                                                                 self->mpris_desktop_entry))) &&
                  (self->stream_role == NULL ||
                   vng_error_set_from_status(error, vn_player_options_set_stream_role(options, self->stream_role))) &&
                  vng_error_set_from_status(error, vn_player_create(options, &self->handle));
    vn_player_options_destroy(options);
    if (!ok) return FALSE;
    vn_player_context context = {.size = sizeof context};
    if (!vng_error_set_from_status(error, vn_player_get_context(self->handle, &context))) return FALSE;
    self->state = (VnPlayerState)context.state;
    self->duration = context.duration_s;
    self->position = context.current_time_s;
    self->rate = context.rate;
    char *location = NULL;
    if (!vng_error_set_from_status(error, vn_player_copy_location(self->handle, &location))) return FALSE;
    take_location(self, location);
    vn_free(location);
    /* No reference in user_data: dispose ends the subscription before the object goes. */
    return vng_error_set_from_status(error, vn_player_subscribe(self->handle, on_player_event, self, NULL,
                                                                &self->subscription));
}

static void vng_player_initable_init(GInitableIface *iface) {
    iface->init = vng_player_initable_init_instance;
}

/* Unsubscribes first (from inside one of its own callbacks this marks it dead without waiting), then destroys the
 * player, then lets the context's bridge go. */
static void vng_player_dispose(GObject *object) {
    VnPlayer *self = VNG_PLAYER(object);
    if (self->subscription != 0) {
        vn_unsubscribe(self->subscription);
        self->subscription = 0;
    }
    g_clear_pointer(&self->handle, vn_player_destroy);
    g_clear_pointer(&self->bridge, vng_event_bridge_release);
    G_OBJECT_CLASS(vng_player_parent_class)->dispose(object);
}

static void vng_player_finalize(GObject *object) {
    VnPlayer *self = VNG_PLAYER(object);
    g_free(self->device);
    g_free(self->configuration);
    g_free(self->mpris_identity);
    g_free(self->mpris_desktop_entry);
    g_free(self->stream_role);
    g_free(self->location);
    G_OBJECT_CLASS(vng_player_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_player_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnPlayer *self = VNG_PLAYER(object);
    switch (id) {
    case PROP_DEVICE: g_value_set_string(value, self->device); break;
    case PROP_CONFIGURATION: g_value_set_string(value, self->configuration); break;
    case PROP_LOCATION: g_value_set_string(value, self->location); break;
    case PROP_STATE: g_value_set_enum(value, self->state); break;
    case PROP_DURATION: g_value_set_double(value, self->duration); break;
    case PROP_POSITION: g_value_set_double(value, self->position); break;
    case PROP_RATE: g_value_set_double(value, self->rate); break;
    case PROP_MPRIS_IDENTITY: g_value_set_string(value, self->mpris_identity); break;
    case PROP_MPRIS_DESKTOP_ENTRY: g_value_set_string(value, self->mpris_desktop_entry); break;
    case PROP_STREAM_ROLE: g_value_set_string(value, self->stream_role); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_player_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnPlayer *self = VNG_PLAYER(object);
    switch (id) {
    case PROP_DEVICE: self->device = g_value_dup_string(value); break;
    case PROP_CONFIGURATION: self->configuration = g_value_dup_string(value); break;
    case PROP_MPRIS_IDENTITY: self->mpris_identity = g_value_dup_string(value); break;
    case PROP_MPRIS_DESKTOP_ENTRY: self->mpris_desktop_entry = g_value_dup_string(value); break;
    case PROP_STREAM_ROLE: self->stream_role = g_value_dup_string(value); break;
    case PROP_RATE: {
        GError *error = NULL;
        if (!vng_player_set_rate(self, g_value_get_double(value), &error)) {
            g_warning("VnPlayer:rate: %s", error->message);
            g_error_free(error);
        }
        break;
    }
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_player_class_init(VnPlayerClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = vng_player_dispose;
    object_class->finalize = vng_player_finalize;
    object_class->get_property = vng_player_get_property;
    object_class->set_property = vng_player_set_property;

    /**
     * VnPlayer:device:
     *
     * The ALSA PCM the player plays to; %NULL for `default`. Set at construction.
     */
    properties[PROP_DEVICE] = g_param_spec_string("device", NULL, NULL, NULL,
                                                  G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:configuration:
     *
     * ALSA configuration text in which [property@Voicenote.Player:device] is looked up, or %NULL for the system's. Set
     * at construction.
     */
    properties[PROP_CONFIGURATION] = g_param_spec_string(
        "configuration", NULL, NULL, NULL, G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:mpris-identity:
     *
     * Shows the player to the desktop's media keys and controls (MPRIS on the session bus) under this name
     * ("Fractal") while a note is loading, playing or paused; gone when it is stopped or unloaded, so an idle client
     * never takes the media keys. %NULL (the default): no MPRIS. Set at construction;
     * [method@Voicenote.Player.set_metadata] says what the controls show.
     */
    properties[PROP_MPRIS_IDENTITY] = g_param_spec_string(
        "mpris-identity", NULL, NULL, NULL, G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:mpris-desktop-entry:
     *
     * With [property@Voicenote.Player:mpris-identity]: the host's desktop file name without `.desktop`
     * ("org.gnome.Fractal"), for its icon. Set at construction.
     */
    properties[PROP_MPRIS_DESKTOP_ENTRY] = g_param_spec_string(
        "mpris-desktop-entry", NULL, NULL, NULL, G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:stream-role:
     *
     * The playback stream's role on a PulseAudio or pipewire-pulse server, its `media.role`: "phone" has the
     * server's own policies cork or duck music while a note plays (libvoicenote's
     * vn_player_options_set_stream_role()). %NULL (the default) for none. Set at construction.
     */
    properties[PROP_STREAM_ROLE] = g_param_spec_string(
        "stream-role", NULL, NULL, NULL, G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:location:
     *
     * The current item's location as given to [method@Voicenote.Player.load] (kept after it finished, stopped or failed
     * to load), or %NULL when nothing was loaded; notifies once per change, before [property@Voicenote.Player:state].
     * Several views sharing one player compare it with their own note's location to know whether the player's state is
     * theirs.
     */
    properties[PROP_LOCATION] = g_param_spec_string("location", NULL, NULL, NULL,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:state:
     *
     * The player's state; notifies once per change.
     */
    properties[PROP_STATE] =
        g_param_spec_enum("state", NULL, NULL, VNG_TYPE_PLAYER_STATE, VN_PLAYER_STATE_NOT_LOADED,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:duration:
     *
     * The item's duration in seconds: the hint until it is known, 0 when nothing is loaded; notifies once per
     * change.
     */
    properties[PROP_DURATION] = g_param_spec_double("duration", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:position:
     *
     * What the listener hears now, in seconds of the file's time (progress comes every 0.1 s of played audio);
     * notifies once per change. To move it, [method@Voicenote.Player.seek].
     */
    properties[PROP_POSITION] = g_param_spec_double("position", NULL, NULL, 0, G_MAXDOUBLE, 0,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnPlayer:rate:
     *
     * The playback rate, 0.5…2.5, pitch kept; kept while paused and across items. Setting it is
     * [method@Voicenote.Player.set_rate]; notifies once per change.
     */
    properties[PROP_RATE] = g_param_spec_double("rate", NULL, NULL, 0.5, 2.5, 1.0,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * VnPlayer::finished:
     * @self: the player.
     * @location: the item's location, as given to the load.
     *
     * The item played to its end; the state becomes %VN_PLAYER_STATE_STOPPED at 0.
     */
    signals[SIGNAL_FINISHED] = g_signal_new("finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
    /**
     * VnPlayer::failed:
     * @self: the player.
     * @error: what failed: a %VN_ERROR error (%VN_ERROR_NOT_FOUND, %VN_ERROR_FORMAT, %VN_ERROR_DEVICE, ...) with
     *   libvoicenote's detail as its message.
     *
     * A load, decode or device failure. A state change follows (%VN_PLAYER_STATE_NOT_LOADED for a load that
     * failed, the location kept).
     */
    signals[SIGNAL_FAILED] = g_signal_new("failed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_ERROR);
    /**
     * VnPlayer::item-changed:
     * @self: the player.
     * @location: the new item's location, as given.
     * @key: the new item's key: a URL's key or the URL, the absolute path, or a source's name.
     *
     * A queue moved to another item (libvoicenote's `VN_PLAYER_EVENT_ITEM_CHANGED`), before the new item's state
     * changes.
     */
    signals[SIGNAL_ITEM_CHANGED] = g_signal_new("item-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                                NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
    /**
     * VnPlayer::listened:
     * @self: the player.
     * @location: the note's location, as given.
     * @key: its key, as in [signal@Voicenote.Player::item-changed].
     *
     * The note was heard to 90 % of its duration or to its end (libvoicenote's `VN_PLAYER_EVENT_LISTENED`): it is
     * listened now, remembered across processes ([func@Voicenote.listened_get]). Once per note, before its
     * [signal@Voicenote.Player::finished]: the moment to send a read receipt or the played marker.
     */
    signals[SIGNAL_LISTENED] = g_signal_new("listened", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void vng_player_init(VnPlayer *self) {
    self->rate = 1.0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnPlayer *vng_player_new(GError **error) {
    return g_initable_new(VNG_TYPE_PLAYER, NULL, error, NULL);
}

VnPlayer *vng_player_new_for_device(const gchar *device, const gchar *configuration, GError **error) {
    g_return_val_if_fail(device != NULL, NULL);
    return g_initable_new(VNG_TYPE_PLAYER, NULL, error, "device", device, "configuration", configuration, NULL);
}

gboolean vng_player_load(VnPlayer *self, const gchar *location, gboolean autoplay, gdouble duration_hint,
                         GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_load(self->handle, location, autoplay ? 1 : 0, duration_hint));
}

gboolean vng_player_load_url(VnPlayer *self, const gchar *url, VnHttpOptions *http_options, const gchar *key,
                             gboolean autoplay, gdouble duration_hint, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    g_return_val_if_fail(http_options == NULL || VNG_IS_HTTP_OPTIONS(http_options), FALSE);
    vn_http_options *http = vng_http_options_create_handle(http_options);
    int status = vn_player_load_url(self->handle, url, http, key, autoplay ? 1 : 0, duration_hint);
    vn_http_options_destroy(http);
    return vng_error_set_from_status(error, status);
}

gboolean vng_player_play(VnPlayer *self, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_play(self->handle));
}

gboolean vng_player_pause(VnPlayer *self, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_pause(self->handle));
}

gboolean vng_player_seek(VnPlayer *self, gdouble position, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_seek(self->handle, position));
}

gboolean vng_player_seek_to_word(VnPlayer *self, gdouble word_start, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    vn_transcript_word word = {"", word_start, word_start, 1};
    return vng_error_set_from_status(error, vn_player_seek_to_word(self->handle, &word));
}

gboolean vng_player_set_metadata(VnPlayer *self, const gchar *key, const gchar *title, const gchar *artist,
                                 const gchar *art_url, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    g_return_val_if_fail(key != NULL, FALSE);
    return vng_error_set_from_status(error, vn_player_set_metadata(self->handle, key, title, artist, art_url));
}

gboolean vng_listened_get(const gchar *location, const gchar *key, gboolean *out_listened, GError **error) {
    g_return_val_if_fail(location != NULL, FALSE);
    g_return_val_if_fail(out_listened != NULL, FALSE);
    int listened = 0;
    gboolean ok = vng_error_set_from_status(error, vn_listened(location, key, &listened));
    *out_listened = ok && listened != 0;
    return ok;
}

gboolean vng_listened_set(const gchar *location, const gchar *key, gboolean listened, GError **error) {
    g_return_val_if_fail(location != NULL, FALSE);
    return vng_error_set_from_status(error, vn_listened_set(location, key, listened ? 1 : 0));
}

gboolean vng_listened_clear(GError **error) {
    return vng_error_set_from_status(error, vn_listened_clear());
}

gboolean vng_player_stop(VnPlayer *self, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_stop(self->handle));
}

const gchar *vng_player_get_location(VnPlayer *self) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), NULL);
    return self->location;
}

VnPlayerState vng_player_get_state(VnPlayer *self) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), VN_PLAYER_STATE_NOT_LOADED);
    return self->state;
}

gdouble vng_player_get_duration(VnPlayer *self) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), 0);
    return self->duration;
}

gdouble vng_player_get_position(VnPlayer *self) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), 0);
    return self->position;
}

gdouble vng_player_get_rate(VnPlayer *self) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), 1.0);
    return self->rate;
}

/* The rate changes only through this object, so it is taken here, not from later contexts: a progress context
 * queued before the change still carries the old rate and would flip the property back and forth. */
gboolean vng_player_set_rate(VnPlayer *self, gdouble rate, GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    if (!vng_error_set_from_status(error, vn_player_set_rate(self->handle, rate))) return FALSE;
    if (rate != self->rate) {
        self->rate = rate;
        g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_RATE]);
    }
    return TRUE;
}

gboolean vng_player_set_leveling(VnPlayer *self, gboolean enabled, gdouble target_lufs, gdouble offset_db,
                                 GError **error) {
    g_return_val_if_fail(VNG_IS_PLAYER(self), FALSE);
    return vng_error_set_from_status(error, vn_player_set_leveling(self->handle, enabled ? 1 : 0, target_lufs, offset_db));
}

vn_player *vng_player_handle(VnPlayer *player) {
    return player->handle;
}
