/*
 * vn-composer.c: VnComposer, a row over a VnFlow showing its view: a VnRecordButton, live bars and a timer while a
 * take runs, discard and send when it is locked or previewed, and in preview play/pause, the take's VnWaveform and
 * two trim handles (a private `trim` widget) whose release trims the take.
 */
#include "vn-composer.h"
#include "vn-i18n.h"
#include "vn-accessible-value.h"

#include <math.h>
#include <string.h>

#include "vn-fallback-css.h"
#include "vn-record-button-private.h"
#include "vn-waveform.h"

#define LABEL _("Voice message composer")
#define PLAY_ICON "media-playback-start-symbolic"
#define PAUSE_ICON "media-playback-pause-symbolic"
/* The least of the take the trim handles keep between them, as a fraction of it. */
#define MINIMUM_KEPT 0.05
/* How far Left/Right move a focused trim handle, as a fraction of the take. */
#define HANDLE_KEY_STEP 0.05
/* The longest time the timer shows: a day (a take is minutes; this only keeps the number sane). */
#define MAXIMUM_SECONDS 86400.0

/* The default look of the trim handles and of the part they cut away, under every theme and application stylesheet
 * (GTK_STYLE_PROVIDER_PRIORITY_FALLBACK): the theme's accent and background, no colour of our own. */
static const char DEFAULT_CSS[] =
    "composer trim > trimhandle { min-width: 8px; min-height: 16px; border-radius: 4px;"
    " background-color: @theme_selected_bg_color; }\n"
    "composer trim > trimhandle:focus-visible { outline: 2px solid alpha(@theme_selected_bg_color, 0.5);"
    " outline-offset: 1px; }\n"
    "composer trim > cut { background-color: alpha(@theme_bg_color, 0.6); }\n";

/* Under a high-contrast theme: the handles (and their focus ring) in the full foreground; the dark high-contrast
 * theme's accent is a dark blue that nearly vanishes on its background. */
static const char HIGH_CONTRAST_CSS[] =
    "composer trim > trimhandle { background-color: currentColor; }\n"
    "composer trim > trimhandle:focus-visible { outline-color: currentColor; }\n";

/* m:ss of whole seconds (rounded down); NaN and negatives are 0:00. */
static gchar *format_time(gdouble seconds) {
    guint64 whole = seconds > 0 ? (guint64)floor(MIN(seconds, MAXIMUM_SECONDS)) : 0;
    return g_strdup_printf("%" G_GUINT64_FORMAT ":%02u", whole / 60, (guint)(whole % 60));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The trim area: the preview's waveform with the parts cut away dimmed and a handle at each end of the kept part */

#define COMPOSER_TYPE_TRIM (composer_trim_get_type())
G_DECLARE_FINAL_TYPE(ComposerTrim, composer_trim, COMPOSER, TRIM, GtkWidget)

/* Told when the user let go of a handle at new fractions (start < end). */
typedef void (*TrimChosen)(gdouble start, gdouble end, gpointer data);

struct _ComposerTrim {
    GtkWidget parent_instance;
    VnWaveform *waveform;
    GtkWidget *cut_before, *cut_after; /* CSS `cut`: dimming the parts outside the handles */
    GtkWidget *start, *end;            /* CSS `trimhandle.start`, `trimhandle.end` */
    gdouble start_fraction, end_fraction;
    gdouble duration;      /* of the take, for the handles' accessible values */
    gdouble drag_origin;   /* the dragged handle's fraction when its drag began */
    gboolean moving;       /* a handle is dragged, or was moved by a key not yet let go: the view does not move it */
    TrimChosen chosen;
    gpointer chosen_data;
};

G_DEFINE_FINAL_TYPE(ComposerTrim, composer_trim, GTK_TYPE_WIDGET)

static void update_handle_value(ComposerTrim *self, GtkWidget *handle, gdouble fraction) {
    gdouble seconds = fraction * self->duration;
    gchar *text = format_time(seconds);
    accessible_value_update(GTK_ACCESSIBLE(handle), 0.0, self->duration, seconds, text);
    g_free(text);
}

/* Moves the handles to these fractions of the take (kept apart by MINIMUM_KEPT) and redraws them. */
static void composer_trim_set_range(ComposerTrim *self, gdouble start, gdouble end) {
    start = CLAMP(isnan(start) ? 0 : start, 0.0, 1.0 - MINIMUM_KEPT);
    end = CLAMP(isnan(end) ? 1 : end, start + MINIMUM_KEPT, 1.0);
    self->start_fraction = start;
    self->end_fraction = end;
    update_handle_value(self, self->start, start);
    update_handle_value(self, self->end, end);
    gtk_widget_queue_allocate(GTK_WIDGET(self));
}

static gboolean is_start(ComposerTrim *self, GtkWidget *handle) {
    return handle == self->start;
}

/* The handle at `fraction`, the other one staying. */
static void move_handle(ComposerTrim *self, GtkWidget *handle, gdouble fraction) {
    if (is_start(self, handle))
        composer_trim_set_range(self, MIN(fraction, self->end_fraction - MINIMUM_KEPT), self->end_fraction);
    else
        composer_trim_set_range(self, self->start_fraction, MAX(fraction, self->start_fraction + MINIMUM_KEPT));
}

static void choose(ComposerTrim *self) {
    if (self->chosen != NULL) self->chosen(self->start_fraction, self->end_fraction, self->chosen_data);
}

static gdouble handle_fraction(ComposerTrim *self, GtkWidget *handle) {
    return is_start(self, handle) ? self->start_fraction : self->end_fraction;
}

static void on_handle_drag_begin(GtkGestureDrag *gesture, gdouble x, gdouble y, ComposerTrim *self) {
    (void)x, (void)y;
    GtkWidget *handle = gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture));
    /* A scrolled parent must not take the drag over. */
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    gtk_widget_grab_focus(handle);
    self->drag_origin = handle_fraction(self, handle);
    self->moving = TRUE;
}

