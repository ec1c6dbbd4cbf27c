/*
 * vn-record-button.h: VnRecordButton, the hold-to-record button over a VnFlow (voicenote-glib): it forwards its
 * gestures and keys to the flow and draws the flow's view.
 */
#ifndef VOICENOTE_GTK_RECORD_BUTTON_H
#define VOICENOTE_GTK_RECORD_BUTTON_H

#include <gtk/gtk.h>
#include <voicenote-glib.h>

G_BEGIN_DECLS

/**
 * VNGTK_TYPE_RECORD_BUTTON:
 *
 * The #GType of [class@VoicenoteGtk.RecordButton].
 */
#define VNGTK_TYPE_RECORD_BUTTON (vngtk_record_button_get_type())

/**
 * VnRecordButton:
 *
 * The hold-to-record button of a voice message composer, bound to a [class@Voicenote.Flow]
 * ([property@VoicenoteGtk.RecordButton:flow]), which decides everything; the button forwards input to it and draws what
 * its view says.
 *
 * Input (the button's own event controllers): a press (a [class@Gtk.GestureDrag], claiming the sequence so that a
 * scrolled parent does not take it over) is [method@Voicenote.Flow.press] at the point, in the button's coordinates;
 * each motion while held is [method@Voicenote.Flow.move] (left by the flow's cancel distance cancels, up by its lock
 * distance locks), the release [method@Voicenote.Flow.release] (a held take is sent, a tap shows the tip). A press
 * while the take is locked stops it into preview ([method@Voicenote.Flow.stop]: the button looks like a stop button
 * then); in toggle mode the flow stops it itself. The button is focusable: Space and Return (also the keypad's) are the
 * flow's record key ([method@Voicenote.Flow.key_down]/[method@Voicenote.Flow.key_up] with %VN_FLOW_INPUT_KEY_RECORD;
 * the key's auto-repeat is not forwarded) and Escape its %VN_FLOW_INPUT_KEY_ESCAPE, when
 * [property@Voicenote.Flow:key-inputs] is on; with it off, Space and Return act as the pointer held at the button's
 * centre, so the keyboard can always record. Unmapped while a take runs or a press is held (its page of a
 * [class@Gtk.Stack] left, its window hidden), the button calls [method@Voicenote.Flow.deactivate] (a running take stops
 * into preview and is kept) and forgets the press and the record key: their release goes elsewhere.
 *
 * Drawing: a circular button (CSS name `recordbutton`, holding a `button` node with the style class `circular`, so the
 * theme draws it as its own buttons) with the `audio-input-microphone-symbolic` icon. While a take is held
 * (%VN_FLOW_STATE_RECORDING) the button node gets the `destructive-action` and `recording` classes, a "Slide to cancel"
 * hint (`recordbutton > slidetocancel`) shows left of the button with [property@Voicenote.Flow:slide-to-cancel-alpha]
 * as its opacity, and the lock (`recordbutton > lock`: a `go-up-symbolic` chevron at
 * [property@Voicenote.Flow:chevron-alpha] over a `changes-prevent-symbolic` padlock) shows above it, raised by
 * [property@Voicenote.Flow:lock-padding]. Locked (or toggled) the icon is `media-playback-stop-symbolic` and the button
 * node has the `destructive-action` and `locked` classes. The `recordbutton` node gets `recording` and `locked` too:
 * under GTK's high-contrast theme, light or dark, a fallback stylesheet then draws a 3 px ring in the foreground 2 px
 * around the button, as the dark variant's red face is hardly darker or lighter than its idle one. While [property@Voicenote.Flow:tip-visible] a
 * [class@Gtk.Popover] above the button says "Hold to record, release to send". The hint and the lock are drawn outside
 * the button's allocation (its parent must leave room: about 150 px left and 70 px above); no colour is the code's own,
 * all come from the theme.
 *
 * Accessibility: the role is %GTK_ACCESSIBLE_ROLE_BUTTON, the label "Record voice message", and the description
 * the flow's [property@Voicenote.Flow:accessible-description], updated with each view.
 */
G_DECLARE_FINAL_TYPE(VnRecordButton, vngtk_record_button, VNGTK, RECORD_BUTTON, GtkWidget)

/**
 * vngtk_record_button_new:
 * @flow: (nullable): the flow to drive and draw, or %NULL for none yet (input is ignored then).
 *
 * Makes a record button over @flow (the button keeps a reference).
 *
 * Returns: (transfer floating): the widget.
 */
GtkWidget *vngtk_record_button_new(VnFlow *flow);

/**
 * vngtk_record_button_set_flow:
 * @self: the record button.
 * @flow: (nullable): the flow, or %NULL for none.
 *
 * Binds the button to @flow (keeping a reference, dropping the old flow's) and draws its current view; notifies
 * [property@VoicenoteGtk.RecordButton:flow] when it changed. A press held on the old flow is not released there.
 */
void vngtk_record_button_set_flow(VnRecordButton *self, VnFlow *flow);

/**
 * vngtk_record_button_get_flow:
 * @self: the record button.
 *
 * The flow the button forwards its gestures to and draws.
 *
 * Returns: (transfer none) (nullable): the flow, or %NULL.
 */
VnFlow *vngtk_record_button_get_flow(VnRecordButton *self);

G_END_DECLS

#endif /* VOICENOTE_GTK_RECORD_BUTTON_H */
