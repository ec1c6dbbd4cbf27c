/*
 * vn-recorder.c: VnRecorder, a GObject over vn_recorder whose events reach the thread-default main context through
 * the context's event bridge (vn-event-bridge.c).
 */
#include "vn-recorder.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"
#include "vn-levels.h"

/* The limits' range in libvoicenote (vn_recorder_options_set_limits), and its defaults. */
#define LIMIT_MAX 1000000.0
#define DEFAULT_MAXIMUM 3600.0
#define DEFAULT_WARNING 10.0
/* How many live levels the property holds: as many as a flow's view shows. */
#define LIVE_LEVELS 40

struct _VnRecorder {
    GObject parent_instance;
    /* Construct-only. */
    gchar *device;
    gchar *configuration;
    gchar *directory;
    gdouble maximum_duration;
    gdouble warning_duration;
    gdouble minimum_duration;
    VnEncoderOptions *encoder_options; /* a reference, or NULL for libvoicenote's encoder */
    gdouble meter_interval;
    gdouble duration_interval;
    gboolean pause_other_players;
    gchar *stream_role;
    VngEventBridge *bridge;
    vn_recorder *handle;
    vn_subscription_id subscription;
    /* What the last delivered context said. */
    VnRecorderState state;
    gdouble duration;
    gdouble average_power;
    gdouble peak_power;
    VngLevels levels;
};

enum {
    PROP_0,
    PROP_DEVICE,
    PROP_CONFIGURATION,
    PROP_DIRECTORY,
    PROP_MAXIMUM_DURATION,
    PROP_WARNING_DURATION,
    PROP_MINIMUM_DURATION,
    PROP_ENCODER_OPTIONS,
    PROP_METER_INTERVAL,
    PROP_DURATION_INTERVAL,
    PROP_STATE,
    PROP_DURATION,
    PROP_AVERAGE_POWER,
    PROP_PEAK_POWER,
    PROP_LEVELS,
    PROP_PAUSE_OTHER_PLAYERS,
    PROP_STREAM_ROLE,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
    SIGNAL_FINISHED,
    SIGNAL_TOO_SHORT,
    SIGNAL_FAILED,
    SIGNAL_MAXIMUM_DURATION_WARNING,
    SIGNAL_MAXIMUM_DURATION_REACHED,
    SIGNAL_SOURCE_CHANGED,
    N_SIGNALS
};
static guint signals[N_SIGNALS];

static void vng_recorder_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnRecorder, vng_recorder, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_recorder_initable_init))

