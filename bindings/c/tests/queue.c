/*
 * queue.c: queue players through the C API (voicenote.h, section "Queue players", and VN_PLAYER_EVENT_ITEM_CHANGED).
 *
 * - A data source over three WAV tones plays them in order on a file speaker (ALSA's `file` plugin over `null`,
 *   unpaced): ITEM_CHANGED (key = the absolute path) then FINISHED for each, then STOPPED; the speaker's file holds
 *   the three tones (one open device: the plugin truncates its file at every open). A subscriber slower than the
 *   player (5 ms per progress step) gets no CONTEXT naming an item before that item's ITEM_CHANGED.
 * - A missing file is FAILED (VN_E_NOT_FOUND) and the queue goes on; an answer naming a location that failed since
 *   an item last loaded ends the queue (NOT_LOADED): after a second failure of the same file, and with two missing
 *   files answering each other (exactly two FAILED either way).
 * - vn_player_use_messages over Stream's fixture (Tests/Fixtures/messages/stream-next-item.json, its asset_urls
 *   turned into local files) plays what vn_find_next_item names, for two scopes; its refusals (scope, JSON, player)
 *   keep the data source set before; replacing the messages while an item plays changes what comes next.
 * - vn_player_next: MISUSE without a data source or with nothing loaded; it skips a paused item and a playing one
 *   at once (a 600 s Opus note at 0.5x, which takes seconds to play even on the unpaced speaker).
 * - Hooks that call vn_player_get_context and vn_player_set_rate, or destroy their own player (no deadlock, release
 *   once, no callback after); `release` runs once on replace, unset, destroy and a failed set; the answer's setters
 *   check their arguments and are VN_E_MISUSE outside the hook call; a vn_queue_answer_set_url answer carries its key.
 *
 * - What was heard: with vn_player_set_skip_listened ("play unplayed") a queue over three notes, the second marked
 *   with vn_listened_set, plays the first and the third; each sends LISTENED (its key) before its FINISHED, and
 *   vn_listened tells it after; the store is this test's ($XDG_CACHE_HOME under its directory).
 *
 * Needs opusenc on PATH (child.h). Every wait is bounded (WAIT_UNTIL); "nothing more arrived" is checked after a
 * fence: a volume change, whose CONTEXT comes after every event sent before it.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "child.h"

#define RATE 48000
#define NOTE_SECONDS 1.0
#define LONG_SECONDS 600
#define WAIT_MS 30000
#define MAX_ITEMS 32
#define TEXT_SIZE 320

static char directory[256];
static char notes[3][300], recordings[3][300], long_note[300], missing[300], missing_too[300];

/* ------------------------------------------------------------------------------------------------------------ */
/* What a subscriber saw, guarded by the harness monitor (WAIT_UNTIL predicates read it directly) */

typedef struct {
    int type;              /* ITEM_CHANGED, FINISHED or FAILED */
    char text[TEXT_SIZE];  /* ITEM_CHANGED: the key; FINISHED: the location; FAILED: the status name */
    char where[TEXT_SIZE]; /* ITEM_CHANGED: the location */
} item;

static struct {
    item items[MAX_ITEMS];
    int count, changed, finished, failed, failed_status, state, released, context_ahead;
    int listened, listened_before_finished; /* LISTENED events; those that came before their FINISHED */
    char listened_keys[4][TEXT_SIZE];
    double volume, playing_time_s;
    char ahead[2 * TEXT_SIZE + 64]; /* the first context that came before its ITEM_CHANGED */
    char current[TEXT_SIZE], playing[TEXT_SIZE], paused[TEXT_SIZE]; /* the last ITEM_CHANGED, PLAYING, PAUSED */
} seen;

static void seen_reset(void) {
    pthread_mutex_lock(&harness_sync.mutex);
    memset(&seen, 0, sizeof seen);
    seen.state = -1;
    pthread_mutex_unlock(&harness_sync.mutex);
}

static void copy(char *out, const char *text) { snprintf(out, TEXT_SIZE, "%s", text != NULL ? text : "(null)"); }

static void on_event(void *user_data, const vn_player_event *event) {
    (void)user_data;
    pthread_mutex_lock(&harness_sync.mutex);
    const vn_player_context *context = &event->context;
    int listed = event->type != VN_PLAYER_EVENT_CONTEXT && event->type != VN_PLAYER_EVENT_LISTENED;
    item *entry = listed && seen.count < MAX_ITEMS ? &seen.items[seen.count++] : NULL;
    if (entry != NULL) entry->type = event->type;
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT:
        seen.state = context->state;
        seen.volume = context->volume;
        /* A context naming an item before its ITEM_CHANGED (the subscriber's first context names nothing). */
        if (context->location != NULL && seen.changed > 0 && strcmp(context->location, seen.current) != 0 &&
            seen.context_ahead++ == 0)
            snprintf(seen.ahead, sizeof seen.ahead, "state %d at %g s naming %s after ITEM_CHANGED(%s)",
                     context->state, context->current_time_s, context->location, seen.current);
        if (context->state == VN_PLAYER_PLAYING) {
            copy(seen.playing, context->location);
            seen.playing_time_s = context->current_time_s;
        }
        if (context->state == VN_PLAYER_PAUSED) copy(seen.paused, context->location);
        break;
    case VN_PLAYER_EVENT_ITEM_CHANGED:
        seen.changed++;
        copy(seen.current, event->location);
        if (entry != NULL) {
            copy(entry->text, event->key);
            copy(entry->where, event->location);
        }
        break;
    case VN_PLAYER_EVENT_FINISHED:
        seen.finished++;
        if (entry != NULL) copy(entry->text, event->location);
        break;
    case VN_PLAYER_EVENT_LISTENED:
        if (seen.listened < 4) copy(seen.listened_keys[seen.listened], event->key);
        if (seen.listened == seen.finished) seen.listened_before_finished++;
        seen.listened++;
        break;
    case VN_PLAYER_EVENT_FAILED:
        seen.failed++;
        seen.failed_status = event->status;
        if (entry != NULL) copy(entry->text, vn_status_name(event->status));
        break;
    default:
        break;
    }
    pthread_cond_broadcast(&harness_sync.cond);
    pthread_mutex_unlock(&harness_sync.mutex);
}