static void drag_to(ComposerTrim *self, GtkGestureDrag *gesture, gdouble offset_x) {
    int width = gtk_widget_get_width(GTK_WIDGET(self));
    if (width > 0)
        move_handle(self, gtk_event_controller_get_widget(GTK_EVENT_CONTROLLER(gesture)),
                    self->drag_origin + offset_x / width);
}

static void on_handle_drag_update(GtkGestureDrag *gesture, gdouble offset_x, gdouble offset_y, ComposerTrim *self) {
    (void)offset_y;
    drag_to(self, gesture, offset_x);
}

static void on_handle_drag_end(GtkGestureDrag *gesture, gdouble offset_x, gdouble offset_y, ComposerTrim *self) {
    (void)offset_y;
    drag_to(self, gesture, offset_x);
    self->moving = FALSE;
    choose(self);
}

/* Left/Right on a focused handle: moved by the step ("d" argument); chosen when the key is let go (as a drag's
 * release), so holding it down moves the handle without a trim at each repeat. */
static gboolean on_handle_step_key(GtkWidget *handle, GVariant *args, gpointer user_data) {
    (void)user_data;
    ComposerTrim *self = COMPOSER_TRIM(gtk_widget_get_parent(handle));
    self->moving = TRUE;
    move_handle(self, handle, handle_fraction(self, handle) + g_variant_get_double(args));
    return TRUE;
}

/* Home/End on a focused handle: to the start or the end of the take ("d": 0 or 1), as far as the other handle
 * lets it; chosen when the key is let go. */
static gboolean on_handle_end_key(GtkWidget *handle, GVariant *args, gpointer user_data) {
    (void)user_data;
    ComposerTrim *self = COMPOSER_TRIM(gtk_widget_get_parent(handle));
    self->moving = TRUE;
    move_handle(self, handle, g_variant_get_double(args));
    return TRUE;
}

static gboolean is_handle_key(guint keyval) {
    switch (keyval) {
    case GDK_KEY_Left: case GDK_KEY_KP_Left: case GDK_KEY_Right: case GDK_KEY_KP_Right:
    case GDK_KEY_Home: case GDK_KEY_KP_Home: case GDK_KEY_End: case GDK_KEY_KP_End: return TRUE;
    default: return FALSE;
    }
}

/* A key that moves a handle was let go: the range is chosen (unless it is what the view has: see on_trim_chosen). */
static void on_handle_key_released(GtkEventControllerKey *controller, guint keyval, guint keycode,
                                   GdkModifierType state, ComposerTrim *self) {
    (void)controller, (void)keycode, (void)state;
    if (!is_handle_key(keyval) || !self->moving) return;
    self->moving = FALSE;
    choose(self);
}