GType vng_recorder_state_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_RECORDER_STATE_STOPPED, "VN_RECORDER_STATE_STOPPED", "stopped"},
        {VN_RECORDER_STATE_RECORDING, "VN_RECORDER_STATE_RECORDING", "recording"},
        {VN_RECORDER_STATE_PAUSED, "VN_RECORDER_STATE_PAUSED", "paused"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnRecorderState"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Events, on the context's thread (inside vn_event_loop_dispatch) */

/* Takes a context's state, duration and power, and the live levels as the recorder has them now, then notifies each
 * that changed, in that order; handlers see the whole new context. */
static void apply_context(VnRecorder *self, const vn_recorder_context *context) {
    GParamSpec *changed[5];
    guint count = 0;
    if ((VnRecorderState)context->state != self->state) {
        self->state = (VnRecorderState)context->state;
        changed[count++] = properties[PROP_STATE];
    }
    if (context->duration_s != self->duration) {
        self->duration = context->duration_s;
        changed[count++] = properties[PROP_DURATION];
    }
    if ((gdouble)context->average_power != self->average_power) {
        self->average_power = context->average_power;
        changed[count++] = properties[PROP_AVERAGE_POWER];
    }
    if ((gdouble)context->peak_power != self->peak_power) {
        self->peak_power = context->peak_power;
        changed[count++] = properties[PROP_PEAK_POWER];
    }
    float levels[LIVE_LEVELS];
    size_t written = 0;
    if (vn_recorder_levels(self->handle, LIVE_LEVELS, levels, LIVE_LEVELS, &written) == VN_OK &&
        vng_levels_take(&self->levels, levels, written)) {
        changed[count++] = properties[PROP_LEVELS];
    }
    vng_event_notify(G_OBJECT(self), (void *const *)&self->handle, changed, count);
}

static void on_recorder_event(void *user_data, const vn_recorder_event *event) {
    VnRecorder *self = user_data;
    g_object_ref(self); /* a handler may drop the last reference */
    switch (event->type) {
    case VN_RECORDER_EVENT_CONTEXT:
        apply_context(self, &event->context);
        break;
    case VN_RECORDER_EVENT_FINISHED:
        g_signal_emit(self, signals[SIGNAL_FINISHED], 0, event->path, event->duration_s);
        break;
    case VN_RECORDER_EVENT_FAILED: {
        GError *error = vng_event_error(event->status, event->message);
        g_signal_emit(self, signals[SIGNAL_FAILED], 0, error);
        g_error_free(error);
        break;
    }
    case VN_RECORDER_EVENT_MAX_DURATION_WARNING:
        g_signal_emit(self, signals[SIGNAL_MAXIMUM_DURATION_WARNING], 0, event->remaining_s);
        break;
    case VN_RECORDER_EVENT_MAX_DURATION_REACHED:
        g_signal_emit(self, signals[SIGNAL_MAXIMUM_DURATION_REACHED], 0);
        break;
    case VN_RECORDER_EVENT_TOO_SHORT:
        g_signal_emit(self, signals[SIGNAL_TOO_SHORT], 0, event->duration_s);
        break;
    case VN_RECORDER_EVENT_SOURCE_CHANGED: {
        GError *lost = vng_event_error(event->status, event->message);
        g_signal_emit(self, signals[SIGNAL_SOURCE_CHANGED], 0, event->device, lost);
        g_error_free(lost);
        break;
    }
    default: /* a kind a newer library added: nothing to say about it yet */
        break;
    }
    g_object_unref(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction and disposal */

static gboolean make_recorder(VnRecorder *self, GError **error) {
    vn_recorder_options *options = NULL;
    gboolean ok =
        vng_error_set_from_status(error, vn_recorder_options_create(&options)) &&
        (self->device == NULL ||
         vng_error_set_from_status(error,
                                   vn_recorder_options_set_device(options, self->device, self->configuration))) &&
        (self->directory == NULL ||
         vng_error_set_from_status(error, vn_recorder_options_set_directory(options, self->directory))) &&
        vng_error_set_from_status(error, vn_recorder_options_set_limits(options, self->maximum_duration,
                                                                        self->warning_duration,
                                                                        self->minimum_duration)) &&
        vng_encoder_options_apply_to_recorder(self->encoder_options, options, error) &&
        vng_error_set_from_status(error, vn_recorder_options_set_intervals(options, self->meter_interval,
                                                                           self->duration_interval)) &&
        vng_error_set_from_status(error,
                                  vn_recorder_options_set_event_loop(options, vng_event_bridge_loop(self->bridge))) &&
        vng_error_set_from_status(error, vn_recorder_options_set_pause_other_players(
                                             options, self->pause_other_players ? 1 : 0)) &&
        (self->stream_role == NULL ||
         vng_error_set_from_status(error, vn_recorder_options_set_stream_role(options, self->stream_role))) &&
        vng_error_set_from_status(error, vn_recorder_create(options, &self->handle));
    vn_recorder_options_destroy(options);
    return ok;
}

static gboolean vng_recorder_initable_init_instance(GInitable *initable, GCancellable *cancellable, GError **error) {
    (void)cancellable;
    VnRecorder *self = VNG_RECORDER(initable);
    g_return_val_if_fail(self->bridge == NULL, FALSE);
    self->bridge = vng_event_bridge_acquire(error);
    if (self->bridge == NULL || !make_recorder(self, error)) return FALSE;
    vn_recorder_context context = {.size = sizeof context};
    if (!vng_error_set_from_status(error, vn_recorder_get_context(self->handle, &context))) return FALSE;
    self->state = (VnRecorderState)context.state;
    self->duration = context.duration_s;
    self->average_power = context.average_power;
    self->peak_power = context.peak_power;
    /* No reference in user_data: dispose ends the subscription before the object goes. */
    return vng_error_set_from_status(error, vn_recorder_subscribe(self->handle, on_recorder_event, self, NULL,
                                                                  &self->subscription));
}

static void vng_recorder_initable_init(GInitableIface *iface) {
    iface->init = vng_recorder_initable_init_instance;
}

/* Unsubscribes first (from inside one of its own callbacks this marks it dead without waiting), then destroys the
 * recorder (a take in progress is finished and kept), then lets the context's bridge go. */
static void vng_recorder_dispose(GObject *object) {
    VnRecorder *self = VNG_RECORDER(object);
    if (self->subscription != 0) {
        vn_unsubscribe(self->subscription);
        self->subscription = 0;
    }
    g_clear_pointer(&self->handle, vn_recorder_destroy);
    g_clear_pointer(&self->bridge, vng_event_bridge_release);
    g_clear_object(&self->encoder_options);
    G_OBJECT_CLASS(vng_recorder_parent_class)->dispose(object);
}

static void vng_recorder_finalize(GObject *object) {
    VnRecorder *self = VNG_RECORDER(object);
    g_free(self->device);
    g_free(self->configuration);
    g_free(self->directory);
    g_free(self->stream_role);
    vng_levels_clear(&self->levels);
    G_OBJECT_CLASS(vng_recorder_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_recorder_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnRecorder *self = VNG_RECORDER(object);
    switch (id) {
    case PROP_DEVICE: g_value_set_string(value, self->device); break;
    case PROP_CONFIGURATION: g_value_set_string(value, self->configuration); break;
    case PROP_DIRECTORY: g_value_set_string(value, self->directory); break;
    case PROP_MAXIMUM_DURATION: g_value_set_double(value, self->maximum_duration); break;
    case PROP_WARNING_DURATION: g_value_set_double(value, self->warning_duration); break;
    case PROP_MINIMUM_DURATION: g_value_set_double(value, self->minimum_duration); break;
    case PROP_ENCODER_OPTIONS: g_value_set_object(value, self->encoder_options); break;
    case PROP_METER_INTERVAL: g_value_set_double(value, self->meter_interval); break;
    case PROP_DURATION_INTERVAL: g_value_set_double(value, self->duration_interval); break;
    case PROP_STATE: g_value_set_enum(value, self->state); break;
    case PROP_DURATION: g_value_set_double(value, self->duration); break;
    case PROP_AVERAGE_POWER: g_value_set_double(value, self->average_power); break;
    case PROP_PEAK_POWER: g_value_set_double(value, self->peak_power); break;
    case PROP_LEVELS: g_value_set_variant(value, self->levels.variant); break;
    case PROP_PAUSE_OTHER_PLAYERS: g_value_set_boolean(value, self->pause_other_players); break;
    case PROP_STREAM_ROLE: g_value_set_string(value, self->stream_role); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_recorder_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnRecorder *self = VNG_RECORDER(object);
    switch (id) {
    case PROP_DEVICE: self->device = g_value_dup_string(value); break;
    case PROP_CONFIGURATION: self->configuration = g_value_dup_string(value); break;
    case PROP_DIRECTORY: self->directory = g_value_dup_string(value); break;
    case PROP_MAXIMUM_DURATION: self->maximum_duration = g_value_get_double(value); break;
    case PROP_WARNING_DURATION: self->warning_duration = g_value_get_double(value); break;
    case PROP_MINIMUM_DURATION: self->minimum_duration = g_value_get_double(value); break;
    case PROP_ENCODER_OPTIONS: self->encoder_options = g_value_dup_object(value); break;
    case PROP_METER_INTERVAL: self->meter_interval = g_value_get_double(value); break;
    case PROP_DURATION_INTERVAL: self->duration_interval = g_value_get_double(value); break;
    case PROP_PAUSE_OTHER_PLAYERS: self->pause_other_players = g_value_get_boolean(value); break;
    case PROP_STREAM_ROLE: self->stream_role = g_value_dup_string(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static GParamSpec *construct_string(const gchar *name) {
    return g_param_spec_string(name, NULL, NULL, NULL,
                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
}

static GParamSpec *construct_limit(const gchar *name, gdouble default_value) {
    return g_param_spec_double(name, NULL, NULL, 0, LIMIT_MAX, default_value,
                               G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
}

static GParamSpec *readable_double(const gchar *name, gdouble maximum) {
    return g_param_spec_double(name, NULL, NULL, 0, maximum, 0,
                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

static void vng_recorder_class_init(VnRecorderClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = vng_recorder_dispose;
    object_class->finalize = vng_recorder_finalize;
    object_class->get_property = vng_recorder_get_property;
    object_class->set_property = vng_recorder_set_property;

    /**
     * VnRecorder:device:
     *
     * The ALSA PCM the recorder captures from; %NULL for `default`. Set at construction.
     */
    properties[PROP_DEVICE] = construct_string("device");
    /**
     * VnRecorder:configuration:
     *
     * ALSA configuration text in which [property@Voicenote.Recorder:device] is looked up, or %NULL for the system's.
     * Set at construction.
     */
    properties[PROP_CONFIGURATION] = construct_string("configuration");
    /**
     * VnRecorder:directory: (type filename)
     *
     * Where takes are written, or %NULL for `$XDG_CACHE_HOME/voicenote/recordings`. Set at construction.
     */
    properties[PROP_DIRECTORY] = construct_string("directory");
    /**
     * VnRecorder:maximum-duration:
     *
     * The longest take in seconds (0…1000000; 0 = no limit): it stops and is finished there
     * ([signal@Voicenote.Recorder::maximum-duration-reached], then [signal@Voicenote.Recorder::finished]). Set at
     * construction; 3600 by default.
     */
    properties[PROP_MAXIMUM_DURATION] = construct_limit("maximum-duration", DEFAULT_MAXIMUM);
    /**
     * VnRecorder:warning-duration:
     *
     * How many seconds before the maximum [signal@Voicenote.Recorder::maximum-duration-warning] comes (0…1000000). Set
     * at construction; 10 by default.
     */
    properties[PROP_WARNING_DURATION] = construct_limit("warning-duration", DEFAULT_WARNING);
    /**
     * VnRecorder:minimum-duration:
     *
     * Takes shorter than this many seconds (0…1000000) are deleted with [signal@Voicenote.Recorder::too-short]; 0 keeps
     * every take that captured a frame. Set at construction; 0 by default.
     */
    properties[PROP_MINIMUM_DURATION] = construct_limit("minimum-duration", 0);
    /**
     * VnRecorder:encoder-options:
     *
     * The takes' format and encoder (Ogg Opus or AAC, bitrate, Opus complexity and frame duration) as the
     * [class@Voicenote.EncoderOptions] hold them at construction, or %NULL for libvoicenote's (Ogg Opus at 32 kbit/s,
     * complexity 10, 20 ms frames). Set at construction.
     */
    properties[PROP_ENCODER_OPTIONS] =
        g_param_spec_object("encoder-options", NULL, NULL, VNG_TYPE_ENCODER_OPTIONS,
                            G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnRecorder:meter-interval:
     *
     * Seconds of captured audio between two level readings ([property@Voicenote.Recorder:levels],
     * [property@Voicenote.Recorder:average-power]), 0.01…10. Set at construction; 0.1 by default.
     */
    properties[PROP_METER_INTERVAL] = g_param_spec_double("meter-interval", NULL, NULL, 0.01, 10, 0.1,
                                                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                              G_PARAM_STATIC_STRINGS);
    /**
     * VnRecorder:duration-interval:
     *
     * Seconds of captured audio between two [property@Voicenote.Recorder:duration] steps, 0.01…60. Set at
     * construction; 0.5 by default.
     */
    properties[PROP_DURATION_INTERVAL] = g_param_spec_double("duration-interval", NULL, NULL, 0.01, 60, 0.5,
                                                             G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY |
                                                                 G_PARAM_STATIC_STRINGS);
    /**
     * VnRecorder:pause-other-players:
     *
     * Pauses the desktop's other media players (MPRIS: music, podcasts, videos) that are playing while a take is
     * recorded, and resumes exactly those when it is finished or cancelled (libvoicenote's
     * vn_recorder_options_set_pause_other_players()). %FALSE by default. Set at construction.
     */
    properties[PROP_PAUSE_OTHER_PLAYERS] = g_param_spec_boolean(
        "pause-other-players", NULL, NULL, FALSE, G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
    /**
     * VnRecorder:stream-role:
     *
     * The capture stream's role on a PulseAudio or pipewire-pulse server, its `media.role` (libvoicenote's
     * vn_recorder_options_set_stream_role(), which says when a host should set one: "phone" lets PulseAudio switch
     * Bluetooth headsets to their headset profile). %NULL (the default) for none. Set at construction.
     */
    properties[PROP_STREAM_ROLE] = construct_string("stream-role");
    /**
     * VnRecorder:state:
     *
     * The recorder's state; notifies once per change.
     */
    properties[PROP_STATE] =
        g_param_spec_enum("state", NULL, NULL, VNG_TYPE_RECORDER_STATE, VN_RECORDER_STATE_STOPPED,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnRecorder:duration:
     *
     * Seconds captured in this take, paused time excluded (steps every 0.5 s of captured audio); notifies once per
     * change.
     */
    properties[PROP_DURATION] = readable_double("duration", G_MAXDOUBLE);
    /**
     * VnRecorder:average-power:
     *
     * The RMS level of the last meter window (every 0.1 s of captured audio), 0…1; notifies once per change.
     */
    properties[PROP_AVERAGE_POWER] = readable_double("average-power", 1);
    /**
     * VnRecorder:peak-power:
     *
     * The peak level of the last meter window, 0…1; notifies once per change.
     */
    properties[PROP_PEAK_POWER] = readable_double("peak-power", 1);
    /**
     * VnRecorder:levels: (type GLib.Variant)
     *
     * The take's last live levels (up to 40, one average power 0…1 per meter step, oldest first), read from the
     * recorder as each context event is delivered, as a [struct@GLib.Variant] of type `ad` (Python:
     * `recorder.props.levels.unpack()`, gjs: `recorder.levels.deepUnpack()`); empty before the first take. Notifies
     * once per change: when the number of levels or any of them differs from the last read. For another count,
     * [method@Voicenote.Recorder.copy_levels].
     */
    properties[PROP_LEVELS] = vng_levels_param_spec("levels");
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * VnRecorder::finished:
     * @self: the recorder.
     * @path: (type filename): the kept file.
     * @duration: what the file holds, in seconds (less than was captured when a write failed:
     * [signal@Voicenote.Recorder::failed]
     *   follows then).
     *
     * A take was kept; [property@Voicenote.Recorder:state] becomes %VN_RECORDER_STATE_STOPPED next.
     */
    signals[SIGNAL_FINISHED] = g_signal_new("finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                            NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_DOUBLE);
    /**
     * VnRecorder::too-short:
     * @self: the recorder.
     * @duration: the seconds captured.
     *
     * The take was shorter than [property@Voicenote.Recorder:minimum-duration], or captured no frame at all, and was
     * deleted.
     */
    signals[SIGNAL_TOO_SHORT] = g_signal_new("too-short", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                             NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    /**
     * VnRecorder::source-changed:
     * @self: the recorder.
     * @device: the device the take goes on from.
     * @lost: why the source was lost (a %VN_ERROR_DEVICE error).
     *
     * The microphone was lost mid-take (a USB microphone unplugged, a headset gone) and the take goes on from the
     * fallback device (libvoicenote's `VN_RECORDER_EVENT_SOURCE_CHANGED`): nothing captured is lost but the gap.
     */
    signals[SIGNAL_SOURCE_CHANGED] = g_signal_new("source-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                                  NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_ERROR);
    /**
     * VnRecorder::failed:
     * @self: the recorder.
     * @error: what failed: a %VN_ERROR error (%VN_ERROR_DEVICE for a lost device, %VN_ERROR_NO_SPACE or
     *   %VN_ERROR_IO for a write) with libvoicenote's detail as its message.
     *
     * A failure during a take (after [signal@Voicenote.Recorder::finished] when the take was kept).
     */
    signals[SIGNAL_FAILED] = g_signal_new("failed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                          G_TYPE_NONE, 1, G_TYPE_ERROR);
    /**
     * VnRecorder::maximum-duration-warning:
     * @self: the recorder.
     * @remaining: seconds left before [property@Voicenote.Recorder:maximum-duration].
     *
     * The take nears its maximum length.
     */
    signals[SIGNAL_MAXIMUM_DURATION_WARNING] =
        g_signal_new("maximum-duration-warning", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 1, G_TYPE_DOUBLE);
    /**
     * VnRecorder::maximum-duration-reached:
     * @self: the recorder.
     *
     * The take reached [property@Voicenote.Recorder:maximum-duration] and stopped;
     * [signal@Voicenote.Recorder::finished] follows.
     */
    signals[SIGNAL_MAXIMUM_DURATION_REACHED] =
        g_signal_new("maximum-duration-reached", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 0);
}

static void vng_recorder_init(VnRecorder *self) {
    vng_levels_init(&self->levels);
    self->maximum_duration = DEFAULT_MAXIMUM;
    self->warning_duration = DEFAULT_WARNING;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnRecorder *vng_recorder_new(const gchar *device, const gchar *configuration, const gchar *directory,
                             GError **error) {
    return g_initable_new(VNG_TYPE_RECORDER, NULL, error, "device", device, "configuration", configuration,
                          "directory", directory, NULL);
}

gboolean vng_recorder_begin(VnRecorder *self, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_begin(self->handle));
}

gboolean vng_recorder_pause(VnRecorder *self, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_pause(self->handle));
}

gboolean vng_recorder_resume(VnRecorder *self, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_resume(self->handle));
}

gboolean vng_recorder_stop(VnRecorder *self, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_stop(self->handle));
}

gboolean vng_recorder_set_voice_cleanup(VnRecorder *self, gboolean enabled, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_set_voice_cleanup(self->handle, enabled ? 1 : 0));
}

gboolean vng_recorder_get_voice_cleanup(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    int enabled = 0;
    return vn_recorder_get_voice_cleanup(self->handle, &enabled) == VN_OK && enabled == 1;
}

gboolean vng_recorder_cancel(VnRecorder *self, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), FALSE);
    return vng_error_set_from_status(error, vn_recorder_cancel(self->handle));
}

VnRecorderState vng_recorder_get_state(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), VN_RECORDER_STATE_STOPPED);
    return self->state;
}

gdouble vng_recorder_get_duration(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), 0);
    return self->duration;
}

gdouble vng_recorder_get_average_power(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), 0);
    return self->average_power;
}

gdouble vng_recorder_get_peak_power(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), 0);
    return self->peak_power;
}

GVariant *vng_recorder_get_levels(VnRecorder *self) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), NULL);
    return self->levels.variant;
}

gfloat *vng_recorder_copy_levels(VnRecorder *self, guint count, guint *n_levels, GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(self), NULL);
    g_return_val_if_fail(n_levels != NULL, NULL);
    *n_levels = 0;
    gfloat *levels = g_new(gfloat, MAX(count, 1));
    size_t written = 0;
    if (!vng_error_set_from_status(error, vn_recorder_levels(self->handle, count, levels, count, &written))) {
        g_free(levels);
        return NULL;
    }
    if (written == 0) {
        g_free(levels);
        return NULL;
    }
    *n_levels = (guint)written;
    return levels;
}

vn_recorder *vng_recorder_handle(VnRecorder *recorder) {
    return recorder->handle;
}
