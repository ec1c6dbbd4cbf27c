/*
 * x-session.h: what the widget tests share on their X server: a bounded program run and xdotool (real X input), a
 * widget's point in its toplevel's X window, a widget rendered with its window's renderer to a PNG in
 * $VOICENOTE_GTK_TEST_OUTPUT, and WCAG's contrast ratio of what it drew.
 */
#ifndef VOICENOTE_GTK_TESTS_X_SESSION_H
#define VOICENOTE_GTK_TESTS_X_SESSION_H

#include <gdk/x11/gdkx.h>
#include <gtk/gtk.h>
#include <math.h>

/* Runs a program (looked up in PATH) to its end, bounded by `timeout SECONDS`; it must exit 0. */
G_GNUC_UNUSED static void run_bounded(const char *seconds, const char *const *arguments) {
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer) "timeout");
    g_ptr_array_add(argv, (gpointer)seconds);
    for (const char *const *a = arguments; *a != NULL; a++) g_ptr_array_add(argv, (gpointer)*a);
    g_ptr_array_add(argv, NULL);
    gchar *out = NULL, *err = NULL;
    gint status = 0;
    GError *error = NULL;
    gboolean spawned = g_spawn_sync(NULL, (gchar **)argv->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                                    &status, &error);
    g_assert_no_error(error);
    g_assert_true(spawned);
    if (!g_spawn_check_wait_status(status, &error)) {
        gchar *line = g_strjoinv(" ", (gchar **)argv->pdata);
        g_test_message("%s said: %s%s", line, out, err);
        g_free(line);
    }
    g_assert_no_error(error);
    g_free(out);
    g_free(err);
    g_ptr_array_unref(argv);
}

/* Runs xdotool with these arguments (bounded by `timeout 10`); it must succeed. */
G_GNUC_UNUSED static void xdotool(const char *const *arguments) {
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer) "xdotool");
    for (const char *const *a = arguments; *a != NULL; a++) g_ptr_array_add(argv, (gpointer)*a);
    g_ptr_array_add(argv, NULL);
    run_bounded("10", (const char *const *)argv->pdata);
    g_ptr_array_unref(argv);
}

/* The X window of `window` (a realized toplevel), as xdotool's --window argument; free it. */
G_GNUC_UNUSED static gchar *x_window_id(GtkWidget *window) {
    return g_strdup_printf("%lu", (gulong)gdk_x11_surface_get_xid(gtk_native_get_surface(GTK_NATIVE(window))));
}

/* The X window coordinates of the point (x, y) of `widget` in the toplevel `window` (undecorated here). */
G_GNUC_UNUSED static void widget_point_in_window(GtkWidget *widget, GtkWidget *window, double x, double y, int *wx,
                                          int *wy) {
    double tx = 0, ty = 0, sx = 0, sy = 0;
    g_assert_true(gtk_widget_translate_coordinates(widget, window, x, y, &tx, &ty));
    gtk_native_get_surface_transform(GTK_NATIVE(window), &sx, &sy);
    *wx = (int)lround(tx + sx);
    *wy = (int)lround(ty + sy);
}

/* Renders `widget` with `window`'s renderer (gtk_widget_paintable_new() → GtkSnapshot →
 * gsk_renderer_render_texture()), saves it as $VOICENOTE_GTK_TEST_OUTPUT/name and returns it. */
G_GNUC_UNUSED static GdkTexture *render_widget(GtkWidget *widget, GtkWidget *window, const char *name) {
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    g_assert_nonnull(node);
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    GdkTexture *texture = gsk_renderer_render_texture(gtk_native_get_renderer(GTK_NATIVE(window)), node, &bounds);
    g_assert_cmpint(gdk_texture_get_width(texture), ==, width);
    const char *directory = g_getenv("VOICENOTE_GTK_TEST_OUTPUT");
    g_assert_nonnull(directory); /* make test sets it */
    gchar *path = g_build_filename(directory, name, NULL);
    g_assert_true(gdk_texture_save_to_png(texture, path));
    g_test_message("saved %s", path);
    g_free(path);
    gsk_render_node_unref(node);
    g_object_unref(paintable);
    return texture;
}

/* The texture's pixels as B, G, R, A premultiplied bytes (little endian), `width * 4` a row; free them. */
G_GNUC_UNUSED static guint8 *texture_pixels(GdkTexture *texture) {
    gsize stride = (gsize)gdk_texture_get_width(texture) * 4;
    guint8 *data = g_malloc((gsize)gdk_texture_get_height(texture) * stride);
    gdk_texture_download(texture, data, stride);
    return data;
}

/* An opaque colour, channels 0…255. */
typedef struct {
    double r, g, b;
} Rgb;

G_GNUC_UNUSED static Rgb rgb_of(const GdkRGBA *color) {
    return (Rgb){color->red * 255, color->green * 255, color->blue * 255};
}

/* The pixel at `p` (B, G, R, A premultiplied, as texture_pixels() gives them) drawn over the opaque `background`. */
G_GNUC_UNUSED static Rgb pixel_over(const guint8 *p, Rgb background) {
    double uncovered = 1 - p[3] / 255.0;
    return (Rgb){p[2] + background.r * uncovered, p[1] + background.g * uncovered, p[0] + background.b * uncovered};
}

static double linear_channel(double value) {
    double c = value / 255;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* WCAG 2's contrast ratio of two opaque colours (1…21; 4.5 is its minimum for text, 3 for graphics). */
G_GNUC_UNUSED static double contrast_ratio(Rgb a, Rgb b) {
    double la = 0.2126 * linear_channel(a.r) + 0.7152 * linear_channel(a.g) + 0.0722 * linear_channel(a.b);
    double lb = 0.2126 * linear_channel(b.r) + 0.7152 * linear_channel(b.g) + 0.0722 * linear_channel(b.b);
    return (MAX(la, lb) + 0.05) / (MIN(la, lb) + 0.05);
}

#endif /* VOICENOTE_GTK_TESTS_X_SESSION_H */
