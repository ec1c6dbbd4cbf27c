/*
 * vn-waveform.c: VnWaveform, a GtkWidget drawing libvoicenote's waveform bars (vn_waveform_bars()) in the colours
 * of two CSS child nodes, with a click, a drag and key bindings that emit `seek`.
 */
#include "vn-waveform.h"
#include "vn-i18n.h"
#include "vn-accessible-value.h"

#include <math.h>
#include <voicenote.h>

#include "vn-fallback-css.h"

/* Bars of vn_waveform_bars(): 1.5 wide, every 3.5. */
#define BAR_WIDTH 1.5
#define BAR_PITCH 3.5

/* The default look, under every theme and application stylesheet (GTK_STYLE_PROVIDER_PRIORITY_FALLBACK): the played
 * bars in the theme's accent (GTK's Adwaita names it theme_selected_bg_color; libadwaita keeps the name for its
 * accent), the rest in the foreground, dimmed. No colour of our own: light and dark come from the theme. */
static const char DEFAULT_CSS[] = "waveform > played { color: @theme_selected_bg_color; }\n"
                                  "waveform > remaining { color: alpha(currentColor, 0.45); }\n";

/* Under a high-contrast theme: every bar in the full foreground (the dimmed one is under 3:1 against the background,
 * and the dark high-contrast accent nearly vanishes on its background), the played part underlined by its node's
 * border, a means that holds whatever the colours. */
static const char HIGH_CONTRAST_CSS[] = "waveform > played { color: currentColor; border-bottom: 2px solid currentColor; }\n"
                                        "waveform > remaining { color: currentColor; }\n";

/* A child that exists as a CSS node (`played`, `remaining`): never picked, not in the accessibility tree. Its
 * `color` is what VnWaveform paints that part's bars with; the `played` node, allocated over the played part, is
 * drawn under the bars (nothing by default: a stylesheet may give it a background or a border). */
#define WAVEFORM_TYPE_PART (waveform_part_get_type())
G_DECLARE_FINAL_TYPE(WaveformPart, waveform_part, WAVEFORM, PART, GtkWidget)
struct _WaveformPart {
    GtkWidget parent_instance;
};
G_DEFINE_FINAL_TYPE(WaveformPart, waveform_part, GTK_TYPE_WIDGET)
static void waveform_part_class_init(WaveformPartClass *klass) {
    (void)klass;
}
static void waveform_part_init(WaveformPart *self) {
    gtk_widget_set_can_target(GTK_WIDGET(self), FALSE);
}

