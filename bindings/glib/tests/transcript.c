/*
 * transcript.c: VnTranscript (vn-transcript.h) and vng_player_seek_to_word() on the main context, over espeak-ng's
 * speech encoded by opusenc at start (three sentences with pauses; PocketSphinx hears "tomorrow" in them).
 * - /transcript/transcribe: the words and their times in order, the text, "tomorrow" among them, word_at; the
 *   callback on the calling thread; a second request equal and from the cache (well under the first's time).
 * - /transcript/seek-to-word: a player with the note loaded goes 50 ms before the word; a negative start is
 *   VN_ERROR_INVALID_ARG.
 * - /transcript/failures: a missing file is VN_ERROR_NOT_FOUND; a cancelled GCancellable G_IO_ERROR_CANCELLED.
 * Every wait is bounded (rig_wait).
 */
#include "async-outcome.h"

static gchar *directory;
static gchar *note_path;

static gboolean child_ended(gpointer data) { return *(gint *)data != 0; }

static void child_done(GObject *source, GAsyncResult *result, gpointer data) {
    GError *error = NULL;
    *(gint *)data = g_subprocess_wait_check_finish(G_SUBPROCESS(source), result, &error) ? 1 : 2;
    if (error != NULL) g_printerr("%s\n", error->message);
    g_clear_error(&error);
}

static void run_tool(const gchar *const *argv) {
    GError *error = NULL;
    GSubprocess *child = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, &error);
    g_assert_no_error(error);
    gint ok = 0;
    g_subprocess_wait_check_async(child, NULL, child_done, &ok);
    if (!rig_wait(child_ended, &ok, WAIT_MS)) g_subprocess_force_exit(child);
    g_assert_cmpint(ok, ==, 1);
    g_object_unref(child);
}

static void make_note(void) {
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-transcript-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *raw = g_build_filename(directory, "raw.wav", NULL), *wav = g_build_filename(directory, "speech.wav", NULL);
    note_path = g_build_filename(directory, "speech.ogg", NULL);
    const gchar *speak[] = {"espeak-ng", "-m", "-v", "en-us+f2", "-s", "160", "-w", raw,
                            "<speak>Open the door please.<break time='1200ms'/>Call me tomorrow morning."
                            "<break time='1200ms'/>The weather is nice today.</speak>", NULL};
    const gchar *convert[] = {"sox", "-R", raw, "-r", "48000", "-c", "1", "-b", "16", wav, "pad", "0.3", "0.5", NULL};
    const gchar *encode[] = {"opusenc", "--quiet", wav, note_path, NULL};
    run_tool(speak);
    run_tool(convert);
    run_tool(encode);
    g_free(raw);
    g_free(wav);
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_assert_cmpint(vn_cache_set_directory(cache), ==, VN_OK);
    g_free(cache);
}

static VnTranscript *transcribe(const gchar *location, GCancellable *cancellable, GError **error) {
    Outcome outcome = {0};
    vng_transcript_transcribe_async(location, NULL, cancellable, keep_result, &outcome);
    g_assert_null(outcome.result);
    wait_outcome(&outcome);
    VnTranscript *transcript = vng_transcript_transcribe_finish(outcome.result, error);
    outcome_clear(&outcome);
    return transcript;
}