static void on_released(void *user_data) {
    (void)user_data;
    pthread_mutex_lock(&harness_sync.mutex);
    seen.released++;
    pthread_cond_broadcast(&harness_sync.cond);
    pthread_mutex_unlock(&harness_sync.mutex);
}

#define CHANGED(key) {VN_PLAYER_EVENT_ITEM_CHANGED, (key)}
#define FINISHED(location) {VN_PLAYER_EVENT_FINISHED, (location)}
#define FAILED(status) {VN_PLAYER_EVENT_FAILED, #status}
typedef struct {
    int type;
    const char *text;
} want;

static const char *type_name(int type) {
    return type == VN_PLAYER_EVENT_ITEM_CHANGED ? "changed" : type == VN_PLAYER_EVENT_FINISHED ? "finished" : "failed";
}

/* The ITEM_CHANGED, FINISHED and FAILED events so far are `expected`, in order; prints both lists when not. */
static void expect_items(const want *expected, int n, const char *what) {
    pthread_mutex_lock(&harness_sync.mutex);
    int same = seen.count == n;
    for (int i = 0; same && i < n; i++) same = seen.items[i].type == expected[i].type && !strcmp(seen.items[i].text, expected[i].text);
    if (!EXPECT(same, "%s: not the expected events", what)) {
        for (int i = 0; i < n; i++) fprintf(stderr, "    want %-8s %s\n", type_name(expected[i].type), expected[i].text);
        for (int i = 0; i < seen.count; i++) fprintf(stderr, "    got  %-8s %s\n", type_name(seen.items[i].type), seen.items[i].text);
    }
    pthread_mutex_unlock(&harness_sync.mutex);
}

/* Waits until every event sent before now has arrived: the CONTEXT of a volume change comes after them. */
static void fence(vn_player *player) {
    static int round;
    double volume = 0.5 + 0.01 * (++round % 40);
    EXPECT_STATUS(VN_OK, vn_player_set_volume(player, volume));
    int ok = 0;
    WAIT_UNTIL(ok, distance(seen.volume, volume) < 1e-9, WAIT_MS);
    EXPECT(ok, "the volume change's context did not arrive within %d ms", WAIT_MS);
}

/* A player on a file speaker writing `output`, subscribed to the log (cleared). */
static vn_player *queue_player(const char *output) {
    seen_reset();
    vn_player *player = speaker_player(output);
    if (player != NULL) EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, NULL, on_released, NULL));
    return player;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Data sources */

static void counting_release(void *user_data) {
    atomic_fetch_add((atomic_int *)user_data, 1);
    notify();
}

/* Plays `paths` in order: after paths[i] comes paths[i + 1], after the last nothing. */
typedef struct {
    const char *paths[4];
    int count;
    atomic_int calls, released, key_is_not_location;
    _Atomic(vn_player *) player; /* list_calling_next: the player it calls into */
    atomic_int hook_failures;    /* list_calling_next: calls into the player that failed */
} list_source;

static void list_init(list_source *list, const char *a, const char *b, const char *c) {
    memset(list, 0, sizeof *list);
    const char *paths[] = {a, b, c};
    for (int i = 0; i < 3 && paths[i] != NULL; i++) list->paths[list->count++] = paths[i];
}

static void list_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    list_source *list = user_data;
    if (strcmp(location, key) != 0) atomic_fetch_add(&list->key_is_not_location, 1); /* local paths: equal */
    for (int i = 0; i + 1 < list->count; i++)
        if (strcmp(list->paths[i], key) == 0) EXPECT_STATUS(VN_OK, vn_queue_answer_set_location(answer, list->paths[i + 1]));
    atomic_fetch_add(&list->calls, 1);
    notify();
}

