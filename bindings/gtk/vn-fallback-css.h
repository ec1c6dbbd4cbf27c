/*
 * vn-fallback-css.h: private to voicenote-gtk (not installed, not exported): a widget's default stylesheet, added
 * once per display under every theme and application stylesheet, with its high-contrast part while the display's
 * theme is GTK's high-contrast one.
 */
#ifndef VOICENOTE_GTK_FALLBACK_CSS_H
#define VOICENOTE_GTK_FALLBACK_CSS_H

#include <gtk/gtk.h>

/* Adds `css` to `display` at GTK_STYLE_PROVIDER_PRIORITY_FALLBACK, once for each `key` (a static string naming the
 * stylesheet), followed by `high_contrast_css` (static too; NULL for none) while the theme is high contrast (see
 * fallback_css_is_high_contrast()): the provider is loaded again when the display's gtk-theme-name changes. The
 * provider lives as long as the display. */
G_GNUC_INTERNAL void fallback_css_install(GdkDisplay *display, const char *key, const char *css,
                                          const char *high_contrast_css);

/* Whether GTK draws with its high-contrast theme: GTK_THEME (which GTK reads before the setting) or else the
 * gtk-theme-name setting names it — `HighContrast` (GTK 4.8 maps it to its `Default-hc`, and to `Default-hc-dark`
 * with the dark variant: `HighContrast:dark`, or gtk-application-prefer-dark-theme), `HighContrastInverse` (a
 * later GTK's name for the dark one), or `Default-hc`/`Default-hc-dark` themselves. */
G_GNUC_INTERNAL gboolean fallback_css_is_high_contrast(GtkSettings *settings);

#endif /* VOICENOTE_GTK_FALLBACK_CSS_H */
