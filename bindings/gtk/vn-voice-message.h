/*
 * vn-voice-message.h: VnVoiceMessage, a received voice message's row: play/pause, the waveform, the time and the
 * playback speed, over a VnPlayer that several rows may share.
 */
#ifndef VOICENOTE_GTK_VOICE_MESSAGE_H
#define VOICENOTE_GTK_VOICE_MESSAGE_H

#include <gtk/gtk.h>
#include <voicenote-glib.h>

#include "vn-waveform.h"

G_BEGIN_DECLS

/**
 * VNGTK_TYPE_VOICE_MESSAGE:
 *
 * The #GType of [class@VoicenoteGtk.VoiceMessage].
 */
#define VNGTK_TYPE_VOICE_MESSAGE (vngtk_voice_message_get_type())

/**
 * VnVoiceMessage:
 *
 * A received voice message as a row: a play/pause button, a [class@VoicenoteGtk.Waveform], the time (m:ss) and a
 * playback speed button, bound to a [class@Voicenote.Player] ([property@VoicenoteGtk.VoiceMessage:player]) for the note
 * at [property@VoicenoteGtk.VoiceMessage:location], whose length is [property@VoicenoteGtk.VoiceMessage:duration]. The
 * waveform's values are the application's when it has them (from the message, e.g. its `voiceRecording` payload):
 * set them on [method@VoicenoteGtk.VoiceMessage.get_waveform]. When the waveform has none once the row is realized
 * (or its location changes), the row reads 100 values from the note itself ([func@Voicenote.waveform_async]: a URL
 * is downloaded through libvoicenote's media cache); values the application sets meanwhile cancel that read, as do
 * a new location and disposing the row (its callback then leaves the row alone).
 *
 * The play button loads the location with autoplay when it is not the player's current item
 * ([property@Voicenote.Player:location]), else plays or pauses it. The row follows the player only while its note is
 * the player's item, so many rows can share one player: then the button shows Pause while playing, the waveform and the
 * time show the position (paused too); otherwise the row shows Play, the start and the duration. A seek on the waveform
 * seeks the player when the note is its item; on another row it is where that note starts once played. The speed button
 * cycles the player's rate 1x → 1.5x → 2x → 0.5x → 1x and shows it (the rate is the player's, shared by every row on
 * it).
 *
 * Loading: while the row reads its waveform, and while the player is loading the row's note (%VN_PLAYER_STATE_LOADING:
 * opening it, buffering a URL), a spinning [class@Gtk.Spinner] shows beside the play button. Failed: when the waveform
 * cannot be read, or the player reports [signal@Voicenote.Player::failed] while the note is its item, an error icon
 * (`dialog-error-symbolic`) and "Can't play this voice message" (its tooltip the error's message) take the waveform's
 * place and the play button becomes a retry button (`view-refresh-symbolic`): a click retries what failed (the read;
 * the load, playing once loaded). A new location forgets the failures.
 *
 * Styling: CSS name `voicemessage`; its buttons have the `flat` and `circular` style classes, the time label
 * `numeric` and `dim-label`; the failure's icon and text are in a box with the style class `failure`, coloured
 * `@error_color` by a default stylesheet at %GTK_STYLE_PROVIDER_PRIORITY_FALLBACK (the text also has `error`). No
 * other colour of its own (the waveform's are described at [class@VoicenoteGtk.Waveform]).
 *
 * Accessibility: the row is a %GTK_ACCESSIBLE_ROLE_GROUP labelled "Voice message, 0:03" (its duration) with the
 * description "playing at 0:01" while it plays ("paused at 0:01" while paused, "loading" while loading, "Can't play
 * this voice message: " and the error's message after a failure, none otherwise) and the state
 * %GTK_ACCESSIBLE_STATE_BUSY while loading; the buttons are labelled "Play"/"Pause" ("Retry" after a failure) and
 * "Playback speed 1.5x"; the spinner "Loading", the error icon "Error"; the waveform is the
 * [class@VoicenoteGtk.Waveform] slider.
 */
