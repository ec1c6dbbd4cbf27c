/*
 * vn-levels.h (private, not installed): a run of levels (0…1) held two ways, for the classes that show them as a
 * property (VnRecorder:levels, VnFlow:levels and VnFlow:waveform): the floats for C getters and a GVariant of type
 * "ad" for the property, replaced together and only when the values differ.
 */
#ifndef VOICENOTE_GLIB_LEVELS_H
#define VOICENOTE_GLIB_LEVELS_H

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct {
    GArray *floats;    /* of gfloat */
    GVariant *variant; /* "ad", the same values; never NULL */
} VngLevels;

/* Empty levels. */
G_GNUC_INTERNAL void vng_levels_init(VngLevels *levels);

G_GNUC_INTERNAL void vng_levels_clear(VngLevels *levels);

/* Takes `count` values (NULL for none) when they differ from the held ones in number or in any value; whether they
 * did (the property is then to be notified). */
G_GNUC_INTERNAL gboolean vng_levels_take(VngLevels *levels, const float *values, size_t count);

/* The held floats and their number; NULL when there are none. Valid until the next vng_levels_take(). */
G_GNUC_INTERNAL const gfloat *vng_levels_floats(const VngLevels *levels, guint *count);

/* A read-only, explicitly notified property of type "ad" whose default is empty. */
G_GNUC_INTERNAL GParamSpec *vng_levels_param_spec(const gchar *name);

G_END_DECLS

#endif /* VOICENOTE_GLIB_LEVELS_H */
