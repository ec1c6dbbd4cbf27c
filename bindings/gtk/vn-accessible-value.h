/*
 * vn-accessible-value.h: private to voicenote-gtk (not installed, not exported): a slider's value (the waveform's
 * position, a trim handle's time) told to assistive technologies.
 */
#ifndef VOICENOTE_GTK_ACCESSIBLE_VALUE_H
#define VOICENOTE_GTK_ACCESSIBLE_VALUE_H

#include <gtk/gtk.h>

/* Sets the slider's value properties (minimum, maximum, now, and `text`, the value as a person reads it). GTK before
 * 4.10 publishes AT-SPI's Value interface only for its own range widgets, so a screen reader there would hear no
 * position: under such a GTK (checked at run time) `text` is also the slider's description. */
G_GNUC_INTERNAL void accessible_value_update(GtkAccessible *slider, double minimum, double maximum, double now,
                                             const char *text);

#endif /* VOICENOTE_GTK_ACCESSIBLE_VALUE_H */
