/*
 * vn-flow.c: VnFlow, a GObject over vn_flow whose events reach the thread-default main context through the
 * context's event bridge (vn-event-bridge.c). It holds its VnRecorder, VnPlayer and VnManualClock.
 */
#include "vn-flow.h"

#include "vn-error.h"
#include "vn-event-bridge.h"
#include "vn-handles.h"
#include "vn-levels.h"

struct _VnFlow {
    GObject parent_instance;
    /* Construct-only. */
    VnRecorder *recorder;
    VnPlayer *player;
    VnManualClock *clock; /* may be NULL */
    gchar *draft_key;
    gchar *drafts_directory;
    gboolean toggle_mode;
    gboolean key_inputs;
    gboolean confirmation_required;
    gdouble cancel_distance;
    gdouble lock_distance;
    gdouble minimum_press;
    gdouble tip_duration;
    guint waveform_samples;
    VngEventBridge *bridge;
    vn_flow *handle;
    vn_subscription_id subscription;
    /* What the last delivered view said. */
    VnFlowState state;
    gdouble duration;
    gdouble slide_to_cancel_alpha;
    gdouble lock_padding;
    gdouble chevron_alpha;
    gboolean tip_visible;
    gdouble preview_position;
    gboolean preview_playing;
    gdouble trim_start;
    gdouble trim_end;
    gboolean toggled;
    gchar *accessible_description;
    VngLevels levels;
    VngLevels waveform;
};

enum {
    PROP_0,
    PROP_RECORDER,
    PROP_PLAYER,
    PROP_CLOCK,
    PROP_DRAFT_KEY,
    PROP_DRAFTS_DIRECTORY,
    PROP_TOGGLE_MODE,
    PROP_KEY_INPUTS,
    PROP_CONFIRMATION_REQUIRED,
    PROP_CANCEL_DISTANCE,
    PROP_LOCK_DISTANCE,
    PROP_MINIMUM_PRESS,
    PROP_TIP_DURATION,
    PROP_WAVEFORM_SAMPLES,
    /* The view, in the order a view's changes are notified. */
    PROP_STATE,
    PROP_DURATION,
    PROP_SLIDE_TO_CANCEL_ALPHA,
    PROP_LOCK_PADDING,
    PROP_CHEVRON_ALPHA,
    PROP_TIP_VISIBLE,
    PROP_PREVIEW_POSITION,
    PROP_PREVIEW_PLAYING,
    PROP_TRIM_START,
    PROP_TRIM_END,
    PROP_TOGGLED,
    PROP_ACCESSIBLE_DESCRIPTION,
    PROP_LEVELS,
    PROP_WAVEFORM,
    N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
    SIGNAL_ATTACHMENT_READY,
    SIGNAL_PUBLISH,
    SIGNAL_PARKED,
    SIGNAL_TRIMMED,
    SIGNAL_TRIM_FAILED,
    SIGNAL_FAILED,
    SIGNAL_TOO_SHORT,
    N_SIGNALS
};
static guint signals[N_SIGNALS];

