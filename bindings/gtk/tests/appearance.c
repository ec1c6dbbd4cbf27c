/*
 * appearance.c: VnComposer (with its VnRecordButton and VnWaveforms) and a VnVoiceMessage under GTK's high-contrast
 * theme and with large text, in a real GtkWindow on an X server (make test runs it under xvfb-run), over a real
 * VnFlow driven by real X input (flow-window.h: a VnRecorder on a virtual microphone, a manual clock). What is drawn
 * is rendered with the window's renderer, saved as PNGs and measured; every wait is bounded; nothing sleeps.
 *
 * /appearance/high-contrast: GTK 4.8's `HighContrast` (gtk-theme-name; its Default-hc), light and then dark (its dark
 * variant through gtk-application-prefer-dark-theme: Default-hc-dark, what a later GTK calls HighContrastInverse;
 * 4.8 does not know that name and falls back to its default theme). A take through the composer: idle, held
 * (recording), locked (the pointer up), preview (the record button as stop). At each of the first three, the record
 * button's face: its icon at least 3:1 against its face (WCAG's minimum for graphics); recording and locked ringed
 * (around the face, at least 3:1 against the window's background on all four sides; nothing there while idle), and
 * locked's icon not recording's (stop, not the microphone). The live bars, and the preview's
 * waveform, at least 4.5:1 against the window's background; the trim handles at least 3:1. Then discarded.
 * /appearance/large-text: gtk-xft-dpi from 1× to 2× and 3× (GNOME's text-scaling-factor reaches GTK as XSETTINGS'
 * Xft/DPI, this setting) while a take is held: the timer's text that much taller, the timer, the voice message's
 * time and the record button's slide-to-cancel hint allocated at least their natural size (not clipped), the
 * composer as tall as the timer needs (taller than at 1× by 3×), and the hint (drawn left of the button, outside it)
 * clear of the timer's text.
 */
#include <voicenote-gtk.h>

#include "flow-window.h"

#define MARGIN_TOP 110 /* room for the record button's lock above it */
#define MARGIN 20
#define COMPOSER_WIDTH 560
#define LOCK_MOVE 60 /* px up: past the lock distance (50) */
#define DPI_UNIT 1024 /* gtk-xft-dpi is 1024 × dots per inch */
#define ICON_SIZE 16  /* the face's symbolic icon */

static gchar *directory;
static gchar *microphone;

typedef struct {
    FlowWindow base;
    GtkWidget *composer, *record, *face, *hint, *timer, *trim, *start, *row;
    VnWaveform *bars, *waveform;
} Rig;

static void rig_open(Rig *rig) {
    flow_window_make_flow(&rig->base, directory, microphone, FALSE, NULL);
    rig->composer = vngtk_composer_new(rig->base.flow);
    g_object_set(rig->composer, "margin-top", MARGIN_TOP, "margin-start", MARGIN, "margin-end", MARGIN,
                 "width-request", COMPOSER_WIDTH, NULL);
    /* A received note under it, on the flow's player (never played here). */
    gchar *note = g_build_filename(directory, "received.ogg", NULL);
    rig->row = vngtk_voice_message_new(rig->base.player, note, 83);
    g_free(note);
    g_object_set(rig->row, "margin-start", MARGIN, "margin-end", MARGIN, "margin-bottom", MARGIN, NULL);
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
    gtk_box_append(GTK_BOX(box), rig->composer);
    gtk_box_append(GTK_BOX(box), rig->row);
    flow_window_show(&rig->base, "voicenote-gtk appearance test", box, rig->composer);
    rig->record = GTK_WIDGET(vngtk_composer_get_record_button(VNGTK_COMPOSER(rig->composer)));
    rig->face = flow_window_child(rig->record, "button", NULL);
    rig->hint = flow_window_child(rig->record, "slidetocancel", NULL);
    rig->timer = flow_window_child(rig->composer, "label", NULL);
    rig->bars = VNGTK_WAVEFORM(flow_window_child(rig->composer, "waveform", "live"));
    rig->trim = flow_window_child(rig->composer, "trim", NULL);
    rig->waveform = VNGTK_WAVEFORM(flow_window_child(rig->trim, "waveform", NULL));
    rig->start = flow_window_child(rig->trim, "trimhandle", "start");
}