static void list_release(void *user_data) {
    list_source *list = user_data;
    atomic_fetch_add(&list->released, 1);
    notify();
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Playing in order, and failures */

static void test_three_notes_play_in_order(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/three.raw", directory);
    vn_player *player = queue_player(output);
    if (player == NULL) return;
    static list_source list;
    list_init(&list, notes[0], notes[1], notes[2]);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.finished == 3 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "three FINISHED then STOPPED did not come within %d ms", WAIT_MS);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(notes[1]), FINISHED(notes[1]),
                             CHANGED(notes[2]), FINISHED(notes[2])};
    expect_items(expected, 6, "three notes");
    pthread_mutex_lock(&harness_sync.mutex);
    for (int i = 0; i < seen.count; i++)
        if (seen.items[i].type == VN_PLAYER_EVENT_ITEM_CHANGED)
            EXPECT(!strcmp(seen.items[i].where, seen.items[i].text), "ITEM_CHANGED location %s", seen.items[i].where);
    pthread_mutex_unlock(&harness_sync.mutex);
    EXPECT(atomic_load(&list.calls) >= 3, "the data source was asked %d times", atomic_load(&list.calls));
    EXPECT(atomic_load(&list.key_is_not_location) == 0, "the hook's key differs from the location of a path");

    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_STOPPED && context.current_time_s == 0, "state %d at %g", context.state,
           context.current_time_s);
    char *location = NULL;
    EXPECT_STATUS(VN_OK, vn_player_copy_location(player, &location));
    EXPECT(location != NULL && !strcmp(location, notes[2]), "the location is %s", location ? location : "NULL");
    vn_free(location);
    vn_player_destroy(player); /* closes the device: the speaker's file is complete */
    EXPECT(atomic_load(&list.released) == 1, "release ran %d times", atomic_load(&list.released));
    long long frames = frames_written(output), want_frames = (long long)(3 * NOTE_SECONDS * RATE);
    EXPECT(frames >= want_frames && frames <= want_frames + RATE / 10, "the speaker holds %lld frames, want %lld",
           frames, want_frames);
    unlink(output);
}

/* A subscriber slower than the player: it takes 5 ms over each progress step, so steps are queued (and coalesce)
 * when an item changes. */
static void slow_event(void *user_data, const vn_player_event *event) {
    if (event->type == VN_PLAYER_EVENT_CONTEXT && event->context.state == VN_PLAYER_PLAYING) delay_ms(5);
    on_event(user_data, event);
}

static void test_contexts_follow_their_item_changed(void) {
    seen_reset();
    vn_player *player = speaker_player("/dev/null");
    if (player == NULL) return;
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, slow_event, NULL, on_released, NULL));
    static list_source list;
    list_init(&list, notes[0], notes[1], notes[2]);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.finished == 3 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "three FINISHED then STOPPED did not come within %d ms", WAIT_MS);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(notes[1]), FINISHED(notes[1]),
                             CHANGED(notes[2]), FINISHED(notes[2])};
    expect_items(expected, 6, "slow subscriber");
    pthread_mutex_lock(&harness_sync.mutex);
    EXPECT(seen.context_ahead == 0, "%d contexts named an item before its ITEM_CHANGED; the first: %s",
           seen.context_ahead, seen.ahead);
    pthread_mutex_unlock(&harness_sync.mutex);
    vn_player_destroy(player);
}

/* notes[0] → missing → notes[1] → missing, which then answers itself. */
typedef struct {
    atomic_int asked_about_missing, released;
} failing_source;

static void failing_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    (void)location;
    failing_source *source = user_data;
    const char *next = NULL;
    if (!strcmp(key, missing)) next = atomic_fetch_add(&source->asked_about_missing, 1) == 0 ? notes[1] : missing;
    else if (!strcmp(key, notes[0]) || !strcmp(key, notes[1])) next = missing;
    if (next != NULL) EXPECT_STATUS(VN_OK, vn_queue_answer_set_location(answer, next));
    notify();
}

static void test_missing_file_goes_on_and_a_repeated_failure_ends(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/missing.raw", directory);
    vn_player *player = queue_player(output);
    if (player == NULL) return;
    static failing_source source;
    memset(&source, 0, sizeof source);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, failing_next, &source, counting_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.failed == 2 && seen.state == VN_PLAYER_NOT_LOADED && atomic_load(&source.asked_about_missing) == 2,
               WAIT_MS);
    EXPECT(ok, "no second FAILED then NOT_LOADED within %d ms (failed %d, state %d)", WAIT_MS, seen.failed, seen.state);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(missing), FAILED(VN_E_NOT_FOUND),
                             CHANGED(notes[1]), FINISHED(notes[1]), CHANGED(missing), FAILED(VN_E_NOT_FOUND)};
    expect_items(expected, 8, "missing file");
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_NOT_LOADED && context.last_status == VN_E_NOT_FOUND, "state %d, last status %d",
           context.state, context.last_status);
    EXPECT(atomic_load(&source.asked_about_missing) == 2, "asked about the missing file %d times",
           atomic_load(&source.asked_about_missing));
    vn_player_destroy(player);
    unlink(output);
}

/* missing ↔ missing_too; user_data counts the calls. */
static void ping_pong_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    (void)location;
    atomic_fetch_add((atomic_int *)user_data, 1);
    EXPECT_STATUS(VN_OK, vn_queue_answer_set_location(answer, !strcmp(key, missing) ? missing_too : missing));
    notify();
}

static void test_two_missing_files_answering_each_other(void) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    static atomic_int calls;
    atomic_store(&calls, 0);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, ping_pong_next, &calls, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load(player, missing, 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.failed == 2 && seen.state == VN_PLAYER_NOT_LOADED && atomic_load(&calls) == 2, WAIT_MS);
    EXPECT(ok, "no second FAILED then NOT_LOADED within %d ms (failed %d, state %d, calls %d)", WAIT_MS, seen.failed,
           seen.state, atomic_load(&calls));
    fence(player);
    const want expected[] = {CHANGED(missing), FAILED(VN_E_NOT_FOUND), CHANGED(missing_too), FAILED(VN_E_NOT_FOUND)};
    expect_items(expected, 4, "two missing files");
    EXPECT(atomic_load(&calls) == 2, "the data source was asked %d times", atomic_load(&calls));
    vn_player_destroy(player);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The built-in provider over messages */