static void vng_flow_initable_init(GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(VnFlow, vng_flow, G_TYPE_OBJECT,
                              G_IMPLEMENT_INTERFACE(G_TYPE_INITABLE, vng_flow_initable_init))

GType vng_flow_state_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_FLOW_STATE_IDLE, "VN_FLOW_STATE_IDLE", "idle"},
        {VN_FLOW_STATE_SHOWING_TIP, "VN_FLOW_STATE_SHOWING_TIP", "showing-tip"},
        {VN_FLOW_STATE_RECORDING, "VN_FLOW_STATE_RECORDING", "recording"},
        {VN_FLOW_STATE_LOCKED, "VN_FLOW_STATE_LOCKED", "locked"},
        {VN_FLOW_STATE_PREVIEW, "VN_FLOW_STATE_PREVIEW", "preview"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnFlowState"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

GType vng_flow_input_key_get_type(void) {
    static gsize type_once = 0;
    static const GEnumValue values[] = {
        {VN_FLOW_INPUT_KEY_RECORD, "VN_FLOW_INPUT_KEY_RECORD", "record"},
        {VN_FLOW_INPUT_KEY_ESCAPE, "VN_FLOW_INPUT_KEY_ESCAPE", "escape"},
        {VN_FLOW_INPUT_KEY_ENTER, "VN_FLOW_INPUT_KEY_ENTER", "enter"},
        {0, NULL, NULL},
    };
    if (g_once_init_enter(&type_once)) {
        GType type = g_enum_register_static(g_intern_static_string("VnFlowInputKey"), values);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Events, on the context's thread (inside vn_event_loop_dispatch) */

static void set_floats(GArray *array, const float *values, size_t count) {
    g_array_set_size(array, 0);
    if (values != NULL && count > 0) g_array_append_vals(array, values, (guint)count);
}

/* Takes `*field = value` when it differs, adding the property to `changed`. */
#define TAKE(field, value, property)                                                                                 \
    do {                                                                                                             \
        if ((field) != (value)) {                                                                                    \
            (field) = (value);                                                                                       \
            changed[count++] = properties[property];                                                                 \
        }                                                                                                            \
    } while (0)

/* Takes a whole view, then notifies each property that changed, in the properties' order; handlers see the whole
 * new view. */
static void apply_view(VnFlow *self, const vn_flow_view *view) {
    GParamSpec *changed[N_PROPS];
    guint count = 0;
    TAKE(self->state, (VnFlowState)view->state, PROP_STATE);
    TAKE(self->duration, view->duration_s, PROP_DURATION);
    TAKE(self->slide_to_cancel_alpha, view->slide_to_cancel_alpha, PROP_SLIDE_TO_CANCEL_ALPHA);
    TAKE(self->lock_padding, view->lock_padding, PROP_LOCK_PADDING);
    TAKE(self->chevron_alpha, view->chevron_alpha, PROP_CHEVRON_ALPHA);
    TAKE(self->tip_visible, view->tip_visible != 0, PROP_TIP_VISIBLE);
    TAKE(self->preview_position, view->preview_position_s, PROP_PREVIEW_POSITION);
    TAKE(self->preview_playing, view->preview_playing != 0, PROP_PREVIEW_PLAYING);
    TAKE(self->trim_start, view->trim_start_s, PROP_TRIM_START);
    TAKE(self->trim_end, view->trim_end_s, PROP_TRIM_END);
    TAKE(self->toggled, view->toggled != 0, PROP_TOGGLED);
    const gchar *description = view->accessible_description != NULL ? view->accessible_description : "";
    if (g_strcmp0(self->accessible_description, description) != 0) {
        g_free(self->accessible_description);
        self->accessible_description = g_strdup(description);
        changed[count++] = properties[PROP_ACCESSIBLE_DESCRIPTION];
    }
    if (vng_levels_take(&self->levels, view->levels, view->level_count)) changed[count++] = properties[PROP_LEVELS];
    if (vng_levels_take(&self->waveform, view->waveform, view->waveform_count)) {
        changed[count++] = properties[PROP_WAVEFORM];
    }
    vng_event_notify(G_OBJECT(self), (void *const *)&self->handle, changed, count);
}

#undef TAKE

/* A take's event (ATTACHMENT_READY, PUBLISH, PARKED, TRIMMED) as its signal: path, duration, waveform, payload. */
static void emit_take(VnFlow *self, guint signal, const vn_flow_event *event) {
    GArray *waveform = g_array_sized_new(FALSE, FALSE, sizeof(gfloat), (guint)event->waveform_count);
    set_floats(waveform, event->waveform, event->waveform_count);
    g_signal_emit(self, signals[signal], 0, event->path, event->duration_s, waveform,
                  event->payload_json != NULL ? event->payload_json : "");
    g_array_unref(waveform);
}

static void on_flow_event(void *user_data, const vn_flow_event *event) {
    VnFlow *self = user_data;
    g_object_ref(self); /* a handler may drop the last reference */
    switch (event->type) {
    case VN_FLOW_EVENT_VIEW: apply_view(self, &event->view); break;
    case VN_FLOW_EVENT_ATTACHMENT_READY: emit_take(self, SIGNAL_ATTACHMENT_READY, event); break;
    case VN_FLOW_EVENT_PUBLISH: emit_take(self, SIGNAL_PUBLISH, event); break;
    case VN_FLOW_EVENT_PARKED: emit_take(self, SIGNAL_PARKED, event); break;
    case VN_FLOW_EVENT_TRIMMED:
        if (event->status == VN_OK) {
            emit_take(self, SIGNAL_TRIMMED, event);
        } else {
            GError *error = vng_event_error(event->status, event->message);
            g_signal_emit(self, signals[SIGNAL_TRIM_FAILED], 0, error, event->path, event->duration_s);
            g_error_free(error);
        }
        break;
    case VN_FLOW_EVENT_FAILED: {
        GError *error = vng_event_error(event->status, event->message);
        g_signal_emit(self, signals[SIGNAL_FAILED], 0, error);
        g_error_free(error);
        break;
    }
    case VN_FLOW_EVENT_TOO_SHORT: g_signal_emit(self, signals[SIGNAL_TOO_SHORT], 0, event->duration_s); break;
    default: /* a kind a newer library added: nothing to say about it yet */ break;
    }
    g_object_unref(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Construction and disposal */

static gboolean make_flow(VnFlow *self, GError **error) {
    vn_flow_options *options = NULL;
    gboolean ok =
        vng_error_set_from_status(error, vn_flow_options_create(&options)) &&
        vng_error_set_from_status(error, vn_flow_options_set_toggle_mode(options, self->toggle_mode)) &&
        vng_error_set_from_status(error, vn_flow_options_set_key_inputs(options, self->key_inputs)) &&
        vng_error_set_from_status(error,
                                  vn_flow_options_set_confirmation_required(options, self->confirmation_required)) &&
        vng_error_set_from_status(error,
                                  vn_flow_options_set_distances(options, self->cancel_distance, self->lock_distance)) &&
        vng_error_set_from_status(error,
                                  vn_flow_options_set_times(options, self->minimum_press, self->tip_duration)) &&
        vng_error_set_from_status(error, vn_flow_options_set_waveform_samples(options, self->waveform_samples)) &&
        (self->clock == NULL ||
         vng_error_set_from_status(error, vn_flow_options_set_clock(options, vng_manual_clock_handle(self->clock)))) &&
        (self->draft_key == NULL ||
         vng_error_set_from_status(error,
                                   vn_flow_options_set_draft(options, self->draft_key, self->drafts_directory))) &&
        vng_error_set_from_status(error, vn_flow_options_set_event_loop(options, vng_event_bridge_loop(self->bridge))) &&
        vng_error_set_from_status(error, vn_flow_create(vng_recorder_handle(self->recorder),
                                                        vng_player_handle(self->player), options, &self->handle));
    vn_flow_options_destroy(options);
    return ok;
}

static gboolean vng_flow_initable_init_instance(GInitable *initable, GCancellable *cancellable, GError **error) {
    (void)cancellable;
    VnFlow *self = VNG_FLOW(initable);
    g_return_val_if_fail(self->bridge == NULL, FALSE);
    g_return_val_if_fail(VNG_IS_RECORDER(self->recorder) && VNG_IS_PLAYER(self->player), FALSE);
    self->bridge = vng_event_bridge_acquire(error);
    if (self->bridge == NULL || !make_flow(self, error)) return FALSE;
    int state = VN_FLOW_IDLE;
    if (!vng_error_set_from_status(error, vn_flow_get_state(self->handle, &state))) return FALSE;
    self->state = (VnFlowState)state;
    /* No reference in user_data: dispose ends the subscription before the object goes. The current view comes
     * first, through the main context like every event. */
    return vng_error_set_from_status(error,
                                     vn_flow_subscribe(self->handle, on_flow_event, self, NULL, &self->subscription));
}

static void vng_flow_initable_init(GInitableIface *iface) {
    iface->init = vng_flow_initable_init_instance;
}

/* Unsubscribes first (from inside one of its own callbacks this marks it dead without waiting), then destroys the
 * flow, then lets the recorder, player and clock it used go, and the context's bridge. */
static void vng_flow_dispose(GObject *object) {
    VnFlow *self = VNG_FLOW(object);
    if (self->subscription != 0) {
        vn_unsubscribe(self->subscription);
        self->subscription = 0;
    }
    g_clear_pointer(&self->handle, vn_flow_destroy);
    g_clear_object(&self->recorder);
    g_clear_object(&self->player);
    g_clear_object(&self->clock);
    g_clear_pointer(&self->bridge, vng_event_bridge_release);
    G_OBJECT_CLASS(vng_flow_parent_class)->dispose(object);
}

static void vng_flow_finalize(GObject *object) {
    VnFlow *self = VNG_FLOW(object);
    g_free(self->draft_key);
    g_free(self->drafts_directory);
    g_free(self->accessible_description);
    vng_levels_clear(&self->levels);
    vng_levels_clear(&self->waveform);
    G_OBJECT_CLASS(vng_flow_parent_class)->finalize(object);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Properties */

static void vng_flow_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnFlow *self = VNG_FLOW(object);
    switch (id) {
    case PROP_RECORDER: g_value_set_object(value, self->recorder); break;
    case PROP_PLAYER: g_value_set_object(value, self->player); break;
    case PROP_CLOCK: g_value_set_object(value, self->clock); break;
    case PROP_DRAFT_KEY: g_value_set_string(value, self->draft_key); break;
    case PROP_DRAFTS_DIRECTORY: g_value_set_string(value, self->drafts_directory); break;
    case PROP_TOGGLE_MODE: g_value_set_boolean(value, self->toggle_mode); break;
    case PROP_KEY_INPUTS: g_value_set_boolean(value, self->key_inputs); break;
    case PROP_CONFIRMATION_REQUIRED: g_value_set_boolean(value, self->confirmation_required); break;
    case PROP_CANCEL_DISTANCE: g_value_set_double(value, self->cancel_distance); break;
    case PROP_LOCK_DISTANCE: g_value_set_double(value, self->lock_distance); break;
    case PROP_MINIMUM_PRESS: g_value_set_double(value, self->minimum_press); break;
    case PROP_TIP_DURATION: g_value_set_double(value, self->tip_duration); break;
    case PROP_WAVEFORM_SAMPLES: g_value_set_uint(value, self->waveform_samples); break;
    case PROP_STATE: g_value_set_enum(value, self->state); break;
    case PROP_DURATION: g_value_set_double(value, self->duration); break;
    case PROP_SLIDE_TO_CANCEL_ALPHA: g_value_set_double(value, self->slide_to_cancel_alpha); break;
    case PROP_LOCK_PADDING: g_value_set_double(value, self->lock_padding); break;
    case PROP_CHEVRON_ALPHA: g_value_set_double(value, self->chevron_alpha); break;
    case PROP_TIP_VISIBLE: g_value_set_boolean(value, self->tip_visible); break;
    case PROP_PREVIEW_POSITION: g_value_set_double(value, self->preview_position); break;
    case PROP_PREVIEW_PLAYING: g_value_set_boolean(value, self->preview_playing); break;
    case PROP_TRIM_START: g_value_set_double(value, self->trim_start); break;
    case PROP_TRIM_END: g_value_set_double(value, self->trim_end); break;
    case PROP_TOGGLED: g_value_set_boolean(value, self->toggled); break;
    case PROP_ACCESSIBLE_DESCRIPTION: g_value_set_string(value, self->accessible_description); break;
    case PROP_LEVELS: g_value_set_variant(value, self->levels.variant); break;
    case PROP_WAVEFORM: g_value_set_variant(value, self->waveform.variant); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vng_flow_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnFlow *self = VNG_FLOW(object);
    switch (id) {
    case PROP_RECORDER: self->recorder = g_value_dup_object(value); break;
    case PROP_PLAYER: self->player = g_value_dup_object(value); break;
    case PROP_CLOCK: self->clock = g_value_dup_object(value); break;
    case PROP_DRAFT_KEY: self->draft_key = g_value_dup_string(value); break;
    case PROP_DRAFTS_DIRECTORY: self->drafts_directory = g_value_dup_string(value); break;
    case PROP_TOGGLE_MODE: self->toggle_mode = g_value_get_boolean(value); break;
    case PROP_KEY_INPUTS: self->key_inputs = g_value_get_boolean(value); break;
    case PROP_CONFIRMATION_REQUIRED: self->confirmation_required = g_value_get_boolean(value); break;
    case PROP_CANCEL_DISTANCE: self->cancel_distance = g_value_get_double(value); break;
    case PROP_LOCK_DISTANCE: self->lock_distance = g_value_get_double(value); break;
    case PROP_MINIMUM_PRESS: self->minimum_press = g_value_get_double(value); break;
    case PROP_TIP_DURATION: self->tip_duration = g_value_get_double(value); break;
    case PROP_WAVEFORM_SAMPLES: self->waveform_samples = g_value_get_uint(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

#define CONSTRUCT_FLAGS (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS)
#define VIEW_FLAGS (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)

static GParamSpec *view_double(const gchar *name, gdouble minimum, gdouble maximum) {
    return g_param_spec_double(name, NULL, NULL, minimum, maximum, 0, VIEW_FLAGS);
}

static void install_properties(GObjectClass *object_class) {
    /**
     * VnFlow:recorder:
     *
     * The recorder the flow records with (the flow keeps a reference). Set at construction.
     */
    properties[PROP_RECORDER] = g_param_spec_object("recorder", NULL, NULL, VNG_TYPE_RECORDER, CONSTRUCT_FLAGS);
    /**
     * VnFlow:player:
     *
     * The player the flow previews takes with (the flow keeps a reference). Set at construction.
     */
    properties[PROP_PLAYER] = g_param_spec_object("player", NULL, NULL, VNG_TYPE_PLAYER, CONSTRUCT_FLAGS);
    /**
     * VnFlow:clock:
     *
     * A manual clock for the flow's timers (the minimum press, the tip's hiding), or %NULL for the monotonic
     * clock. Set at construction.
     */
    properties[PROP_CLOCK] = g_param_spec_object("clock", NULL, NULL, VNG_TYPE_MANUAL_CLOCK, CONSTRUCT_FLAGS);
    /**
     * VnFlow:draft-key:
     *
     * The conversation's id for drafts (1…100 bytes of UTF-8), or %NULL for none. Set at construction.
     */
    properties[PROP_DRAFT_KEY] = g_param_spec_string("draft-key", NULL, NULL, NULL, CONSTRUCT_FLAGS);
    /**
     * VnFlow:drafts-directory: (type filename)
     *
     * Where drafts are kept, or %NULL for `$XDG_DATA_HOME/voicenote/drafts`. Set at construction.
     */
    properties[PROP_DRAFTS_DIRECTORY] = g_param_spec_string("drafts-directory", NULL, NULL, NULL, CONSTRUCT_FLAGS);
    /**
     * VnFlow:toggle-mode:
     *
     * For people who cannot hold a button: a press released before the minimum press starts a locked take, and the
     * next press stops it into preview. Set at construction; off by default.
     */
    properties[PROP_TOGGLE_MODE] = g_param_spec_boolean("toggle-mode", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
    /**
     * VnFlow:key-inputs:
     *
     * Whether [method@Voicenote.Flow.key_down] and [method@Voicenote.Flow.key_up] act (the record key is held like the
     * button, Escape cancels, Enter sends). Set at construction; off by default.
     */
    properties[PROP_KEY_INPUTS] = g_param_spec_boolean("key-inputs", NULL, NULL, FALSE, CONSTRUCT_FLAGS);
    /**
     * VnFlow:confirmation-required:
     *
     * Whether a sent take waits for [method@Voicenote.Flow.confirm] before [signal@Voicenote.Flow::publish]. Set at
     * construction; on by default.
     */
    properties[PROP_CONFIRMATION_REQUIRED] =
        g_param_spec_boolean("confirmation-required", NULL, NULL, TRUE, CONSTRUCT_FLAGS);
    /**
     * VnFlow:cancel-distance:
     *
     * How far left of the press point, in the host's pixels, a held take is cancelled (slide to cancel). Set at
     * construction; 75 by default.
     */
    properties[PROP_CANCEL_DISTANCE] =
        g_param_spec_double("cancel-distance", NULL, NULL, G_MINDOUBLE, G_MAXDOUBLE, 75, CONSTRUCT_FLAGS);
    /**
     * VnFlow:lock-distance:
     *
     * How far up of the press point, in the host's pixels, a held take locks. Set at construction; 50 by default.
     */
    properties[PROP_LOCK_DISTANCE] =
        g_param_spec_double("lock-distance", NULL, NULL, G_MINDOUBLE, G_MAXDOUBLE, 50, CONSTRUCT_FLAGS);
    /**
     * VnFlow:minimum-press:
     *
     * How many seconds the button is held before a take begins (a shorter press shows the tip). Set at construction;
     * 0.5 by default.
     */
    properties[PROP_MINIMUM_PRESS] =
        g_param_spec_double("minimum-press", NULL, NULL, G_MINDOUBLE, G_MAXDOUBLE, 0.5, CONSTRUCT_FLAGS);
    /**
     * VnFlow:tip-duration:
     *
     * How many seconds the "hold to record" tip stays shown. Set at construction; 2 by default.
     */
    properties[PROP_TIP_DURATION] = g_param_spec_double("tip-duration", NULL, NULL, 0, G_MAXDOUBLE, 2, CONSTRUCT_FLAGS);
    /**
     * VnFlow:waveform-samples:
     *
     * How many values a take's waveform has in [signal@Voicenote.Flow::attachment-ready] and
     * [property@Voicenote.Flow:waveform] (1…1048576; its payload keeps 100). Set at construction; 100 by default.
     */
    properties[PROP_WAVEFORM_SAMPLES] =
        g_param_spec_uint("waveform-samples", NULL, NULL, 1, 1048576, 100, CONSTRUCT_FLAGS);
    /**
     * VnFlow:state:
     *
     * The flow's state; notifies once per change.
     */
    properties[PROP_STATE] =
        g_param_spec_enum("state", NULL, NULL, VNG_TYPE_FLOW_STATE, VN_FLOW_STATE_IDLE, VIEW_FLAGS);
    /**
     * VnFlow:duration:
     *
     * Seconds recorded (recording, locked) or the take's length (preview); notifies once per change.
     */
    properties[PROP_DURATION] = view_double("duration", 0, G_MAXDOUBLE);
    /**
     * VnFlow:slide-to-cancel-alpha:
     *
     * The "slide to cancel" label's alpha: 1 at the press point, 0 at the cancel distance; notifies once per change.
     */
    properties[PROP_SLIDE_TO_CANCEL_ALPHA] = view_double("slide-to-cancel-alpha", 0, 1);
    /**
     * VnFlow:lock-padding:
     *
     * The lock's padding in pixels above its resting place; notifies once per change.
     */
    properties[PROP_LOCK_PADDING] = view_double("lock-padding", -G_MAXDOUBLE, G_MAXDOUBLE);
    /**
     * VnFlow:chevron-alpha:
     *
     * The chevron's alpha above the lock; notifies once per change.
     */
    properties[PROP_CHEVRON_ALPHA] = view_double("chevron-alpha", 0, 1);
    /**
     * VnFlow:tip-visible:
     *
     * Whether the tip ("hold to record") shows; notifies once per change.
     */
    properties[PROP_TIP_VISIBLE] = g_param_spec_boolean("tip-visible", NULL, NULL, FALSE, VIEW_FLAGS);
    /**
     * VnFlow:preview-position:
     *
     * Preview: where the player is in the take, in seconds; notifies once per change.
     */
    properties[PROP_PREVIEW_POSITION] = view_double("preview-position", 0, G_MAXDOUBLE);
    /**
     * VnFlow:preview-playing:
     *
     * Preview: whether it plays; notifies once per change.
     */
    properties[PROP_PREVIEW_PLAYING] = g_param_spec_boolean("preview-playing", NULL, NULL, FALSE, VIEW_FLAGS);
    /**
     * VnFlow:trim-start:
     *
     * Preview: the start of the part that will be sent, in seconds (0 unless trimmed); notifies once per change.
     */
    properties[PROP_TRIM_START] = view_double("trim-start", 0, G_MAXDOUBLE);
    /**
     * VnFlow:trim-end:
     *
     * Preview: the end of the part that will be sent, in seconds; notifies once per change.
     */
    properties[PROP_TRIM_END] = view_double("trim-end", 0, G_MAXDOUBLE);
    /**
     * VnFlow:toggled:
     *
     * Whether the take was started in toggle mode (the next press stops it); notifies once per change.
     */
    properties[PROP_TOGGLED] = g_param_spec_boolean("toggled", NULL, NULL, FALSE, VIEW_FLAGS);
    /**
     * VnFlow:accessible-description:
     *
     * What a screen reader says for the view ("Recording, 0:07, slide left to cancel, slide up to lock"); ""
     * before the first view; notifies once per change.
     */
    properties[PROP_ACCESSIBLE_DESCRIPTION] =
        g_param_spec_string("accessible-description", NULL, NULL, "", VIEW_FLAGS);
    /**
     * VnFlow:levels: (type GLib.Variant) (getter dup_levels)
     *
     * Recording and locked: the last live levels of the take (up to 40), oldest first, 0…1, as a [struct@GLib.Variant]
     * of type `ad` (Python: `flow.props.levels.unpack()`, gjs: `flow.levels.deepUnpack()`); empty in the other
     * states. Notifies once per change: when the number of levels or any of them differs from the last view's. C
     * code may read them as floats with [method@Voicenote.Flow.get_levels].
     */
    properties[PROP_LEVELS] = vng_levels_param_spec("levels");
    /**
     * VnFlow:waveform: (type GLib.Variant) (getter dup_waveform)
     *
     * Preview: the take's waveform, 0…1, as a [struct@GLib.Variant] of type `ad`; empty in the other states. Notifies
     * once per change. C code may read it as floats with [method@Voicenote.Flow.get_waveform].
     */
    properties[PROP_WAVEFORM] = vng_levels_param_spec("waveform");
    g_object_class_install_properties(object_class, N_PROPS, properties);
}

/* A take's signal: path, duration, waveform (a GArray of gfloat), payload. */
static guint take_signal(GObjectClass *object_class, const gchar *name) {
    return g_signal_new(name, G_TYPE_FROM_CLASS(object_class), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                        4, G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_ARRAY, G_TYPE_STRING);
}

static void install_signals(GObjectClass *object_class) {
    /**
     * VnFlow::attachment-ready:
     * @self: the flow.
     * @path: (type filename): the take's file (the host's to delete once sent).
     * @duration: its length in seconds.
     * @waveform: (element-type gfloat): its waveform, 0…1 (100 values).
     * @payload: Stream's `voiceRecording` payload of the file as JSON (`asset_url` its `file://` URL), "" when it
     *   could not be read back.
     *
     * A take is ready for the composer (after [method@Voicenote.Flow.send], a release, or Enter);
     * [signal@Voicenote.Flow::publish] follows unless [property@Voicenote.Flow:confirmation-required].
     */
    signals[SIGNAL_ATTACHMENT_READY] = take_signal(object_class, "attachment-ready");
    /**
     * VnFlow::publish:
     * @self: the flow.
     * @path: (type filename): the take's file.
     * @duration: its length in seconds.
     * @waveform: (element-type gfloat): its waveform, 0…1.
     * @payload: its `voiceRecording` payload as JSON, or "".
     *
     * The take is to be published (at once after [signal@Voicenote.Flow::attachment-ready], or on
     * [method@Voicenote.Flow.confirm]).
     */
    signals[SIGNAL_PUBLISH] = take_signal(object_class, "publish");
    /**
     * VnFlow::parked:
     * @self: the flow.
     * @path: (type filename): the take's file, in the drafts directory.
     * @duration: its length in seconds.
     * @waveform: (element-type gfloat): its waveform, 0…1.
     * @payload: its `voiceRecording` payload as JSON, or "".
     *
     * The take was kept as the conversation's draft ([method@Voicenote.Flow.park]); the flow is idle.
     */
    signals[SIGNAL_PARKED] = take_signal(object_class, "parked");
    /**
     * VnFlow::trimmed:
     * @self: the flow.
     * @path: (type filename): the take's file, now cut.
     * @duration: its new length in seconds.
     * @waveform: (element-type gfloat): its new waveform, 0…1.
     * @payload: its new `voiceRecording` payload as JSON, or "".
     *
     * A trim ([method@Voicenote.Flow.trim]) ended; the preview shows the take as cut, the player at 0 (or a send or
     * park asked meanwhile follows).
     */
    signals[SIGNAL_TRIMMED] = take_signal(object_class, "trimmed");
    /**
     * VnFlow::trim-failed:
     * @self: the flow.
     * @error: why: a %VN_ERROR error with libvoicenote's detail.
     * @path: (type filename): the take's file, as it was.
     * @duration: its length in seconds, as it was.
     *
     * A trim ended without cutting; the take is previewed again as it was.
     */
    signals[SIGNAL_TRIM_FAILED] =
        g_signal_new("trim-failed", G_TYPE_FROM_CLASS(object_class), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                     G_TYPE_NONE, 3, G_TYPE_ERROR, G_TYPE_STRING, G_TYPE_DOUBLE);
    /**
     * VnFlow::failed:
     * @self: the flow.
     * @error: what failed: a %VN_ERROR error (%VN_ERROR_DEVICE, %VN_ERROR_BUSY when another flow holds the draft
     *   key, %VN_ERROR_PERMISSION for a drafts directory that is not the user's own, ...).
     *
     * The recorder or the player failed.
     */
    signals[SIGNAL_FAILED] = g_signal_new("failed", G_TYPE_FROM_CLASS(object_class), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
    /**
     * VnFlow::too-short:
     * @self: the flow.
     * @duration: the seconds captured.
     *
     * The take was dropped as too short (released before any audio arrived, or shorter than the recorder's
     * minimum); the flow is idle, and a client shows the tip.
     */
    signals[SIGNAL_TOO_SHORT] = g_signal_new("too-short", G_TYPE_FROM_CLASS(object_class), G_SIGNAL_RUN_LAST, 0, NULL,
                                             NULL, NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);
}

static void vng_flow_class_init(VnFlowClass *klass) {
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    object_class->dispose = vng_flow_dispose;
    object_class->finalize = vng_flow_finalize;
    object_class->get_property = vng_flow_get_property;
    object_class->set_property = vng_flow_set_property;
    install_properties(object_class);
    install_signals(object_class);
}

static void vng_flow_init(VnFlow *self) {
    self->confirmation_required = TRUE;
    self->accessible_description = g_strdup("");
    vng_levels_init(&self->levels);
    vng_levels_init(&self->waveform);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Public API */

VnFlow *vng_flow_new(VnRecorder *recorder, VnPlayer *player, const gchar *draft_key, const gchar *drafts_directory,
                     GError **error) {
    g_return_val_if_fail(VNG_IS_RECORDER(recorder), NULL);
    g_return_val_if_fail(VNG_IS_PLAYER(player), NULL);
    return g_initable_new(VNG_TYPE_FLOW, NULL, error, "recorder", recorder, "player", player, "draft-key", draft_key,
                          "drafts-directory", drafts_directory, NULL);
}

/* The inputs that take nothing but the flow: vng_flow_NAME(self, error) over vn_flow_NAME(handle). */
#define FLOW_INPUT(name)                                                                                             \
    gboolean vng_flow_##name(VnFlow *self, GError **error) {                                                         \
        g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);                                                              \
        return vng_error_set_from_status(error, vn_flow_##name(self->handle));                                       \
    }

FLOW_INPUT(release)
FLOW_INPUT(lock)
FLOW_INPUT(cancel)
FLOW_INPUT(stop)
FLOW_INPUT(discard)
FLOW_INPUT(send)
FLOW_INPUT(confirm)
FLOW_INPUT(play)
FLOW_INPUT(pause)
FLOW_INPUT(park)
FLOW_INPUT(deactivate)

#undef FLOW_INPUT

gboolean vng_flow_press(VnFlow *self, gdouble x, gdouble y, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_press(self->handle, x, y));
}

gboolean vng_flow_move(VnFlow *self, gdouble x, gdouble y, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_move(self->handle, x, y));
}

gboolean vng_flow_key_down(VnFlow *self, VnFlowInputKey key, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_key_down(self->handle, (int)key));
}

gboolean vng_flow_key_up(VnFlow *self, VnFlowInputKey key, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_key_up(self->handle, (int)key));
}

gboolean vng_flow_seek(VnFlow *self, gdouble position, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_seek(self->handle, position));
}

gboolean vng_flow_trim(VnFlow *self, gdouble start, gdouble end, GError **error) {
    g_return_val_if_fail(VNG_IS_FLOW(self), FALSE);
    return vng_error_set_from_status(error, vn_flow_trim(self->handle, start, end));
}

VnFlowState vng_flow_get_state(VnFlow *self) {
    g_return_val_if_fail(VNG_IS_FLOW(self), VN_FLOW_STATE_IDLE);
    return self->state;
}

gdouble vng_flow_get_duration(VnFlow *self) {
    g_return_val_if_fail(VNG_IS_FLOW(self), 0);
    return self->duration;
}

const gchar *vng_flow_get_accessible_description(VnFlow *self) {
    g_return_val_if_fail(VNG_IS_FLOW(self), "");
    return self->accessible_description;
}

GVariant *vng_flow_dup_levels(VnFlow *self) {
    g_return_val_if_fail(VNG_IS_FLOW(self), NULL);
    return g_variant_ref(self->levels.variant);
}

GVariant *vng_flow_dup_waveform(VnFlow *self) {
    g_return_val_if_fail(VNG_IS_FLOW(self), NULL);
    return g_variant_ref(self->waveform.variant);
}

const gfloat *vng_flow_get_levels(VnFlow *self, guint *n_levels) {
    g_return_val_if_fail(VNG_IS_FLOW(self) && n_levels != NULL, NULL);
    return vng_levels_floats(&self->levels, n_levels);
}

const gfloat *vng_flow_get_waveform(VnFlow *self, guint *n_values) {
    g_return_val_if_fail(VNG_IS_FLOW(self) && n_values != NULL, NULL);
    return vng_levels_floats(&self->waveform, n_values);
}
