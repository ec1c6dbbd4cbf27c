/*
 * vn-flow.h: VnFlow, libvoicenote's recording flow (the hold-to-record button) as a GObject: the view as properties
 * with notify, the flow's events as signals, on the thread-default main context of the thread that made it.
 */
#ifndef VOICENOTE_GLIB_FLOW_H
#define VOICENOTE_GLIB_FLOW_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-manual-clock.h"
#include "vn-player.h"
#include "vn-recorder.h"

G_BEGIN_DECLS

/**
 * VnFlowState:
 * @VN_FLOW_STATE_IDLE: nothing happens; the record button waits (`VN_FLOW_IDLE`).
 * @VN_FLOW_STATE_SHOWING_TIP: the button was tapped, not held: the tip shows for a while (`VN_FLOW_SHOWING_TIP`).
 * @VN_FLOW_STATE_RECORDING: a take runs while the button is held (toggle mode: until the next press)
 *   (`VN_FLOW_RECORDING`).
 * @VN_FLOW_STATE_LOCKED: a take runs with no finger on the button: discard, stop or send (`VN_FLOW_LOCKED`).
 * @VN_FLOW_STATE_PREVIEW: the finished take waits: play, trim, discard or send (`VN_FLOW_PREVIEW`).
 *
 * The states of a [class@Voicenote.Flow]: libvoicenote's `vn_flow_state` values, the same numbers.
 */
typedef enum {
    VN_FLOW_STATE_IDLE = VN_FLOW_IDLE,
    VN_FLOW_STATE_SHOWING_TIP = VN_FLOW_SHOWING_TIP,
    VN_FLOW_STATE_RECORDING = VN_FLOW_RECORDING,
    VN_FLOW_STATE_LOCKED = VN_FLOW_LOCKED,
    VN_FLOW_STATE_PREVIEW = VN_FLOW_PREVIEW
} VnFlowState;

/**
 * VNG_TYPE_FLOW_STATE:
 *
 * The [type@GObject.Type] of [enum@Voicenote.FlowState].
 */
#define VNG_TYPE_FLOW_STATE (vng_flow_state_get_type())

/**
 * vng_flow_state_get_type:
 *
 * Registers (once) and returns the enum type of [enum@Voicenote.FlowState].
 *
 * Returns: the [type@GObject.Type] of [enum@Voicenote.FlowState].
 */
GType vng_flow_state_get_type(void) G_GNUC_CONST;

/**
 * VnFlowInputKey:
 * @VN_FLOW_INPUT_KEY_RECORD: held like the record button (`VN_FLOW_KEY_RECORD`).
 * @VN_FLOW_INPUT_KEY_ESCAPE: cancels a take or discards a preview (`VN_FLOW_KEY_ESCAPE`).
 * @VN_FLOW_INPUT_KEY_ENTER: sends (`VN_FLOW_KEY_ENTER`).
 *
 * The keys a [class@Voicenote.Flow] understands when [property@Voicenote.Flow:key-inputs] is on: libvoicenote's
 * `vn_flow_key` values, the same numbers (named apart from the C library's `VN_FLOW_KEY_*`).
 */
typedef enum {
    VN_FLOW_INPUT_KEY_RECORD = VN_FLOW_KEY_RECORD,
    VN_FLOW_INPUT_KEY_ESCAPE = VN_FLOW_KEY_ESCAPE,
    VN_FLOW_INPUT_KEY_ENTER = VN_FLOW_KEY_ENTER
} VnFlowInputKey;

/**
 * VNG_TYPE_FLOW_INPUT_KEY:
 *
 * The [type@GObject.Type] of [enum@Voicenote.FlowInputKey].
 */
#define VNG_TYPE_FLOW_INPUT_KEY (vng_flow_input_key_get_type())

/**
 * vng_flow_input_key_get_type:
 *
 * Registers (once) and returns the enum type of [enum@Voicenote.FlowInputKey].
 *
 * Returns: the [type@GObject.Type] of [enum@Voicenote.FlowInputKey].
 */