static GtkWidget *waveform_part_new(const char *css_name, GtkWidget *parent) {
    GtkWidget *part = g_object_new(WAVEFORM_TYPE_PART, "css-name", css_name, "accessible-role",
                                   GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
    gtk_widget_set_parent(part, parent);
    return part;
}

static GdkRGBA part_color(GtkWidget *part) {
    GdkRGBA color;
#if GTK_CHECK_VERSION(4, 10, 0)
    gtk_widget_get_color(part, &color);
#else
    gtk_style_context_get_color(gtk_widget_get_style_context(part), &color);
#endif
    return color;
}

struct _VnWaveform {
    GtkWidget parent_instance;
    GtkWidget *played;    /* CSS node `played` */
    GtkWidget *remaining; /* CSS node `remaining` */
    gfloat *values;       /* clamped to 0…1; NULL when n_values is 0 */
    gsize n_values;
    gdouble position;     /* 0…1 */
    gdouble drag_start_x; /* where the drag began, in widget coordinates */
    GArray *heights;      /* of gfloat: the bars of the last snapshot (kept to reuse its memory) */
};

enum { PROP_0, PROP_VALUES, PROP_POSITION, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { SIGNAL_SEEK, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(VnWaveform, vngtk_waveform, GTK_TYPE_WIDGET)

/* ------------------------------------------------------------------------------------------------------------ */
/* Position, accessibility, seeking */

static void update_accessible_value(VnWaveform *self) {
    gdouble percent = self->position * 100.0;
    gchar *text = g_strdup_printf("%.0f %%", percent);
    accessible_value_update(GTK_ACCESSIBLE(self), 0, 100, percent, text);
    g_free(text);
}

void vngtk_waveform_set_position(VnWaveform *self, gdouble position) {
    g_return_if_fail(VNGTK_IS_WAVEFORM(self));
    g_return_if_fail(!isnan(position));
    position = CLAMP(position, 0.0, 1.0);
    if (position == self->position) return;
    self->position = position;
    update_accessible_value(self);
    gtk_widget_queue_allocate(GTK_WIDGET(self)); /* the played node covers the played part */
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_POSITION]);
}

gdouble vngtk_waveform_get_position(VnWaveform *self) {
    g_return_val_if_fail(VNGTK_IS_WAVEFORM(self), 0.0);
    return self->position;
}

/* The user asked for `fraction`: move there, then tell the handlers. */
static void seek_to(VnWaveform *self, gdouble fraction) {
    fraction = CLAMP(fraction, 0.0, 1.0);
    vngtk_waveform_set_position(self, fraction);
    g_signal_emit(self, signals[SIGNAL_SEEK], 0, fraction);
}

static void seek_to_x(VnWaveform *self, gdouble x) {
    int width = gtk_widget_get_width(GTK_WIDGET(self));
    if (width <= 0) return;
    seek_to(self, x / width);
}

static void on_pressed(GtkGestureClick *gesture, int n_press, double x, double y, VnWaveform *self) {
    (void)gesture, (void)n_press, (void)y;
    if (gtk_widget_get_focus_on_click(GTK_WIDGET(self))) gtk_widget_grab_focus(GTK_WIDGET(self));
    seek_to_x(self, x);
}

static void on_drag_begin(GtkGestureDrag *gesture, double x, double y, VnWaveform *self) {
    (void)y;
    self->drag_start_x = x;
    /* A scrolled parent must not take the drag over. */
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void on_drag_update(GtkGestureDrag *gesture, double offset_x, double offset_y, VnWaveform *self) {
    (void)gesture, (void)offset_y;
    seek_to_x(self, self->drag_start_x + offset_x);
}

/* A key binding: the argument is the step ("d"), or, for Home/End, where to go ("(sd)" with "to"). */
static gboolean on_step_key(GtkWidget *widget, GVariant *args, gpointer user_data) {
    (void)user_data;
    VnWaveform *self = VNGTK_WAVEFORM(widget);
    seek_to(self, self->position + g_variant_get_double(args));
    return TRUE;
}

static gboolean on_end_key(GtkWidget *widget, GVariant *args, gpointer user_data) {
    (void)user_data;
    seek_to(VNGTK_WAVEFORM(widget), g_variant_get_double(args));
    return TRUE;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Values */

void vngtk_waveform_set_values(VnWaveform *self, const gfloat *values, gsize n_values) {
    g_return_if_fail(VNGTK_IS_WAVEFORM(self));
    g_return_if_fail(values != NULL || n_values == 0);
    g_return_if_fail(n_values <= VN_WAVEFORM_MAX_SAMPLES);
    gfloat *copy = n_values == 0 ? NULL : g_new(gfloat, n_values);
    for (gsize i = 0; i < n_values; i++) copy[i] = isnan(values[i]) ? 0.0f : CLAMP(values[i], 0.0f, 1.0f);
    g_free(self->values);
    self->values = copy;
    self->n_values = n_values;
    gtk_widget_queue_resize(GTK_WIDGET(self));
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_VALUES]);
}

const gfloat *vngtk_waveform_get_values(VnWaveform *self, gsize *n_values) {
    g_return_val_if_fail(VNGTK_IS_WAVEFORM(self), NULL);
    g_return_val_if_fail(n_values != NULL, NULL);
    *n_values = self->n_values;
    return self->values;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Size and drawing */

/* Wide enough for 10 bars at least, one bar per value naturally up to 100 bars (a voice note's usual waveform);
 * at least 16 px tall, 32 px naturally. */
static void vngtk_waveform_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                   int *natural, int *minimum_baseline, int *natural_baseline) {
    (void)for_size, (void)minimum_baseline, (void)natural_baseline;
    VnWaveform *self = VNGTK_WAVEFORM(widget);
    if (orientation == GTK_ORIENTATION_HORIZONTAL) {
        gsize bars = CLAMP(self->n_values, 10, 100);
        *minimum = (int)ceil(10 * BAR_PITCH);
        *natural = (int)ceil((double)bars * BAR_PITCH);
    } else {
        *minimum = 16;
        *natural = 32;
    }
}

/* The played node covers the played part (from the left to the position), the remaining node the whole area (it is
 * never drawn, only its colour is used). */
static void vngtk_waveform_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    VnWaveform *self = VNGTK_WAVEFORM(widget);
    gtk_widget_allocate(self->played, (int)lround(self->position * width), height, baseline, NULL);
    gtk_widget_allocate(self->remaining, width, height, baseline, NULL);
}

