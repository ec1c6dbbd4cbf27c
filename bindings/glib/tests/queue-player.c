/*
 * queue-player.c: VnQueuePlayer (voicenote-glib's vn-queue-player.h) playing two real notes on a file speaker.
 *
 * The notes are sentences spoken by espeak-ng and encoded by opusenc; the speaker is ALSA's `file` plugin over
 * `null` (not paced), writing mono S16 at 48 kHz, so the frames written say how much audio played.
 * - /queue-player/back-to-back: a list of two notes played from the first at 2x gives `item-changed` 0 then 1 with
 *   their locations, the player's `finished` for each, then `ended` once, last; the speaker got both notes (the sum
 *   of their durations / 2, ±5 %); `current-index` followed.
 * - /queue-player/next-previous: `next` skips to item 1, `previous` goes back to item 0 (each an `item-changed`);
 *   `previous` at the first item, an index outside the list and keys of another length are VN_ERROR errors; after
 *   the queue player is gone the player is plain again (no item changes of its own) and plays a note to its end.
 * - /queue-player/unplayed: with the second note marked listened (vng_listened_set) and skip-listened on, only the
 *   first plays: `item-changed` 0, the player's `listened` for it before its `finished`, then `ended`; both are listened
 *   after. The store is the test's ($XDG_CACHE_HOME in its directory).
 * Every wait is bounded (the main context iterated until the condition, under a deadline).
 */
#include <voicenote-glib.h>

#include "notes.h"

static gchar *directory;
static gchar *notes[2];
static gdouble durations[2];

typedef struct {
    GArray *indices; /* item-changed's indices, in order */
    GPtrArray *locations;
    guint finished;
    guint ended;
    guint finished_after_end; /* `finished` after `ended`: ended must be last */
    gint notified_index;     /* current-index at its last notify */
    guint player_changes;    /* the player's own item-changed, sent while a data source is set */
    guint listened;          /* the player's `listened` */
    guint listened_before_finished;
} Said;

static void on_listened(VnPlayer *player, const gchar *location, const gchar *key, gpointer data) {
    (void)player;
    Said *said = data;
    g_assert_cmpstr(location, ==, key); /* a path: its key is itself */
    said->listened++;
    if (said->finished == said->listened - 1) said->listened_before_finished++;
}

static void on_item_changed(VnQueuePlayer *queue, gint index, const gchar *location, const gchar *key, gpointer data) {
    Said *said = data;
    g_assert_cmpstr(key, !=, "");
    g_assert_cmpint(vng_queue_player_get_current_index(queue), ==, index); /* notified before */
    g_array_append_val(said->indices, index);
    g_ptr_array_add(said->locations, g_strdup(location));
}

static void on_ended(VnQueuePlayer *queue, gpointer data) {
    (void)queue;
    ((Said *)data)->ended++;
}

static void on_finished(VnPlayer *player, const gchar *location, gpointer data) {
    (void)player;
    (void)location;
    Said *said = data;
    said->finished++;
    if (said->ended > 0) said->finished_after_end++;
}

static void on_player_item_changed(VnPlayer *player, const gchar *location, const gchar *key, gpointer data) {
    (void)player;
    (void)location;
    (void)key;
    ((Said *)data)->player_changes++;
}

static void on_index(GObject *object, GParamSpec *pspec, gpointer data) {
    (void)pspec;
    ((Said *)data)->notified_index = vng_queue_player_get_current_index(VNG_QUEUE_PLAYER(object));
}

static void said_connect(Said *said, VnQueuePlayer *queue) {
    *said = (Said){.indices = g_array_new(FALSE, FALSE, sizeof(gint)),
                   .locations = g_ptr_array_new_with_free_func(g_free),
                   .notified_index = -1};
    g_signal_connect(queue, "item-changed", G_CALLBACK(on_item_changed), said);
    g_signal_connect(queue, "ended", G_CALLBACK(on_ended), said);
    g_signal_connect(queue, "notify::current-index", G_CALLBACK(on_index), said);
    g_signal_connect(vng_queue_player_get_player(queue), "finished", G_CALLBACK(on_finished), said);
    g_signal_connect(vng_queue_player_get_player(queue), "item-changed", G_CALLBACK(on_player_item_changed), said);
    g_signal_connect(vng_queue_player_get_player(queue), "listened", G_CALLBACK(on_listened), said);
}

static void said_clear(Said *said) {
    g_array_unref(said->indices);
    g_ptr_array_unref(said->locations);
}