/* `text` with every `from` replaced by `to`, malloc'ed. */
static char *replace_all(const char *text, const char *from, const char *to) {
    size_t count = 0, from_length = strlen(from), to_length = strlen(to);
    for (const char *at = strstr(text, from); at != NULL; at = strstr(at + from_length, from)) count++;
    char *out = malloc(strlen(text) + count * to_length + 1), *end = out;
    if (out == NULL) harness_fatal("out of memory");
    for (const char *at; (at = strstr(text, from)) != NULL; text = at + from_length) {
        memcpy(end, text, (size_t)(at - text));
        end += at - text;
        memcpy(end, to, to_length);
        end += to_length;
    }
    strcpy(end, text);
    return out;
}

/* Stream's next-item fixture with vr1..vr3 turned into recordings[0..2]; malloc'ed, or NULL. */
static char *fixture_messages(void) {
    char repo[512], path[700];
    repo_root(repo, sizeof repo);
    snprintf(path, sizeof path, "%s/Tests/Fixtures/messages/stream-next-item.json", repo);
    size_t size = 0;
    unsigned char *bytes = read_bytes(path, &size);
    if (!EXPECT(bytes != NULL, "cannot read %s (set VOICENOTE_REPO)", path)) return NULL;
    bytes[size] = '\0';
    char *text = (char *)bytes;
    for (int i = 0; i < 3; i++) {
        char url[64];
        snprintf(url, sizeof url, "https://cdn.example.com/vr%d.ogg", i + 1);
        char *next = replace_all(text, url, recordings[i]);
        free(text);
        text = next;
    }
    return text;
}

static void play_messages_with_scope(const char *json, int scope, const char *const *expected_chain, int length) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    EXPECT_STATUS(VN_OK, vn_player_use_messages(player, json, strlen(json), "C", scope));
    EXPECT_STATUS(VN_OK, vn_player_load(player, recordings[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.finished == length && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "scope %d: %d FINISHED then STOPPED did not come within %d ms", scope, length, WAIT_MS);
    fence(player);
    want expected[2 * 3];
    for (int i = 0; i < length; i++) {
        expected[2 * i] = (want)CHANGED(expected_chain[i]);
        expected[2 * i + 1] = (want)FINISHED(expected_chain[i]);
    }
    expect_items(expected, 2 * length, scope == VN_NEXT_CONSECUTIVE ? "consecutive" : "subsequent from user");
    vn_player_destroy(player);
}

static void test_messages_play_what_the_scope_names(void) {
    char *json = fixture_messages();
    if (json == NULL) return;
    const int scopes[] = {VN_NEXT_SUBSEQUENT_FROM_USER, VN_NEXT_CONSECUTIVE};
    for (int s = 0; s < 2; s++) {
        /* What vn_find_next_item says, item after item, is what the player plays. */
        const char *chain[3] = {recordings[0]};
        int length = 1, known = 0;
        while (known >= 0) {
            char *next = NULL;
            EXPECT_STATUS(VN_OK, vn_find_next_item(json, strlen(json), chain[length - 1], "C", scopes[s], &next));
            if (next == NULL) break;
            known = -1;
            for (int i = 0; i < 3; i++) known = !strcmp(next, recordings[i]) ? i : known;
            EXPECT(known >= 0 && length < 3, "vn_find_next_item named %s after %d items", next, length);
            vn_free(next);
            if (known >= 0 && length < 3) chain[length++] = recordings[known];
            else known = -1;
        }
        if (scopes[s] == VN_NEXT_SUBSEQUENT_FROM_USER)
            EXPECT(length == 3 && chain[1] == recordings[1] && chain[2] == recordings[2], "vr1 → vr2 → vr3 expected");
        EXPECT(length >= 2, "scope %d: nothing follows vr1", scopes[s]);
        play_messages_with_scope(json, scopes[s], chain, length);
    }
    free(json);
}

static void test_use_messages_refusals_keep_the_data_source(void) {
    static const char valid[] = "[]", invalid[] = "{\"messages\": [";
    EXPECT_STATUS(VN_E_MISUSE, vn_player_use_messages(NULL, valid, strlen(valid), NULL, VN_NEXT_CONSECUTIVE));
    vn_player *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_create(NULL, &player));
    static list_source list;
    list_init(&list, notes[0], notes[1], NULL);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_use_messages(player, valid, strlen(valid), NULL, 3));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_use_messages(player, valid, strlen(valid), NULL, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_use_messages(player, NULL, 0, NULL, VN_NEXT_CONSECUTIVE));
    EXPECT_STATUS(VN_E_FORMAT, vn_player_use_messages(player, invalid, strlen(invalid), NULL, VN_NEXT_CONSECUTIVE));
    EXPECT_STATUS(VN_E_FORMAT, vn_player_use_messages(player, "{\"messages\": 7}", 15, "me", VN_NEXT_SAME_MESSAGE));
    EXPECT(atomic_load(&list.released) == 0, "a refused use_messages dropped the data source set before");
    EXPECT_STATUS(VN_OK, vn_player_use_messages(player, valid, strlen(valid), "me", VN_NEXT_SAME_MESSAGE));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&list.released) == 1, WAIT_MS);
    EXPECT(ok, "use_messages did not release the hook it replaced (release ran %d times)", atomic_load(&list.released));
    vn_player_destroy(player);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_use_messages(player, valid, strlen(valid), NULL, VN_NEXT_CONSECUTIVE));
    EXPECT(atomic_load(&list.released) == 1, "release ran %d times", atomic_load(&list.released));
    EXPECT(atomic_load(&list.calls) == 0, "the data source was asked %d times", atomic_load(&list.calls));
}

