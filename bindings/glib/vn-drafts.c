/*
 * vn-drafts.c: VnDraft, and the drafts directory listed and cleared through vn_flow_drafts_list() and
 * vn_flow_drafts_clear().
 */
#include "vn-drafts.h"

#include "vn-error.h"

/* Registered by hand: G_DEFINE_BOXED_TYPE's transparent-union arguments are not ISO C (-Wpedantic). */
GType vng_draft_get_type(void) {
    static gsize type_once = 0;
    if (g_once_init_enter(&type_once)) {
        GType type = g_boxed_type_register_static(g_intern_static_string("VnDraft"), (GBoxedCopyFunc)vng_draft_copy,
                                                  (GBoxedFreeFunc)vng_draft_free);
        g_once_init_leave(&type_once, type);
    }
    return (GType)type_once;
}

VnDraft *vng_draft_copy(const VnDraft *draft) {
    g_return_val_if_fail(draft != NULL, NULL);
    VnDraft *copy = g_new(VnDraft, 1);
    copy->key = g_strdup(draft->key);
    copy->path = g_strdup(draft->path);
    copy->duration = draft->duration;
    return copy;
}

void vng_draft_free(VnDraft *draft) {
    if (draft == NULL) return;
    g_free(draft->key);
    g_free(draft->path);
    g_free(draft);
}

static void collect_draft(void *user_data, const char *key, const char *path, double duration_s) {
    VnDraft *draft = g_new(VnDraft, 1);
    draft->key = g_strdup(key);
    draft->path = g_strdup(path);
    draft->duration = duration_s;
    g_ptr_array_add(user_data, draft);
}

static gint by_key(gconstpointer a, gconstpointer b) {
    const VnDraft *first = *(VnDraft *const *)a, *second = *(VnDraft *const *)b;
    return g_strcmp0(first->key, second->key);
}

GPtrArray *vng_drafts_list(const gchar *directory, GError **error) {
    GPtrArray *drafts = g_ptr_array_new_with_free_func((GDestroyNotify)vng_draft_free);
    if (!vng_error_set_from_status(error, vn_flow_drafts_list(directory, collect_draft, drafts, NULL))) {
        g_ptr_array_unref(drafts);
        return NULL;
    }
    g_ptr_array_sort(drafts, by_key);
    return drafts;
}

gboolean vng_drafts_clear(const gchar *directory, const gchar *key, GError **error) {
    return vng_error_set_from_status(error, vn_flow_drafts_clear(directory, key));
}
