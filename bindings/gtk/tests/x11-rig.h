/*
 * x11-rig.h: what the widget tests share: bounded waits on the main context, a window shown and painted, real X
 * input through xdotool at a widget's point, and a widget drawn with its window's renderer into a PNG and a pixel buffer. Not a test itself.
 */
#ifndef VOICENOTE_GTK_TEST_X11_RIG_H
#define VOICENOTE_GTK_TEST_X11_RIG_H

#include <gdk/x11/gdkx.h>
#include <gtk/gtk.h>
#include <math.h>

#define RIG_WAIT_SECONDS 10

typedef gboolean (*RigCondition)(gpointer data);

static gboolean rig_wake_up(gpointer data) {
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* Iterates the main context until `done(data)` holds or RIG_WAIT_SECONDS pass (a 50 ms timer makes sure the loop
 * wakes up to look at the clock); whether it came. */
G_GNUC_UNUSED static gboolean rig_wait(RigCondition done, gpointer data) {
    gint64 end = g_get_monotonic_time() + RIG_WAIT_SECONDS * G_USEC_PER_SEC;
    guint timer = g_timeout_add(50, rig_wake_up, NULL);
    while (!done(data) && g_get_monotonic_time() < end) g_main_context_iteration(NULL, TRUE);
    g_source_remove(timer);
    return done(data);
}

static void rig_count_frame(GdkFrameClock *clock, guint *frames) {
    (void)clock;
    (*frames)++;
}

/* A window and the count of frames it painted, as rig_wait() looks at them. */
typedef struct {
    GtkWidget *window;
    guint *frames;
    guint wanted;
} RigPainted;

static gboolean rig_is_painted(gpointer data) {
    RigPainted *painted = data;
    GdkSurface *surface = gtk_native_get_surface(GTK_NATIVE(painted->window));
    return surface != NULL && gdk_surface_get_mapped(surface) && gtk_widget_get_width(painted->window) > 0 &&
           *painted->frames >= painted->wanted;
}

/* An undecorated window titled `title` holding `child`, its painted frames counted into `frames` (which must
 * outlive it); shown, and returned once it is mapped and painted. */
G_GNUC_UNUSED static GtkWidget *rig_window_show(const char *title, GtkWidget *child, guint *frames) {
    GtkWidget *window = gtk_window_new();
    gtk_window_set_title(GTK_WINDOW(window), title);
    gtk_window_set_decorated(GTK_WINDOW(window), FALSE);
    gtk_window_set_child(GTK_WINDOW(window), child);
    *frames = 0;
    gtk_widget_realize(window);
    g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(rig_count_frame), frames);
    gtk_window_present(GTK_WINDOW(window));
    RigPainted painted = {window, frames, 1};
    g_assert_true(rig_wait(rig_is_painted, &painted));
    return window;
}

/* Has the window paint once more (after a change of state or style) and waits for it. */
G_GNUC_UNUSED static void rig_wait_for_frame(GtkWidget *window, guint *frames) {
    RigPainted painted = {window, frames, *frames + 1};
    gtk_widget_queue_draw(window);
    g_assert_true(rig_wait(rig_is_painted, &painted));
}

/* The toplevel's X window id, as xdotool takes it. */
G_GNUC_UNUSED static gchar *rig_window_xid(GtkWidget *window) {
    return g_strdup_printf("%lu", (gulong)gdk_x11_surface_get_xid(gtk_native_get_surface(GTK_NATIVE(window))));
}

/* Runs a program (looked up in PATH) to its end, bounded by `timeout SECONDS`; it must exit 0. */
G_GNUC_UNUSED static void rig_run(const char *seconds, const char *const *arguments) {
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
    if (!g_spawn_check_wait_status(status, &error)) g_test_message("%s said: %s%s", arguments[0], out, err);
    g_assert_no_error(error);
    g_free(out);
    g_free(err);
    g_ptr_array_unref(argv);
}

