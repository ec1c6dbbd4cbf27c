/*
 * vn-record-button.c: VnRecordButton, a GtkWidget forwarding its drag gesture and record keys to a VnFlow and
 * drawing the flow's view through themed child nodes (the button face, the slide-to-cancel hint, the lock, the tip).
 */
#include "vn-record-button-private.h"
#include "vn-i18n.h"

#include "vn-fallback-css.h"

/* Between the button and the hint left of it, and between the button and the lock above it, in pixels. */
#define SPACING 12

#define LABEL _("Record voice message")
#define TIP _("Hold to record, release to send")
#define MICROPHONE_ICON "audio-input-microphone-symbolic"
#define STOP_ICON "media-playback-stop-symbolic"

/* Under a high-contrast theme a held or locked take rings the button in the foreground, 2 px out: the theme's red
 * face alone is too close to its idle face in the dark variant (about 1.3:1). On the `recordbutton` node, which no
 * theme styles (the theme's `button` rules set their own outline and shadow, and would win over a fallback). */
/* The default look, under every theme and application stylesheet: a focus ring while the button has the keyboard's
 * focus, as Adwaita draws one around a focused button (the themes draw theirs for a focused `button`; here the focus
 * is the record button's, the face's parent, so the ring is drawn on the `recordbutton` node, as the high-contrast
 * ring below: the themes' `button` rules would override it on the face). */
static const char DEFAULT_CSS[] = "recordbutton:focus-visible { outline: 2px solid alpha(@accent_color, 0.5);"
                                  " outline-offset: 2px; border-radius: 50%; }\n";
static const char HIGH_CONTRAST_CSS[] = "recordbutton.recording, recordbutton.locked { outline: 3px solid @theme_fg_color;"
                                        " outline-offset: 2px; border-radius: 50%; }\n";

struct _VnRecordButton {
    GtkWidget parent_instance;
    VnFlow *flow;
    GtkWidget *face;    /* CSS `button.circular`: the button itself, holding the icon */
    GtkWidget *icon;    /* the microphone, or stop when locked */
    GtkWidget *hint;    /* CSS `slidetocancel`: left of the face while a take is held */
    GtkWidget *lock;    /* CSS `lock`: above the face while a take is held */
    GtkWidget *chevron; /* in the lock, at the view's chevron alpha */
    GtkWidget *tip;     /* a GtkPopover above the face while the view's tip shows */
    GtkGesture *drag;   /* the pointer's press, moves and release */
    gdouble lock_padding;
    gboolean held;     /* a press (pointer, or the record key) was forwarded and not yet released */
    guint key_held;    /* the record key's keyval while it is down, else 0 */
    gdouble press_x;   /* where the pointer press was, in the button's coordinates */
    gdouble press_y;
};

enum { PROP_0, PROP_FLOW, N_PROPS };
static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE(VnRecordButton, vngtk_record_button, GTK_TYPE_WIDGET)

/* ------------------------------------------------------------------------------------------------------------ */
/* Drawing the view */

typedef struct {
    VnFlowState state;
    gboolean toggled, tip_visible;
    gdouble slide_to_cancel_alpha, lock_padding, chevron_alpha;
} View;

static View read_view(VnFlow *flow) {
    View view = {.state = vng_flow_get_state(flow)};
    g_object_get(flow, "toggled", &view.toggled, "tip-visible", &view.tip_visible, "slide-to-cancel-alpha",
                 &view.slide_to_cancel_alpha, "lock-padding", &view.lock_padding, "chevron-alpha", &view.chevron_alpha,
                 NULL);
    return view;
}

static void set_class(GtkWidget *widget, const char *name, gboolean on) {
    if (on) gtk_widget_add_css_class(widget, name);
    else gtk_widget_remove_css_class(widget, name);
}

