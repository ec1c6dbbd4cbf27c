/*
 * vn-fallback-css.c: a widget's default stylesheet, once per display, under every other one (see the header).
 */
#include "vn-fallback-css.h"

void fallback_css_install(GdkDisplay *display, const char *key, const char *css) {
    if (g_object_get_data(G_OBJECT(display), key) != NULL) return;
    GtkCssProvider *provider = gtk_css_provider_new();
    gtk_css_provider_load_from_data(provider, css, -1);
    gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(provider),
                                               GTK_STYLE_PROVIDER_PRIORITY_FALLBACK);
    g_object_set_data_full(G_OBJECT(display), key, provider, g_object_unref);
}
