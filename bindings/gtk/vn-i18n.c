/*
 * vn-i18n.c: voicenote-gtk's text domain bound to the catalogues beside the library, wherever it was installed (the
 * prefix is relocatable: found from the library's own path, as its pkg-config file finds its prefix).
 */
#define _GNU_SOURCE /* dladdr */
#include "vn-i18n.h"

#include <dlfcn.h>

/* An object of the library's own, whose address dladdr() maps to the library's file. */
static const char anchor = 0;

void i18n_bind(void) {
    static gsize bound = 0;
    if (!g_once_init_enter(&bound)) return;
    Dl_info info;
    gchar *locale_dir = NULL;
    if (dladdr(&anchor, &info) != 0 && info.dli_fname != NULL && g_path_is_absolute(info.dli_fname)) {
        gchar *library_dir = g_path_get_dirname(info.dli_fname);
        gchar *joined = g_build_filename(library_dir, "..", "share", "locale", NULL);
        locale_dir = g_canonicalize_filename(joined, NULL);
        g_free(joined);
        g_free(library_dir);
    }
    if (locale_dir != NULL) bindtextdomain(GETTEXT_PACKAGE, locale_dir);
    bind_textdomain_codeset(GETTEXT_PACKAGE, "UTF-8");
    g_free(locale_dir);
    g_once_init_leave(&bound, 1);
}
