/*
 * x11-rig.h: what the widget tests over a shown window share, on x-session.h: bounded waits on the main context, a
 * window shown and painted, a real click (xdotool) at a fraction of a widget. Not a test itself.
 */
#ifndef VOICENOTE_GTK_TEST_X11_RIG_H
#define VOICENOTE_GTK_TEST_X11_RIG_H

#include "x-session.h"

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

/* A real click (button 1) at a fraction of a widget's width and height, through the X server. No `--sync` on the
 * move: it would wait forever for a motion when the pointer is already there (a second click on one button); the
 * server handles the fake motion and the button in the order they were sent. */
G_GNUC_UNUSED static void rig_click(GtkWidget *widget, double fraction_x, double fraction_y) {
    int x = 0, y = 0;
    GtkWidget *window = GTK_WIDGET(gtk_widget_get_root(widget));
    widget_point_in_window(widget, window, gtk_widget_get_width(widget) * fraction_x,
                           gtk_widget_get_height(widget) * fraction_y, &x, &y);
    gchar *xid = x_window_id(window);
    gchar *sx = g_strdup_printf("%d", x), *sy = g_strdup_printf("%d", y);
    xdotool((const char *const[]){"mousemove", "--window", xid, sx, sy, "click", "1", NULL});
    g_free(sx);
    g_free(sy);
    g_free(xid);
}

#endif /* VOICENOTE_GTK_TEST_X11_RIG_H */
