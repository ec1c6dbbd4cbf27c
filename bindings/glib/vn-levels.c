/*
 * vn-levels.c: levels as floats and as a GVariant "ad", changed only when the values differ (vn-levels.h).
 */
#include "vn-levels.h"

static GVariant *empty_variant(void) {
    return g_variant_ref_sink(g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, NULL, 0, sizeof(gdouble)));
}

void vng_levels_init(VngLevels *levels) {
    levels->floats = g_array_new(FALSE, FALSE, sizeof(gfloat));
    levels->variant = empty_variant();
}

void vng_levels_clear(VngLevels *levels) {
    g_clear_pointer(&levels->floats, g_array_unref);
    g_clear_pointer(&levels->variant, g_variant_unref);
}

static gboolean same_values(const GArray *floats, const float *values, size_t count) {
    if (floats->len != count) return FALSE;
    for (size_t i = 0; i < count; i++) {
        if (g_array_index(floats, gfloat, i) != values[i]) return FALSE;
    }
    return TRUE;
}

gboolean vng_levels_take(VngLevels *levels, const float *values, size_t count) {
    if (values == NULL || count > G_MAXUINT) count = 0;
    if (same_values(levels->floats, values, count)) return FALSE;
    g_array_set_size(levels->floats, 0);
    gdouble *doubles = g_new(gdouble, MAX(count, 1));
    for (size_t i = 0; i < count; i++) doubles[i] = values[i]; /* a float is exact as a double */
    if (count > 0) g_array_append_vals(levels->floats, values, (guint)count);
    g_variant_unref(levels->variant);
    levels->variant = g_variant_ref_sink(g_variant_new_fixed_array(G_VARIANT_TYPE_DOUBLE, doubles, count,
                                                                   sizeof(gdouble)));
    g_free(doubles);
    return TRUE;
}

const gfloat *vng_levels_floats(const VngLevels *levels, guint *count) {
    *count = levels->floats->len;
    return levels->floats->len > 0 ? (const gfloat *)(gpointer)levels->floats->data : NULL;
}

GParamSpec *vng_levels_param_spec(const gchar *name) {
    return g_param_spec_variant(name, NULL, NULL, G_VARIANT_TYPE("ad"), empty_variant(),
                                G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}
