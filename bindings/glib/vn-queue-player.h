/*
 * vn-queue-player.h: VnQueuePlayer, a list of voice messages played one after another on a VnPlayer (libvoicenote's
 * queue player: a data source answering which item follows).
 */
#ifndef VOICENOTE_GLIB_QUEUE_PLAYER_H
#define VOICENOTE_GLIB_QUEUE_PLAYER_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"
#include "vn-player.h"

G_BEGIN_DECLS

/**
 * VNG_TYPE_QUEUE_PLAYER:
 *
 * The #GType of [class@Voicenote.QueuePlayer].
 */
#define VNG_TYPE_QUEUE_PLAYER (vng_queue_player_get_type())

/**
 * VnQueuePlayer:
 *
 * Plays a list of voice messages one after another on a [class@Voicenote.Player], which it keeps (libvoicenote's queue
 * player): when an item ends, fails to load or [method@Voicenote.QueuePlayer.next] skips it, the item after it in the
 * list plays; items of the same rate and channel count play back to back on the device, without silence between them.
 * The player's own properties and signals keep telling the state, position and each item's
 * [signal@Voicenote.Player::finished].
 *
 * [signal@Voicenote.QueuePlayer::item-changed] says which item of the list plays now (also for the first one), and
 * [signal@Voicenote.QueuePlayer::ended] that the last one played to its end. Its signals run on the main context of the
 * player's (make it on the thread that made the player), in the order the player's events happened. An item is found in
 * the list by its location (the first one at or after the current index, so a list may hold a location twice).
 * Disposing it ends its subscription first, then makes the player a plain player again and lets it go. Methods may be
 * called from any thread.
 */
G_DECLARE_FINAL_TYPE(VnQueuePlayer, vng_queue_player, VNG, QUEUE_PLAYER, GObject)

/**
 * vng_queue_player_new:
 * @player: the player to play the list on; kept until the queue player is finalized.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Makes @player a queue player over an empty list (set it with [method@Voicenote.QueuePlayer.set_items]). Another data
 * source the player had is replaced.
 *
 * Returns: (transfer full) (nullable): the queue player, or %NULL with @error set (%VN_ERROR_MISUSE for a disposed
 *   player).
 */
VnQueuePlayer *vng_queue_player_new(VnPlayer *player, GError **error);

/**
 * vng_queue_player_get_player:
 * @self: the queue player.
 *
 * The player the list plays on ([property@Voicenote.QueuePlayer:player]).
 *
 * Returns: (transfer none): the player.
 */
VnPlayer *vng_queue_player_get_player(VnQueuePlayer *self);

/**
 * vng_queue_player_set_items:
 * @self: the queue player.
 * @locations: (array zero-terminated=1): the items in the order they play: paths (UTF-8), `file://` URLs or http(s)
 *   URLs (fetched through the media cache, the next one ahead of time).
 * @keys: (array zero-terminated=1) (nullable): for each location, the key an http(s) URL is loaded with (its stable
 *   identity for the media cache and the resume position, instead of a signed URL that changes), or "" for none;
 *   %NULL for no keys. As many as @locations.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Replaces the list, also while an item plays: what comes next follows the new list (from the current item's place in
 * it; nothing, when it is not in it). [property@Voicenote.QueuePlayer:n-items] and
 * [property@Voicenote.QueuePlayer:current-index] follow.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_INVALID_ARG for an empty location or a @keys of another
 *   length; the list is unchanged then).
 */
gboolean vng_queue_player_set_items(VnQueuePlayer *self, const gchar *const *locations, const gchar *const *keys,
                                    GError **error);

/**
 * vng_queue_player_set_http_options:
 * @self: the queue player.
 * @http_options: (nullable): how the list's http(s) items are requested (headers such as Matrix's
 *   `Authorization: Bearer`, CA file, timeouts, size limit), as they are at this call; %NULL for libvoicenote's
 *   defaults again.
 *
 * Sets the HTTP options every http(s) item loaded from now on is requested with, by
 * [method@Voicenote.QueuePlayer.play_item] and when the list goes on by itself (the item that already plays, and
 * one already fetched ahead, keep theirs).
 */
void vng_queue_player_set_http_options(VnQueuePlayer *self, VnHttpOptions *http_options);

/**
 * vng_queue_player_play_item:
 * @self: the queue player.
 * @index: the item to play, 0 for the first.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Plays from an item on: the current item stops (it does not come back when the new one ends), the item loads and
 * plays, and the list goes on from it. Returns at once; a file that cannot be read arrives as the player's
 * [signal@Voicenote.Player::failed], and the item after it plays.
 *
 * Returns: %TRUE, or %FALSE with @error set: %VN_ERROR_INVALID_ARG for an index outside the list,
 *   %VN_ERROR_MISUSE after dispose.
 */
gboolean vng_queue_player_play_item(VnQueuePlayer *self, guint index, GError **error);

/**
 * vng_queue_player_next:
 * @self: the queue player.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Skips to the item after the current one now (the current one's position is kept for a later load); after the last
 * one the player stops. Returns at once.
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when nothing is loaded or after dispose).
 */
gboolean vng_queue_player_next(VnQueuePlayer *self, GError **error);

/**
 * vng_queue_player_set_skip_listened:
 * @self: the queue player.
 * @skip: %TRUE to pass over the listened items.
 *
 * "Play unplayed": with %TRUE the list's items that are listened ([func@Voicenote.listened_get]) are passed over
 * when the list moves on, so the unlistened ones play in order and [signal@Voicenote.QueuePlayer::ended] comes after
 * the last of them. [method@Voicenote.QueuePlayer.play_item] plays the item it names, listened or not. Off by default.
 */
void vng_queue_player_set_skip_listened(VnQueuePlayer *self, gboolean skip);

/**
 * vng_queue_player_previous:
 * @self: the queue player.
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * Plays the item before the current one, as [method@Voicenote.QueuePlayer.play_item].
 *
 * Returns: %TRUE, or %FALSE with @error set (%VN_ERROR_MISUSE when the current item is the first one, or none is
 *   current).
 */
gboolean vng_queue_player_previous(VnQueuePlayer *self, GError **error);

/**
 * vng_queue_player_get_current_index:
 * @self: the queue player.
 *
 * Which item plays, as the last [signal@Voicenote.QueuePlayer::item-changed] delivered on the main context said
 * ([property@Voicenote.QueuePlayer:current-index]).
 *
 * Returns: the index, or -1 when none (nothing played yet, or the player plays something not in the list).
 */
gint vng_queue_player_get_current_index(VnQueuePlayer *self);

/**
 * vng_queue_player_get_n_items:
 * @self: the queue player.
 *
 * How many items the list has ([property@Voicenote.QueuePlayer:n-items]).
 *
 * Returns: the number of items.
 */
guint vng_queue_player_get_n_items(VnQueuePlayer *self);

G_END_DECLS

#endif /* VOICENOTE_GLIB_QUEUE_PLAYER_H */
