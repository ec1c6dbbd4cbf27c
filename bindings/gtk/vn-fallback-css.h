/*
 * vn-fallback-css.h: private to voicenote-gtk (not installed, not exported): a widget's default stylesheet, added
 * once per display under every theme and application stylesheet.
 */
#ifndef VOICENOTE_GTK_FALLBACK_CSS_H
#define VOICENOTE_GTK_FALLBACK_CSS_H

#include <gtk/gtk.h>

/* Adds `css` to `display` at GTK_STYLE_PROVIDER_PRIORITY_FALLBACK, once for each `key` (a static string naming the
 * stylesheet); the provider lives as long as the display. */
G_GNUC_INTERNAL void fallback_css_install(GdkDisplay *display, const char *key, const char *css);

#endif /* VOICENOTE_GTK_FALLBACK_CSS_H */