/* ------------------------------------------------------------------------------------------------------------ */
/* High contrast */

static Rgb window_background(Rig *rig) {
    GdkRGBA background;
    g_assert_true(gtk_style_context_lookup_color(gtk_widget_get_style_context(rig->base.window), "theme_bg_color",
                                                 &background));
    return rgb_of(&background);
}

/* The record button's face as drawn: its colour (the commonest in the ring between the icon and the edge) and the
 * pixels of its icon (the middle's, at least 2:1 against that colour). */
typedef struct {
    Rgb face;
    double icon_contrast; /* the icon's strongest pixel against the face */
    guint8 *icon;         /* ICON_SIZE² flags: the icon's pixels */
    double ring_weakest, ring_strongest; /* around the face (around_face()) */
} FaceLook;

static guint32 pack(Rgb c) {
    return (guint32)lround(c.r) << 16 | (guint32)lround(c.g) << 8 | (guint32)lround(c.b);
}

static void around_face(Rig *rig, const char *name, double *weakest, double *strongest);

/* The face drawn to PREFIX-STATE.png, and the window's content to PREFIX-STATE-window.png (around_face()). */
static FaceLook face_look(Rig *rig, const char *prefix, const char *state) {
    flow_window_wait_for_frame(&rig->base);
    gchar *name = g_strdup_printf("%s-%s.png", prefix, state);
    GdkTexture *texture = render_widget(rig->face, rig->base.window, name);
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    guint8 *data = texture_pixels(texture);
    Rgb background = window_background(rig);
    double cx = width / 2.0, cy = height / 2.0, radius = MIN(width, height) / 2.0;
    GHashTable *counts = g_hash_table_new(NULL, NULL);
    guint32 commonest = 0;
    guint most = 0;
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            double d = hypot(x + 0.5 - cx, y + 0.5 - cy);
            if (d < ICON_SIZE / 2.0 * G_SQRT2 || d > radius - 3) continue;
            guint32 key = pack(pixel_over(data + ((gsize)y * width + x) * 4, background));
            guint n = GPOINTER_TO_UINT(g_hash_table_lookup(counts, GUINT_TO_POINTER(key))) + 1;
            g_hash_table_insert(counts, GUINT_TO_POINTER(key), GUINT_TO_POINTER(n));
            if (n > most) most = n, commonest = key;
        }
    g_hash_table_unref(counts);
    FaceLook look = {.face = {commonest >> 16 & 0xff, commonest >> 8 & 0xff, commonest & 0xff},
                     .icon = g_malloc0(ICON_SIZE * ICON_SIZE)};
    int left = (int)cx - ICON_SIZE / 2, top = (int)cy - ICON_SIZE / 2;
    for (int y = 0; y < ICON_SIZE; y++)
        for (int x = 0; x < ICON_SIZE; x++) {
            double contrast =
                contrast_ratio(pixel_over(data + ((gsize)(top + y) * width + left + x) * 4, background), look.face);
            look.icon_contrast = MAX(look.icon_contrast, contrast);
            look.icon[y * ICON_SIZE + x] = contrast >= 2;
        }
    g_test_message("%s: face #%06x, its icon %.1f:1 against it", name, commonest, look.icon_contrast);
    g_free(data);
    g_object_unref(texture);
    g_free(name);
    name = g_strdup_printf("%s-%s-window.png", prefix, state);
    around_face(rig, name, &look.ring_weakest, &look.ring_strongest);
    g_free(name);
    return look;
}

/* Around the record button's face, 3.5 px out (where a ring would be) on its four sides, drawn with the window's
 * content to `name`: the least (`weakest`) and the most contrast against the window's background there. */