GType vng_flow_input_key_get_type(void) G_GNUC_CONST;

/**
 * VNG_TYPE_FLOW:
 *
 * The [type@GObject.Type] of [class@Voicenote.Flow].
 */
#define VNG_TYPE_FLOW (vng_flow_get_type())

/**
 * VnFlow:
 *
 * The hold-to-record button over a [class@Voicenote.Recorder] and a [class@Voicenote.Player] (it keeps a reference to
 * both, and drives them: leave their methods to it while it lives). The host forwards pointer and key inputs; the
 * flow's view arrives as properties ([property@Voicenote.Flow:state], [property@Voicenote.Flow:duration],
 * [property@Voicenote.Flow:slide-to-cancel-alpha], ..., each notified once per change, in the order the properties are
 * listed, after the whole view was taken) and its events as signals ([signal@Voicenote.Flow::attachment-ready],
 * [signal@Voicenote.Flow::publish], [signal@Voicenote.Flow::parked], [signal@Voicenote.Flow::trimmed],
 * [signal@Voicenote.Flow::trim-failed], [signal@Voicenote.Flow::failed], [signal@Voicenote.Flow::too-short]), on the
 * thread-default [struct@GLib.MainContext] of the thread that made it, in the order they happened. No method blocks
 * with slow work: what an input leads to runs on the flow's worker and comes back as notifications and signals.
 *
 * Disposing it (the last unref, or [method@GObject.Object.run_dispose]) ends its subscription first, then destroys the
 * flow (a running take is cancelled; one in preview or being stopped is kept, as the draft with a draft key), then lets
 * the recorder, player and clock go: no signal of it runs afterwards, also when it is disposed inside one of its own
 * signal handlers.
 */
G_DECLARE_FINAL_TYPE(VnFlow, vng_flow, VNG, FLOW, GObject)

/**
 * vng_flow_new:
 * @recorder: the recorder the flow records with; the flow keeps a reference.
 * @player: the player it previews with; the flow keeps a reference.
 * @draft_key: (nullable): the conversation's id (1…100 bytes of UTF-8) for drafts, or %NULL for none.
 * @drafts_directory: (nullable) (type filename): where drafts are kept (the user's own, created 0700), or %NULL
 *   for `$XDG_DATA_HOME/voicenote/drafts`; used only with a @draft_key.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a recording flow with libvoicenote's defaults (cancel distance 75 px, lock distance 50 px, minimum press
 * 0.5 s, tip 2 s, 100 waveform values, confirmation required, toggle mode and key inputs off, the monotonic clock),
 * whose signals run on the calling thread's thread-default [struct@GLib.MainContext]. With a draft key whose draft can
 * be restored, the flow comes back in %VN_FLOW_STATE_PREVIEW (the view arrives once the draft was read back). For a
 * manual clock and the other construct-only properties, make it with [func@Gio.Initable.new].
 *
 * Returns: (transfer full) (nullable): the flow, or %NULL with @error set: %VN_ERROR_INVALID_ARG for a bad key
 *   or an empty directory, %VN_ERROR_MISUSE for a disposed recorder or player.
 */
VnFlow *vng_flow_new(VnRecorder *recorder, VnPlayer *player, const gchar *draft_key, const gchar *drafts_directory,
                     GError **error);

