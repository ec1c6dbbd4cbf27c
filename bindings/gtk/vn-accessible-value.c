/*
 * vn-accessible-value.c: a slider's value for assistive technologies, also as its description where GTK's AT-SPI
 * backend publishes no Value for a widget of ours (GTK 4.8 and 4.9).
 */
#include "vn-accessible-value.h"

void accessible_value_update(GtkAccessible *slider, double minimum, double maximum, double now, const char *text) {
    gtk_accessible_update_property(slider, GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, minimum, GTK_ACCESSIBLE_PROPERTY_VALUE_MAX,
                                   maximum, GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, now,
                                   GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, text, -1);
    if (gtk_get_major_version() == 4 && gtk_get_minor_version() < 10)
        gtk_accessible_update_property(slider, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}