/* Draws what the flow's last view says (or the idle look without a flow) and keeps the accessible description. */
static void show_view(VnRecordButton *self) {
    View view = self->flow ? read_view(self->flow) : (View){.state = VN_FLOW_STATE_IDLE};
    gboolean held = view.state == VN_FLOW_STATE_RECORDING && !view.toggled;
    gboolean stop = view.state == VN_FLOW_STATE_LOCKED || (view.state == VN_FLOW_STATE_RECORDING && view.toggled);
    gtk_image_set_from_icon_name(GTK_IMAGE(self->icon), stop ? STOP_ICON : MICROPHONE_ICON);
    set_class(self->face, "destructive-action", held || stop);
    set_class(self->face, "recording", held);
    set_class(self->face, "locked", stop);
    set_class(GTK_WIDGET(self), "recording", held);
    set_class(GTK_WIDGET(self), "locked", stop);
    gtk_widget_set_visible(self->hint, held);
    gtk_widget_set_opacity(self->hint, CLAMP(view.slide_to_cancel_alpha, 0.0, 1.0));
    gtk_widget_set_visible(self->lock, held);
    gtk_widget_set_opacity(self->chevron, CLAMP(view.chevron_alpha, 0.0, 1.0));
    if (view.lock_padding != self->lock_padding) {
        self->lock_padding = view.lock_padding;
        gtk_widget_queue_allocate(GTK_WIDGET(self));
    }
    /* A popover opens only on a mapped widget; map() comes back here. */
    if (view.tip_visible && gtk_widget_get_mapped(GTK_WIDGET(self))) gtk_popover_popup(GTK_POPOVER(self->tip));
    else if (!view.tip_visible) gtk_popover_popdown(GTK_POPOVER(self->tip));
    const gchar *description = self->flow ? vng_flow_get_accessible_description(self->flow) : "";
    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
}

static void on_flow_notify(VnFlow *flow, GParamSpec *pspec, VnRecordButton *self) {
    (void)flow, (void)pspec;
    show_view(self);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Input */

static gboolean is_locked(VnRecordButton *self) {
    gboolean toggled = FALSE;
    g_object_get(self->flow, "toggled", &toggled, NULL);
    return vng_flow_get_state(self->flow) == VN_FLOW_STATE_LOCKED && !toggled;
}

/* The button went down (pointer at x, y; or the record key, `key` TRUE, forwarded as the flow's key). A locked take
 * has no finger to follow: the press is its stop button. Errors (a disposed flow, a stop racing the take's end) have
 * no caller to go to and change nothing: they are dropped. */
static void button_down(VnRecordButton *self, gdouble x, gdouble y, gboolean key) {
    if (is_locked(self)) {
        vng_flow_stop(self->flow, NULL);
        return;
    }
    self->held = TRUE;
    self->press_x = x;
    self->press_y = y;
    gtk_widget_set_state_flags(self->face, GTK_STATE_FLAG_ACTIVE, FALSE);
    if (key) vng_flow_key_down(self->flow, VN_FLOW_INPUT_KEY_RECORD, NULL);
    else vng_flow_press(self->flow, x, y, NULL);
}

static void button_up(VnRecordButton *self, gboolean key) {
    if (!self->held) return;
    self->held = FALSE;
    gtk_widget_unset_state_flags(self->face, GTK_STATE_FLAG_ACTIVE);
    if (key) vng_flow_key_up(self->flow, VN_FLOW_INPUT_KEY_RECORD, NULL);
    else vng_flow_release(self->flow, NULL);
}

static void on_drag_begin(GtkGestureDrag *gesture, gdouble x, gdouble y, VnRecordButton *self) {
    if (self->flow == NULL || self->key_held != 0) {
        gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_DENIED);
        return;
    }
    /* A scrolled parent must not take the gesture over. */
    gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
    if (gtk_widget_get_focus_on_click(GTK_WIDGET(self))) gtk_widget_grab_focus(GTK_WIDGET(self));
    button_down(self, x, y, FALSE);
}

static void on_drag_update(GtkGestureDrag *gesture, gdouble offset_x, gdouble offset_y, VnRecordButton *self) {
    (void)gesture;
    if (self->held && self->key_held == 0) vng_flow_move(self->flow, self->press_x + offset_x, self->press_y + offset_y, NULL);
}

/* The release, or the sequence cancelled (the grab broken): either way no finger is on the button any more. */
static void on_drag_end(GtkGestureDrag *gesture, gdouble offset_x, gdouble offset_y, VnRecordButton *self) {
    (void)gesture, (void)offset_x, (void)offset_y;
    if (self->key_held == 0) button_up(self, FALSE);
}

