/*
 * vn-player.h: VnPlayer, libvoicenote's player as a GObject: properties with notify, signals for its events, on the
 * thread-default main context of the thread that made it.
 */
#ifndef VOICENOTE_GLIB_PLAYER_H
#define VOICENOTE_GLIB_PLAYER_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"

G_BEGIN_DECLS

/**
 * VnPlayerState:
 * @VN_PLAYER_STATE_NOT_LOADED: nothing loaded, or the last load failed (`VN_PLAYER_NOT_LOADED`).
 * @VN_PLAYER_STATE_LOADING: opening the location and reading its duration (`VN_PLAYER_LOADING`).
 * @VN_PLAYER_STATE_PAUSED: loaded, not sounding (`VN_PLAYER_PAUSED`).
 * @VN_PLAYER_STATE_PLAYING: sounding (`VN_PLAYER_PLAYING`).
 * @VN_PLAYER_STATE_STOPPED: loaded, at 0: after a stop or the end of the item (`VN_PLAYER_STOPPED`).
 *
 * The states of a [class@Voicenote.Player]: libvoicenote's `vn_player_state` values, the same numbers.
 */
typedef enum {
    VN_PLAYER_STATE_NOT_LOADED = VN_PLAYER_NOT_LOADED,
    VN_PLAYER_STATE_LOADING = VN_PLAYER_LOADING,
    VN_PLAYER_STATE_PAUSED = VN_PLAYER_PAUSED,
    VN_PLAYER_STATE_PLAYING = VN_PLAYER_PLAYING,
    VN_PLAYER_STATE_STOPPED = VN_PLAYER_STOPPED
} VnPlayerState;

/**
 * VNG_TYPE_PLAYER_STATE:
 *
 * The [type@GObject.Type] of [enum@Voicenote.PlayerState].
 */
#define VNG_TYPE_PLAYER_STATE (vng_player_state_get_type())

/**
 * vng_player_state_get_type:
 *
 * Registers (once) and returns the enum type of [enum@Voicenote.PlayerState].
 *
 * Returns: the [type@GObject.Type] of [enum@Voicenote.PlayerState].
 */
GType vng_player_state_get_type(void) G_GNUC_CONST;

/**
 * VNG_TYPE_PLAYER:
 *
 * The [type@GObject.Type] of [class@Voicenote.Player].
 */
#define VNG_TYPE_PLAYER (vng_player_get_type())

/**
 * VnPlayer:
 *
 * Plays voice notes (local files, `file://` and http(s) URLs) with libvoicenote's player. Its events arrive on the
 * thread-default [struct@GLib.MainContext] of the thread that made it (through the context's one voicenote event
 * source), as [signal@GObject.Object::notify] for [property@Voicenote.Player:location],
 * [property@Voicenote.Player:state], [property@Voicenote.Player:duration] and [property@Voicenote.Player:position]
 * (each once per change) and as the [signal@Voicenote.Player::finished], [signal@Voicenote.Player::failed] and
 * [signal@Voicenote.Player::item-changed] signals, in the order they happened. Disposing it (the last unref, or
 * [method@GObject.Object.run_dispose]) ends its subscription first, then destroys the player: no signal of it runs
 * afterwards, also when it is disposed inside one of its own signal handlers.
 *
 * Loading never blocks: a missing or corrupt file arrives as [signal@Voicenote.Player::failed]. Methods may be called
 * from any thread; signals run on the context's thread only.
 */
G_DECLARE_FINAL_TYPE(VnPlayer, vng_player, VNG, PLAYER, GObject)

/**
 * vng_player_new:
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a player on the `default` ALSA device, whose signals run on the calling thread's thread-default
 * [struct@GLib.MainContext].
 *
 * Returns: (transfer full) (nullable): the player, or %NULL with @error set (%VN_ERROR domain).
 */
VnPlayer *vng_player_new(GError **error);

/**
 * vng_player_new_for_device:
 * @device: an ALSA PCM name (`default`, `pulse`, `plughw:1,0`, ...), or a `pcm.NAME` defined in @configuration.
 * @configuration: (nullable): ALSA configuration text in which @device is looked up instead of the system's
 *   configuration (for example a `file` plugin writing what plays to a file), or %NULL.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes a player on a chosen device, whose signals run on the calling thread's thread-default
 * [struct@GLib.MainContext].
 *
 * Returns: (transfer full) (nullable): the player, or %NULL with @error set (%VN_ERROR_INVALID_ARG for an empty
 *   @device).
 */
VnPlayer *vng_player_new_for_device(const gchar *device, const gchar *configuration, GError **error);