/* [{"id": "m<i>", "user": {"id": "friend"}, "attachments": [{"type": "voiceRecording", "asset_url": PATH}]}, ...] */
static void messages_json(char *out, size_t capacity, const char *const *paths, int count) {
    size_t length = (size_t)snprintf(out, capacity, "[");
    for (int i = 0; i < count && length < capacity; i++)
        length += (size_t)snprintf(out + length, capacity - length,
                                   "%s{\"id\": \"m%d\", \"user\": {\"id\": \"friend\"}, \"attachments\": "
                                   "[{\"type\": \"voiceRecording\", \"asset_url\": \"%s\"}]}",
                                   i ? ", " : "", i, paths[i]);
    if (length < capacity) snprintf(out + length, capacity - length, "]");
}

static void test_replacing_messages_while_playing_changes_what_follows(void) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    char json[2048];
    const char *before[] = {long_note, notes[0]}, *after[] = {long_note, notes[2], notes[1]};
    messages_json(json, sizeof json, before, 2);
    EXPECT_STATUS(VN_OK, vn_player_use_messages(player, json, strlen(json), "me", VN_NEXT_CONSECUTIVE));
    EXPECT_STATUS(VN_OK, vn_player_set_rate(player, 0.5));
    EXPECT_STATUS(VN_OK, vn_player_load(player, long_note, 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, !strcmp(seen.playing, long_note), WAIT_MS);
    EXPECT(ok, "the long note did not play within %d ms", WAIT_MS);
    messages_json(json, sizeof json, after, 3);
    EXPECT_STATUS(VN_OK, vn_player_use_messages(player, json, strlen(json), "me", VN_NEXT_CONSECUTIVE));
    EXPECT_STATUS(VN_OK, vn_player_next(player));
    WAIT_UNTIL(ok, seen.finished == 2 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "two FINISHED then STOPPED did not come within %d ms", WAIT_MS);
    fence(player);
    const want expected[] = {CHANGED(long_note), CHANGED(notes[2]), FINISHED(notes[2]), CHANGED(notes[1]),
                             FINISHED(notes[1])};
    expect_items(expected, 5, "replaced messages");
    vn_player_destroy(player);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* vn_player_next */

static void test_next_refuses_without_source_or_item(void) {
    EXPECT_STATUS(VN_E_MISUSE, vn_player_next(NULL));
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    EXPECT_STATUS(VN_E_MISUSE, vn_player_next(player)); /* no data source */
    static list_source list;
    list_init(&list, notes[0], notes[1], NULL);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_next(player)); /* nothing loaded */
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, NULL, NULL, NULL));
    EXPECT(atomic_load(&list.released) == 1, "unset: release ran %d times", atomic_load(&list.released));
    vn_player_destroy(player);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_next(player)); /* destroyed */
    EXPECT(atomic_load(&list.calls) == 0, "the data source was asked %d times", atomic_load(&list.calls));
}

static void test_next_skips_a_paused_item_and_stops_at_the_end(void) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    static list_source list;
    list_init(&list, long_note, notes[0], NULL);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, long_note, 0, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.state == VN_PLAYER_PAUSED && !strcmp(seen.paused, long_note), WAIT_MS);
    EXPECT(ok, "the long note did not load paused within %d ms", WAIT_MS);
    EXPECT_STATUS(VN_OK, vn_player_next(player));
    WAIT_UNTIL(ok, seen.finished == 1 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "the next note did not play to its end within %d ms", WAIT_MS);
    const want expected[] = {CHANGED(long_note), CHANGED(notes[0]), FINISHED(notes[0])};
    expect_items(expected, 3, "next while paused");

    /* At the end of the list, next asks again and, with no answer, the player stays stopped. */
    int calls = atomic_load(&list.calls);
    EXPECT_STATUS(VN_OK, vn_player_next(player));
    WAIT_UNTIL(ok, atomic_load(&list.calls) > calls, WAIT_MS);
    EXPECT(ok, "next at the end did not ask the data source");
    fence(player);
    expect_items(expected, 3, "next at the end");
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_STOPPED, "state %d after next at the end", context.state);
    vn_player_destroy(player);
}

static void test_next_skips_a_playing_item_now(void) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    static list_source list;
    list_init(&list, long_note, notes[0], NULL);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_set_rate(player, 0.5)); /* 600 s at 0.5x: seconds even on the unpaced speaker */
    EXPECT_STATUS(VN_OK, vn_player_load(player, long_note, 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, !strcmp(seen.playing, long_note) && seen.playing_time_s >= 2, WAIT_MS);
    EXPECT(ok, "the long note did not play 2 s within %d ms", WAIT_MS);
    EXPECT_STATUS(VN_OK, vn_player_next(player));
    WAIT_UNTIL(ok, seen.finished == 1 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "the next note did not play to its end within %d ms", WAIT_MS);
    const want expected[] = {CHANGED(long_note), CHANGED(notes[0]), FINISHED(notes[0])};
    expect_items(expected, 3, "next while playing");

    /* The long note's position was kept: loaded again, it is paused where it was left. */
    EXPECT_STATUS(VN_OK, vn_player_load(player, long_note, 0, -1));
    WAIT_UNTIL(ok, seen.state == VN_PLAYER_PAUSED && !strcmp(seen.paused, long_note), WAIT_MS);
    EXPECT(ok, "the long note did not load again paused within %d ms", WAIT_MS);
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.current_time_s >= 2 && context.current_time_s < LONG_SECONDS - 10, "resumed at %g s",
           context.current_time_s);
    vn_player_destroy(player);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Hooks that call into the player */

