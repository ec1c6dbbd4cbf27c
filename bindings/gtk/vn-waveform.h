/*
 * vn-waveform.h: VnWaveform, a voice note's waveform as bars, the played part in the theme's accent colour; click,
 * drag or the arrow keys ask to seek.
 */
#ifndef VOICENOTE_GTK_WAVEFORM_H
#define VOICENOTE_GTK_WAVEFORM_H

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * VNGTK_TYPE_WAVEFORM:
 *
 * The [type@GObject.Type] of [class@VoicenoteGtk.Waveform].
 */
#define VNGTK_TYPE_WAVEFORM (vngtk_waveform_get_type())

/**
 * VNGTK_WAVEFORM_KEY_STEP:
 *
 * How far the Left and Right keys move a [class@VoicenoteGtk.Waveform]'s position: 5 % of the note.
 */
#define VNGTK_WAVEFORM_KEY_STEP 0.05

/**
 * VnWaveform:
 *
 * Draws a voice note's waveform ([property@VoicenoteGtk.Waveform:values], each 0…1) as bars 1.5 px wide with 2 px gaps,
 * as many as fit the width (libvoicenote's vn_waveform_bars()), centred vertically. Bars left of
 * [property@VoicenoteGtk.Waveform:position] (0…1) are the played part.
 *
 * Styling: the widget's CSS name is `waveform`, with two child nodes whose `color` is what their bars are drawn
 * with: `waveform > played` (by default the theme's `@theme_selected_bg_color`, its accent: Adwaita's blue, and
 * libadwaita's accent through its compatibility colours) and `waveform > remaining` (by default the foreground at
 * 45 % opacity). The `played` node covers the played part and is drawn under the bars (its background and border;
 * none by default). Under GTK's high-contrast theme (`HighContrast`, light or dark) every bar is in the full
 * foreground (the dimmed one would be under 3:1 against the background) and the played part is underlined (`played`
 * gets a 2 px bottom border in the foreground). Those defaults are a stylesheet at
 * %GTK_STYLE_PROVIDER_PRIORITY_FALLBACK, so any theme or application CSS overrides them; light and dark variants
 * apply through the theme's colours.
 *
 * Input: a press, or a drag, at a point moves the position to that fraction of the width and emits
 * [signal@VoicenoteGtk.Waveform::seek] with it; the widget is focusable and Left/Right (also on the keypad) move the
 * position by %VNGTK_WAVEFORM_KEY_STEP, Home/End to 0/1, each emitting [signal@VoicenoteGtk.Waveform::seek]. Connect
 * the signal to a player's seek; set the position from the player's progress.
 *
 * Accessibility: the role is %GTK_ACCESSIBLE_ROLE_SLIDER, with the value now (the position in percent, 0…100),
 * min 0, max 100 and a value text ("25 %"), kept up to date; the label defaults to "Voice note position"
 * (replace it with [method@Gtk.Accessible.update_property] and %GTK_ACCESSIBLE_PROPERTY_LABEL).
 */
G_DECLARE_FINAL_TYPE(VnWaveform, vngtk_waveform, VNGTK, WAVEFORM, GtkWidget)

/**
 * vngtk_waveform_new:
 *
 * Makes an empty waveform (no values: a row of 1 px bars) at position 0.
 *
 * Returns: (transfer floating): the widget.
 */
GtkWidget *vngtk_waveform_new(void);

/**
 * vngtk_waveform_set_values:
 * @self: the waveform.
 * @values: (array length=n_values) (nullable): the waveform, each value 0…1 (values outside are clamped, NaN is
 *   0), or %NULL for none.
 * @n_values: how many, at most 1048576 (libvoicenote's `VN_WAVEFORM_MAX_SAMPLES`); 0 with %NULL.
 *
 * Replaces the values (copied) and redraws; notifies [property@VoicenoteGtk.Waveform:values]. More values than bars are
 * averaged, fewer are interpolated. Too many values are refused with a critical warning, keeping the old ones.
 */
void vngtk_waveform_set_values(VnWaveform *self, const gfloat *values, gsize n_values);

/**
 * vngtk_waveform_get_values:
 * @self: the waveform.
 * @n_values: (out): receives how many values there are.
 *
 * The values being drawn (clamped to 0…1).
 *
 * Returns: (array length=n_values) (transfer none) (nullable): the values, owned by the widget and valid until
 *   they are replaced; %NULL when there are none.
 */
const gfloat *vngtk_waveform_get_values(VnWaveform *self, gsize *n_values);

/**
 * vngtk_waveform_set_position:
 * @self: the waveform.
 * @position: the played fraction, 0…1 (clamped; NaN is refused with a critical warning).
 *
 * Moves the boundary between the played and the remaining bars, updates the accessible value and notifies
 * [property@VoicenoteGtk.Waveform:position] when it changed. Does not emit [signal@VoicenoteGtk.Waveform::seek] (that
 * is for the user's input).
 */
void vngtk_waveform_set_position(VnWaveform *self, gdouble position);

/**
 * vngtk_waveform_get_position:
 * @self: the waveform.
 *
 * The boundary between the played and the remaining bars ([property@VoicenoteGtk.Waveform:position]): the last
 * [method@VoicenoteGtk.Waveform.set_position], click, drag or key.
 *
 * Returns: the played fraction, 0…1.
 */
gdouble vngtk_waveform_get_position(VnWaveform *self);

G_END_DECLS

#endif /* VOICENOTE_GTK_WAVEFORM_H */