/**
 * vng_player_load:
 * @self: the player.
 * @location: a path (UTF-8), a `file://` URL, or an `http://` or `https://` URL (requested with libvoicenote's
 *   default HTTP options: [method@Voicenote.Player.load_url] for headers, timeouts and a key).
 * @autoplay: %TRUE to play once loaded.
 * @duration_hint: the duration in seconds to show until the real one is known, or a negative number for none.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Loads a location (libvoicenote's rules: the same location again resumes or restarts it; another one stops the
 * current item first). Returns at once; a file that cannot be read or decoded arrives as
 * [signal@Voicenote.Player::failed].
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for an empty location or a bad hint,
 *   %VN_ERROR_UNSUPPORTED for another URL scheme, %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_player_load(VnPlayer *self, const gchar *location, gboolean autoplay, gdouble duration_hint,
                         GError **error);

/**
 * vng_player_load_url:
 * @self: the player.
 * @url: an `http://` or `https://` URL (UTF-8, with a host).
 * @http_options: (nullable): how it is requested (headers such as Matrix's `Authorization: Bearer`, CA file,
 *   timeouts, size limit), as they are at this call; %NULL for libvoicenote's defaults.
 * @key: (nullable): the media's stable identity (a message id and attachment index, say) under which the media
 *   cache keeps it and its resume position is remembered, because signed CDN URLs change; %NULL for the URL itself.
 * @autoplay: %TRUE to play once loaded.
 * @duration_hint: the duration in seconds to show until the real one is known, or a negative number for none.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Loads a URL with HTTP options and a key, as [method@Voicenote.Player.load] loads a location (the same key again
 * is the same location). Returns at once; an HTTP failure arrives as [signal@Voicenote.Player::failed]
 * (%VN_ERROR_PERMISSION for a 401/403, %VN_ERROR_NOT_FOUND for a 404/410, %VN_ERROR_NETWORK for others and for a
 * timeout). [property@Voicenote.Player:location] is @url.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a URL that is not http(s) with a host, an
 *   empty key or a bad hint, %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_player_load_url(VnPlayer *self, const gchar *url, VnHttpOptions *http_options, const gchar *key,
                             gboolean autoplay, gdouble duration_hint, GError **error);

/**
 * vng_player_play:
 * @self: the player.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Plays or resumes the loaded item (while loading: once loaded). Nothing happens while playing. A device that
 * cannot be opened arrives as [signal@Voicenote.Player::failed].
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_MISUSE when nothing is loaded or after dispose,
 *   %VN_ERROR_BUSY when a session hook refused.
 */
gboolean vng_player_play(VnPlayer *self, GError **error);

/**
 * vng_player_pause:
 * @self: the player.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Pauses at what the listener hears now; nothing happens when nothing plays.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_player_pause(VnPlayer *self, GError **error);

/**
 * vng_player_seek:
 * @self: the player.
 * @position: the time to go to, in seconds; clamped to 0…[property@Voicenote.Player:duration].
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Moves to @position, keeping the play/pause state (a stopped item becomes paused there).
 * [property@Voicenote.Player:position] follows when the player got there; seeks faster than it carries them out
 * coalesce.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a time that is not finite,
 *   %VN_ERROR_MISUSE when nothing is loaded or after dispose.
 */
gboolean vng_player_seek(VnPlayer *self, gdouble position, GError **error);

/**
 * vng_player_seek_to_word:
 * @self: the player, the note loaded.
 * @word_start: where the word begins, in seconds (from [method@Voicenote.Transcript.get_word], or a transcript a
 *   message carried).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Moves to a word of the loaded note, 50 ms before its start so its first sound is heard (libvoicenote's
 * vn_player_seek_to_word()), as [method@Voicenote.Player.seek].
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a start that is negative or not finite, and
 *   as [method@Voicenote.Player.seek].
 */
gboolean vng_player_seek_to_word(VnPlayer *self, gdouble word_start, GError **error);

/**
 * vng_player_set_metadata:
 * @self: the player.
 * @key: the note's key as [signal@Voicenote.Player::item-changed] names it, or its location as loaded.
 * @title: (nullable): the title ("Voice message"), or %NULL to show the file's name.
 * @artist: (nullable): the sender's name, or %NULL.
 * @art_url: (nullable): the sender's picture (a `file://` or http(s) URL), or %NULL.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Says what the desktop's media controls show for a note ([property@Voicenote.Player:mpris-identity]); shown at
 * once when it is the current note, kept for the 1000 most recent keys. Nothing happens without MPRIS.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for an empty key).
 */
