/*
 * vn-recorder.h: VnRecorder, libvoicenote's recorder as a GObject: properties with notify, signals for its events, on
 * the thread-default main context of the thread that made it.
 */
#ifndef VOICENOTE_GLIB_RECORDER_H
#define VOICENOTE_GLIB_RECORDER_H

#include <gio/gio.h>
#include <voicenote.h>

G_BEGIN_DECLS

/**
 * VnRecorderState:
 * @VN_RECORDER_STATE_STOPPED: not recording (`VN_RECORDER_STOPPED`).
 * @VN_RECORDER_STATE_RECORDING: capturing (`VN_RECORDER_RECORDING`).
 * @VN_RECORDER_STATE_PAUSED: paused; the take is whole on disk (`VN_RECORDER_PAUSED`).
 *
 * The states of a [class@Voicenote.Recorder]: libvoicenote's `vn_recorder_state` values, the same numbers.
 */
typedef enum {
    VN_RECORDER_STATE_STOPPED = VN_RECORDER_STOPPED,
    VN_RECORDER_STATE_RECORDING = VN_RECORDER_RECORDING,
    VN_RECORDER_STATE_PAUSED = VN_RECORDER_PAUSED
} VnRecorderState;

/**
 * VNG_TYPE_RECORDER_STATE:
 *
 * The [type@GObject.Type] of [enum@Voicenote.RecorderState].
 */
#define VNG_TYPE_RECORDER_STATE (vng_recorder_state_get_type())

/**
 * vng_recorder_state_get_type:
 *
 * Registers (once) and returns the enum type of [enum@Voicenote.RecorderState].
 *
 * Returns: the [type@GObject.Type] of [enum@Voicenote.RecorderState].
 */
GType vng_recorder_state_get_type(void) G_GNUC_CONST;

/**
 * VNG_TYPE_RECORDER:
 *
 * The [type@GObject.Type] of [class@Voicenote.Recorder].
 */
#define VNG_TYPE_RECORDER (vng_recorder_get_type())

/**
 * VnRecorder:
 *
 * Records voice notes (Ogg Opus files that survive crashes) from an ALSA device with libvoicenote's recorder. Its
 * events arrive on the thread-default [struct@GLib.MainContext] of the thread that made it (through the context's one
 * voicenote event source), as [signal@GObject.Object::notify] for [property@Voicenote.Recorder:state],
 * [property@Voicenote.Recorder:duration], [property@Voicenote.Recorder:average-power] and
 * [property@Voicenote.Recorder:peak-power] (each once per change) and as the [signal@Voicenote.Recorder::finished],
 * [signal@Voicenote.Recorder::too-short], [signal@Voicenote.Recorder::failed],
 * [signal@Voicenote.Recorder::maximum-duration-warning] and [signal@Voicenote.Recorder::maximum-duration-reached]
 * signals, in the order they happened. Disposing it (the last unref, or [method@GObject.Object.run_dispose]) ends its
 * subscription first, then destroys the recorder (a take in progress is finished and kept, without signals): no signal
 * of it runs afterwards, also when it is disposed inside one of its own signal handlers.
 *
 * Methods may be called from any thread; signals run on the context's thread only. A [class@Voicenote.Flow] made with a
 * recorder drives it: leave the recorder's methods to the flow then.
 */
G_DECLARE_FINAL_TYPE(VnRecorder, vng_recorder, VNG, RECORDER, GObject)

/**
 * vng_recorder_new:
 * @device: (nullable): an ALSA PCM name (`default`, `pulse`, `plughw:1,0`, ...), or a `pcm.NAME` defined in
 *   @configuration; %NULL for `default`.
 * @configuration: (nullable): ALSA configuration text in which @device is looked up instead of the system's
 *   configuration (for example a `file` plugin reading a raw file as the microphone), or %NULL.
 * @directory: (nullable) (type filename): where takes are written (created when missing), or %NULL for
 *   `$XDG_CACHE_HOME/voicenote/recordings`.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a recorder, whose signals run on the calling thread's thread-default [struct@GLib.MainContext]. No device is
 * opened until [method@Voicenote.Recorder.begin]. The length limits are libvoicenote's defaults (at most 3600 s, the
 * warning 10 s before, no minimum); to set them, make it with [func@Gio.Initable.new] and the
 * [property@Voicenote.Recorder:maximum-duration], [property@Voicenote.Recorder:warning-duration] and
 * [property@Voicenote.Recorder:minimum-duration] properties.
 *
 * Returns: (transfer full) (nullable): the recorder, or %NULL with @error set (%VN_ERROR_INVALID_ARG for an empty
 *   @device or @directory).
 */
VnRecorder *vng_recorder_new(const gchar *device, const gchar *configuration, const gchar *directory,
                             GError **error);