static void vngtk_waveform_snapshot(GtkWidget *widget, GtkSnapshot *snapshot) {
    VnWaveform *self = VNGTK_WAVEFORM(widget);
    gtk_widget_snapshot_child(widget, self->played, snapshot); /* under the bars */
    double width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    static const gfloat no_value = 0.0f;
    float probe;
    size_t needed = 0;
    /* Asked with no room first: the call says how many bars the width holds. */
    vn_waveform_bars(self->n_values ? self->values : &no_value, self->n_values, width, height, &probe, 0, &needed);
    if (needed == 0) return;
    g_array_set_size(self->heights, (guint)needed);
    size_t count = 0;
    if (vn_waveform_bars(self->n_values ? self->values : &no_value, self->n_values, width, height,
                         (float *)(void *)self->heights->data, needed, &count) != VN_OK)
        return;
    GdkRGBA played = part_color(self->played), remaining = part_color(self->remaining);
    double boundary = self->position * width;
    for (size_t i = 0; i < count; i++) {
        double x = (double)i * BAR_PITCH, bar = g_array_index(self->heights, gfloat, i);
        graphene_rect_t rect = GRAPHENE_RECT_INIT((float)x, (float)((height - bar) / 2), (float)BAR_WIDTH,
                                                  (float)bar);
        gtk_snapshot_append_color(snapshot, x + BAR_WIDTH / 2 < boundary ? &played : &remaining, &rect);
    }
}

static void vngtk_waveform_root(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_waveform_parent_class)->root(widget);
    fallback_css_install(gtk_widget_get_display(widget), "vngtk-waveform-default-css", DEFAULT_CSS,
                         HIGH_CONTRAST_CSS);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* GObject */