gboolean vng_player_set_metadata(VnPlayer *self, const gchar *key, const gchar *title, const gchar *artist,
                                 const gchar *art_url, GError **error);

/**
 * vng_listened_get:
 * @location: the note's path or URL, as it is loaded.
 * @key: (nullable): its key (as given to the load), or %NULL for the location's own.
 * @out_listened: (out): whether the note is listened.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Tells whether a note was heard to 90 % or to its end by a player of any process
 * ([signal@Voicenote.Player::listened]); kept beside the resume positions under the cache directory.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for an empty location or key, or one a player
 *   would refuse).
 */
gboolean vng_listened_get(const gchar *location, const gchar *key, gboolean *out_listened, GError **error);

/**
 * vng_listened_set:
 * @location: the note's path or URL.
 * @key: (nullable): its key, or %NULL for the location's own.
 * @listened: %TRUE to mark it listened, %FALSE to forget the mark ("mark as unplayed").
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Marks a note listened or unlistened again; no signal is emitted.
 *
 * Returns: %TRUE, or %FALSE with @error set, as [func@Voicenote.listened_get].
 */
gboolean vng_listened_set(const gchar *location, const gchar *key, gboolean listened, GError **error);

/**
 * vng_listened_clear:
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Forgets every listened mark (the resume positions stay).
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_PERMISSION or %VN_ERROR_IO).
 */
gboolean vng_listened_clear(GError **error);

/**
 * vng_player_stop:
 * @self: the player.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Stops: position 0, state %VN_PLAYER_STATE_STOPPED, the item kept. Nothing happens when nothing is loaded.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE after dispose).
 */
gboolean vng_player_stop(VnPlayer *self, GError **error);

/**
 * vng_player_get_location:
 * @self: the player.
 *
 * The current item's location as given to [method@Voicenote.Player.load], as the last event delivered on the main
 * context said ([property@Voicenote.Player:location]): kept after the item finished, stopped or failed to load.
 *
 * Returns: (nullable): the location, owned by the player and valid until it changes (the next notify of
 *   [property@Voicenote.Player:location]), or %NULL when nothing was loaded.
 */
const gchar *vng_player_get_location(VnPlayer *self);

/**
 * vng_player_get_state:
 * @self: the player.
 *
 * The state, as the last event delivered on the main context said ([property@Voicenote.Player:state]).
 *
 * Returns: the state.
 */
VnPlayerState vng_player_get_state(VnPlayer *self);

/**
 * vng_player_get_duration:
 * @self: the player.
 *
 * The item's duration in seconds (the hint until it is known; 0 when nothing is loaded), as the last event
 * delivered on the main context said ([property@Voicenote.Player:duration]).
 *
 * Returns: the duration in seconds.
 */
gdouble vng_player_get_duration(VnPlayer *self);

/**
 * vng_player_get_position:
 * @self: the player.
 *
 * What the listener hears now, in seconds of the file's time, as the last event delivered on the main context
 * said ([property@Voicenote.Player:position]).
 *
 * Returns: the position in seconds.
 */
gdouble vng_player_get_position(VnPlayer *self);

/**
 * vng_player_get_rate:
 * @self: the player.
 *
 * The playback rate ([property@Voicenote.Player:rate]).
 *
 * Returns: the rate, 0.5…2.5.
 */
gdouble vng_player_get_rate(VnPlayer *self);

/**
 * vng_player_set_rate:
 * @self: the player.
 * @rate: 0.5…2.5 (the pitch is kept).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Sets the playback rate, in any state (it never starts playback). [property@Voicenote.Player:rate] changes at once,
 * notifying when the value differs.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG outside 0.5…2.5 (NaN too),
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_player_set_rate(VnPlayer *self, gdouble rate, GError **error);

/**
 * vng_player_set_leveling:
 * @self: the player.
 * @enabled: %TRUE to level every note to one loudness.
 * @target_lufs: the loudness every note plays at, −30…−10 LUFS (−19 is the default of the C library).
 * @offset_db: dB added to every note's gain, −12…12 (louder or softer for this contact).
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Levelled playback (vn_player_set_leveling()): every note at @target_lufs plus @offset_db, its true peak held under
 * −1 dBTP; on or off from the next note loaded, a new target or offset moving the note playing over 50 ms.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for a target or offset out of range (NaN too),
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_player_set_leveling(VnPlayer *self, gboolean enabled, gdouble target_lufs, gdouble offset_db,
                                 GError **error);

G_END_DECLS

#endif /* VOICENOTE_GLIB_PLAYER_H */
