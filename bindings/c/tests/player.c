/*
 * player.c: the player's C API against real ALSA PCMs (voicenote.h, section "Player").
 *
 * - NULL and destroyed handles are VN_E_MISUSE; NULL out-parameters, NULL callbacks and hostile numbers (rates 0, 3,
 *   NaN, infinities; volumes -1, 2, NaN; seek NaN/inf; hints NaN/inf; a resume limit of SIZE_MAX; progress 0/NaN)
 *   are VN_E_INVALID_ARG and change nothing.
 * - A WAV tone written by this test plays through vn_player_load to a file speaker (ALSA's `file` plugin over
 *   `null`, given as configuration text, which writes every frame it is given and is not paced): the subscriber
 *   gets the current context first, FINISHED names the location, the state ends STOPPED, and the frames written are
 *   the tone's length (±2%).
 * - A missing file is a FAILED event with VN_E_NOT_FOUND and the state NOT_LOADED, the location kept.
 * - A memory source plays through vn_player_load_source; while the player holds it, vn_waveform_source,
 *   vn_audio_info_source and another player's load on it are VN_E_BUSY; loading another location gives it back.
 * - vn_player_destroy from inside the player's own callback returns, and the subscription is released.
 *
 * Every wait is bounded (WAIT_UNTIL) and waits for a condition.
 */
#define _XOPEN_SOURCE 700 /* nftw, in child.h */
#include "harness.h"
#include "child.h"

#include <float.h>
#include <math.h> /* NAN and INFINITY only: the tests link no libm */

#define RATE 48000
#define TONE_SECONDS 2.0
#define WAIT_MS 30000

static char directory[256];
static char tone_path[300];

/* The bytes of a whole file (malloc'ed; the caller frees), or NULL. */
static unsigned char *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = length > 0 ? malloc((size_t)length) : NULL;
    if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
        free(bytes);
        bytes = NULL;
    }
    fclose(file);
    *size = bytes ? (size_t)length : 0;
    return bytes;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* A subscriber that counts what it sees */

typedef struct {
    atomic_int events;
    atomic_int first_type, first_state;
    atomic_int contexts, finished, failed, failed_status;
    atomic_int last_state;
    atomic_int saw_playing, location_ok, context_location_ok;
    atomic_int released;
    const char *expected_location; /* set before subscribing */
} log_state;

static void log_init(log_state *log, const char *expected_location) {
    memset(log, 0, sizeof *log);
    atomic_store(&log->first_type, -1);
    atomic_store(&log->first_state, -1);
    atomic_store(&log->last_state, -1);
    log->expected_location = expected_location;
}

static void on_event(void *user_data, const vn_player_event *event) {
    log_state *log = user_data;
    if (atomic_fetch_add(&log->events, 1) == 0) {
        atomic_store(&log->first_type, event->type);
        atomic_store(&log->first_state, event->context.state);
    }
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT:
        atomic_fetch_add(&log->contexts, 1);
        atomic_store(&log->last_state, event->context.state);
        if (event->context.state == VN_PLAYER_PLAYING) {
            atomic_store(&log->saw_playing, 1);
            if (event->context.location != NULL && log->expected_location != NULL &&
                strcmp(event->context.location, log->expected_location) == 0)
                atomic_store(&log->context_location_ok, 1);
        }
        break;
    case VN_PLAYER_EVENT_FINISHED:
        if (event->location != NULL && log->expected_location != NULL &&
            strcmp(event->location, log->expected_location) == 0)
            atomic_store(&log->location_ok, 1);
        atomic_fetch_add(&log->finished, 1);
        break;
    case VN_PLAYER_EVENT_FAILED:
        atomic_store(&log->failed_status, event->status);
        EXPECT(event->message != NULL && event->message[0] != '\0', "a FAILED event without a message");
        atomic_fetch_add(&log->failed, 1);
        break;
    default:
        break;
    }
    notify();
}

static void on_release(void *user_data) {
    log_state *log = user_data;
    atomic_fetch_add(&log->released, 1);
    notify();
}

/* ------------------------------------------------------------------------------------------------------------ */

static atomic_int never_calls, never_releases;
static void never_event(void *user_data, const vn_player_event *event) {
    (void)user_data;
    (void)event;
    atomic_fetch_add(&never_calls, 1);
}
static void never_release(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&never_releases, 1);
}