static gboolean is_record_key(guint keyval) {
    return keyval == GDK_KEY_space || keyval == GDK_KEY_KP_Space || keyval == GDK_KEY_Return ||
           keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter;
}

static gboolean key_inputs(VnFlow *flow) {
    gboolean on = FALSE;
    g_object_get(flow, "key-inputs", &on, NULL);
    return on;
}

static gboolean on_key_pressed(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                               VnRecordButton *self) {
    (void)controller, (void)keycode, (void)state;
    if (self->flow == NULL) return FALSE;
    if (keyval == GDK_KEY_Escape) {
        if (!key_inputs(self->flow)) return FALSE; /* left to the window (a dialog closes) */
        vng_flow_key_down(self->flow, VN_FLOW_INPUT_KEY_ESCAPE, NULL);
        return TRUE;
    }
    if (!is_record_key(keyval)) return FALSE;
    if (self->held || self->key_held != 0) return TRUE; /* auto-repeat, or the pointer holds it */
    self->key_held = keyval;
    gboolean as_key = key_inputs(self->flow);
    button_down(self, gtk_widget_get_width(GTK_WIDGET(self)) / 2.0, gtk_widget_get_height(GTK_WIDGET(self)) / 2.0,
                as_key);
    if (!self->held) self->key_held = 0; /* it was the stop of a locked take */
    return TRUE;
}

