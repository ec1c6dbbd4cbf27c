/*
 * vn-transcript.h: VnTranscript, a voice note's words with their times, recognised on this machine by PocketSphinx
 * off the caller's thread and cancellable (`_async`/`_finish`); a player seeks to a word with
 * [method@Voicenote.Player.seek_to_word].
 */
#ifndef VOICENOTE_GLIB_TRANSCRIPT_H
#define VOICENOTE_GLIB_TRANSCRIPT_H

#include <gio/gio.h>
#include <voicenote.h>

#include "vn-http-options.h"

G_BEGIN_DECLS

#define VNG_TYPE_TRANSCRIPT (vng_transcript_get_type())

/**
 * VnTranscript:
 *
 * A voice note's words, in order, each with its start, end and confidence, and the recogniser that heard them
 * (libvoicenote's transcripts, docs/transcripts.md). Immutable; made by [func@Voicenote.Transcript.transcribe_finish].
 */
G_DECLARE_FINAL_TYPE(VnTranscript, vng_transcript, VNG, TRANSCRIPT, GObject)

/**
 * vng_transcript_transcribe_async:
 * @location: a local path, a `file://` URL or an `http://`/`https://` URL (through libvoicenote's media cache).
 * @http_options: (nullable): how an http(s) @location is requested, as they are at this call; %NULL for the
 *   defaults.
 * @cancellable: (nullable): cancels the transcription, or %NULL.
 * @callback: (scope async): called with the result, on the thread-default [struct@GLib.MainContext] of the calling
 *   thread.
 * @user_data: (closure): data for @callback.
 *
 * Transcribes a voice note with PocketSphinx (libvoicenote's vn_transcription with
 * vn_transcriber_create_pocketsphinx(): Debian's English model) on a worker thread; call
 * [func@Voicenote.Transcript.transcribe_finish] in @callback. The transcript is kept in libvoicenote's media cache,
 * so asking again for the same note is a cache read. Cancelling @cancellable cancels the transcription at its next
 * piece of audio; @callback then gets %G_IO_ERROR_CANCELLED.
 */
void vng_transcript_transcribe_async(const gchar *location, VnHttpOptions *http_options, GCancellable *cancellable,
                                     GAsyncReadyCallback callback, gpointer user_data);

/**
 * vng_transcript_transcribe_finish:
 * @result: the [iface@Gio.AsyncResult] given to the callback of [func@Voicenote.Transcript.transcribe_async].
 * @error: (out) (optional) (nullable): where a failure goes, or %NULL.
 *
 * The transcript [func@Voicenote.Transcript.transcribe_async] made.
 *
 * Returns: (transfer full) (nullable): the transcript, or %NULL with @error set: %G_IO_ERROR_CANCELLED after a
 *   cancel; in %VN_ERROR, %VN_ERROR_UNSUPPORTED when PocketSphinx or its model is missing (the message names the
 *   packages), %VN_ERROR_NOT_FOUND, %VN_ERROR_NETWORK and others as libvoicenote reports them. A silent or damaged
 *   note is no failure: its transcript has the words heard (none for silence).
 */
VnTranscript *vng_transcript_transcribe_finish(GAsyncResult *result, GError **error);

/**
 * vng_transcript_get_recogniser:
 * @self: a transcript.
 *
 * Names the recogniser: a transcript is kept in the media cache under it.
 *
 * Returns: (transfer none): the identity of the recogniser that made it ("pocketsphinx/en-us").
 */
const gchar *vng_transcript_get_recogniser(VnTranscript *self);

/**
 * vng_transcript_get_text:
 * @self: a transcript.
 *
 * The text a reader sees: what a message carries for receivers without a recogniser.
 *
 * Returns: (transfer none): the words joined by single spaces ("" when there are none).
 */
const gchar *vng_transcript_get_text(VnTranscript *self);

/**
 * vng_transcript_get_n_words:
 * @self: a transcript.
 *
 * Counts the words, for [method@Voicenote.Transcript.get_word].
 *
 * Returns: how many words it has.
 */
guint vng_transcript_get_n_words(VnTranscript *self);

/**
 * vng_transcript_get_word:
 * @self: a transcript.
 * @index: the word's index, below [method@Voicenote.Transcript.get_n_words].
 * @start: (out) (optional): where the word begins, in seconds from the note's start.
 * @end: (out) (optional): where it ends.
 * @confidence: (out) (optional): how sure the recogniser is, 0…1.
 *
 * One word and its times, for a link that seeks there ([method@Voicenote.Player.seek_to_word]).
 *
 * Returns: (transfer none) (nullable): the word, or %NULL for an index out of range.
 */
const gchar *vng_transcript_get_word(VnTranscript *self, guint index, gdouble *start, gdouble *end,
                                     gdouble *confidence);

/**
 * vng_transcript_get_word_at:
 * @self: a transcript.
 * @seconds: a time in the note.
 *
 * Finds the word a player's position is in, to highlight it as the note plays.
 *
 * Returns: the index of the word being said at @seconds (the last one starting at or before it), or -1 before the
 *   first.
 */
gint vng_transcript_get_word_at(VnTranscript *self, gdouble seconds);

G_END_DECLS

#endif /* VOICENOTE_GLIB_TRANSCRIPT_H */