static void expect_misuse_everywhere(vn_player *player) {
    vn_source *source = NULL;
    vn_subscription_id id = 99;
    vn_player_context context = {.size = sizeof context};
    char *location = (char *)"untouched";
    EXPECT_STATUS(VN_OK, vn_source_create_memory("x", 1, &source));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load(player, tone_path, 1, -1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load_source(player, source, 1, -1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_play(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_pause(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_stop(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_seek(player, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_rate(player, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_volume(player, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_skip_silence(player, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_subscribe(player, never_event, NULL, never_release, &id));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_get_context(player, &context));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_copy_location(player, &location));
    EXPECT(location == NULL, "copy_location left *out_location set after a failure");
    vn_source_destroy(source);
}

static void test_null_and_destroyed_handles(void) {
    expect_misuse_everywhere(NULL);

    vn_player_options *options = NULL;
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_device(NULL, "default", NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_event_loop(NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_focus_group(NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_session_hooks(NULL, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_progress_interval(NULL, 0.1));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_resume_limit(NULL, 1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_create(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_create(NULL, NULL));
    vn_player_options_destroy(NULL);
    vn_player_destroy(NULL);

    /* Destroyed options, and options of the recorder's type, are misuse. */
    EXPECT_STATUS(VN_OK, vn_player_options_create(&options));
    vn_player_options_destroy(options);
    vn_player *player = (vn_player *)&player;
    EXPECT_STATUS(VN_E_MISUSE, vn_player_create(options, &player));
    EXPECT(player == NULL, "*out is not NULL after a failed create");
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_progress_interval(options, 0.1));
    vn_recorder_options *recorder_options = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&recorder_options));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_create((const vn_player_options *)recorder_options, &player));
    vn_recorder_options_destroy(recorder_options);

    /* A live player with a NULL or destroyed source; then the destroyed player itself. */
    EXPECT_STATUS(VN_OK, vn_player_create(NULL, &player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load_source(player, NULL, 0, -1));
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory("x", 1, &source));
    vn_source_destroy(source);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load_source(player, source, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_subscribe(player, NULL, NULL, never_release, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_get_context(player, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_copy_location(player, NULL));
    char *location = NULL;
    EXPECT_STATUS(VN_OK, vn_player_copy_location(player, &location));
    EXPECT(location != NULL && location[0] == '\0', "the location of a new player is not \"\"");
    vn_free(location);
    vn_player_destroy(player);
    expect_misuse_everywhere(player);
    EXPECT(atomic_load(&never_calls) == 0 && atomic_load(&never_releases) == 0, "a failed subscribe called back");
}

static void expect_not_loaded(vn_player *player, const char *when) {
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_NOT_LOADED, "%s: state %d", when, context.state);
    EXPECT(context.rate == 1.0 && context.volume == 1.0, "%s: rate %g, volume %g", when, context.rate, context.volume);
}

static void test_hostile_numbers(void) {
    const double nan_value = NAN, inf = INFINITY;
    vn_player_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_player_options_create(&options));
    const double intervals[] = {0, -1, 0.0099, 10.001, nan_value, inf, -inf, DBL_MIN};
    for (size_t i = 0; i < sizeof intervals / sizeof intervals[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_progress_interval(options, intervals[i]));
    EXPECT_STATUS(VN_OK, vn_player_options_set_progress_interval(options, 0.01));
    EXPECT_STATUS(VN_OK, vn_player_options_set_progress_interval(options, 10));
    const size_t limits[] = {SIZE_MAX, SIZE_MAX / 2 + 1, SIZE_MAX / 2, 100001};
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_resume_limit(options, limits[i]));
    EXPECT_STATUS(VN_OK, vn_player_options_set_resume_limit(options, 0));
    EXPECT_STATUS(VN_OK, vn_player_options_set_resume_limit(options, 100000));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_device(options, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_device(options, "", NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_options_set_device(options, "\xff\xfe", NULL));

    vn_player *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_create(options, &player));
    vn_player_options_destroy(options);
    if (player == NULL) return;

    const double rates[] = {0, 3, 0.49, 2.51, -1, nan_value, inf, -inf};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_rate(player, rates[i]));
    const double volumes[] = {-1, 2, 1.0001, -0.0001, nan_value, inf, -inf};
    for (size_t i = 0; i < sizeof volumes / sizeof volumes[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_volume(player, volumes[i]));
    const double times[] = {nan_value, inf, -inf};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_seek(player, times[i]));
    const double hints[] = {nan_value, inf, -inf, 1000000.5, 1e300};
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load(player, tone_path, 0, hints[i]));
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory("x", 1, &source));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_source(player, source, 0, nan_value));
    /* The refused hint left the source free. */
    vn_audio_info info = {.size = sizeof info};
    int status = vn_audio_info_source(source, &info);
    EXPECT(status != VN_E_BUSY, "the source stayed held after a refused load");
    vn_source_destroy(source);

    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load(player, NULL, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load(player, "", 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load(player, "\xc3\x28.wav", 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load(player, "file://elsewhere/note.ogg", 0, -1));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_player_load(player, "gopher://example.org/note.ogg", 0, -1));
    expect_not_loaded(player, "after refused calls");

    /* Allowed in every state, and nothing loaded is misuse only for play and seek. */
    EXPECT_STATUS(VN_OK, vn_player_set_rate(player, 0.5));
    EXPECT_STATUS(VN_OK, vn_player_set_rate(player, 2.5));
    EXPECT_STATUS(VN_OK, vn_player_set_volume(player, 0));
    EXPECT_STATUS(VN_OK, vn_player_set_skip_silence(player, 7));
    EXPECT_STATUS(VN_OK, vn_player_pause(player));
    EXPECT_STATUS(VN_OK, vn_player_stop(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_play(player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_seek(player, 1));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.rate == 2.5 && context.volume == 0 && context.skip_silence == 1 && context.location == NULL,
           "settings not kept: rate %g volume %g skip %d", context.rate, context.volume, context.skip_silence);
    context.size = sizeof context - 1;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_get_context(player, &context));
    vn_player_destroy(player);
}

static void test_plays_a_file_to_its_end(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/file.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static log_state log;
    log_init(&log, tone_path);
    vn_subscription_id id = 0;
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, &id));
    EXPECT(id != 0, "no subscription id");
    EXPECT_STATUS(VN_OK, vn_player_load(player, tone_path, 1, 1.5));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&log.finished) == 1 && atomic_load(&log.last_state) == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "no FINISHED then STOPPED within %d ms (finished %d, failed %d: %s, last state %d)", WAIT_MS,
           atomic_load(&log.finished), atomic_load(&log.failed), vn_status_name(atomic_load(&log.failed_status)),
           atomic_load(&log.last_state));
    EXPECT(atomic_load(&log.first_type) == VN_PLAYER_EVENT_CONTEXT && atomic_load(&log.first_state) == VN_PLAYER_NOT_LOADED,
           "the first event is not the current context (type %d, state %d)", atomic_load(&log.first_type),
           atomic_load(&log.first_state));
    EXPECT(atomic_load(&log.saw_playing) && atomic_load(&log.context_location_ok), "no PLAYING context naming the file");
    EXPECT(atomic_load(&log.location_ok), "FINISHED does not name the location");
    EXPECT(atomic_load(&log.failed) == 0, "FAILED: %s", vn_status_name(atomic_load(&log.failed_status)));

    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_STOPPED && context.current_time_s == 0, "after the end: state %d at %g",
           context.state, context.current_time_s);
    EXPECT(distance(context.duration_s, TONE_SECONDS) < 0.01 && context.duration_is_estimate == 0,
           "duration %g (estimate %d), want %g", context.duration_s, context.duration_is_estimate, TONE_SECONDS);
    EXPECT(context.buffered_fraction == 1 && context.last_status == 0 && context.location == NULL,
           "buffered %g, last status %d", context.buffered_fraction, context.last_status);
    char *location = NULL;
    EXPECT_STATUS(VN_OK, vn_player_copy_location(player, &location));
    EXPECT(location != NULL && strcmp(location, tone_path) == 0, "copy_location gave %s", location ? location : "NULL");
    vn_free(location);

    vn_player_destroy(player); /* closes the device: the speaker's file is complete */
    EXPECT(atomic_load(&log.released) == 1, "release ran %d times", atomic_load(&log.released));
    EXPECT_STATUS(VN_E_MISUSE, vn_unsubscribe(id));
    long long frames = frames_written(output);
    double want = TONE_SECONDS * RATE;
    EXPECT(frames >= 0 && distance((double)frames, want) <= 0.02 * want, "the speaker got %lld frames, want %.0f ±2%%",
           frames, want);
    unlink(output);
}