static VnPlayer *speaker_player(const gchar *output) {
    gchar *configuration = rig_speaker(output);
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device("vn_spk", configuration, &error);
    g_assert_no_error(error);
    g_free(configuration);
    return player;
}

/* A queue player over both notes on a new player on a file speaker writing to `output`, said connected to `said`. */
static VnQueuePlayer *queue_on_speaker(const gchar *output, Said *said) {
    VnPlayer *player = speaker_player(output);
    GError *error = NULL;
    VnQueuePlayer *queue = vng_queue_player_new(player, &error);
    g_assert_no_error(error);
    const gchar *items[] = {notes[0], notes[1], NULL};
    g_assert_true(vng_queue_player_set_items(queue, items, NULL, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(vng_queue_player_get_n_items(queue), ==, 2);
    g_object_unref(player); /* the queue player keeps it */
    said_connect(said, queue);
    return queue;
}

static gboolean queue_ended(gpointer data) {
    return ((Said *)data)->ended > 0;
}

static void test_back_to_back(void) {
    gchar *output = g_build_filename(directory, "back-to-back.raw", NULL);
    Said said;
    VnQueuePlayer *queue = queue_on_speaker(output, &said);
    VnPlayer *player = g_object_ref(vng_queue_player_get_player(queue));
    GError *error = NULL;
    g_assert_true(vng_player_set_rate(player, 2.0, &error));
    g_assert_true(vng_queue_player_play_item(queue, 0, &error));
    g_assert_no_error(error);
    g_assert_true(rig_wait(queue_ended, &said, WAIT_MS));
    rig_drain(); /* anything that would wrongly come after `ended` */

    g_assert_cmpuint(said.indices->len, ==, 2);
    g_assert_cmpint(g_array_index(said.indices, gint, 0), ==, 0);
    g_assert_cmpint(g_array_index(said.indices, gint, 1), ==, 1);
    g_assert_cmpstr(g_ptr_array_index(said.locations, 0), ==, notes[0]);
    g_assert_cmpstr(g_ptr_array_index(said.locations, 1), ==, notes[1]);
    g_assert_cmpuint(said.finished, ==, 2);
    g_assert_cmpuint(said.ended, ==, 1);
    g_assert_cmpuint(said.finished_after_end, ==, 0);
    g_assert_cmpint(said.notified_index, ==, 1);

    GStatBuf info;
    g_assert_cmpint(g_stat(output, &info), ==, 0);
    gdouble played_s = (gdouble)info.st_size / 2 / TONE_RATE;
    gdouble expected_s = (durations[0] + durations[1]) / 2;
    g_test_message("notes %.3f s + %.3f s, played %.3f s at 2x", durations[0], durations[1], played_s);
    g_assert_cmpfloat_with_epsilon(played_s, expected_s, expected_s * 0.05);

    g_object_unref(queue);
    g_object_unref(player);
    said_clear(&said);
    g_free(output);
}

typedef struct {
    Said *said;
    guint count;
} Changes;

static gboolean changed_count(gpointer data) {
    Changes *changes = data;
    return changes->said->indices->len >= changes->count;
}

typedef struct {
    Said *said;
    VnPlayer *player;
} Ending;

/* `finished`, and the state STOPPED (the context that says so comes just after). */
static gboolean player_stopped(gpointer data) {
    Ending *ending = data;
    return ending->said->finished > 0 && vng_player_get_state(ending->player) == VN_PLAYER_STATE_STOPPED;
}

static void test_next_previous(void) {
    gchar *output = g_build_filename(directory, "next-previous.raw", NULL);
    Said said;
    VnQueuePlayer *queue = queue_on_speaker(output, &said);
    VnPlayer *player = g_object_ref(vng_queue_player_get_player(queue));
    GError *error = NULL;
    g_assert_false(vng_queue_player_previous(queue, &error)); /* nothing current */
    g_assert_error(error, VN_ERROR, VN_ERROR_MISUSE);
    g_clear_error(&error);
    g_assert_false(vng_queue_player_play_item(queue, 2, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    const gchar *items[] = {notes[0], notes[1], NULL}, *keys[] = {"one", NULL};
    g_assert_false(vng_queue_player_set_items(queue, items, keys, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);
    g_assert_cmpuint(vng_queue_player_get_n_items(queue), ==, 2);

    g_assert_true(vng_queue_player_play_item(queue, 0, &error));
    Changes changes = {&said, 1};
    g_assert_true(rig_wait(changed_count, &changes, WAIT_MS));
    g_assert_false(vng_queue_player_previous(queue, &error)); /* the first one */
    g_assert_error(error, VN_ERROR, VN_ERROR_MISUSE);
    g_clear_error(&error);
    g_assert_true(vng_queue_player_next(queue, &error));
    g_assert_no_error(error);
    changes.count = 2;
    g_assert_true(rig_wait(changed_count, &changes, WAIT_MS));
    g_assert_cmpint(g_array_index(said.indices, gint, 1), ==, 1);
    g_assert_true(vng_queue_player_previous(queue, &error));
    g_assert_no_error(error);
    changes.count = 3;
    g_assert_true(rig_wait(changed_count, &changes, WAIT_MS));
    g_assert_cmpint(g_array_index(said.indices, gint, 2), ==, 0);
    g_assert_cmpstr(g_ptr_array_index(said.locations, 2), ==, notes[0]);
    g_assert_true(vng_player_stop(player, &error));

    g_assert_cmpuint(said.player_changes, ==, 3); /* the player's own signal, alongside */

    /* Gone: the player is plain again: loading another note is no item change (the player sends those only with a
     * data source), and it plays to its end with nothing after it. */
    g_object_unref(queue);
    said.finished = 0;
    said.player_changes = 0;
    g_assert_true(vng_player_set_rate(player, 2.5, &error));
    g_assert_true(vng_player_load(player, notes[1], TRUE, -1, &error));
    g_assert_true(rig_wait(player_stopped, &(Ending){&said, player}, WAIT_MS));
    rig_drain();
    g_assert_cmpuint(said.player_changes, ==, 0);
    g_assert_cmpuint(said.finished, ==, 1);

    g_object_unref(player);
    said_clear(&said);
    g_free(output);
}

static void test_unplayed(void) {
    GError *error = NULL;
    g_assert_true(vng_listened_clear(&error));
    g_assert_true(vng_listened_set(notes[1], NULL, TRUE, &error));
    g_assert_no_error(error);
    gboolean listened = TRUE;
    g_assert_true(vng_listened_get(notes[0], NULL, &listened, &error));
    g_assert_false(listened);
    g_assert_false(vng_listened_get("", NULL, &listened, &error));
    g_assert_error(error, VN_ERROR, VN_ERROR_INVALID_ARG);
    g_clear_error(&error);

    gchar *output = g_build_filename(directory, "unplayed.raw", NULL);
    Said said;
    VnQueuePlayer *queue = queue_on_speaker(output, &said);
    VnPlayer *player = g_object_ref(vng_queue_player_get_player(queue));
    vng_queue_player_set_skip_listened(queue, TRUE);
    g_assert_true(vng_player_set_rate(player, 2.0, &error));
    g_assert_true(vng_queue_player_play_item(queue, 0, &error));
    g_assert_no_error(error);
    g_assert_true(rig_wait(queue_ended, &said, WAIT_MS));
    rig_drain();
    g_assert_cmpuint(said.indices->len, ==, 1);
    g_assert_cmpint(g_array_index(said.indices, gint, 0), ==, 0);
    g_assert_cmpuint(said.finished, ==, 1);
    g_assert_cmpuint(said.listened, ==, 1);
    g_assert_cmpuint(said.listened_before_finished, ==, 1);
    g_assert_cmpuint(said.ended, ==, 1);
    for (guint i = 0; i < 2; i++) {
        g_assert_true(vng_listened_get(notes[i], NULL, &listened, &error));
        g_assert_true(listened);
    }
    g_object_unref(queue);
    g_object_unref(player);
    said_clear(&said);
    g_free(output);
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-queue-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_setenv("XDG_CACHE_HOME", cache, TRUE); /* the stores (positions, listened notes) are the test's own */
    g_free(cache);
    notes[0] = notes_make(directory, "first", "The first voice message.");
    notes[1] = notes_make(directory, "second", "And the second one, right after it.");
    for (guint i = 0; i < 2; i++) {
        VnPayload *payload = vng_payload_new_from_recording(notes[i], -1, NULL, 0, &error);
        g_assert_no_error(error);
        durations[i] = vng_payload_get_duration(payload);
        g_object_unref(payload);
    }
    g_test_add_func("/queue-player/back-to-back", test_back_to_back);
    g_test_add_func("/queue-player/next-previous", test_next_previous);
    g_test_add_func("/queue-player/unplayed", test_unplayed);
    int status = g_test_run();
    rig_remove_tree(directory);
    g_free(directory);
    g_free(notes[0]);
    g_free(notes[1]);
    return status;
}