static void test_transcribe(void) {
    GError *error = NULL;
    gint64 start = g_get_monotonic_time();
    VnTranscript *transcript = transcribe(note_path, NULL, &error);
    gint64 first_us = g_get_monotonic_time() - start;
    g_assert_no_error(error);
    g_assert_cmpstr(vng_transcript_get_recogniser(transcript), ==, "pocketsphinx/en-us");
    g_assert_nonnull(strstr(vng_transcript_get_text(transcript), "tomorrow morning"));
    guint n = vng_transcript_get_n_words(transcript);
    g_assert_cmpuint(n, >=, 5);
    gdouble previous = 0;
    gint tomorrow = -1;
    for (guint i = 0; i < n; i++) {
        gdouble word_start = -1, word_end = -1, confidence = -1;
        const gchar *word = vng_transcript_get_word(transcript, i, &word_start, &word_end, &confidence);
        g_assert_nonnull(word);
        g_assert_cmpfloat(word_start, >=, previous);
        g_assert_cmpfloat(word_end, >=, word_start);
        g_assert_cmpfloat(confidence, >=, 0);
        g_assert_cmpfloat(confidence, <=, 1);
        previous = word_start;
        if (g_str_equal(word, "tomorrow")) tomorrow = (gint)i;
    }
    g_assert_cmpint(tomorrow, >=, 0);
    gdouble at = 0;
    vng_transcript_get_word(transcript, (guint)tomorrow, &at, NULL, NULL);
    g_assert_cmpint(vng_transcript_get_word_at(transcript, at + 0.01), ==, tomorrow);
    g_assert_cmpint(vng_transcript_get_word_at(transcript, -1), ==, -1);
    g_assert_null(vng_transcript_get_word(transcript, n, NULL, NULL, NULL));

    start = g_get_monotonic_time();
    VnTranscript *again = transcribe(note_path, NULL, &error);
    gint64 second_us = g_get_monotonic_time() - start;
    g_assert_no_error(error);
    g_assert_cmpstr(vng_transcript_get_text(again), ==, vng_transcript_get_text(transcript));
    g_assert_cmpint(second_us * 4, <, first_us); /* read from the cache, not recognised again */
    g_object_unref(again);
    g_object_unref(transcript);
}

typedef struct {
    VnPlayer *player;
    gdouble want;
} SeekCheck;

static gboolean player_there(gpointer data) {
    SeekCheck *check = data;
    gdouble position = vng_player_get_position(check->player);
    return position > check->want - 1e-6 && position < check->want + 1e-6;
}

static void test_seek_to_word(void) {
    GError *error = NULL;
    VnTranscript *transcript = transcribe(note_path, NULL, &error);
    g_assert_no_error(error);
    gchar *output = g_build_filename(directory, "out.raw", NULL);
    gchar *speaker = rig_speaker(output);
    VnPlayer *player = vng_player_new_for_device("vn_spk", speaker, &error);
    g_assert_no_error(error);
    g_assert_true(vng_player_load(player, note_path, FALSE, -1, &error));
    g_assert_no_error(error);
    guint index = vng_transcript_get_n_words(transcript) / 2;
    gdouble word_start = 0;
    vng_transcript_get_word(transcript, index, &word_start, NULL, NULL);
    g_assert_true(vng_player_seek_to_word(player, word_start, &error));
    g_assert_no_error(error);
    SeekCheck check = {player, MAX(0, word_start - 0.05)};
    g_assert_true(rig_wait(player_there, &check, WAIT_MS));
    g_assert_false(vng_player_seek_to_word(player, -1, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_object_run_dispose(G_OBJECT(player));
    g_object_unref(player);
    rig_drain();
    g_free(speaker);
    g_free(output);
    g_object_unref(transcript);
}

static void test_failures(void) {
    GError *error = NULL;
    gchar *missing = g_build_filename(directory, "missing.ogg", NULL);
    g_assert_null(transcribe(missing, NULL, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_NOT_FOUND);
    g_clear_error(&error);
    g_free(missing);
    GCancellable *cancellable = g_cancellable_new();
    g_cancellable_cancel(cancellable);
    gchar *fresh = g_build_filename(directory, "fresh.ogg", NULL);
    g_assert_true(g_file_set_contents(fresh, "", 0, NULL));
    gchar *contents = NULL;
    gsize size = 0;
    g_assert_true(g_file_get_contents(note_path, &contents, &size, NULL));
    g_assert_true(g_file_set_contents(fresh, contents, (gssize)size, NULL)); /* not in the cache yet */
    g_free(contents);
    g_assert_null(transcribe(fresh, cancellable, &error));
    g_assert_error(error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error(&error);
    g_free(fresh);
    g_object_unref(cancellable);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    make_note();
    g_test_add_func("/transcript/transcribe", test_transcribe);
    g_test_add_func("/transcript/seek-to-word", test_seek_to_word);
    g_test_add_func("/transcript/failures", test_failures);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(note_path);
    g_free(directory);
    return status;
}