/**
 * vng_flow_press:
 * @self: the flow.
 * @x: the press point's x, in the button's coordinates (pixels); finite.
 * @y: its y; finite.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The button was pressed; the gestures are measured from here. Held for the minimum press, it begins a take.
 *
 * Returns: %TRUE (also when ignored in this state), or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a
 *   coordinate that is not finite, %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_flow_press(VnFlow *self, gdouble x, gdouble y, GError **error);

/**
 * vng_flow_release:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The button was released: a held take is sent; a press shorter than the minimum shows the tip (toggle mode:
 * starts a locked take).
 *
 * Returns: %TRUE (also when ignored in this state), or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_flow_release(VnFlow *self, GError **error);

/**
 * vng_flow_move:
 * @self: the flow.
 * @x: the pointer's x; finite.
 * @y: its y; finite.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The pointer moved while the button is held: sliding left by the cancel distance cancels the take, up by the
 * lock distance locks it.
 *
 * Returns: %TRUE (also when ignored in this state), or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a
 *   coordinate that is not finite, %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_flow_move(VnFlow *self, gdouble x, gdouble y, GError **error);

/**
 * vng_flow_key_down:
 * @self: the flow.
 * @key: the key.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * A key went down (with [property@Voicenote.Flow:key-inputs] on; ignored otherwise).
 *
 * Returns: %TRUE (also when ignored), or %FALSE with @error set: %VN_ERROR_INVALID_ARG for an unknown key,
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_flow_key_down(VnFlow *self, VnFlowInputKey key, GError **error);

/**
 * vng_flow_key_up:
 * @self: the flow.
 * @key: the key.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * A key went up (with [property@Voicenote.Flow:key-inputs] on; ignored otherwise).
 *
 * Returns: %TRUE (also when ignored), or %FALSE with @error set: %VN_ERROR_INVALID_ARG for an unknown key,
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_flow_key_up(VnFlow *self, VnFlowInputKey key, GError **error);

/**
 * vng_flow_lock:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Locks a held take (the lock button, or a host's own gesture).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE outside %VN_FLOW_STATE_RECORDING or after dispose).
 */
gboolean vng_flow_lock(VnFlow *self, GError **error);

/**
 * vng_flow_cancel:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Cancels a take (its file deleted) or discards a preview; does nothing otherwise. The flow is idle on return.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_flow_cancel(VnFlow *self, GError **error);

/**
 * vng_flow_stop:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Stops a take into preview.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when no take runs, or after dispose).
 */
gboolean vng_flow_stop(VnFlow *self, GError **error);

/**
 * vng_flow_discard:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Deletes the take or the preview and goes idle.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when there is no take, or after dispose).
 */
gboolean vng_flow_discard(VnFlow *self, GError **error);

/**
 * vng_flow_send:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Hands the take to the composer: a running take is stopped first; [signal@Voicenote.Flow::attachment-ready] follows,
 * then [signal@Voicenote.Flow::publish] unless [property@Voicenote.Flow:confirmation-required].
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when there is no take, or after dispose).
 */
gboolean vng_flow_send(VnFlow *self, GError **error);

/**
 * vng_flow_confirm:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * As [method@Voicenote.Flow.send], always followed by [signal@Voicenote.Flow::publish].
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when there is no take, or after dispose).
 */
gboolean vng_flow_confirm(VnFlow *self, GError **error);

/**
 * vng_flow_play:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Plays the preview (a player failure arrives as [signal@Voicenote.Flow::failed]; the state stays).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE outside %VN_FLOW_STATE_PREVIEW, during a trim, or
 *   after dispose).
 */
gboolean vng_flow_play(VnFlow *self, GError **error);

/**
 * vng_flow_pause:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Pauses the preview.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE outside %VN_FLOW_STATE_PREVIEW, during a trim, or
 *   after dispose).
 */
gboolean vng_flow_pause(VnFlow *self, GError **error);

/**
 * vng_flow_seek:
 * @self: the flow.
 * @position: where to go in the take, in seconds (clamped to it); finite.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Moves the preview.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a time that is not finite,
 *   %VN_ERROR_MISUSE outside %VN_FLOW_STATE_PREVIEW, during a trim, or after dispose.
 */
gboolean vng_flow_seek(VnFlow *self, gdouble position, GError **error);

/**
 * vng_flow_trim:
 * @self: the flow.
 * @start: the start of the range to keep, in seconds.
 * @end: its end: 0 ≤ @start < @end ≤ the take's duration.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Starts cutting the previewed take to @start…@end and returns at once; [signal@Voicenote.Flow::trimmed] (the take as
 * cut) or [signal@Voicenote.Flow::trim-failed] (the take as it was) says when it ended. Meanwhile send, confirm and
 * park act after it, and discard or cancel abandon it.
 *
 * Returns: %TRUE (the trim started), or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a range outside the
 *   take, %VN_ERROR_MISUSE outside %VN_FLOW_STATE_PREVIEW, while a trim runs, or after dispose.
 */