static void list_calling_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    list_source *list = user_data;
    vn_player *player = atomic_load(&list->player);
    vn_player_context context = {.size = sizeof context};
    if (vn_player_get_context(player, &context) != VN_OK) atomic_fetch_add(&list->hook_failures, 1);
    if (vn_player_set_rate(player, 1.5) != VN_OK) atomic_fetch_add(&list->hook_failures, 1);
    list_next(user_data, location, key, answer);
}

static void test_hook_calls_into_its_player(void) {
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    static list_source list;
    list_init(&list, notes[0], notes[1], notes[2]);
    atomic_store(&list.player, player);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_calling_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.finished == 3 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "three FINISHED then STOPPED did not come within %d ms (finished %d)", WAIT_MS, seen.finished);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(notes[1]), FINISHED(notes[1]),
                             CHANGED(notes[2]), FINISHED(notes[2])};
    expect_items(expected, 6, "hook calling into the player");
    EXPECT(atomic_load(&list.hook_failures) == 0, "%d calls from the hook failed", atomic_load(&list.hook_failures));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.rate == 1.5, "the rate the hook set is %g", context.rate);
    vn_player_destroy(player);
    EXPECT(atomic_load(&list.released) == 1, "release ran %d times", atomic_load(&list.released));
}

/* Destroys its own player when asked about notes[1], and still answers notes[2]. */
typedef struct {
    _Atomic(vn_player *) player;
    atomic_int destroyed, calls_after, released;
} destroying_source;

static void destroying_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    (void)location;
    destroying_source *source = user_data;
    if (atomic_load(&source->destroyed)) atomic_fetch_add(&source->calls_after, 1);
    if (!strcmp(key, notes[1])) {
        vn_player *player = atomic_exchange(&source->player, NULL);
        if (player != NULL) {
            vn_player_destroy(player);
            atomic_store(&source->destroyed, 1);
        }
        vn_queue_answer_set_location(answer, notes[2]); /* the player is gone: whatever it returns, nothing plays */
    } else if (!strcmp(key, notes[0])) {
        EXPECT_STATUS(VN_OK, vn_queue_answer_set_location(answer, notes[1]));
    }
    notify();
}

static void destroying_release(void *user_data) {
    destroying_source *source = user_data;
    atomic_fetch_add(&source->released, 1);
    notify();
}

static atomic_int events_after_destroy;
static destroying_source destroying;
static void watching_event(void *user_data, const vn_player_event *event) {
    if (atomic_load(&destroying.destroyed)) atomic_fetch_add(&events_after_destroy, 1);
    on_event(user_data, event);
}

static void test_hook_destroys_its_player(void) {
    seen_reset();
    vn_player *player = speaker_player("/dev/null");
    if (player == NULL) return;
    memset(&destroying, 0, sizeof destroying);
    atomic_store(&events_after_destroy, 0);
    atomic_store(&destroying.player, player);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, watching_event, NULL, on_released, NULL));
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, destroying_next, &destroying, destroying_release));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&destroying.destroyed) && atomic_load(&destroying.released) == 1 && seen.released == 1,
               WAIT_MS);
    EXPECT(ok, "no return from the destroy in the hook, or no release within %d ms (destroyed %d, released %d, "
               "subscription released %d)", WAIT_MS, atomic_load(&destroying.destroyed),
           atomic_load(&destroying.released), seen.released);
    EXPECT(atomic_load(&destroying.calls_after) == 0, "%d hook calls after the destroy", atomic_load(&destroying.calls_after));
    EXPECT(atomic_load(&events_after_destroy) == 0, "%d events after the destroy", atomic_load(&events_after_destroy));
    pthread_mutex_lock(&harness_sync.mutex);
    for (int i = 0; i < seen.count; i++)
        EXPECT(strcmp(seen.items[i].text, notes[2]) != 0, "%s came for the answer of a destroyed player",
               type_name(seen.items[i].type));
    pthread_mutex_unlock(&harness_sync.mutex);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_next(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_data_source(player, NULL, NULL, NULL));
    EXPECT(atomic_load(&destroying.released) == 1, "release ran %d times", atomic_load(&destroying.released));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* release, and the answer's setters */

static void silent_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    (void)user_data, (void)location, (void)key, (void)answer;
}