static void test_missing_file_fails_with_not_found(void) {
    char output[320], missing[320];
    snprintf(output, sizeof output, "%s/missing.raw", directory);
    snprintf(missing, sizeof missing, "%s/no-such-note.ogg", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static log_state log;
    log_init(&log, missing);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load(player, missing, 1, 3));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&log.failed) == 1 && atomic_load(&log.last_state) == VN_PLAYER_NOT_LOADED, WAIT_MS);
    EXPECT(ok, "no FAILED then NOT_LOADED within %d ms", WAIT_MS);
    EXPECT_STATUS(VN_E_NOT_FOUND, atomic_load(&log.failed_status));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_NOT_LOADED && context.last_status == VN_E_NOT_FOUND && context.duration_s == 0,
           "state %d, last status %d, duration %g", context.state, context.last_status, context.duration_s);
    char *location = NULL;
    EXPECT_STATUS(VN_OK, vn_player_copy_location(player, &location));
    EXPECT(location != NULL && strcmp(location, missing) == 0, "the failed location was not kept");
    vn_free(location);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_play(player));
    vn_player_destroy(player);
    EXPECT(atomic_load(&log.finished) == 0 && frames_written(output) <= 0, "something played");
    unlink(output);
}

static void test_memory_source_is_held(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/memory.raw", directory);
    size_t size = 0;
    unsigned char *bytes = read_file(tone_path, &size);
    EXPECT(bytes != NULL, "cannot read %s", tone_path);
    if (bytes == NULL) return;
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, size, &source));
    free(bytes);

    vn_player *player = speaker_player(output);
    vn_player *other = NULL;
    EXPECT_STATUS(VN_OK, vn_player_create(NULL, &other));
    static log_state log;
    log_init(&log, "memory");
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load_source(player, source, 1, -1));

    /* Held: every other use of the source is refused, whatever the player is doing. */
    float values[100];
    size_t count = 0;
    vn_audio_info info = {.size = sizeof info};
    EXPECT_STATUS(VN_E_BUSY, vn_waveform_source(source, 100, values, 100, &count));
    EXPECT_STATUS(VN_E_BUSY, vn_audio_info_source(source, &info));
    EXPECT_STATUS(VN_E_BUSY, vn_player_load_source(other, source, 0, -1));
    /* Loading it again into the same player is the same location: allowed, and nothing restarts. */
    EXPECT_STATUS(VN_OK, vn_player_load_source(player, source, 0, -1));

    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&log.finished) == 1 && atomic_load(&log.last_state) == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "the memory source did not play to its end within %d ms (failed: %s)", WAIT_MS,
           vn_status_name(atomic_load(&log.failed_status)));
    EXPECT(atomic_load(&log.location_ok), "FINISHED does not name the source (\"memory\")");
    EXPECT_STATUS(VN_E_BUSY, vn_waveform_source(source, 100, values, 100, &count)); /* still held when stopped */

    /* Another location gives it back at once. */
    EXPECT_STATUS(VN_OK, vn_player_load(player, tone_path, 0, -1));
    EXPECT_STATUS(VN_OK, vn_waveform_source(source, 100, values, 100, &count));
    EXPECT(count == 100, "waveform of %zu values", count);
    EXPECT_STATUS(VN_OK, vn_audio_info_source(source, &info));
    EXPECT(distance(info.duration_s, TONE_SECONDS) < 0.01, "info duration %g", info.duration_s);

    /* The other player takes it now; destroying that player gives it back. */
    EXPECT_STATUS(VN_OK, vn_player_load_source(other, source, 0, -1));
    EXPECT_STATUS(VN_E_BUSY, vn_player_load_source(player, source, 0, -1));
    vn_player_destroy(other);
    EXPECT_STATUS(VN_OK, vn_audio_info_source(source, &info));

    vn_player_destroy(player);
    long long frames = frames_written(output);
    double want = TONE_SECONDS * RATE;
    EXPECT(frames >= 0 && distance((double)frames, want) <= 0.02 * want, "the speaker got %lld frames, want %.0f ±2%%",
           frames, want);
    vn_source_destroy(source);
    unlink(output);
}