G_DECLARE_FINAL_TYPE(VnVoiceMessage, vngtk_voice_message, VNGTK, VOICE_MESSAGE, GtkWidget)

/**
 * vngtk_voice_message_new:
 * @player: (nullable): the player to play the note with, or %NULL to set one later.
 * @location: (nullable): the note's location (a path, a `file://` or http(s) URL), or %NULL.
 * @duration: the note's duration in seconds (≥ 0; shown until the player knows it).
 *
 * Makes a voice message row.
 *
 * Returns: (transfer floating): the widget.
 */
GtkWidget *vngtk_voice_message_new(VnPlayer *player, const gchar *location, gdouble duration);

/**
 * vngtk_voice_message_set_player:
 * @self: the row.
 * @player: (nullable): the player, or %NULL for none (the buttons are then insensitive).
 *
 * Binds the row to @player (kept with a reference), or to none.
 */
void vngtk_voice_message_set_player(VnVoiceMessage *self, VnPlayer *player);

/**
 * vngtk_voice_message_get_player:
 * @self: the row.
 *
 * The player the row plays its note on and follows.
 *
 * Returns: (transfer none) (nullable): the player, or %NULL.
 */
VnPlayer *vngtk_voice_message_get_player(VnVoiceMessage *self);

/**
 * vngtk_voice_message_set_location:
 * @self: the row.
 * @location: (nullable): the note's location, or %NULL (the play button is then insensitive).
 *
 * Sets the note this row plays.
 */
void vngtk_voice_message_set_location(VnVoiceMessage *self, const gchar *location);

/**
 * vngtk_voice_message_get_location:
 * @self: the row.
 *
 * The row's note, as given to the player's load.
 *
 * Returns: (nullable): the note's location, or %NULL.
 */
const gchar *vngtk_voice_message_get_location(VnVoiceMessage *self);

/**
 * vngtk_voice_message_set_http_options:
 * @self: the row.
 * @http_options: (nullable): how an http(s) location is requested, or %NULL for libvoicenote's defaults.
 *
 * Sets [property@VoicenoteGtk.VoiceMessage:http-options]: the request headers (Matrix's `Authorization: Bearer` for
 * authenticated media), CA file, timeouts and size limit of the row's waveform read and of the player's load.
 */
void vngtk_voice_message_set_http_options(VnVoiceMessage *self, VnHttpOptions *http_options);

/**
 * vngtk_voice_message_get_http_options:
 * @self: the row.
 *
 * The row's [property@VoicenoteGtk.VoiceMessage:http-options].
 *
 * Returns: (nullable) (transfer none): the options, or %NULL.
 */
VnHttpOptions *vngtk_voice_message_get_http_options(VnVoiceMessage *self);

/**
 * vngtk_voice_message_set_duration:
 * @self: the row.
 * @duration: the note's duration in seconds, 0…86400 (NaN and values outside are refused with a critical warning).
 *
 * Sets the duration shown while the note is not the player's item (and given to the load as its hint).
 */
void vngtk_voice_message_set_duration(VnVoiceMessage *self, gdouble duration);

/**
 * vngtk_voice_message_get_duration:
 * @self: the row.
 *
 * The note's duration the row shows while the note is not the player's item.
 *
 * Returns: the duration in seconds.
 */
gdouble vngtk_voice_message_get_duration(VnVoiceMessage *self);

/**
 * vngtk_voice_message_get_waveform:
 * @self: the row.
 *
 * The row's waveform, to set its values with [method@VoicenoteGtk.Waveform.set_values].
 *
 * Returns: (transfer none): the waveform.
 */
VnWaveform *vngtk_voice_message_get_waveform(VnVoiceMessage *self);

G_END_DECLS

#endif /* VOICENOTE_GTK_VOICE_MESSAGE_H */
