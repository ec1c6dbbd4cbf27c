/*
 * waveform.c: VnWaveform in a real GtkWindow on an X server (make test runs it under xvfb-run), driven through its
 * own event controllers by real X input from xdotool: a press at 25 % of its width, then the Right key, each read
 * back as the `seek` signal's fraction and as the accessible value; a drag from 10 % to 60 %; then drawn to a
 * texture (saved as PNGs in $VOICENOTE_GTK_TEST_OUTPUT) under Adwaita light and dark, checking the played bars have
 * the theme's accent colour and the rest the dimmed foreground, and under GTK's high-contrast theme, light and dark,
 * checking every bar is in the full foreground (its contrast against the background measured) and the played part
 * underlined.
 */
#include <voicenote-gtk.h>

#include "x-session.h"

#define WAIT_SECONDS 10
#define WIDTH 400
#define HEIGHT 48
#define VALUE_COUNT 100

/* One window with one waveform, and what its `seek` signal said, in order. */
typedef struct {
    GtkWidget *window;
    VnWaveform *waveform;
    GArray *seeks; /* of gdouble */
    guint frames;  /* frames the window's clock painted */
} Rig;

static void on_seek(VnWaveform *waveform, gdouble fraction, Rig *rig) {
    (void)waveform;
    g_array_append_val(rig->seeks, fraction);
}

static void on_after_paint(GdkFrameClock *clock, Rig *rig) {
    (void)clock;
    rig->frames++;
}

static gboolean wake_up(gpointer data) {
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* Iterates the main context until `done` holds or WAIT_SECONDS pass (a 50 ms timer makes sure the loop wakes up to
 * look at the clock); whether it came. */
static gboolean wait_for(gboolean (*done)(Rig *rig), Rig *rig) {
    gint64 end = g_get_monotonic_time() + WAIT_SECONDS * G_USEC_PER_SEC;
    guint timer = g_timeout_add(50, wake_up, NULL);
    while (!done(rig) && g_get_monotonic_time() < end) g_main_context_iteration(NULL, TRUE);
    g_source_remove(timer);
    return done(rig);
}

static guint seek_count_wanted;
static gboolean has_wanted_seeks(Rig *rig) {
    return rig->seeks->len >= seek_count_wanted;
}

static guint frames_wanted;
static gboolean has_wanted_frames(Rig *rig) {
    return rig->frames >= frames_wanted;
}

static gboolean is_shown(Rig *rig) {
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(rig->window));
    return surface != NULL && gdk_surface_get_mapped(surface) && gtk_widget_get_width(GTK_WIDGET(rig->waveform)) > 0 &&
           rig->frames > 0;
}

static gboolean is_active(Rig *rig) {
    return gtk_window_is_active(GTK_WINDOW(rig->window));
}

/* A waveform with a rise and fall, as speech has. */
static void fill_values(gfloat *values) {
    for (int i = 0; i < VALUE_COUNT; i++) values[i] = (gfloat)(0.35 + 0.6 * fabs(sin(i * 0.21)));
}

static void rig_open(Rig *rig) {
    rig->seeks = g_array_new(FALSE, FALSE, sizeof(gdouble));
    rig->frames = 0;
    rig->window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(rig->window), "VnWaveform test");
    gtk_window_set_decorated(GTK_WINDOW(rig->window), FALSE);
    rig->waveform = VNGTK_WAVEFORM(vngtk_waveform_new());
    gfloat values[VALUE_COUNT];
    fill_values(values);
    vngtk_waveform_set_values(rig->waveform, values, VALUE_COUNT);
    gtk_widget_set_size_request(GTK_WIDGET(rig->waveform), WIDTH, HEIGHT);
    gtk_widget_set_halign(GTK_WIDGET(rig->waveform), GTK_ALIGN_START);
    gtk_widget_set_valign(GTK_WIDGET(rig->waveform), GTK_ALIGN_START);
    gtk_window_set_child(GTK_WINDOW(rig->window), GTK_WIDGET(rig->waveform));
    g_signal_connect(rig->waveform, "seek", G_CALLBACK(on_seek), rig);
    gtk_widget_realize(rig->window);
    g_signal_connect(gtk_widget_get_frame_clock(rig->window), "after-paint", G_CALLBACK(on_after_paint), rig);
    gtk_window_present(GTK_WINDOW(rig->window));
    g_assert_true(wait_for(is_shown, rig));
}