static void test_source_handle_destroyed_at_once(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/orphan.raw", directory);
    size_t size = 0;
    unsigned char *bytes = read_file(tone_path, &size);
    if (!EXPECT(bytes != NULL, "cannot read %s", tone_path)) return;
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, size, &source));
    free(bytes);
    vn_player *player = speaker_player(output);
    static log_state log;
    log_init(&log, "memory");
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load_source(player, source, 1, 2));
    vn_source_destroy(source); /* the player keeps what it reads */
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&log.finished) == 1 && atomic_load(&log.last_state) == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "a source whose handle was destroyed did not play to its end (failed: %s)",
           vn_status_name(atomic_load(&log.failed_status)));
    vn_player_destroy(player);
    unlink(output);
}

/* Destroys the player from inside its own callback, once it plays. */
typedef struct {
    _Atomic(vn_player *) player;
    atomic_int destroyed, calls_after, released;
} self_destroy;

static void destroying_callback(void *user_data, const vn_player_event *event) {
    self_destroy *s = user_data;
    if (atomic_load(&s->destroyed)) atomic_fetch_add(&s->calls_after, 1);
    if (event->type == VN_PLAYER_EVENT_CONTEXT && event->context.state == VN_PLAYER_PLAYING) {
        vn_player *player = atomic_exchange(&s->player, NULL);
        if (player != NULL) {
            vn_player_destroy(player);
            atomic_store(&s->destroyed, 1);
        }
    }
    notify();
}

