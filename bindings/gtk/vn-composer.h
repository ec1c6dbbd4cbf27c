/*
 * vn-composer.h: VnComposer, the voice part of a chat composer over a VnFlow (voicenote-glib): the record button,
 * the live bars and timer of a take, its discard and send buttons, and the preview with play/pause, the waveform
 * and trim handles.
 */
#ifndef VOICENOTE_GTK_COMPOSER_H
#define VOICENOTE_GTK_COMPOSER_H

#include <gtk/gtk.h>
#include <voicenote-glib.h>

#include "vn-record-button.h"

G_BEGIN_DECLS

/**
 * VNGTK_TYPE_COMPOSER:
 *
 * The [type@GObject.Type] of [class@VoicenoteGtk.Composer].
 */
#define VNGTK_TYPE_COMPOSER (vngtk_composer_get_type())

/**
 * VnComposer:
 *
 * The voice part of a chat composer, bound to a [class@Voicenote.Flow] ([property@VoicenoteGtk.Composer:flow]), which
 * decides everything; the composer shows its view and forwards the user's input to it. It holds a
 * [class@VoicenoteGtk.RecordButton] on the same flow, and shows, following [property@Voicenote.Flow:state]:
 *
 * - idle (or the tip showing): only the record button;
 * - recording: live bars (a [class@VoicenoteGtk.Waveform] holding [method@Voicenote.Flow.get_levels] of each view;
 *   not scrubbable) and the timer (m:ss of [property@Voicenote.Flow:duration]) left of the record button, with room
 *   between them for the button's slide-to-cancel hint;
 * - locked: besides, a discard button ([method@Voicenote.Flow.discard]) first and a send button
 *   ([method@Voicenote.Flow.send]) before the record button, which is then its stop button;
 * - preview: discard, play/pause ([method@Voicenote.Flow.play], [method@Voicenote.Flow.pause], following
 *   [property@Voicenote.Flow:preview-playing]), the take's waveform ([method@Voicenote.Flow.get_waveform]) at
 *   [property@Voicenote.Flow:preview-position] (a click or drag on it is [method@Voicenote.Flow.seek]) with two trim
 *   handles over it, the timer (the position while under way, else the take's length) and send; the record button is
 *   hidden. Releasing a dragged trim handle (or, on a focused one, the Left, Right, Home or End key that moved it)
 *   is [method@Voicenote.Flow.trim] from the start handle to the end handle; the handles show [property@Voicenote.Flow:trim-start] and
 *   [property@Voicenote.Flow:trim-end] of the take, except while the trim the composer asked for runs (they stay where
 *   they were left, and play, seek and the handles are insensitive, until [signal@Voicenote.Flow::trimmed] or
 *   [signal@Voicenote.Flow::trim-failed]).
 *
 * Unmapped while a take runs or the preview plays (its page of a [class@Gtk.Stack] left, its window hidden), the
 * composer calls [method@Voicenote.Flow.deactivate]: the take stops into preview and is kept, the preview pauses.
 *
 * A method of the flow that fails (the flow was disposed, or its state moved on under the click) is logged with
 * `g_warning()`; a failing recorder or player arrives as [signal@Voicenote.Flow::failed], for the application.
 *
 * Styling: CSS name `composer`, a horizontal box (spacing 6); its buttons are `circular` (discard and play also `flat`,
 * send `suggested-action`), the timer label `numeric`; the live bars are `waveform.live`, the preview's waveform is in
 * a `trim` node with two `trimhandle` nodes (`.start`, `.end`), drawn by default in the theme's accent
 * (`@theme_selected_bg_color`, a stylesheet at %GTK_STYLE_PROVIDER_PRIORITY_FALLBACK that any theme or application CSS
 * overrides; under GTK's high-contrast theme the handles are in the foreground instead). No colour is the code's
 * own.
 *
 * Accessibility: the composer is a %GTK_ACCESSIBLE_ROLE_GROUP labelled "Voice message composer", described by the
 * flow's [property@Voicenote.Flow:accessible-description]; the buttons are labelled "Discard", "Play"/"Pause" and "Send
 * voice message"; the trim handles are sliders ("Trim start", "Trim end") whose value is seconds of the take (0 to its
 * length, with an m:ss value text); the preview's waveform is its slider ("Voice note position"); the live bars are
 * presentation only (the description says what happens).
 */
G_DECLARE_FINAL_TYPE(VnComposer, vngtk_composer, VNGTK, COMPOSER, GtkWidget)

/**
 * vngtk_composer_new:
 * @flow: (nullable): the flow to show and drive, or %NULL for none yet.
 *
 * Makes a composer over @flow (the composer and its record button keep a reference).
 *
 * Returns: (transfer floating): the widget.
 */
GtkWidget *vngtk_composer_new(VnFlow *flow);

/**
 * vngtk_composer_set_flow:
 * @self: the composer.
 * @flow: (nullable): the flow, or %NULL for none (only the record button shows, ignoring input).
 *
 * Binds the composer and its record button to @flow (keeping a reference, dropping the old flow's) and shows its
 * current view; notifies [property@VoicenoteGtk.Composer:flow] when it changed.
 */
void vngtk_composer_set_flow(VnComposer *self, VnFlow *flow);

/**
 * vngtk_composer_get_flow:
 * @self: the composer.
 *
 * The flow the composer shows and drives.
 *
 * Returns: (transfer none) (nullable): the flow, or %NULL.
 */
VnFlow *vngtk_composer_get_flow(VnComposer *self);

/**
 * vngtk_composer_get_record_button:
 * @self: the composer.
 *
 * The composer's record button (on the composer's flow).
 *
 * Returns: (transfer none): the record button.
 */
VnRecordButton *vngtk_composer_get_record_button(VnComposer *self);

G_END_DECLS

#endif /* VOICENOTE_GTK_COMPOSER_H */