/* The handles: a private type only for their key bindings. */
#define COMPOSER_TYPE_TRIM_HANDLE (composer_trim_handle_get_type())
G_DECLARE_FINAL_TYPE(ComposerTrimHandle, composer_trim_handle, COMPOSER, TRIM_HANDLE, GtkWidget)
struct _ComposerTrimHandle {
    GtkWidget parent_instance;
};
G_DEFINE_FINAL_TYPE(ComposerTrimHandle, composer_trim_handle, GTK_TYPE_WIDGET)

static void composer_trim_handle_class_init(ComposerTrimHandleClass *klass) {
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    const guint left[] = {GDK_KEY_Left, GDK_KEY_KP_Left}, right[] = {GDK_KEY_Right, GDK_KEY_KP_Right};
    const guint home[] = {GDK_KEY_Home, GDK_KEY_KP_Home}, end[] = {GDK_KEY_End, GDK_KEY_KP_End};
    for (guint i = 0; i < G_N_ELEMENTS(left); i++) {
        gtk_widget_class_add_binding(widget_class, left[i], 0, on_handle_step_key, "d", -HANDLE_KEY_STEP);
        gtk_widget_class_add_binding(widget_class, right[i], 0, on_handle_step_key, "d", HANDLE_KEY_STEP);
        gtk_widget_class_add_binding(widget_class, home[i], 0, on_handle_end_key, "d", 0.0);
        gtk_widget_class_add_binding(widget_class, end[i], 0, on_handle_end_key, "d", 1.0);
    }
    gtk_widget_class_set_css_name(widget_class, "trimhandle");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_SLIDER);
}

static void composer_trim_handle_init(ComposerTrimHandle *self) {
    gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
    gtk_widget_set_cursor_from_name(GTK_WIDGET(self), "ew-resize");
}

static GtkWidget *handle_new(ComposerTrim *self, const char *style, const char *label) {
    GtkWidget *handle = g_object_new(COMPOSER_TYPE_TRIM_HANDLE, NULL);
    gtk_widget_add_css_class(handle, style);
    gtk_accessible_update_property(GTK_ACCESSIBLE(handle), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    gtk_widget_set_parent(handle, GTK_WIDGET(self));
    GtkGesture *drag = gtk_gesture_drag_new();
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_handle_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_handle_drag_update), self);
    g_signal_connect(drag, "drag-end", G_CALLBACK(on_handle_drag_end), self);
    gtk_widget_add_controller(handle, GTK_EVENT_CONTROLLER(drag));
    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-released", G_CALLBACK(on_handle_key_released), self);
    gtk_widget_add_controller(handle, keys);
    return handle;
}

static GtkWidget *cut_new(GtkWidget *parent) {
    GtkWidget *cut = g_object_new(GTK_TYPE_BOX, "css-name", "cut", "can-target", FALSE, "accessible-role",
                                  GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
    gtk_widget_set_parent(cut, parent);
    return cut;
}

/* As the waveform, at least as tall as a handle. */
static void composer_trim_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                  int *natural, int *minimum_baseline, int *natural_baseline) {
    ComposerTrim *self = COMPOSER_TRIM(widget);
    gtk_widget_measure(GTK_WIDGET(self->waveform), orientation, for_size, minimum, natural, minimum_baseline,
                       natural_baseline);
    int handle_minimum = 0, handle_natural = 0;
    gtk_widget_measure(self->start, orientation, -1, &handle_minimum, &handle_natural, NULL, NULL);
    if (orientation == GTK_ORIENTATION_HORIZONTAL) handle_minimum = handle_natural = 4 * handle_natural;
    *minimum = MAX(*minimum, handle_minimum);
    *natural = MAX(*natural, handle_natural);
}

static void allocate_box(GtkWidget *child, double x, double width, int height) {
    gtk_widget_allocate(child, MAX((int)lround(width), 0), height, -1,
                        gsk_transform_translate(NULL, &GRAPHENE_POINT_INIT((float)x, 0)));
}

/* The waveform over the whole area; the start handle right of its boundary, the end handle left of its own, both
 * inside the area; the cut parts from the edges to the handles. */