static void test_release_runs_once(void) {
    static atomic_int replaced, unset, ignored, destroyed, refused, refused_destroyed, refused_null;
    atomic_int *all[] = {&replaced, &unset, &ignored, &destroyed, &refused, &refused_destroyed, &refused_null};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) atomic_store(all[i], 0);
    vn_player *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_create(NULL, &player));

    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, silent_next, &replaced, counting_release));
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, silent_next, &unset, counting_release));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&replaced) == 1, WAIT_MS);
    EXPECT(ok && atomic_load(&unset) == 0, "replace: release ran %d and %d times", atomic_load(&replaced), atomic_load(&unset));
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, NULL, &ignored, counting_release)); /* `release` ignored */
    WAIT_UNTIL(ok, atomic_load(&unset) == 1, WAIT_MS);
    EXPECT(ok, "unset: release ran %d times", atomic_load(&unset));
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, NULL, NULL, NULL)); /* unset again: nothing to release */
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, silent_next, &destroyed, counting_release));
    vn_player_destroy(player);
    WAIT_UNTIL(ok, atomic_load(&destroyed) == 1, WAIT_MS);
    EXPECT(ok, "destroy: release ran %d times", atomic_load(&destroyed));

    /* A failed set releases at once, on the calling thread. */
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_data_source(NULL, silent_next, &refused, counting_release));
    EXPECT(atomic_load(&refused) == 1, "NULL player: release ran %d times", atomic_load(&refused));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_data_source(player, silent_next, &refused_destroyed, counting_release));
    EXPECT(atomic_load(&refused_destroyed) == 1, "destroyed player: release ran %d times", atomic_load(&refused_destroyed));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_data_source(NULL, NULL, &refused_null, counting_release));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_data_source(NULL, silent_next, NULL, NULL));

    /* Exactly once each, and never for a NULL hook. */
    EXPECT(atomic_load(&replaced) == 1 && atomic_load(&unset) == 1 && atomic_load(&destroyed) == 1,
           "release ran again: %d %d %d", atomic_load(&replaced), atomic_load(&unset), atomic_load(&destroyed));
    EXPECT(atomic_load(&ignored) == 0 && atomic_load(&refused_null) == 0, "a release given with a NULL hook ran");
}

#define URL_KEY "message-7/0"
static _Atomic(vn_queue_answer *) kept_answer;
static atomic_int asked_about_url, url_location_ok;