static void around_face(Rig *rig, const char *name, double *weakest, double *strongest) {
    GtkWidget *content = gtk_window_get_child(GTK_WINDOW(rig->base.window));
    GdkTexture *texture = render_widget(content, rig->base.window, name);
    int width = gdk_texture_get_width(texture);
    guint8 *data = texture_pixels(texture);
    double cx = 0, cy = 0, radius = gtk_widget_get_width(rig->face) / 2.0;
    g_assert_true(gtk_widget_translate_coordinates(rig->face, content, radius, gtk_widget_get_height(rig->face) / 2.0,
                                                   &cx, &cy));
    Rgb background = window_background(rig);
    const double out = radius + 3.5, sides[4][2] = {{-out, 0}, {out, 0}, {0, -out}, {0, out}};
    *weakest = 21, *strongest = 1;
    for (int i = 0; i < 4; i++) {
        gsize x = (gsize)(cx + sides[i][0]), y = (gsize)(cy + sides[i][1]);
        double contrast = contrast_ratio(pixel_over(data + (y * (gsize)width + x) * 4, background), background);
        *weakest = MIN(*weakest, contrast);
        *strongest = MAX(*strongest, contrast);
    }
    g_test_message("%s: around the face %.1f:1 to %.1f:1 against the background", name, *weakest, *strongest);
    g_free(data);
    g_object_unref(texture);
}

/* The most opaque pixel `widget` draws (a bar's middle), over the window's background: its contrast against it. */
static double strongest_contrast(Rig *rig, GtkWidget *widget, const char *name) {
    GdkTexture *texture = render_widget(widget, rig->base.window, name);
    int width = gdk_texture_get_width(texture), height = gdk_texture_get_height(texture);
    guint8 *data = texture_pixels(texture);
    gsize strongest = 0;
    for (gsize i = 0; i < (gsize)width * height; i++)
        if (data[i * 4 + 3] > data[strongest * 4 + 3]) strongest = i;
    Rgb background = window_background(rig);
    double contrast = contrast_ratio(pixel_over(data + strongest * 4, background), background);
    g_test_message("%s: its strongest pixel %.1f:1 against the background", name, contrast);
    g_free(data);
    g_object_unref(texture);
    return contrast;
}

/* The trim handle's middle pixel, drawn within the trim area, against the window's background. */
static double handle_contrast(Rig *rig, const char *name) {
    GdkTexture *texture = render_widget(rig->trim, rig->base.window, name);
    int width = gdk_texture_get_width(texture);
    guint8 *data = texture_pixels(texture);
    double x = 0, y = 0;
    g_assert_true(gtk_widget_translate_coordinates(rig->start, rig->trim, gtk_widget_get_width(rig->start) / 2.0,
                                                   gtk_widget_get_height(rig->start) / 2.0, &x, &y));
    Rgb background = window_background(rig);
    double contrast =
        contrast_ratio(pixel_over(data + ((gsize)y * width + (gsize)x) * 4, background), background);
    g_test_message("%s: the trim handle %.1f:1 against the background", name, contrast);
    g_free(data);
    g_object_unref(texture);
    return contrast;
}

static void set_theme(Rig *rig, const char *theme, gboolean dark) {
    g_object_set(gtk_settings_get_default(), "gtk-theme-name", theme, "gtk-application-prefer-dark-theme", dark, NULL);
    flow_window_wait_for_frame(&rig->base);
}