static void composer_trim_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    ComposerTrim *self = COMPOSER_TRIM(widget);
    gtk_widget_allocate(GTK_WIDGET(self->waveform), width, height, baseline, NULL);
    int handle_width = 0;
    gtk_widget_measure(self->start, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &handle_width, NULL, NULL);
    double room = MAX(width - handle_width, 0);
    double start_x = CLAMP(self->start_fraction * width, 0, room);
    double end_x = CLAMP(self->end_fraction * width - handle_width, 0, room);
    allocate_box(self->cut_before, 0, start_x, height);
    allocate_box(self->cut_after, end_x + handle_width, width - end_x - handle_width, height);
    allocate_box(self->start, start_x, handle_width, height);
    allocate_box(self->end, end_x, handle_width, height);
}

static void composer_trim_dispose(GObject *object) {
    ComposerTrim *self = COMPOSER_TRIM(object);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self))) != NULL) gtk_widget_unparent(child);
    self->waveform = NULL;
    self->cut_before = self->cut_after = self->start = self->end = NULL;
    G_OBJECT_CLASS(composer_trim_parent_class)->dispose(object);
}

static void composer_trim_class_init(ComposerTrimClass *klass) {
    G_OBJECT_CLASS(klass)->dispose = composer_trim_dispose;
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    widget_class->measure = composer_trim_measure;
    widget_class->size_allocate = composer_trim_size_allocate;
    gtk_widget_class_set_css_name(widget_class, "trim");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void composer_trim_init(ComposerTrim *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    /* In drawing order: the waveform, the dimmed parts, the handles on top (picked first). */
    self->waveform = VNGTK_WAVEFORM(vngtk_waveform_new());
    gtk_widget_set_parent(GTK_WIDGET(self->waveform), widget);
    self->cut_before = cut_new(widget);
    self->cut_after = cut_new(widget);
    /* Translators: the name of the preview's waveform with its two trim handles, for screen readers. */
    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Trim"), -1);
    self->start = handle_new(self, "start", _("Trim start"));
    self->end = handle_new(self, "end", _("Trim end"));
    self->end_fraction = 1;
    composer_trim_set_range(self, 0, 1);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The composer */

struct _VnComposer {
    GtkWidget parent_instance;
    VnFlow *flow;
    GtkWidget *discard;
    GtkWidget *play;
    VnWaveform *bars;    /* the live levels while a take runs */
    ComposerTrim *trim;  /* the preview's waveform and trim handles */
    GtkWidget *timer;
    GtkWidget *send;
    GtkWidget *record;   /* a VnRecordButton on the same flow */
    gboolean trimming;   /* a trim this composer asked for runs: the handles stay where they were left */
};

enum { PROP_0, PROP_FLOW, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE(VnComposer, vngtk_composer, GTK_TYPE_WIDGET)

static void report(const gchar *what, GError *error) {
    g_warning("VnComposer: %s: %s", what, error->message);
    g_error_free(error);
}

/* Replaces a waveform's values only when they differ (a replacement resizes it). */
static void set_values(VnWaveform *waveform, const gfloat *values, guint n) {
    gsize shown = 0;
    const gfloat *old = vngtk_waveform_get_values(waveform, &shown);
    if (shown == n && (n == 0 || memcmp(old, values, n * sizeof *values) == 0)) return;
    vngtk_waveform_set_values(waveform, values, n);
}

static void set_play_button(GtkWidget *button, gboolean playing) {
    gtk_button_set_icon_name(GTK_BUTTON(button), playing ? PAUSE_ICON : PLAY_ICON);
    gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, playing ? _("Pause") : _("Play"),
                                   -1);
}

/* The record button's slide-to-cancel hint is drawn left of it, over the timer's free room: the timer keeps that
 * much room after its text (its end margin), however wide the text makes the hint (large text), so the two never
 * overlap; with too little width the live bars give way first, then the composer asks for more. */
static void leave_room_for_hint(VnComposer *self) {
    int room = record_button_room_before(VNGTK_RECORD_BUTTON(self->record));
    if (gtk_widget_get_margin_end(self->timer) != room) gtk_widget_set_margin_end(self->timer, room);
}

/* Shows what the flow's last view says (or the idle look without a flow). */
static void show_view(VnComposer *self) {
    VnFlowState state = self->flow ? vng_flow_get_state(self->flow) : VN_FLOW_STATE_IDLE;
    gboolean live = state == VN_FLOW_STATE_RECORDING || state == VN_FLOW_STATE_LOCKED;
    gboolean preview = state == VN_FLOW_STATE_PREVIEW;
    gboolean take = state == VN_FLOW_STATE_LOCKED || preview;
    gdouble duration = 0, position = 0, trim_start = 0, trim_end = 0;
    gboolean playing = FALSE;
    if (self->flow != NULL)
        g_object_get(self->flow, "duration", &duration, "preview-position", &position, "preview-playing", &playing,
                     "trim-start", &trim_start, "trim-end", &trim_end, NULL);
    if (!preview) self->trimming = FALSE;

    gtk_widget_set_visible(self->discard, take);
    gtk_widget_set_visible(self->send, take);
    gtk_widget_set_visible(self->play, preview);
    gtk_widget_set_visible(GTK_WIDGET(self->bars), live);
    gtk_widget_set_visible(GTK_WIDGET(self->trim), preview);
    gtk_widget_set_visible(self->timer, live || preview);
    gtk_widget_set_visible(self->record, !preview);
    /* The free room: after the timer while a take runs (the hint's place, send next to the record button), the
     * waveform's in preview, left of the record button otherwise. */
    gtk_widget_set_hexpand(self->timer, live);
    gtk_widget_set_hexpand(self->record, !live && !preview);
    leave_room_for_hint(self);

    guint n = 0;
    const gfloat *levels = live ? vng_flow_get_levels(self->flow, &n) : NULL;
    set_values(self->bars, levels, levels ? n : 0);

    gchar *time = format_time(preview && (playing || position > 0) ? position : duration);
    gtk_label_set_text(GTK_LABEL(self->timer), time);
    g_free(time);

    set_play_button(self->play, playing);
    gtk_widget_set_sensitive(self->play, !self->trimming);
    gtk_widget_set_sensitive(GTK_WIDGET(self->trim), !self->trimming);
    if (preview) {
        const gfloat *waveform = vng_flow_get_waveform(self->flow, &n);
        set_values(self->trim->waveform, waveform, waveform ? n : 0);
        vngtk_waveform_set_position(self->trim->waveform, duration > 0 ? CLAMP(position / duration, 0, 1) : 0);
        if (!self->trimming && !self->trim->moving) {
            self->trim->duration = duration;
            composer_trim_set_range(self->trim, duration > 0 ? trim_start / duration : 0,
                                    duration > 0 ? trim_end / duration : 1);
        }
    }

    const gchar *description = self->flow ? vng_flow_get_accessible_description(self->flow) : "";
    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

static void on_flow_notify(VnFlow *flow, GParamSpec *pspec, VnComposer *self) {
    (void)flow, (void)pspec;
    show_view(self);
}

/* A trim ended, cut or not: the handles follow the view again. */
static void on_trimmed(VnFlow *flow, const gchar *path, gdouble duration, GArray *waveform, const gchar *payload,
                       VnComposer *self) {
    (void)flow, (void)path, (void)duration, (void)waveform, (void)payload;
    self->trimming = FALSE;
    show_view(self);
}

static void on_trim_failed(VnFlow *flow, GError *error, const gchar *path, gdouble duration, VnComposer *self) {
    (void)flow, (void)error, (void)path, (void)duration;
    self->trimming = FALSE;
    show_view(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The user's side */

static void on_discard_clicked(GtkButton *button, VnComposer *self) {
    (void)button;
    GError *error = NULL;
    if (self->flow != NULL && !vng_flow_discard(self->flow, &error)) report("discard", error);
}

static void on_send_clicked(GtkButton *button, VnComposer *self) {
    (void)button;
    GError *error = NULL;
    if (self->flow != NULL && !vng_flow_send(self->flow, &error)) report("send", error);
}

static void on_play_clicked(GtkButton *button, VnComposer *self) {
    (void)button;
    if (self->flow == NULL) return;
    gboolean playing = FALSE;
    g_object_get(self->flow, "preview-playing", &playing, NULL);
    GError *error = NULL;
    if (!(playing ? vng_flow_pause(self->flow, &error) : vng_flow_play(self->flow, &error)))
        report(playing ? "pause" : "play", error);
}

static void on_seek(VnWaveform *waveform, gdouble fraction, VnComposer *self) {
    (void)waveform;
    if (self->flow == NULL || self->trimming) return;
    GError *error = NULL;
    if (!vng_flow_seek(self->flow, fraction * vng_flow_get_duration(self->flow), &error)) report("seek", error);
}

/* A handle was let go: the take is cut to what lies between the handles, unless that is what it already is. */
static void on_trim_chosen(gdouble start, gdouble end, gpointer data) {
    VnComposer *self = data;
    if (self->flow == NULL || self->trimming || vng_flow_get_state(self->flow) != VN_FLOW_STATE_PREVIEW) return;
    gdouble duration = vng_flow_get_duration(self->flow), trim_start = 0, trim_end = 0;
    g_object_get(self->flow, "trim-start", &trim_start, "trim-end", &trim_end, NULL);
    gdouble from = start * duration, to = MIN(end * duration, duration);
    if (fabs(from - trim_start) < 1e-3 && fabs(to - trim_end) < 1e-3) return;
    GError *error = NULL;
    if (!vng_flow_trim(self->flow, from, to, &error)) {
        report("trim", error);
        show_view(self);
        return;
    }
    self->trimming = TRUE;
    show_view(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The flow */

void vngtk_composer_set_flow(VnComposer *self, VnFlow *flow) {
    g_return_if_fail(VNGTK_IS_COMPOSER(self));
    g_return_if_fail(flow == NULL || VNG_IS_FLOW(flow));
    if (flow == self->flow) return;
    if (self->flow != NULL) g_signal_handlers_disconnect_by_data(self->flow, self);
    g_set_object(&self->flow, flow);
    self->trimming = FALSE;
    vngtk_record_button_set_flow(VNGTK_RECORD_BUTTON(self->record), flow);
    if (flow != NULL) {
        g_signal_connect(flow, "notify", G_CALLBACK(on_flow_notify), self);
        g_signal_connect(flow, "trimmed", G_CALLBACK(on_trimmed), self);
        g_signal_connect(flow, "trim-failed", G_CALLBACK(on_trim_failed), self);
    }
    show_view(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_FLOW]);
}

VnFlow *vngtk_composer_get_flow(VnComposer *self) {
    g_return_val_if_fail(VNGTK_IS_COMPOSER(self), NULL);
    return self->flow;
}

VnRecordButton *vngtk_composer_get_record_button(VnComposer *self) {
    g_return_val_if_fail(VNGTK_IS_COMPOSER(self), NULL);
    return VNGTK_RECORD_BUTTON(self->record);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* GObject */

/* The text's size changed (large text, another font or theme): so did the hint's. */
static void vngtk_composer_css_changed(GtkWidget *widget, GtkCssStyleChange *change) {
    GTK_WIDGET_CLASS(vngtk_composer_parent_class)->css_changed(widget, change);
    leave_room_for_hint(VNGTK_COMPOSER(widget));
}

static void vngtk_composer_root(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_composer_parent_class)->root(widget);
    fallback_css_install(gtk_widget_get_display(widget), "vngtk-composer-default-css", DEFAULT_CSS,
                         HIGH_CONTRAST_CSS);
}

/* Hidden (its page of a stack left, its window hidden) while a take runs or the preview plays: the flow's reaction to
 * losing its view (the record button, unmapped with it, says the same when it is shown). */
static void vngtk_composer_unmap(GtkWidget *widget) {
    VnComposer *self = VNGTK_COMPOSER(widget);
    if (self->flow != NULL) {
        VnFlowState state = vng_flow_get_state(self->flow);
        gboolean playing = FALSE;
        g_object_get(self->flow, "preview-playing", &playing, NULL);
        GError *error = NULL;
        if ((state == VN_FLOW_STATE_RECORDING || state == VN_FLOW_STATE_LOCKED || playing) &&
            !vng_flow_deactivate(self->flow, &error))
            report("deactivate", error);
    }
    GTK_WIDGET_CLASS(vngtk_composer_parent_class)->unmap(widget);
}

static void vngtk_composer_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_FLOW: g_value_set_object(value, VNGTK_COMPOSER(object)->flow); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vngtk_composer_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_FLOW: vngtk_composer_set_flow(VNGTK_COMPOSER(object), g_value_get_object(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
}

static void vngtk_composer_dispose(GObject *object) {
    VnComposer *self = VNGTK_COMPOSER(object);
    if (self->flow != NULL) g_signal_handlers_disconnect_by_data(self->flow, self);
    g_clear_object(&self->flow);
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self))) != NULL) gtk_widget_unparent(child);
    self->discard = self->play = self->timer = self->send = self->record = NULL;
    self->bars = NULL;
    self->trim = NULL;
    G_OBJECT_CLASS(vngtk_composer_parent_class)->dispose(object);
}

static void vngtk_composer_class_init(VnComposerClass *klass) {
    i18n_bind();
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->get_property = vngtk_composer_get_property;
    object_class->set_property = vngtk_composer_set_property;
    object_class->dispose = vngtk_composer_dispose;
    widget_class->root = vngtk_composer_root;
    widget_class->unmap = vngtk_composer_unmap;
    widget_class->css_changed = vngtk_composer_css_changed;

    /**
     * VnComposer:flow:
     *
     * The [class@Voicenote.Flow] the composer (and its record button) shows and drives; %NULL for none.
     */
    properties[PROP_FLOW] = g_param_spec_object("flow", NULL, NULL, VNG_TYPE_FLOW,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    gtk_widget_class_set_css_name(widget_class, "composer");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
    gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BOX_LAYOUT);
}

/* A circular icon button with these style classes, labelled for assistive technologies, appended. */
static GtkWidget *button_new(VnComposer *self, const char *icon, const char *label, const char *style,
                             GCallback clicked) {
    GtkWidget *button = gtk_button_new_from_icon_name(icon);
    gtk_widget_add_css_class(button, "circular");
    gtk_widget_add_css_class(button, style);
    gtk_widget_set_valign(button, GTK_ALIGN_CENTER);
    gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    gtk_widget_set_parent(button, GTK_WIDGET(self));
    g_signal_connect(button, "clicked", clicked, self);
    return button;
}

static void vngtk_composer_init(VnComposer *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    gtk_box_layout_set_spacing(GTK_BOX_LAYOUT(gtk_widget_get_layout_manager(widget)), 6);

    /* In the row's order. */
    self->discard = button_new(self, "user-trash-symbolic", _("Discard"), "flat", G_CALLBACK(on_discard_clicked));
    self->play = button_new(self, PLAY_ICON, _("Play"), "flat", G_CALLBACK(on_play_clicked));

    /* Live bars: the take's level, not a position to seek: neither picked nor focused, and presentation only. */
    self->bars = g_object_new(VNGTK_TYPE_WAVEFORM, "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION, "can-target",
                              FALSE, "focusable", FALSE, "valign", GTK_ALIGN_CENTER, NULL);
    gtk_widget_add_css_class(GTK_WIDGET(self->bars), "live");
    vngtk_waveform_set_position(self->bars, 1.0); /* all bars in the accent: what was recorded */
    gtk_widget_set_parent(GTK_WIDGET(self->bars), widget);

    self->trim = g_object_new(COMPOSER_TYPE_TRIM, "hexpand", TRUE, "valign", GTK_ALIGN_CENTER, NULL);
    self->trim->chosen = on_trim_chosen;
    self->trim->chosen_data = self;
    gtk_widget_set_parent(GTK_WIDGET(self->trim), widget);
    g_signal_connect(self->trim->waveform, "seek", G_CALLBACK(on_seek), self);

    self->timer = gtk_label_new("0:00");
    gtk_label_set_xalign(GTK_LABEL(self->timer), 0);
    gtk_widget_add_css_class(self->timer, "numeric");
    gtk_widget_set_parent(self->timer, widget);

    self->send = button_new(self, "document-send-symbolic", _("Send voice message"), "suggested-action",
                            G_CALLBACK(on_send_clicked));

    /* At the end; the slide-to-cancel hint is drawn left of it while a take is held, over the timer's free room. */
    self->record = vngtk_record_button_new(NULL);
    g_object_set(self->record, "halign", GTK_ALIGN_END, "valign", GTK_ALIGN_CENTER, NULL);
    gtk_widget_set_parent(self->record, widget);

    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, LABEL,
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "", -1);
    show_view(self);
}

GtkWidget *vngtk_composer_new(VnFlow *flow) {
    g_return_val_if_fail(flow == NULL || VNG_IS_FLOW(flow), NULL);
    return g_object_new(VNGTK_TYPE_COMPOSER, "flow", flow, NULL);
}