/* After notes[0]: tries refused answers, then answers an http URL (nothing listens there) with a key. */
static void probing_next(void *user_data, const char *location, const char *key, vn_queue_answer *answer) {
    (void)user_data;
    atomic_store(&kept_answer, answer);
    if (!strcmp(key, URL_KEY)) {
        atomic_store(&url_location_ok, !strcmp(location, "http://127.0.0.1:1/note.ogg"));
        atomic_fetch_add(&asked_about_url, 1);
        notify();
        return;
    }
    if (strcmp(key, notes[0]) != 0) return;
    vn_http_options *options = NULL, *destroyed = NULL;
    EXPECT_STATUS(VN_OK, vn_http_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_http_options_add_header(options, "Authorization", "Bearer tok"));
    EXPECT_STATUS(VN_OK, vn_http_options_create(&destroyed));
    vn_http_options_destroy(destroyed);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_location(answer, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_location(answer, ""));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_url(answer, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_url(answer, "ftp://example.org/note.ogg", NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_url(answer, "not a url", NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_url(answer, notes[1], NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_queue_answer_set_url(answer, "http://127.0.0.1:1/note.ogg", options, ""));
    EXPECT_STATUS(VN_E_MISUSE, vn_queue_answer_set_url(answer, "http://127.0.0.1:1/note.ogg", destroyed, NULL));
    EXPECT_STATUS(VN_OK, vn_queue_answer_set_location(answer, notes[1])); /* replaced by the answer below */
    EXPECT_STATUS(VN_OK, vn_queue_answer_set_url(answer, "http://127.0.0.1:1/note.ogg", options, URL_KEY));
    vn_http_options_destroy(options); /* copied */
}

static void test_answer_setters(void) {
    EXPECT_STATUS(VN_E_MISUSE, vn_queue_answer_set_location(NULL, notes[0]));
    EXPECT_STATUS(VN_E_MISUSE, vn_queue_answer_set_url(NULL, "http://127.0.0.1:1/note.ogg", NULL, NULL));
    vn_player *player = queue_player("/dev/null");
    if (player == NULL) return;
    atomic_store(&kept_answer, NULL);
    atomic_store(&asked_about_url, 0);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, probing_next, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.failed == 1 && seen.state == VN_PLAYER_NOT_LOADED && atomic_load(&asked_about_url) >= 1, WAIT_MS);
    EXPECT(ok, "the URL answer did not fail to load within %d ms (failed %d, state %d)", WAIT_MS, seen.failed, seen.state);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(URL_KEY), FAILED(VN_E_NETWORK)};
    expect_items(expected, 4, "URL answer");
    pthread_mutex_lock(&harness_sync.mutex);
    EXPECT(seen.count > 2 && !strcmp(seen.items[2].where, "http://127.0.0.1:1/note.ogg"), "ITEM_CHANGED named %s",
           seen.count > 2 ? seen.items[2].where : "nothing");
    pthread_mutex_unlock(&harness_sync.mutex);
    EXPECT(atomic_load(&url_location_ok), "the hook was not given the URL as the location");

    /* The answer of a call that returned is no answer any more. */
    vn_queue_answer *answer = atomic_load(&kept_answer);
    EXPECT(answer != NULL, "the hook kept no answer");
    EXPECT_STATUS(VN_E_MISUSE, vn_queue_answer_set_location(answer, notes[1]));
    EXPECT_STATUS(VN_E_MISUSE, vn_queue_answer_set_url(answer, "http://127.0.0.1:1/other.ogg", NULL, NULL));
    vn_player_destroy(player);
}

/* ------------------------------------------------------------------------------------------------------------ */

/* The tones, the fixture's recordings, and the long note (opusenc at its lowest complexity: a few seconds). */
static int setup(void) {
    char wav[320];
    for (int i = 0; i < 3; i++) {
        snprintf(notes[i], sizeof notes[i], "%s/note%d.wav", directory, i);
        snprintf(recordings[i], sizeof recordings[i], "%s/vr%d.wav", directory, i + 1);
        if (!write_tone(notes[i], NOTE_SECONDS) || !write_tone(recordings[i], 0.2)) return 0;
    }
    snprintf(missing, sizeof missing, "%s/missing.ogg", directory);
    snprintf(missing_too, sizeof missing_too, "%s/missing-too.ogg", directory);
    snprintf(wav, sizeof wav, "%s/long.wav", directory);
    snprintf(long_note, sizeof long_note, "%s/long.ogg", directory);
    if (!write_tone(wav, LONG_SECONDS)) return 0;
    char *argv[] = {"opusenc", "--quiet", "--comp", "0", "--bitrate", "12", wav, long_note, NULL};
    int to_child = -1, from_child = -1;
    pid_t pid = spawn(argv, &to_child, &from_child);
    if (pid < 0) return 0;
    close(to_child);
    int status = finish_child(pid, -1, from_child, ENCODE_MS);
    unlink(wav);
    return status == 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* What was heard */

static void test_play_unplayed_passes_over_listened_notes(void) {
    int listened = -1;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_listened(NULL, NULL, &listened));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_listened(notes[0], "", &listened));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_listened(notes[0], NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_listened_set(NULL, NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_skip_listened(NULL, 1));
    EXPECT_STATUS(VN_OK, vn_listened_clear());
    for (int i = 0; i < 3; i++) {
        EXPECT_STATUS(VN_OK, vn_listened(notes[i], NULL, &listened));
        EXPECT(listened == 0, "note %d listened before it was heard", i);
    }
    EXPECT_STATUS(VN_OK, vn_listened_set(notes[1], NULL, 1));

    char output[320];
    snprintf(output, sizeof output, "%s/unplayed.raw", directory);
    vn_player *player = queue_player(output);
    if (player == NULL) return;
    static list_source list;
    list_init(&list, notes[0], notes[1], notes[2]);
    EXPECT_STATUS(VN_OK, vn_player_set_data_source(player, list_next, &list, list_release));
    EXPECT_STATUS(VN_OK, vn_player_set_skip_listened(player, 1));
    EXPECT_STATUS(VN_OK, vn_player_load(player, notes[0], 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, seen.finished == 2 && seen.state == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "two FINISHED then STOPPED did not come within %d ms", WAIT_MS);
    fence(player);
    const want expected[] = {CHANGED(notes[0]), FINISHED(notes[0]), CHANGED(notes[2]), FINISHED(notes[2])};
    expect_items(expected, 4, "play unplayed");
    pthread_mutex_lock(&harness_sync.mutex);
    EXPECT(seen.listened == 2 && seen.listened_before_finished == 2, "%d LISTENED, %d before their FINISHED",
           seen.listened, seen.listened_before_finished);
    EXPECT(!strcmp(seen.listened_keys[0], notes[0]) && !strcmp(seen.listened_keys[1], notes[2]),
           "LISTENED keys %s, %s", seen.listened_keys[0], seen.listened_keys[1]);
    pthread_mutex_unlock(&harness_sync.mutex);
    vn_player_destroy(player);
    for (int i = 0; i < 3; i++) {
        EXPECT_STATUS(VN_OK, vn_listened(notes[i], NULL, &listened));
        EXPECT(listened == 1, "note %d not listened after the queue", i);
    }
    EXPECT_STATUS(VN_OK, vn_listened_set(notes[2], NULL, 0)); /* mark as unplayed */
    EXPECT_STATUS(VN_OK, vn_listened(notes[2], NULL, &listened));
    EXPECT(listened == 0, "note 2 still listened after vn_listened_set(0)");
    unlink(output);
}

int main(void) {
    harness_init("queue");
    if (!temp_directory_create(directory, sizeof directory, "queue")) return 1;
    /* The stores (resume positions, listened notes) are this test's, never the user's. */
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", directory);
    setenv("XDG_CACHE_HOME", cache, 1);
    if (!fixture_setup(setup, directory, "WAV tones and an Opus note with opusenc")) return 1;
    TEST(test_three_notes_play_in_order);
    TEST(test_contexts_follow_their_item_changed);
    TEST(test_missing_file_goes_on_and_a_repeated_failure_ends);
    TEST(test_two_missing_files_answering_each_other);
    TEST(test_messages_play_what_the_scope_names);
    TEST(test_use_messages_refusals_keep_the_data_source);
    TEST(test_replacing_messages_while_playing_changes_what_follows);
    TEST(test_next_refuses_without_source_or_item);
    TEST(test_next_skips_a_paused_item_and_stops_at_the_end);
    TEST(test_next_skips_a_playing_item_now);
    TEST(test_hook_calls_into_its_player);
    TEST(test_hook_destroys_its_player);
    TEST(test_release_runs_once);
    TEST(test_answer_setters);
    TEST(test_play_unplayed_passes_over_listened_notes);
    temp_directory_remove(directory);
    return harness_finish();
}