static void test_high_contrast(void) {
    Rig rig;
    rig_open(&rig);
    for (int dark = 0; dark < 2; dark++) {
        set_theme(&rig, "HighContrast", dark);
        GdkRGBA foreground;
        gtk_style_context_get_color(gtk_widget_get_style_context(rig.base.window), &foreground);
        Rgb background = window_background(&rig);
        g_test_message("HighContrast%s: foreground %s, background %.1f:1 against it", dark ? " (dark)" : "",
                       gdk_rgba_to_string(&foreground), contrast_ratio(rgb_of(&foreground), background));
        gchar *prefix = g_strdup_printf("appearance-high-contrast%s", dark ? "-dark" : "");
        FaceLook idle = face_look(&rig, prefix, "idle");

        flow_window_hold(&rig.base, rig.record);
        FaceLook recording = face_look(&rig, prefix, "recording");
        gchar *name = g_strdup_printf("%s-live-bars.png", prefix);
        double bars = strongest_contrast(&rig, GTK_WIDGET(rig.bars), name);
        g_free(name);

        flow_window_pointer_at(&rig.base, rig.record, 0, -LOCK_MOVE, NULL);
        flow_window_wait_for_state(&rig.base, VN_FLOW_STATE_LOCKED, 0);
        FaceLook locked = face_look(&rig, prefix, "locked");
        guint releases = rig.base.releases;
        xdotool((const char *const[]){"mouseup", "1", NULL});
        flow_window_wait_for_count(&rig.base.releases, releases + 1);

        flow_window_pointer_at(&rig.base, rig.record, 0, 0, "click");
        flow_window_wait_for_state(&rig.base, VN_FLOW_STATE_PREVIEW, 0.3);
        flow_window_wait_for_frame(&rig.base);
        name = g_strdup_printf("%s-preview.png", prefix);
        double waveform = strongest_contrast(&rig, GTK_WIDGET(rig.waveform), name);
        double handle = handle_contrast(&rig, name);
        g_free(name);

        guint changed = 0;
        for (int i = 0; i < ICON_SIZE * ICON_SIZE; i++) changed += locked.icon[i] != recording.icon[i];
        double faces = contrast_ratio(idle.face, recording.face);
        g_test_message("recording's face %.1f:1 against idle's; locked's icon differs from recording's in %u pixels",
                       faces, changed);
        g_assert_cmpfloat(idle.icon_contrast, >=, 3);
        g_assert_cmpfloat(recording.icon_contrast, >=, 3);
        g_assert_cmpfloat(locked.icon_contrast, >=, 3);
        /* The recording and locked states ring the button (the red face alone may be close to the idle one). */
        g_assert_cmpfloat(idle.ring_strongest, <, 1.2);
        g_assert_cmpfloat(recording.ring_weakest, >=, 3);
        g_assert_cmpfloat(locked.ring_weakest, >=, 3);
        g_assert_cmpuint(changed, >=, 20);
        g_assert_cmpfloat(bars, >=, 4.5);
        g_assert_cmpfloat(waveform, >=, 4.5);
        g_assert_cmpfloat(handle, >=, 3);
        g_free(idle.icon);
        g_free(recording.icon);
        g_free(locked.icon);
        g_free(prefix);

        GError *error = NULL;
        g_assert_true(vng_flow_discard(rig.base.flow, &error));
        g_assert_no_error(error);
        flow_window_wait_for_state(&rig.base, VN_FLOW_STATE_IDLE, 0);
    }
    set_theme(&rig, "Default", FALSE);
    flow_window_close(&rig.base);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Large text */

typedef struct {
    GtkWidget *label;
    int height;
} TallerUntil;

static GtkRequisition natural_size(GtkWidget *widget);

static gboolean is_taller(gpointer data) {
    TallerUntil *until = data;
    int natural = natural_size(until->label).height;
    return natural >= until->height && gtk_widget_get_height(until->label) >= natural;
}

/* `widget`'s natural size without its margins (gtk_widget_measure() counts them; the allocation does not). */
static GtkRequisition natural_size(GtkWidget *widget) {
    GtkRequisition natural;
    gtk_widget_measure(widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural.width, NULL, NULL);
    gtk_widget_measure(widget, GTK_ORIENTATION_VERTICAL, -1, NULL, &natural.height, NULL, NULL);
    natural.width -= gtk_widget_get_margin_start(widget) + gtk_widget_get_margin_end(widget);
    natural.height -= gtk_widget_get_margin_top(widget) + gtk_widget_get_margin_bottom(widget);
    return natural;
}

/* `widget` is allocated at least its natural size: its text is not clipped. */
static void assert_not_clipped(GtkWidget *widget, const char *what) {
    GtkRequisition natural = natural_size(widget);
    g_test_message("%s: %d×%d allocated, %d×%d natural", what, gtk_widget_get_width(widget),
                   gtk_widget_get_height(widget), natural.width, natural.height);
    g_assert_cmpint(gtk_widget_get_width(widget), >=, natural.width);
    g_assert_cmpint(gtk_widget_get_height(widget), >=, natural.height);
}

/* The right edge of a left-aligned label's text, in the composer's coordinates. */
static double text_right(GtkWidget *label, GtkWidget *composer) {
    double x = 0, y = 0;
    g_assert_true(gtk_widget_translate_coordinates(label, composer, natural_size(label).width, 0, &x, &y));
    return x;
}

static void test_large_text(void) {
    Rig rig;
    rig_open(&rig);
    GtkSettings *settings = gtk_settings_get_default();
    int dpi = 0;
    g_object_get(settings, "gtk-xft-dpi", &dpi, NULL);
    g_object_set(settings, "gtk-xft-dpi", 96 * DPI_UNIT, NULL);
    flow_window_hold(&rig.base, rig.record);
    flow_window_wait_for_frame(&rig.base);
    GtkWidget *time = gtk_widget_get_prev_sibling(gtk_widget_get_last_child(rig.row));
    g_assert_true(GTK_IS_LABEL(time));
    int timer_height = natural_size(rig.timer).height;
    g_test_message("1×: the timer's text %d px tall, the composer %d px", timer_height,
                   gtk_widget_get_height(rig.composer));

    int composer_height = gtk_widget_get_height(rig.composer);
    for (int scale = 2; scale <= 3; scale++) {
        g_object_set(settings, "gtk-xft-dpi", scale * 96 * DPI_UNIT, NULL);
        TallerUntil until = {rig.timer, timer_height * scale * 9 / 10};
        g_assert_true(rig_wait(is_taller, &until, WAIT_MS));
        flow_window_wait_for_frame(&rig.base);
        int natural = natural_size(rig.timer).height;
        g_test_message("%d×: the timer's text %d px tall, the composer %d px", scale, natural,
                       gtk_widget_get_height(rig.composer));
        assert_not_clipped(rig.timer, "the timer");
        assert_not_clipped(time, "the voice message's time");
        assert_not_clipped(rig.hint, "the slide-to-cancel hint");
        /* The composer grows with its text (at 3×, past the record button's height). */
        g_assert_cmpint(gtk_widget_get_height(rig.composer), >=, MAX(natural, composer_height));
        double hint_x = 0, y = 0;
        g_assert_true(gtk_widget_translate_coordinates(rig.hint, rig.composer, 0, 0, &hint_x, &y));
        double timer_end = text_right(rig.timer, rig.composer);
        g_test_message("the timer's text ends at x %.0f, the hint begins at x %.0f", timer_end, hint_x);
        g_assert_cmpfloat(hint_x, >=, timer_end);
        gchar *name = g_strdup_printf("appearance-large-text-%dx.png", scale);
        g_object_unref(render_widget(gtk_widget_get_parent(rig.composer), rig.base.window, name));
        g_free(name);
    }
    g_assert_cmpint(gtk_widget_get_height(rig.composer), >, composer_height);

    xdotool((const char *const[]){"mouseup", "1", NULL});
    flow_window_wait_for_count(&rig.base.attachments, 1);
    flow_window_wait_for_state(&rig.base, VN_FLOW_STATE_IDLE, 0);
    g_object_set(settings, "gtk-xft-dpi", dpi, NULL);
    flow_window_close(&rig.base);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    directory = rig_directory_with_tone("vn-gtk-appearance-XXXXXX", 30, &microphone);
    g_test_add_func("/appearance/high-contrast", test_high_contrast);
    g_test_add_func("/appearance/large-text", test_large_text);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
    return status;
}
