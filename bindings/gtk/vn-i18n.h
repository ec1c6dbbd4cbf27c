/*
 * vn-i18n.h: private to voicenote-gtk (not installed, not exported): its user-visible strings through gettext, in a
 * text domain of its own (voicenote-gtk-1), whose catalogues are found beside the library
 * (<libdir>/../share/locale: the build tree's OUT/share/locale, an installed prefix's share/locale).
 */
#ifndef VOICENOTE_GTK_I18N_H
#define VOICENOTE_GTK_I18N_H

#define GETTEXT_PACKAGE "voicenote-gtk-1"
#include <glib/gi18n-lib.h>

/* Binds the text domain (once per process, thread-safe); each widget class calls it from its class_init, before any
 * of its strings is translated. */
G_GNUC_INTERNAL void i18n_bind(void);

#endif /* VOICENOTE_GTK_I18N_H */