static void on_key_released(GtkEventControllerKey *controller, guint keyval, guint keycode, GdkModifierType state,
                            VnRecordButton *self) {
    (void)controller, (void)keycode, (void)state;
    if (self->flow == NULL) return;
    if (keyval == GDK_KEY_Escape && key_inputs(self->flow)) {
        vng_flow_key_up(self->flow, VN_FLOW_INPUT_KEY_ESCAPE, NULL);
    } else if (keyval == self->key_held) {
        self->key_held = 0;
        button_up(self, key_inputs(self->flow));
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The flow */

void vngtk_record_button_set_flow(VnRecordButton *self, VnFlow *flow) {
    g_return_if_fail(VNGTK_IS_RECORD_BUTTON(self));
    g_return_if_fail(flow == NULL || VNG_IS_FLOW(flow));
    if (flow == self->flow) return;
    if (self->flow != NULL) g_signal_handlers_disconnect_by_data(self->flow, self);
    g_set_object(&self->flow, flow);
    self->held = FALSE;
    self->key_held = 0;
    gtk_widget_unset_state_flags(self->face, GTK_STATE_FLAG_ACTIVE);
    if (flow != NULL) g_signal_connect(flow, "notify", G_CALLBACK(on_flow_notify), self);
    show_view(self);
    g_object_notify_by_pspec(G_OBJECT(self), properties[PROP_FLOW]);
}

VnFlow *vngtk_record_button_get_flow(VnRecordButton *self) {
    g_return_val_if_fail(VNGTK_IS_RECORD_BUTTON(self), NULL);
    return self->flow;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Size */

/* As big as the button face; the hint and the lock are drawn outside (see the class comment). */
static void vngtk_record_button_measure(GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                                        int *natural, int *minimum_baseline, int *natural_baseline) {
    gtk_widget_measure(VNGTK_RECORD_BUTTON(widget)->face, orientation, for_size, minimum, natural, minimum_baseline,
                       natural_baseline);
}

int record_button_room_before(VnRecordButton *self) {
    g_return_val_if_fail(VNGTK_IS_RECORD_BUTTON(self), 0);
    if (!gtk_widget_get_visible(self->hint)) return 0;
    int width = 0;
    gtk_widget_measure(self->hint, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
    return width + SPACING;
}

/* Allocates `child` at its natural size `size` with its top left corner at (x, y). */
static void allocate_at(GtkWidget *child, GtkRequisition size, float x, float y) {
    gtk_widget_allocate(child, size.width, size.height, -1, gsk_transform_translate(NULL, &GRAPHENE_POINT_INIT(x, y)));
}

static void vngtk_record_button_size_allocate(GtkWidget *widget, int width, int height, int baseline) {
    VnRecordButton *self = VNGTK_RECORD_BUTTON(widget);
    gtk_widget_allocate(self->face, width, height, baseline, NULL);
    GtkRequisition hint, lock;
    gtk_widget_get_preferred_size(self->hint, NULL, &hint);
    gtk_widget_get_preferred_size(self->lock, NULL, &lock);
    allocate_at(self->hint, hint, (float)(-hint.width - SPACING), (float)(height - hint.height) / 2.0f);
    allocate_at(self->lock, lock, (float)(width - lock.width) / 2.0f,
                (float)(-lock.height - SPACING - MAX(self->lock_padding, 0.0)));
    gtk_popover_present(GTK_POPOVER(self->tip));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* GObject */

static void vngtk_record_button_root(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_record_button_parent_class)->root(widget);
    fallback_css_install(gtk_widget_get_display(widget), "vngtk-record-button-default-css", DEFAULT_CSS,
                         HIGH_CONTRAST_CSS);
}

static void vngtk_record_button_map(GtkWidget *widget) {
    GTK_WIDGET_CLASS(vngtk_record_button_parent_class)->map(widget);
    show_view(VNGTK_RECORD_BUTTON(widget));
}

/* Hidden (another page of a stack, the window hidden) while a take runs or a press is held: the flow's reaction to
 * losing its view (a take stops into preview and is kept; a press not yet a take is dropped), and nothing stays
 * held — the release will go elsewhere, so the press and the record key are forgotten here. */
static void vngtk_record_button_unmap(GtkWidget *widget) {
    VnRecordButton *self = VNGTK_RECORD_BUTTON(widget);
    gboolean pressed = self->held || self->key_held != 0;
    self->held = FALSE;
    self->key_held = 0;
    gtk_widget_unset_state_flags(self->face, GTK_STATE_FLAG_ACTIVE);
    gtk_event_controller_reset(GTK_EVENT_CONTROLLER(self->drag));
    if (self->flow != NULL) {
        VnFlowState state = vng_flow_get_state(self->flow);
        GError *error = NULL;
        /* In preview (a toggled take stopped by this press: the composer hides the button then) nothing runs. */
        if ((state == VN_FLOW_STATE_RECORDING || state == VN_FLOW_STATE_LOCKED ||
             (pressed && state != VN_FLOW_STATE_PREVIEW)) &&
            !vng_flow_deactivate(self->flow, &error)) {
            g_warning("VnRecordButton: deactivate: %s", error->message);
            g_error_free(error);
        }
    }
    GTK_WIDGET_CLASS(vngtk_record_button_parent_class)->unmap(widget);
}

static void vngtk_record_button_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_FLOW:
        g_value_set_object(value, VNGTK_RECORD_BUTTON(object)->flow);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void vngtk_record_button_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
    switch (id) {
    case PROP_FLOW:
        vngtk_record_button_set_flow(VNGTK_RECORD_BUTTON(object), g_value_get_object(value));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void vngtk_record_button_dispose(GObject *object) {
    VnRecordButton *self = VNGTK_RECORD_BUTTON(object);
    if (self->flow != NULL) g_signal_handlers_disconnect_by_data(self->flow, self);
    g_clear_object(&self->flow);
    g_clear_pointer(&self->face, gtk_widget_unparent);
    g_clear_pointer(&self->hint, gtk_widget_unparent);
    g_clear_pointer(&self->lock, gtk_widget_unparent);
    g_clear_pointer(&self->tip, gtk_widget_unparent);
    G_OBJECT_CLASS(vngtk_record_button_parent_class)->dispose(object);
}

static void vngtk_record_button_class_init(VnRecordButtonClass *klass) {
    i18n_bind();
    GObjectClass *object_class = G_OBJECT_CLASS(klass);
    GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
    object_class->get_property = vngtk_record_button_get_property;
    object_class->set_property = vngtk_record_button_set_property;
    object_class->dispose = vngtk_record_button_dispose;
    widget_class->measure = vngtk_record_button_measure;
    widget_class->size_allocate = vngtk_record_button_size_allocate;
    widget_class->map = vngtk_record_button_map;
    widget_class->root = vngtk_record_button_root;
    widget_class->unmap = vngtk_record_button_unmap;

    /**
     * VnRecordButton:flow:
     *
     * The [class@Voicenote.Flow] the button forwards its input to and draws; %NULL for none (input is ignored).
     */
    properties[PROP_FLOW] = g_param_spec_object("flow", NULL, NULL, VNG_TYPE_FLOW,
                                                G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
    g_object_class_install_properties(object_class, N_PROPS, properties);

    gtk_widget_class_set_css_name(widget_class, "recordbutton");
    gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_BUTTON);
}

/* A box standing for a CSS node, under `parent`, invisible to assistive technologies (the button's description
 * says what it shows) and, unless `targetable`, to the pointer. */
static GtkWidget *node_new(const char *css_name, GtkOrientation orientation, GtkWidget *parent, gboolean targetable) {
    GtkWidget *box = g_object_new(GTK_TYPE_BOX, "css-name", css_name, "orientation", orientation, "accessible-role",
                                  GTK_ACCESSIBLE_ROLE_PRESENTATION, "can-target", targetable, NULL);
    gtk_widget_set_parent(box, parent);
    return box;
}

static GtkWidget *icon_new(const char *name, GtkWidget *box) {
    GtkWidget *image = g_object_new(GTK_TYPE_IMAGE, "icon-name", name, "accessible-role",
                                    GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL);
    gtk_box_append(GTK_BOX(box), image);
    return image;
}

static void vngtk_record_button_init(VnRecordButton *self) {
    GtkWidget *widget = GTK_WIDGET(self);
    gtk_widget_set_focusable(widget, TRUE);

    /* The hint and the lock come first: drawn under the face. */
    self->hint = node_new("slidetocancel", GTK_ORIENTATION_HORIZONTAL, widget, FALSE);
    gtk_box_set_spacing(GTK_BOX(self->hint), 6);
    icon_new("go-previous-symbolic", self->hint);
    gtk_box_append(GTK_BOX(self->hint), g_object_new(GTK_TYPE_LABEL, "label", _("Slide to cancel"), "accessible-role",
                                                     GTK_ACCESSIBLE_ROLE_PRESENTATION, NULL));
    gtk_widget_set_visible(self->hint, FALSE);

    self->lock = node_new("lock", GTK_ORIENTATION_VERTICAL, widget, FALSE);
    gtk_box_set_spacing(GTK_BOX(self->lock), 4);
    self->chevron = icon_new("go-up-symbolic", self->lock);
    icon_new("changes-prevent-symbolic", self->lock);
    gtk_widget_set_visible(self->lock, FALSE);

    self->face = node_new("button", GTK_ORIENTATION_HORIZONTAL, widget, TRUE);
    gtk_widget_add_css_class(self->face, "circular");
    self->icon = icon_new(MICROPHONE_ICON, self->face);
    gtk_widget_set_hexpand(self->icon, TRUE);

    self->tip = g_object_new(GTK_TYPE_POPOVER, "autohide", FALSE, "position", GTK_POS_TOP, "can-focus", FALSE,
                             "child", g_object_new(GTK_TYPE_LABEL, "label", TIP, NULL), NULL);
    gtk_widget_add_css_class(self->tip, "tip");
    gtk_widget_set_parent(self->tip, widget);

    self->drag = gtk_gesture_drag_new();
    g_signal_connect(self->drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
    g_signal_connect(self->drag, "drag-update", G_CALLBACK(on_drag_update), self);
    g_signal_connect(self->drag, "drag-end", G_CALLBACK(on_drag_end), self);
    gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(self->drag));

    GtkEventController *keys = gtk_event_controller_key_new();
    g_signal_connect(keys, "key-pressed", G_CALLBACK(on_key_pressed), self);
    g_signal_connect(keys, "key-released", G_CALLBACK(on_key_released), self);
    gtk_widget_add_controller(widget, keys);

    gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL, LABEL,
                                   GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "", -1);
}

GtkWidget *vngtk_record_button_new(VnFlow *flow) {
    g_return_val_if_fail(flow == NULL || VNG_IS_FLOW(flow), NULL);
    return g_object_new(VNGTK_TYPE_RECORD_BUTTON, "flow", flow, NULL);
}