gboolean vng_flow_trim(VnFlow *self, gdouble start, gdouble end, GError **error);

/**
 * vng_flow_park:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The user left the conversation: a running take is stopped and the take (running or in preview) is kept as the
 * conversation's draft; [signal@Voicenote.Flow::parked] follows and the flow is idle. Nothing happens while idle.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_MISUSE without a [property@Voicenote.Flow:draft-key] or after
 * dispose,
 *   %VN_ERROR_BUSY when the take is not the conversation's draft (another flow held the key when it began).
 */
gboolean vng_flow_park(VnFlow *self, GError **error);

/**
 * vng_flow_deactivate:
 * @self: the flow.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The view was hidden (the window lost focus, the conversation closed): a take stops into preview, a playing
 * preview pauses.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_flow_deactivate(VnFlow *self, GError **error);

/**
 * vng_flow_get_state:
 * @self: the flow.
 *
 * The state, as the last view delivered on the main context said ([property@Voicenote.Flow:state]).
 *
 * Returns: the state.
 */
VnFlowState vng_flow_get_state(VnFlow *self);

/**
 * vng_flow_get_duration:
 * @self: the flow.
 *
 * Seconds recorded (recording, locked) or the take's length (preview), as the last view said
 * ([property@Voicenote.Flow:duration]).
 *
 * Returns: the duration in seconds.
 */
gdouble vng_flow_get_duration(VnFlow *self);

/**
 * vng_flow_get_accessible_description:
 * @self: the flow.
 *
 * What a screen reader says for the last view ([property@Voicenote.Flow:accessible-description]).
 *
 * Returns: (transfer none): the text ("" before the first view); valid until the next view is delivered.
 */
const gchar *vng_flow_get_accessible_description(VnFlow *self);

/**
 * vng_flow_dup_levels:
 * @self: the flow.
 *
 * [property@Voicenote.Flow:levels]: the last live levels of a running take as the last view said, a
 * [struct@GLib.Variant] of type `ad` (up to 40 values 0…1, oldest first; empty outside recording and locked).
 *
 * Returns: (transfer full): the levels.
 */
GVariant *vng_flow_dup_levels(VnFlow *self);

/**
 * vng_flow_dup_waveform:
 * @self: the flow.
 *
 * [property@Voicenote.Flow:waveform]: the previewed take's waveform as the last view said, a [struct@GLib.Variant]
 * of type `ad` (values 0…1; empty outside preview).
 *
 * Returns: (transfer full): the waveform.
 */
GVariant *vng_flow_dup_waveform(VnFlow *self);

/**
 * vng_flow_get_levels: (skip)
 * @self: the flow.
 * @n_levels: (out): how many levels there are (up to 40).
 *
 * The last live levels of a running take, oldest first, 0…1, as the last view said (none outside recording and
 * locked): [property@Voicenote.Flow:levels] as floats, for C (bindings read the property). They change with the
 * view, before its notifications.
 *
 * Returns: (transfer none) (array length=n_levels) (nullable): the levels, valid until the next view is delivered;
 *   %NULL when there are none.
 */
const gfloat *vng_flow_get_levels(VnFlow *self, guint *n_levels);

/**
 * vng_flow_get_waveform: (skip)
 * @self: the flow.
 * @n_values: (out): how many values there are.
 *
 * The previewed take's waveform, 0…1, as the last view said (none outside preview):
 * [property@Voicenote.Flow:waveform] as floats, for C (bindings read the property). It changes with the view,
 * before its notifications.
 *
 * Returns: (transfer none) (array length=n_values) (nullable): the values, valid until the next view is delivered;
 *   %NULL when there are none.
 */
const gfloat *vng_flow_get_waveform(VnFlow *self, guint *n_values);

G_END_DECLS

#endif /* VOICENOTE_GLIB_FLOW_H */