static void rig_close(Rig *rig) {
    gtk_window_destroy(GTK_WINDOW(rig->window));
    g_array_unref(rig->seeks);
}

/* The X window coordinates of a point of the waveform. */
static void waveform_point_in_window(Rig *rig, double x, double y, int *wx, int *wy) {
    widget_point_in_window(GTK_WIDGET(rig->waveform), rig->window, x, y, wx, wy);
}

static void assert_accessible_value(Rig *rig, double percent) {
    GtkAccessible *accessible = GTK_ACCESSIBLE(rig->waveform);
    gtk_test_accessible_assert_role(accessible, GTK_ACCESSIBLE_ROLE_SLIDER);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, percent);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 0.0);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_VALUE_MAX, 100.0);
    gtk_test_accessible_assert_property(accessible, GTK_ACCESSIBLE_PROPERTY_LABEL, "Voice note position");
}

/* A press at 25 % of the width, then Right: `seek` says 0.25, then 0.30; the position and the accessible value
 * follow. */
static void test_click_and_key(void) {
    Rig rig;
    rig_open(&rig);
    int width = gtk_widget_get_width(GTK_WIDGET(rig.waveform));
    g_assert_cmpint(width, ==, WIDTH);
    gchar *xid = x_window_id(rig.window);

    xdotool((const char *const[]){"windowfocus", "--sync", xid, NULL});
    g_assert_true(wait_for(is_active, &rig));
    assert_accessible_value(&rig, 0.0);

    int x = 0, y = 0;
    waveform_point_in_window(&rig, width * 0.25, HEIGHT / 2.0, &x, &y);
    gchar *sx = g_strdup_printf("%d", x), *sy = g_strdup_printf("%d", y);
    xdotool((const char *const[]){"mousemove", "--window", xid, "--sync", sx, sy, "click", "1", NULL});
    seek_count_wanted = 1;
    g_assert_true(wait_for(has_wanted_seeks, &rig));
    gdouble clicked = g_array_index(rig.seeks, gdouble, 0);
    g_test_message("press at window (%d, %d): seek %.4f", x, y, clicked);
    g_assert_cmpfloat_with_epsilon(clicked, 0.25, 1.0 / width);
    g_assert_cmpfloat(vngtk_waveform_get_position(rig.waveform), ==, clicked);
    g_assert_true(gtk_widget_has_focus(GTK_WIDGET(rig.waveform)));
    assert_accessible_value(&rig, clicked * 100.0);

    xdotool((const char *const[]){"key", "Right", NULL});
    seek_count_wanted = 2;
    g_assert_true(wait_for(has_wanted_seeks, &rig));
    gdouble stepped = g_array_index(rig.seeks, gdouble, 1);
    g_test_message("Right: seek %.4f", stepped);
    g_assert_cmpfloat_with_epsilon(stepped, clicked + VNGTK_WAVEFORM_KEY_STEP, 1e-9);
    g_assert_cmpfloat(vngtk_waveform_get_position(rig.waveform), ==, stepped);
    assert_accessible_value(&rig, stepped * 100.0);
    g_assert_cmpuint(rig.seeks->len, ==, 2); /* a press is one seek, not also a drag's */

    g_free(sx);
    g_free(sy);
    g_free(xid);
    rig_close(&rig);
}

static gdouble drag_target;
static gboolean reached_drag_target(Rig *rig) {
    return rig->seeks->len > 0 && fabs(g_array_index(rig->seeks, gdouble, rig->seeks->len - 1) - drag_target) < 1e-9;
}