/**
 * vng_recorder_begin:
 * @self: the recorder.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Opens the device, creates the take's file and starts capturing; returns when capture runs (while the previous
 * take is still finishing, it first waits for it, at most 5 s).
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_MISUSE when recording or paused, or after dispose;
 *   %VN_ERROR_DEVICE for a missing device or one that will not start; %VN_ERROR_BUSY when a session hook refused
 *   or the previous take was still finishing; %VN_ERROR_IO, %VN_ERROR_NO_SPACE or %VN_ERROR_PERMISSION when the
 *   file cannot be created.
 */
gboolean vng_recorder_begin(VnRecorder *self, GError **error);

/**
 * vng_recorder_pause:
 * @self: the recorder.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Pauses: capture stops and the take is flushed to disk. Paused time is not in the file.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE unless recording).
 */
gboolean vng_recorder_pause(VnRecorder *self, GError **error);

/**
 * vng_recorder_resume:
 * @self: the recorder.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Resumes a paused take.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_MISUSE unless paused, %VN_ERROR_DEVICE when the device will
 *   not restart (still paused).
 */
gboolean vng_recorder_resume(VnRecorder *self, GError **error);

/**
 * vng_recorder_stop:
 * @self: the recorder.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Stops and finishes the take: [signal@Voicenote.Recorder::finished] follows (or
 * [signal@Voicenote.Recorder::too-short]), then [property@Voicenote.Recorder:state] becomes %VN_RECORDER_STATE_STOPPED.
 *
 * Returns: %TRUE (also when the take was ending by itself), or %FALSE with @error set (%VN_ERROR_MISUSE when
 *   stopped).
 */
gboolean vng_recorder_stop(VnRecorder *self, GError **error);

/**
 * vng_recorder_cancel:
 * @self: the recorder.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Stops and deletes the take; no [signal@Voicenote.Recorder::finished].
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when stopped).
 */
gboolean vng_recorder_cancel(VnRecorder *self, GError **error);

/**
 * vng_recorder_set_voice_cleanup:
 * @self: the recorder.
 * @enabled: %TRUE to clean the voice before it is encoded.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Voice cleanup (vn_recorder_set_voice_cleanup()) from the next take on: a high-pass against rumble, noise
 * suppression and automatic gain for a quiet voice, by speexdsp; a take being recorded keeps what it began with.
 * Off by default: a take is the captured audio bit for bit.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_UNSUPPORTED, naming what to install, when turning it on
 *   without speexdsp; %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_recorder_set_voice_cleanup(VnRecorder *self, gboolean enabled, GError **error);

/**
 * vng_recorder_get_voice_cleanup:
 * @self: the recorder.
 *
 * Whether the next take is cleaned ([method@Voicenote.Recorder.set_voice_cleanup]).
 *
 * Returns: %TRUE when it is; %FALSE when not, or after dispose.
 */
gboolean vng_recorder_get_voice_cleanup(VnRecorder *self);

/**
 * vng_recorder_get_state:
 * @self: the recorder.
 *
 * The state, as the last event delivered on the main context said ([property@Voicenote.Recorder:state]).
 *
 * Returns: the state.
 */
VnRecorderState vng_recorder_get_state(VnRecorder *self);

/**
 * vng_recorder_get_duration:
 * @self: the recorder.
 *
 * Seconds captured in this take (paused time excluded), as the last event delivered on the main context said
 * ([property@Voicenote.Recorder:duration]).
 *
 * Returns: the duration in seconds.
 */
gdouble vng_recorder_get_duration(VnRecorder *self);

/**
 * vng_recorder_get_average_power:
 * @self: the recorder.
 *
 * The RMS level of the last meter window, 0…1 ([property@Voicenote.Recorder:average-power]).
 *
 * Returns: the level.
 */
gdouble vng_recorder_get_average_power(VnRecorder *self);

/**
 * vng_recorder_get_peak_power:
 * @self: the recorder.
 *
 * The peak level of the last meter window, 0…1 ([property@Voicenote.Recorder:peak-power]).
 *
 * Returns: the level.
 */
gdouble vng_recorder_get_peak_power(VnRecorder *self);

/**
 * vng_recorder_get_levels:
 * @self: the recorder.
 *
 * The take's last live levels as read when the last context event was delivered
 * ([property@Voicenote.Recorder:levels]): a [struct@GLib.Variant] of type `ad`, up to 40 values 0…1, oldest first.
 *
 * Returns: (transfer none): the levels, valid until the next context event is delivered (take a reference to keep
 *   them); empty before the first take.
 */
GVariant *vng_recorder_get_levels(VnRecorder *self);

/**
 * vng_recorder_copy_levels:
 * @self: the recorder.
 * @count: how many levels at most.
 * @n_levels: (out): how many were returned (fewer early in a take).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The take's last @count live levels (one average power 0…1 per meter step, oldest first), for live bars; read
 * from the recorder now, not from the last delivered event.
 *
 * Returns: (transfer full) (array length=n_levels) (nullable): the levels (free with [func@GLib.free]), or %NULL with
 *   @error set (%VN_ERROR_MISUSE after dispose). %NULL with no error when there are none.
 */
gfloat *vng_recorder_copy_levels(VnRecorder *self, guint count, guint *n_levels, GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_RECORDER_H */