/* Runs xdotool with these arguments (bounded by `timeout 10`); it must succeed. */
G_GNUC_UNUSED static void rig_xdotool(const char *const *arguments) {
    GPtrArray *argv = g_ptr_array_new();
    g_ptr_array_add(argv, (gpointer) "xdotool");
    for (const char *const *a = arguments; *a != NULL; a++) g_ptr_array_add(argv, (gpointer)*a);
    g_ptr_array_add(argv, NULL);
    rig_run("10", (const char *const *)argv->pdata);
    g_ptr_array_unref(argv);
}

/* The X window coordinates of a point of a widget (its toplevel's surface has no decorations in these tests). */
G_GNUC_UNUSED static void rig_point_in_window(GtkWidget *widget, double x, double y, int *wx, int *wy) {
    GtkWidget *window = GTK_WIDGET(gtk_widget_get_root(widget));
    double tx = 0, ty = 0, sx = 0, sy = 0;
    g_assert_true(gtk_widget_translate_coordinates(widget, window, x, y, &tx, &ty));
    gtk_native_get_surface_transform(GTK_NATIVE(window), &sx, &sy);
    *wx = (int)lround(tx + sx);
    *wy = (int)lround(ty + sy);
}

/* A real click (button 1) at a fraction of a widget's width and height, through the X server. No `--sync` on the
 * move: it would wait forever for a motion when the pointer is already there (a second click on one button); the
 * server handles the fake motion and the button in the order they were sent. */
G_GNUC_UNUSED static void rig_click(GtkWidget *widget, double fraction_x, double fraction_y) {
    int x = 0, y = 0;
    rig_point_in_window(widget, gtk_widget_get_width(widget) * fraction_x, gtk_widget_get_height(widget) * fraction_y,
                        &x, &y);
    gchar *xid = rig_window_xid(GTK_WIDGET(gtk_widget_get_root(widget)));
    gchar *sx = g_strdup_printf("%d", x), *sy = g_strdup_printf("%d", y);
    rig_xdotool((const char *const[]){"mousemove", "--window", xid, sx, sy, "click", "1", NULL});
    g_free(sx);
    g_free(sy);
    g_free(xid);
}

/* Draws `widget` with its window's renderer (gtk_widget_paintable_new → GtkSnapshot → gsk_renderer_render_texture),
 * saves it as $VOICENOTE_GTK_TEST_OUTPUT/name and returns its pixels (B, G, R, A premultiplied, little endian;
 * g_free them), `stride` bytes a row. */
G_GNUC_UNUSED static guint8 *rig_render(GtkWidget *widget, const char *name, gsize *stride) {
    int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
    GdkPaintable *paintable = gtk_widget_paintable_new(widget);
    GtkSnapshot *snapshot = gtk_snapshot_new();
    gdk_paintable_snapshot(paintable, snapshot, width, height);
    GskRenderNode *node = gtk_snapshot_free_to_node(snapshot);
    g_assert_nonnull(node);
    graphene_rect_t bounds = GRAPHENE_RECT_INIT(0, 0, (float)width, (float)height);
    GskRenderer *renderer = gtk_native_get_renderer(gtk_widget_get_native(widget));
    GdkTexture *texture = gsk_renderer_render_texture(renderer, node, &bounds);
    g_assert_cmpint(gdk_texture_get_width(texture), ==, width);

    const char *directory = g_getenv("VOICENOTE_GTK_TEST_OUTPUT");
    g_assert_nonnull(directory); /* make test sets it */
    gchar *path = g_build_filename(directory, name, NULL);
    g_assert_true(gdk_texture_save_to_png(texture, path));
    g_test_message("saved %s", path);

    *stride = (gsize)width * 4;
    guint8 *data = g_malloc((gsize)height * *stride);
    gdk_texture_download(texture, data, *stride);
    g_free(path);
    g_object_unref(texture);
    gsk_render_node_unref(node);
    g_object_unref(paintable);
    return data;
}

#endif /* VOICENOTE_GTK_TEST_X11_RIG_H */