/* A drag from 10 % to 60 % of the width: the press seeks to 0.10, the moves follow the pointer forward only, and
 * the last seek (and the position) is where the button came up. */
static void test_drag(void) {
    Rig rig;
    rig_open(&rig);
    int width = gtk_widget_get_width(GTK_WIDGET(rig.waveform));
    gchar *xid = x_window_id(rig.window);
    int x0 = 0, x1 = 0, y = 0;
    waveform_point_in_window(&rig, width * 0.10, HEIGHT / 2.0, &x0, &y);
    waveform_point_in_window(&rig, width * 0.60, HEIGHT / 2.0, &x1, &y);
    gchar *sx0 = g_strdup_printf("%d", x0), *sx1 = g_strdup_printf("%d", x1), *sy = g_strdup_printf("%d", y);
    int origin_x = 0, origin_y = 0; /* the widget's origin in the window: where the release lands in the widget */
    waveform_point_in_window(&rig, 0, 0, &origin_x, &origin_y);
    drag_target = (double)(x1 - origin_x) / width;
    xdotool((const char *const[]){"mousemove", "--window", xid, "--sync", sx0, sy, "mousedown", "1", "mousemove",
                                  "--window", xid, "--sync", sx1, sy, "mouseup", "1", NULL});
    g_assert_true(wait_for(reached_drag_target, &rig));
    g_test_message("drag: %u seeks, first %.4f, last %.4f", rig.seeks->len, g_array_index(rig.seeks, gdouble, 0),
                   g_array_index(rig.seeks, gdouble, rig.seeks->len - 1));
    g_assert_cmpuint(rig.seeks->len, >=, 2);
    g_assert_cmpfloat_with_epsilon(g_array_index(rig.seeks, gdouble, 0), 0.10, 1.0 / width);
    for (guint i = 1; i < rig.seeks->len; i++)
        g_assert_cmpfloat(g_array_index(rig.seeks, gdouble, i), >=, g_array_index(rig.seeks, gdouble, i - 1));
    g_assert_cmpfloat_with_epsilon(drag_target, 0.60, 1.0 / width);
    g_assert_cmpfloat(vngtk_waveform_get_position(rig.waveform), ==, drag_target);
    assert_accessible_value(&rig, drag_target * 100.0);
    g_free(sx0);
    g_free(sx1);
    g_free(sy);
    g_free(xid);
    rig_close(&rig);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Drawing */

typedef struct {
    guint8 r, g, b, a;
} Pixel;

/* The most opaque pixel in columns [from, to) (the middle of a bar; the edges are antialiased), unpremultiplied. */
static Pixel strongest_pixel(const guint8 *data, gsize stride, int height, int from, int to) {
    Pixel best = {0, 0, 0, 0};
    for (int y = 0; y < height; y++) {
        for (int x = from; x < to; x++) {
            const guint8 *p = data + (gsize)y * stride + (gsize)x * 4; /* B, G, R, A premultiplied (little endian) */
            if (p[3] <= best.a) continue;
            best = (Pixel){(guint8)(p[2] * 255 / p[3]), (guint8)(p[1] * 255 / p[3]), (guint8)(p[0] * 255 / p[3]),
                           p[3]};
        }
    }
    return best;
}

static int channel(double value) {
    return (int)lround(value * 255);
}

static void assert_pixel_near(Pixel pixel, const GdkRGBA *color, const char *what) {
    g_test_message("%s: drawn #%02x%02x%02x alpha %d, expected #%02x%02x%02x alpha %d", what, pixel.r, pixel.g,
                   pixel.b, pixel.a, channel(color->red), channel(color->green), channel(color->blue),
                   channel(color->alpha));
    g_assert_cmpint(abs(pixel.r - channel(color->red)), <=, 3);
    g_assert_cmpint(abs(pixel.g - channel(color->green)), <=, 3);
    g_assert_cmpint(abs(pixel.b - channel(color->blue)), <=, 3);
    g_assert_cmpint(abs(pixel.a - channel(color->alpha)), <=, 3);
}

/* The theme's colours as the window sees them: its accent (theme_selected_bg_color) and its foreground. */
static void theme_colors(Rig *rig, GdkRGBA *accent, GdkRGBA *foreground) {
    GtkStyleContext *context = gtk_widget_get_style_context(rig->window);
    g_assert_true(gtk_style_context_lookup_color(context, "theme_selected_bg_color", accent));
    gtk_style_context_get_color(context, foreground);
}

typedef struct {
    Pixel played, remaining;
} Drawn;

/* Renders the waveform with the window's renderer, saves it as OUTPUT/name, checks it is not blank and returns the
 * colours of the played part (left of 25 %) and of the rest (right of 40 %). */
static Drawn render(Rig *rig, const char *name) {
    GtkWidget *widget = GTK_WIDGET(rig->waveform);
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    GdkTexture *texture = render_widget(widget, rig->window, name);
    gsize stride = (gsize)width * 4;
    guint8 *data = texture_pixels(texture);
    gsize drawn = 0;
    for (gsize i = 0; i < (gsize)height * stride; i += 4) drawn += data[i + 3] != 0;
    g_test_message("%s: %" G_GSIZE_FORMAT " of %d pixels drawn", name, drawn, width * height);
    g_assert_cmpuint(drawn, >, (gsize)width * height / 20); /* the background is transparent: not blank */
    Drawn result = {strongest_pixel(data, stride, height, 0, width / 4),
                    strongest_pixel(data, stride, height, width * 2 / 5, width)};
    g_free(data);
    g_object_unref(texture);
    return result;
}

/* Waits for the window to paint again (after a style change), boundedly. */
static void wait_for_frame(Rig *rig) {
    frames_wanted = rig->frames + 1;
    gtk_widget_queue_draw(rig->window);
    g_assert_true(wait_for(has_wanted_frames, rig));
}

static void set_dark(gboolean dark) {
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
}

/* At 0.3 the bars left of 25 % are in the accent and those right of 40 % in the foreground at 45 %; in light and
 * in dark Adwaita, whose foregrounds differ. */
static void test_draws_theme_colors(void) {
    Rig rig;
    rig_open(&rig);
    vngtk_waveform_set_position(rig.waveform, 0.3);
    GdkRGBA accent, foreground;
    Drawn look[2];
    for (int dark = 0; dark < 2; dark++) {
        set_dark(dark);
        wait_for_frame(&rig);
        theme_colors(&rig, &accent, &foreground);
        look[dark] = render(&rig, dark ? "waveform-dark.png" : "waveform-light.png");
        GdkRGBA dimmed = foreground;
        dimmed.alpha *= 0.45f;
        assert_pixel_near(look[dark].played, &accent, dark ? "dark, played" : "light, played");
        assert_pixel_near(look[dark].remaining, &dimmed, dark ? "dark, remaining" : "light, remaining");
        g_assert_false(look[dark].played.r == look[dark].remaining.r && look[dark].played.g == look[dark].remaining.g &&
                       look[dark].played.b == look[dark].remaining.b);
    }
    /* Dark Adwaita's foreground is light: the remaining bars got brighter. */
    g_assert_cmpint(look[1].remaining.r + look[1].remaining.g + look[1].remaining.b, >,
                    look[0].remaining.r + look[0].remaining.g + look[0].remaining.b + 300);
    set_dark(FALSE);
    rig_close(&rig);
}

/* The theme's background, the window's (what the waveform, transparent between its bars, is drawn over). */
static Rgb window_background(Rig *rig) {
    GdkRGBA background;
    g_assert_true(gtk_style_context_lookup_color(gtk_widget_get_style_context(rig->window), "theme_bg_color",
                                                 &background));
    return rgb_of(&background);
}

/* The fraction of pixels drawn (any alpha) in rows [top, bottom) and columns [from, to). */
static double drawn_fraction(const guint8 *data, int width, int top, int bottom, int from, int to) {
    gsize drawn = 0, all = 0;
    for (int y = top; y < bottom; y++)
        for (int x = from; x < to; x++, all++) drawn += data[((gsize)y * (gsize)width + (gsize)x) * 4 + 3] != 0;
    return all ? (double)drawn / (double)all : 0;
}

/* GTK 4.8's high-contrast theme, `HighContrast` (its Default-hc; what the desktop's high-contrast setting selects),
 * light and dark (its dark variant, Default-hc-dark: what a later GTK names HighContrastInverse; 4.8 does not know
 * that name and falls back to its default theme). Every bar in the full foreground, at least 4.5:1 against the
 * window's background (the dimmed 45 % would be about 2.9:1); the played part told apart by its underline (2 px
 * under it, none under the rest). */
static void test_draws_high_contrast(void) {
    Rig rig;
    rig_open(&rig);
    vngtk_waveform_set_position(rig.waveform, 0.3);
    g_object_set(gtk_settings_get_default(), "gtk-theme-name", "HighContrast", NULL);
    int width = gtk_widget_get_width(GTK_WIDGET(rig.waveform)), height = gtk_widget_get_height(GTK_WIDGET(rig.waveform));
    for (int dark = 0; dark < 2; dark++) {
        set_dark(dark);
        wait_for_frame(&rig);
        GdkRGBA accent, foreground;
        theme_colors(&rig, &accent, &foreground);
        Rgb background = window_background(&rig);
        const char *name = dark ? "waveform-high-contrast-dark.png" : "waveform-high-contrast.png";
        GdkTexture *texture = render_widget(GTK_WIDGET(rig.waveform), rig.window, name);
        guint8 *data = texture_pixels(texture);
        /* The bars' rows (the underline is in the last two). */
        Pixel played = strongest_pixel(data, (gsize)width * 4, height - 2, 0, width / 4);
        Pixel remaining = strongest_pixel(data, (gsize)width * 4, height, width * 2 / 5, width);
        assert_pixel_near(played, &foreground, dark ? "high contrast dark, played" : "high contrast, played");
        assert_pixel_near(remaining, &foreground, dark ? "high contrast dark, remaining" : "high contrast, remaining");
        guint8 premultiplied[4] = {(guint8)(remaining.b * remaining.a / 255), (guint8)(remaining.g * remaining.a / 255),
                                   (guint8)(remaining.r * remaining.a / 255), remaining.a};
        double contrast = contrast_ratio(pixel_over(premultiplied, background), background);
        double underline = drawn_fraction(data, width, height - 2, height, 0, width * 3 / 10 - 1);
        double beyond = drawn_fraction(data, width, height - 2, height, width * 3 / 10 + 1, width);
        g_test_message("%s: the remaining bars %.1f:1 against the background; the accent %.1f:1 (not used); "
                       "underlined: %.0f %% of the played part, %.0f %% of the rest",
                       name, contrast, contrast_ratio(rgb_of(&accent), background), underline * 100, beyond * 100);
        g_assert_cmpfloat(contrast, >=, 4.5);
        g_assert_cmpfloat(underline, >=, 0.95);
        g_assert_cmpfloat(beyond, ==, 0);
        g_free(data);
        g_object_unref(texture);
    }
    set_dark(FALSE);
    g_object_set(gtk_settings_get_default(), "gtk-theme-name", "Default", NULL);
    wait_for_frame(&rig);
    /* Back in the default theme: no underline. */
    GdkTexture *texture = render_widget(GTK_WIDGET(rig.waveform), rig.window, "waveform-light-again.png");
    guint8 *data = texture_pixels(texture);
    g_assert_cmpfloat(drawn_fraction(data, width, height - 2, height, 0, width), ==, 0);
    g_free(data);
    g_object_unref(texture);
    rig_close(&rig);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    g_test_add_func("/waveform/click-and-key", test_click_and_key);
    g_test_add_func("/waveform/drag", test_drag);
    g_test_add_func("/waveform/draws-theme-colors", test_draws_theme_colors);
    g_test_add_func("/waveform/draws-high-contrast", test_draws_high_contrast);
    return g_test_run();
}