static void destroying_release(void *user_data) {
    self_destroy *s = user_data;
    atomic_fetch_add(&s->released, 1);
    notify();
}

static void test_destroy_inside_callback(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/destroy.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static self_destroy s;
    atomic_store(&s.player, player);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, destroying_callback, &s, destroying_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load(player, tone_path, 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&s.destroyed) == 1 && atomic_load(&s.released) == 1, WAIT_MS);
    EXPECT(ok, "the destroy inside the callback did not return, or release did not run (destroyed %d, released %d)",
           atomic_load(&s.destroyed), atomic_load(&s.released));
    EXPECT(atomic_load(&s.calls_after) == 0, "%d callbacks after the destroy", atomic_load(&s.calls_after));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_E_MISUSE, vn_player_get_context(player, &context));
    unlink(output);
}

/* A seek while the note is still loading (its bytes held back by the host's source) is not lost: once loaded, the
 * paused context is at 1 s, and playing gives the note from 1 s to its end. */
typedef struct {
    unsigned char *bytes;
    size_t size, position;
    atomic_int open, waiting;
} held_source;

static int64_t held_read(void *user_data, void *buffer, size_t capacity) {
    held_source *held = user_data;
    if (!atomic_load(&held->open)) {
        atomic_store(&held->waiting, 1);
        notify();
        int ok = 0;
        WAIT_UNTIL(ok, atomic_load(&held->open), WAIT_MS);
        if (!ok) return -1;
    }
    size_t count = held->size - held->position < capacity ? held->size - held->position : capacity;
    memcpy(buffer, held->bytes + held->position, count);
    held->position += count;
    return (int64_t)count;
}

static int held_seek(void *user_data, int64_t offset) {
    held_source *held = user_data;
    if (offset < 0 || (uint64_t)offset > held->size) return -1;
    held->position = (size_t)offset;
    return 0;
}

static void test_seek_while_loading_is_carried_out(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/seek-loading.raw", directory);
    static held_source held;
    memset(&held, 0, sizeof held);
    held.bytes = read_file(tone_path, &held.size);
    EXPECT(held.bytes != NULL, "cannot read %s", tone_path);
    if (held.bytes == NULL) return;
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_callbacks(held_read, held_seek, (int64_t)held.size, &held, NULL, &source));
    vn_player *player = speaker_player(output);
    static log_state log;
    log_init(&log, NULL);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load_source(player, source, 0, -1));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&held.waiting), WAIT_MS);
    EXPECT(ok, "the player never read the held source");
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_LOADING, "state %d while the bytes are held, want LOADING", context.state);
    EXPECT_STATUS(VN_OK, vn_player_seek(player, 1.0));
    atomic_store(&held.open, 1);
    notify();
    WAIT_UNTIL(ok, atomic_load(&log.last_state) == VN_PLAYER_PAUSED, WAIT_MS);
    EXPECT(ok, "no PAUSED context once loaded (last state %d)", atomic_load(&log.last_state));
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(distance(context.current_time_s, 1.0) < 0.001, "paused at %g s, want 1 s", context.current_time_s);
    EXPECT_STATUS(VN_OK, vn_player_play(player));
    WAIT_UNTIL(ok, atomic_load(&log.finished) == 1, WAIT_MS);
    EXPECT(ok, "no FINISHED within %d ms", WAIT_MS);
    vn_player_destroy(player);
    vn_source_destroy(source);
    long long frames = frames_written(output);
    EXPECT(frames == (long long)((TONE_SECONDS - 1.0) * RATE), "the speaker got %lld frames, want %.0f (from 1 s on)",
           frames, (TONE_SECONDS - 1.0) * RATE);
    free(held.bytes);
    unlink(output);
}