static void vngtk_waveform_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    VnWaveform *self = VNGTK_WAVEFORM(object);
    switch (id) {
    case PROP_VALUES: {
        GArray *array = g_array_sized_new(FALSE, FALSE, sizeof(gfloat), (guint)self->n_values);
        if (self->n_values > 0) g_array_append_vals(array, self->values, (guint)self->n_values);
        g_value_take_boxed(value, array);
        break;
    }
    case PROP_POSITION:
        g_value_set_double(value, self->position);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void vngtk_waveform_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    VnWaveform *self = VNGTK_WAVEFORM(object);
    switch (id) {
    case PROP_VALUES: {
        GArray *array = g_value_get_boxed(value);
        if (array != NULL && g_array_get_element_size(array) != sizeof(gfloat)) {
            g_critical("VnWaveform:values takes a GArray of gfloat");
            break;
        }
        vngtk_waveform_set_values(self, array ? (const gfloat *)(void *)array->data : NULL, array ? array->len : 0);
        break;
    }
    case PROP_POSITION:
        vngtk_waveform_set_position(self, g_value_get_double(value));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void vngtk_waveform_dispose(GObject *object) {
    VnWaveform *self = VNGTK_WAVEFORM(object);
    g_clear_pointer(&self->played, gtk_widget_unparent);
    g_clear_pointer(&self->remaining, gtk_widget_unparent);
    G_OBJECT_CLASS(vngtk_waveform_parent_class)->dispose(object);
}

static void vngtk_waveform_finalize(GObject *object) {
    VnWaveform *self = VNGTK_WAVEFORM(object);
    g_free(self->values);
    g_array_unref(self->heights);
    G_OBJECT_CLASS(vngtk_waveform_parent_class)->finalize(object);
}

static void add_key(GtkWidgetClass *widget_class, guint keyval, GtkShortcutFunc callback, gdouble argument) {
    gtk_widget_class_add_binding(widget_class, keyval, 0, callback, "d", argument);
}

static void vngtk_waveform_class_init(VnWaveformClass *klass) {
    i18n_bind();
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->get_property = vngtk_waveform_get_property;
    object_class->set_property = vngtk_waveform_set_property;
    object_class->dispose = vngtk_waveform_dispose;
    object_class->finalize = vngtk_waveform_finalize;
    widget_class->measure = vngtk_waveform_measure;
    widget_class->size_allocate = vngtk_waveform_size_allocate;
    widget_class->snapshot = vngtk_waveform_snapshot;
    widget_class->root = vngtk_waveform_root;

    /**
     * VnWaveform:values: (type GArray(gfloat))
     *
     * The waveform, each value 0…1 (a [struct@GLib.Array] of `gfloat`; reading gives a copy). Set it with
     * [method@VoicenoteGtk.Waveform.set_values] from C.
     */
    properties[PROP_VALUES] = g_param_spec_boxed("values", NULL, NULL, G_TYPE_ARRAY,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    /**
     * VnWaveform:position:
     *
     * The played fraction of the note, 0…1: bars left of it are drawn in the `played` node's colour.
     */
    properties[PROP_POSITION] = g_param_spec_double("position", NULL, NULL, 0.0, 1.0, 0.0,
                                                    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                        G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    /**
     * VnWaveform::seek:
     * @self: the waveform.
     * @fraction: where the user asked to go, 0…1 of the note.
     *
     * The user pressed or dragged at a point (its fraction of the width) or pressed an arrow, Home or End key.
     * [property@VoicenoteGtk.Waveform:position] is already @fraction when this runs.
     */
    signals[SIGNAL_SEEK] = g_signal_new("seek", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                        G_TYPE_NONE, 1, G_TYPE_DOUBLE);

    add_key(widget_class, GDK_KEY_Right, on_step_key, VNGTK_WAVEFORM_KEY_STEP);
    add_key(widget_class, GDK_KEY_KP_Right, on_step_key, VNGTK_WAVEFORM_KEY_STEP);
    add_key(widget_class, GDK_KEY_Left, on_step_key, -VNGTK_WAVEFORM_KEY_STEP);
    add_key(widget_class, GDK_KEY_KP_Left, on_step_key, -VNGTK_WAVEFORM_KEY_STEP);
    add_key(widget_class, GDK_KEY_Home, on_end_key, 0.0);
    add_key(widget_class, GDK_KEY_KP_Home, on_end_key, 0.0);
    add_key(widget_class, GDK_KEY_End, on_end_key, 1.0);
    add_key(widget_class, GDK_KEY_KP_End, on_end_key, 1.0);

    gtk_widget_class_set_css_name(widget_class, "waveform");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_SLIDER);
}

static void vngtk_waveform_init(VnWaveform *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    self->heights = g_array_new(FALSE, FALSE, sizeof(gfloat));
    self->played = waveform_part_new("played", widget);
    self->remaining = waveform_part_new("remaining", widget);
    gtk_widget_set_focusable(widget, TRUE);

    GtkGesture *click = gtk_gesture_click_new();
    GtkGesture *drag = gtk_gesture_drag_new();
    /* One group: the drag's claim covers the click, so both see the press. */
    gtk_gesture_group(click, drag);
    g_signal_connect(click, "pressed", G_CALLBACK(on_pressed), self);
    g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(click));
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(drag));

    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Voice note position"),
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 0.0, GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, 100.0,
                                   -1);
    update_accessible_value(self);
}

GtkWidget *vngtk_waveform_new(void) {
    return g_object_new(VNGTK_TYPE_WAVEFORM, NULL);
}
