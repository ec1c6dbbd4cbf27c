/*
 * vn-fallback-css.c: a widget's default stylesheet, once per display, under every other one, with its high-contrast
 * part while the theme is high contrast (see the header).
 */
#include "vn-fallback-css.h"

#include <string.h>

gboolean fallback_css_is_high_contrast(GtkSettings *settings) {
    const char *forced = g_getenv("GTK_THEME");
    gchar *name = NULL;
    if (forced != NULL && forced[0] != '\0') name = g_strdup(forced);
    else g_object_get(settings, "gtk-theme-name", &name, NULL);
    gboolean high_contrast = name != NULL && (g_str_has_prefix(name, "HighContrast") ||
                                              g_str_has_prefix(name, "Default-hc") || strstr(name, ":hc") != NULL);
    g_free(name);
    return high_contrast;
}

/* The provider's stylesheet for the theme now: the default one, and its high-contrast part in a high-contrast theme. */
static void load(GtkCssProvider *provider, GtkSettings *settings) {
    const char *css = g_object_get_data(G_OBJECT(provider), "vngtk-css");
    const char *high_contrast_css = g_object_get_data(G_OBJECT(provider), "vngtk-high-contrast-css");
    gchar *text = g_strconcat(css, fallback_css_is_high_contrast(settings) && high_contrast_css ? high_contrast_css : "",
                              NULL);
    gtk_css_provider_load_from_data(provider, text, -1);
    g_free(text);
}

static void on_theme_changed(GtkSettings *settings, GParamSpec *pspec, GtkCssProvider *provider) {
    (void)pspec;
    load(provider, settings);
}

void fallback_css_install(GdkDisplay *display, const char *key, const char *css, const char *high_contrast_css) {
    if (g_object_get_data(G_OBJECT(display), key) != NULL) return;
    GtkCssProvider *provider = gtk_css_provider_new();
    GtkSettings *settings = gtk_settings_get_for_display(display);
    g_object_set_data(G_OBJECT(provider), "vngtk-css", (gpointer)css);
    g_object_set_data(G_OBJECT(provider), "vngtk-high-contrast-css", (gpointer)high_contrast_css);
    load(provider, settings);
    if (high_contrast_css != NULL)
        g_signal_connect_object(settings, "notify::gtk-theme-name", G_CALLBACK(on_theme_changed), provider, 0);
    gtk_style_context_add_provider_for_display(display, GTK_STYLE_PROVIDER(provider),
                                               GTK_STYLE_PROVIDER_PRIORITY_FALLBACK);
    g_object_set_data_full(G_OBJECT(display), key, provider, g_object_unref);
}