/* Listening that remembers: a player destroyed while paused leaves its position for the next player (the store is
 * under $XDG_CACHE_HOME, this test's own); vn_resume_positions_clear forgets it; a player told not to remember
 * leaves nothing. */
static void test_positions_are_remembered_across_players(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/remember.raw", directory);
    for (int remember = 1; remember >= 0; remember--) {
        vn_player_options *options = NULL;
        vn_player *player = NULL;
        char configuration[600];
        snprintf(configuration, sizeof configuration,
                 "pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw }", output);
        EXPECT_STATUS(VN_OK, vn_player_options_create(&options));
        EXPECT_STATUS(VN_OK, vn_player_options_set_device(options, "vn_spk", configuration));
        EXPECT_STATUS(VN_OK, vn_player_options_set_remember_positions(options, remember));
        EXPECT_STATUS(VN_OK, vn_player_options_set_return_to_interrupted(options, 1));
        EXPECT_STATUS(VN_OK, vn_player_create(options, &player));
        vn_player_options_destroy(options);
        if (player == NULL) return;
        static log_state log;
        log_init(&log, tone_path);
        EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &log, on_release, NULL));
        EXPECT_STATUS(VN_OK, vn_player_load(player, tone_path, 0, -1));
        int ok = 0;
        WAIT_UNTIL(ok, atomic_load(&log.last_state) == VN_PLAYER_PAUSED, WAIT_MS);
        EXPECT(ok, "not paused after the load");
        EXPECT_STATUS(VN_OK, vn_player_seek(player, 1.25));
        vn_player_destroy(player);
        double seconds = -1;
        EXPECT_STATUS(VN_OK, vn_resume_position(tone_path, NULL, &seconds));
        EXPECT(seconds == (remember ? 1.25 : 0), "remember %d: the position is %g", remember, seconds);
        EXPECT_STATUS(VN_OK, vn_resume_positions_clear());
        EXPECT_STATUS(VN_OK, vn_resume_position(tone_path, NULL, &seconds));
        EXPECT(seconds == 0, "after clear: %g", seconds);
    }
    double seconds = 0;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_resume_position(NULL, NULL, &seconds));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_resume_position(tone_path, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_resume_position("https://host/a.ogg", "", &seconds));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_resume_position("ftp://host/a.ogg", NULL, &seconds));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_options_set_remember_positions(NULL, 1));
}

int main(void) {
    harness_init("player");
    snprintf(directory, sizeof directory, "%s/vn-player-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(directory) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(tone_path, sizeof tone_path, "%s/tone.wav", directory);
    char cache[320];
    snprintf(cache, sizeof cache, "%s/cache", directory);
    setenv("XDG_CACHE_HOME", cache, 1); /* remembered positions go under this test's own directory */
    if (!write_tone(tone_path, TONE_SECONDS)) {
        perror(tone_path);
        return 1;
    }
    TEST(test_null_and_destroyed_handles);
    TEST(test_hostile_numbers);
    TEST(test_plays_a_file_to_its_end);
    TEST(test_missing_file_fails_with_not_found);
    TEST(test_memory_source_is_held);
    TEST(test_source_handle_destroyed_at_once);
    TEST(test_destroy_inside_callback);
    TEST(test_seek_while_loading_is_carried_out);
    TEST(test_positions_are_remembered_across_players);
    temp_directory_remove(directory); /* the tone and the remembered positions' store */
    return harness_finish();
}
