/*
 * remote.c: http(s) URLs and the media cache through the C API (voicenote.h, "Byte sources", "Media cache" and
 * vn_player_load_url), against Tests/Servers/http_server.py, which this test starts and stops itself.
 *
 * - A URL source over /range/ gives the same waveform and the same audio facts as the local file, and its complete
 *   download is kept in the cache.
 * - HTTP statuses from the waveform call: 404 and 410 are VN_E_NOT_FOUND, 401 and 403 VN_E_PERMISSION (also a
 *   bearer route asked without the header), 413 VN_E_TOO_LARGE, 500 VN_E_NETWORK; the message names "HTTP nnn".
 * - Argument checks: vn_source_create_url, vn_player_load_url (NULL or non-http URL, empty key, destroyed options,
 *   NULL player), vn_http_options_add_header, vn_cache_* (limits, NULL outs, the directory given back).
 * - vn_player_load_url with `Authorization: Bearer tok` and the key "message-1/0" plays an Ogg Opus note to
 *   FINISHED on a file speaker (all of its frames); every request the server logged for it carries the header.
 * - Destroying a player whose download stalls (/stall/) returns within 200 ms, and the server sees the client go.
 * - With the server stopped, another URL (`?sig=2`) under the same key plays to FINISHED from the cache; the cache
 *   holds bytes until vn_cache_clear, after which the same load fails with VN_E_NETWORK (no server).
 *
 * The note (a WAV tone encoded with opusenc) and the cache (vn_cache_set_directory) live in the test's own
 * temporary directory, so the user's cache is never touched. Needs python3 and opusenc on PATH; child.h starts
 * them and finds the server. Tests run in order: the cache replay uses what the header-and-key test downloaded.
 *
 * Every wait is bounded: WAIT_UNTIL for player events, poll() with a deadline for the server's pipes, POLL_UNTIL
 * for the server's request log and the cache size (files another process or thread writes, which nothing notifies).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "child.h"

#define RATE 48000
#define TONE_SECONDS 2.0
#define WAIT_MS 30000
#define LOG_WAIT_MS 5000
#define KEY "message-1/0"

static char directory[256]; /* the test's temporary directory, served as the server's root */
static char note_path[300], cache_path[300];
static test_server server;  /* its request log: <directory>/requests.jsonl */

/* ------------------------------------------------------------------------------------------------------------ */
/* The server's request log and the cache */

static int64_t cache_size(void) {
    int64_t size = -1;
    EXPECT_STATUS(VN_OK, vn_cache_get_size(&size));
    return size;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* A file speaker and a subscriber */

typedef struct {
    atomic_int finished, failed, failed_status, last_state, released;
    atomic_int location_ok;       /* FINISHED named expected_location */
    const char *expected_location; /* set before subscribing */
    char message[512];            /* the FAILED message; guarded by the harness monitor */
} playback;

static void playback_init(playback *p, const char *expected_location) {
    memset(p, 0, sizeof *p);
    atomic_store(&p->last_state, -1);
    p->expected_location = expected_location;
}

static void on_event(void *user_data, const vn_player_event *event) {
    playback *p = user_data;
    switch (event->type) {
    case VN_PLAYER_EVENT_CONTEXT:
        atomic_store(&p->last_state, event->context.state);
        break;
    case VN_PLAYER_EVENT_FINISHED:
        if (event->location != NULL && strcmp(event->location, p->expected_location) == 0)
            atomic_store(&p->location_ok, 1);
        atomic_fetch_add(&p->finished, 1);
        break;
    case VN_PLAYER_EVENT_FAILED:
        pthread_mutex_lock(&harness_sync.mutex);
        snprintf(p->message, sizeof p->message, "%s", event->message ? event->message : "(no message)");
        pthread_mutex_unlock(&harness_sync.mutex);
        atomic_store(&p->failed_status, event->status);
        atomic_fetch_add(&p->failed, 1);
        break;
    default:
        break;
    }
    notify();
}

static void on_release(void *user_data) {
    playback *p = user_data;
    atomic_fetch_add(&p->released, 1);
    notify();
}

/* Copies the FAILED message (or "") for a failure report. */
static const char *failure_text(playback *p) {
    static char text[512];
    pthread_mutex_lock(&harness_sync.mutex);
    snprintf(text, sizeof text, "%s", p->message);
    pthread_mutex_unlock(&harness_sync.mutex);
    return text;
}

/* Options carrying `Authorization: Bearer tok`. */
static vn_http_options *bearer_options(void) {
    vn_http_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_http_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_http_options_add_header(options, "Authorization", "Bearer tok"));
    return options;
}

/* Loads `url` under `key` on a fresh file speaker and waits for FINISHED then STOPPED; checks the speaker got the
 * whole note. `tag` names the speaker's file. */
static void play_url_to_end(const char *url, const char *key, const char *tag) {
    char output[320];
    snprintf(output, sizeof output, "%s/%s.raw", directory, tag);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static playback p;
    playback_init(&p, url);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &p, on_release, NULL));
    vn_http_options *options = bearer_options();
    EXPECT_STATUS(VN_OK, vn_player_load_url(player, url, options, key, 1, TONE_SECONDS));
    vn_http_options_destroy(options); /* the player copied them */
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&p.finished) == 1 && atomic_load(&p.last_state) == VN_PLAYER_STOPPED, WAIT_MS);
    EXPECT(ok, "%s: no FINISHED then STOPPED within %d ms (failed %d: %s: %s)", url, WAIT_MS, atomic_load(&p.failed),
           vn_status_name(atomic_load(&p.failed_status)), failure_text(&p));
    EXPECT(atomic_load(&p.location_ok), "%s: FINISHED does not name the URL", url);
    char *location = NULL;
    EXPECT_STATUS(VN_OK, vn_player_copy_location(player, &location));
    EXPECT(location != NULL && strcmp(location, url) == 0, "copy_location gave %s, want %s",
           location ? location : "NULL", url);
    vn_free(location);
    vn_player_destroy(player); /* closes the device: the speaker's file is complete */
    EXPECT(atomic_load(&p.released) == 1, "release ran %d times", atomic_load(&p.released));
    long long frames = frames_written(output);
    double want = TONE_SECONDS * RATE;
    EXPECT(frames >= 0 && distance((double)frames, want) <= 0.02 * want,
           "%s: the speaker got %lld frames, want %.0f ±2%%", url, frames, want);
    unlink(output);
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_url_source_matches_file(void) {
    enum { N = VN_WAVEFORM_DEFAULT_SAMPLES };
    float local[N], remote[N];
    size_t local_count = 0, remote_count = 0;
    EXPECT_STATUS(VN_OK, vn_waveform_file(note_path, N, local, N, &local_count));
    vn_audio_info local_info = {.size = sizeof local_info}, remote_info = {.size = sizeof remote_info};
    EXPECT_STATUS(VN_OK, vn_audio_info_file(note_path, &local_info));

    char url[128];
    snprintf(url, sizeof url, "%s/range/note.ogg", server.base_url);
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_url(url, NULL, &source));
    if (source == NULL) return;
    EXPECT_STATUS(VN_OK, vn_waveform_source(source, N, remote, N, &remote_count));
    EXPECT(local_count == N && remote_count == N, "counts %zu and %zu", local_count, remote_count);
    EXPECT(memcmp(local, remote, sizeof local) == 0, "the URL's waveform differs from the file's");
    EXPECT_STATUS(VN_OK, vn_audio_info_source(source, &remote_info)); /* read again from the start */
    vn_source_destroy(source);

    EXPECT(remote_info.duration_s == local_info.duration_s &&
               remote_info.duration_is_estimate == local_info.duration_is_estimate,
           "duration %g (estimate %d) from the URL, %g (estimate %d) from the file", remote_info.duration_s,
           remote_info.duration_is_estimate, local_info.duration_s, local_info.duration_is_estimate);
    EXPECT(remote_info.sample_rate == local_info.sample_rate && remote_info.channels == local_info.channels,
           "%d Hz %d ch from the URL, %d Hz %d ch from the file", remote_info.sample_rate, remote_info.channels,
           local_info.sample_rate, local_info.channels);
    EXPECT(remote_info.bitrate == local_info.bitrate, "bitrate %lld from the URL, %lld from the file",
           (long long)remote_info.bitrate, (long long)local_info.bitrate);
    EXPECT(strcmp(remote_info.codec, local_info.codec) == 0 && strcmp(local_info.codec, "opus") == 0,
           "codec %s from the URL, %s from the file", remote_info.codec, local_info.codec);
    EXPECT(distance(local_info.duration_s, TONE_SECONDS) < 0.01, "the note lasts %g s", local_info.duration_s);

    /* The complete download is kept; the server logged the request. */
    int ok = 0;
    POLL_UNTIL(ok, cache_size() > 0, 10, LOG_WAIT_MS);
    EXPECT(ok, "the cache is still empty after a complete download");
    POLL_UNTIL(ok, log_count(&server, "\"path\": \"/range/note.ogg\"", "\"method\": \"GET\"", NULL) >= 1, 10,
               LOG_WAIT_MS);
    EXPECT(ok, "the server logged no GET /range/note.ogg");
}

static void test_http_statuses(void) {
    static const struct {
        const char *path;
        int http, status;
    } cases[] = {
        {"/status/404", 404, VN_E_NOT_FOUND},  {"/status/410", 410, VN_E_NOT_FOUND},
        {"/status/401", 401, VN_E_PERMISSION}, {"/status/403", 403, VN_E_PERMISSION},
        {"/status/413", 413, VN_E_TOO_LARGE},  {"/status/500", 500, VN_E_NETWORK},
        {"/auth/tok/range/note.ogg", 401, VN_E_PERMISSION}, /* without the Authorization header */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char url[128], text[16], logged_path[128], logged_status[32];
        snprintf(url, sizeof url, "%s%s", server.base_url, cases[i].path);
        snprintf(text, sizeof text, "HTTP %d", cases[i].http);
        snprintf(logged_path, sizeof logged_path, "\"path\": \"%s\"", cases[i].path);
        snprintf(logged_status, sizeof logged_status, "\"status\": %d", cases[i].http);
        vn_source *source = NULL;
        EXPECT_STATUS(VN_OK, vn_source_create_url(url, NULL, &source));
        if (source == NULL) continue;
        float values[VN_WAVEFORM_DEFAULT_SAMPLES];
        size_t count = 0;
        int status = vn_waveform_source(source, VN_WAVEFORM_DEFAULT_SAMPLES, values, VN_WAVEFORM_DEFAULT_SAMPLES,
                                        &count);
        EXPECT(status == cases[i].status, "%s: %s, want %s (%s)", cases[i].path, vn_status_name(status),
               vn_status_name(cases[i].status), vn_last_error_message());
        EXPECT(strstr(vn_last_error_message(), text) != NULL, "%s: the message does not name %s: %s", cases[i].path,
               text, vn_last_error_message());
        vn_source_destroy(source);
        /* The server logged it (so later tests count from a settled log). */
        int ok = 0;
        POLL_UNTIL(ok, log_count(&server, logged_path, logged_status, NULL) >= 1, 10, LOG_WAIT_MS);
        EXPECT(ok, "the server logged no %s answered %d", cases[i].path, cases[i].http);
    }
}

static void test_argument_checks(void) {
    char url[128];
    snprintf(url, sizeof url, "%s/range/note.ogg", server.base_url);

    /* Sources. */
    vn_source *source = (vn_source *)&source;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_url(NULL, NULL, &source));
    EXPECT(source == NULL, "*out is not NULL after a failed create");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_url(url, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_url("gopher://example.org/note.ogg", NULL, &source));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_url("http://", NULL, &source));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_url("/tmp/note.ogg", NULL, &source));

    /* HTTP options. */
    vn_http_options *options = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_create(NULL));
    EXPECT_STATUS(VN_OK, vn_http_options_create(&options));
    EXPECT_STATUS(VN_E_MISUSE, vn_http_options_add_header(NULL, "Authorization", "Bearer tok"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, NULL, "x"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, "", "x"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, "Bad Name", "x"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, "Bad:Name", "x"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, "X-Test", NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_http_options_add_header(options, "X-Test", "a\r\nInjected: yes"));
    EXPECT_STATUS(VN_OK, vn_http_options_add_header(options, "X-Test", "fine"));

    /* vn_player_load_url. */
    vn_player *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_create(NULL, &player));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load_url(NULL, url, options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, NULL, options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, "", options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, "gopher://example.org/note.ogg", options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, "file:///tmp/note.ogg", options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, url, options, "", 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, url, options, "\xff\xfe", 0, -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_url(player, url, options, KEY, 0, 1e300));
    vn_http_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_player_load_url(player, url, options, KEY, 0, -1));
    EXPECT_STATUS(VN_E_MISUSE, vn_http_options_add_header(options, "X-Test", "after destroy"));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.state == VN_PLAYER_NOT_LOADED, "a refused load changed the state to %d", context.state);
    vn_player_destroy(player);

    /* The cache's settings. */
    int64_t limit = -1, again = -1;
    EXPECT_STATUS(VN_OK, vn_cache_get_limit(&limit));
    EXPECT(limit > 0, "the default limit is %lld", (long long)limit);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_set_limit(-1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_set_limit(INT64_MIN));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_set_limit(1000000000001LL));
    EXPECT_STATUS(VN_OK, vn_cache_get_limit(&again));
    EXPECT(again == limit, "a refused limit changed it from %lld to %lld", (long long)limit, (long long)again);
    EXPECT_STATUS(VN_OK, vn_cache_set_limit(1000000000000LL));
    EXPECT_STATUS(VN_OK, vn_cache_get_limit(&again));
    EXPECT(again == 1000000000000LL, "the limit is %lld after setting 10^12", (long long)again);
    EXPECT_STATUS(VN_OK, vn_cache_set_limit(limit));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_get_limit(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_get_size(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_get_directory(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_set_directory(""));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_cache_set_directory("\xc3\x28"));
    char *path = NULL;
    EXPECT_STATUS(VN_OK, vn_cache_get_directory(&path));
    EXPECT(path != NULL && strcmp(path, cache_path) == 0, "the cache directory is %s, want %s", path ? path : "NULL",
           cache_path);
    vn_free(path);
    EXPECT_STATUS(VN_OK, vn_cache_set_directory(cache_path)); /* whatever a refused call above did */
}

static void test_player_with_header_and_key(void) {
    char url[128];
    snprintf(url, sizeof url, "%s/auth/tok/range/note.ogg", server.base_url);
    const char *path = "\"path\": \"/auth/tok/range/note.ogg\"", *header = "\"authorization\": \"Bearer tok\"";
    /* test_http_statuses asked this path without the header once (401): count from here. */
    int all_before = log_count(&server, path, NULL);
    int refused_before = log_count(&server, path, "\"status\": 401", NULL);
    int64_t before = cache_size();
    play_url_to_end(url, KEY, "bearer");

    int ok = 0;
    POLL_UNTIL(ok, cache_size() > before, 10, LOG_WAIT_MS);
    EXPECT(ok, "the played download was not kept (cache size %lld, %lld before)", (long long)cache_size(),
           (long long)before);
    /* The server writes a request's line when its response ends. */
    POLL_UNTIL(ok, log_count(&server, path, header, "\"completed\": true", NULL) >= 1, 10, LOG_WAIT_MS);
    EXPECT(ok, "the server logged no completed request with %s", header);
    int all = log_count(&server, path, NULL) - all_before, with_header = log_count(&server, path, header, NULL);
    EXPECT(all == with_header, "%d of %d requests lacked the header", all - with_header, all);
    EXPECT(log_count(&server, path, "\"status\": 401", NULL) == refused_before, "a request was refused with 401");
}

/* The offset of the note's fourth Ogg page: the headers (two pages) and the first audio page come before it. */
static long first_audio_page_end(void) {
    FILE *file = fopen(note_path, "rb");
    if (file == NULL) return -1;
    long offset = 0, found = -1;
    int pages = 0, matched = 0, c;
    while (found < 0 && (c = fgetc(file)) != EOF) {
        matched = c == "OggS"[matched] ? matched + 1 : (c == 'O' ? 1 : 0);
        if (matched == 4 && ++pages == 4) found = offset - 3;
        if (matched == 4) matched = 0;
        offset++;
    }
    fclose(file);
    return found;
}

static void test_destroy_while_stalled(void) {
    char url[128], output[320];
    /* The headers and the first audio page (about 1 s), then silence: the note starts playing, and the unpaced
     * speaker takes what arrived at once, so the decoder is then waiting for bytes that never come. */
    long stall_after = first_audio_page_end();
    EXPECT(stall_after > 0, "the note has no second audio page");
    if (stall_after <= 0) return;
    snprintf(url, sizeof url, "%s/stall/%ld/note.ogg", server.base_url, stall_after);
    snprintf(output, sizeof output, "%s/stall.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static playback p;
    playback_init(&p, url);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &p, on_release, NULL));
    EXPECT_STATUS(VN_OK, vn_player_load_url(player, url, NULL, NULL, 1, -1));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&p.last_state) == VN_PLAYER_PLAYING, WAIT_MS);
    EXPECT(ok, "the player did not start playing what arrived (state %d)", atomic_load(&p.last_state));
    EXPECT(atomic_load(&p.finished) == 0 && atomic_load(&p.failed) == 0, "a stalled load ended (failed: %s: %s)",
           vn_status_name(atomic_load(&p.failed_status)), failure_text(&p));

    long long start = harness_now_ms();
    vn_player_destroy(player);
    long long took = harness_now_ms() - start;
    EXPECT(took < 200, "vn_player_destroy took %lld ms with a stalled download (want < 200)", took);
    EXPECT(atomic_load(&p.released) == 1, "release ran %d times", atomic_load(&p.released));
    /* The library left the connection: the server's stalled response ended (logged, not completed). */
    char logged[96];
    snprintf(logged, sizeof logged, "\"path\": \"/stall/%ld/note.ogg\"", stall_after);
    POLL_UNTIL(ok, log_count(&server, logged, "\"completed\": false", NULL) >= 1, 10, LOG_WAIT_MS);
    EXPECT(ok, "the server still holds the stalled response %d ms after the destroy", LOG_WAIT_MS);
    unlink(output);
}

/* A waveform read on another thread from a download that stalls after its first audio page. */
typedef struct stalled_read {
    vn_source *source;
    atomic_int started, status, done;
} stalled_read;

static void *read_stalled(void *argument) {
    stalled_read *read = argument;
    float values[VN_WAVEFORM_DEFAULT_SAMPLES];
    size_t count = 0;
    atomic_store(&read->started, 1);
    notify();
    atomic_store(&read->status, vn_waveform_source(read->source, VN_WAVEFORM_DEFAULT_SAMPLES, values,
                                                    VN_WAVEFORM_DEFAULT_SAMPLES, &count));
    atomic_store(&read->done, 1);
    notify();
    return NULL;
}

static void test_cancel_ends_a_call_waiting_for_the_network(void) {
    long stall_after = first_audio_page_end();
    EXPECT(stall_after > 0, "the note has no second audio page");
    if (stall_after <= 0) return;
    char url[128];
    snprintf(url, sizeof url, "%s/stall/%ld/note.ogg", server.base_url, stall_after);
    static stalled_read read;
    atomic_store(&read.started, 0);
    atomic_store(&read.done, 0);
    EXPECT_STATUS(VN_OK, vn_source_create_url(url, NULL, &read.source));
    if (read.source == NULL) return;
    pthread_t thread;
    EXPECT(pthread_create(&thread, NULL, read_stalled, &read) == 0, "pthread_create");
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&read.started), WAIT_MS);
    /* The server has sent the first audio page and holds the connection silent: the decoder, which needs the next
     * page, waits on the network. */
    char logged[96];
    snprintf(logged, sizeof logged, "\"path\": \"/stall/%ld/note.ogg\"", stall_after);
    POLL_UNTIL(ok, server_receiving(&server, logged, "\"stalling\": true", NULL), 10, WAIT_MS);
    EXPECT(ok, "the server never held the response silent");
    long long start = harness_now_ms();
    EXPECT_STATUS(VN_OK, vn_source_cancel(read.source));
    WAIT_UNTIL(ok, atomic_load(&read.done), WAIT_MS);
    long long took = harness_now_ms() - start;
    EXPECT(ok, "the read did not end after vn_source_cancel");
    pthread_join(thread, NULL);
    EXPECT(atomic_load(&read.status) == VN_E_CANCELLED, "the read ended with %s",
           vn_status_name(atomic_load(&read.status)));
    EXPECT(took < 1000, "the read ended %lld ms after the cancel (want < 1000)", took);
    vn_source_destroy(read.source);
    POLL_UNTIL(ok, log_count(&server, logged, "\"completed\": false", NULL) >= 1, 10, LOG_WAIT_MS);
    EXPECT(ok, "the server still holds the stalled response %d ms after the cancel and destroy", LOG_WAIT_MS);
    EXPECT_STATUS(VN_E_MISUSE, vn_source_cancel(NULL));
    /* A file source's reads never wait: cancelling one fails its next read (one read), as when no URL read waits. */
    vn_source *file = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_file(note_path, &file));
    EXPECT_STATUS(VN_OK, vn_source_cancel(file));
    vn_audio_info info = {.size = sizeof info};
    EXPECT_STATUS(VN_E_CANCELLED, vn_audio_info_source(file, &info));
    EXPECT_STATUS(VN_OK, vn_audio_info_source(file, &info));
    vn_source_destroy(file);
}

static void test_replay_from_cache_without_server(void) {
    EXPECT(server_stop(&server) == 0, "http_server.py did not exit cleanly on SIGTERM");
    char url[128];
    snprintf(url, sizeof url, "%s/auth/tok/range/note.ogg?sig=2", server.base_url); /* no server answers any more */
    play_url_to_end(url, KEY, "cached");  /* with no server, only the cache can have served it */
    EXPECT(cache_size() > 0, "the cache is empty");

    EXPECT_STATUS(VN_OK, vn_cache_clear());
    EXPECT(cache_size() == 0, "the cache holds %lld bytes after vn_cache_clear", (long long)cache_size());

    /* Nothing is kept now and nobody serves the URL: the same load fails on the network. */
    char output[320];
    snprintf(output, sizeof output, "%s/cleared.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    static playback p;
    playback_init(&p, url);
    EXPECT_STATUS(VN_OK, vn_player_subscribe(player, on_event, &p, on_release, NULL));
    vn_http_options *options = bearer_options();
    EXPECT_STATUS(VN_OK, vn_player_load_url(player, url, options, KEY, 1, -1));
    vn_http_options_destroy(options);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&p.failed) == 1 && atomic_load(&p.last_state) == VN_PLAYER_NOT_LOADED, WAIT_MS);
    EXPECT(ok, "no FAILED then NOT_LOADED within %d ms after the cache was cleared (finished %d)", WAIT_MS,
           atomic_load(&p.finished));
    EXPECT_STATUS(VN_E_NETWORK, atomic_load(&p.failed_status));
    vn_player_destroy(player);
    unlink(output);
}

/* ------------------------------------------------------------------------------------------------------------ */

/* The note, the cache in the test's directory, and the server (serving the directory). */
static int setup(void) {
    snprintf(cache_path, sizeof cache_path, "%s/cache", directory);
    return write_note(directory, TONE_SECONDS, note_path, sizeof note_path) &&
           vn_cache_set_directory(cache_path) == VN_OK && server_start(&server, directory);
}

int main(void) {
    harness_init("remote");
    if (!temp_directory_create(directory, sizeof directory, "remote")) return 1;
    if (!fixture_setup(setup, directory, "a tone, opusenc, the cache directory, http_server.py")) return 1;
    TEST(test_url_source_matches_file);
    TEST(test_http_statuses);
    TEST(test_argument_checks);
    TEST(test_player_with_header_and_key);
    TEST(test_destroy_while_stalled);
    TEST(test_cancel_ends_a_call_waiting_for_the_network);
    TEST(test_replay_from_cache_without_server); /* stops the server */
    harness_watchdog_arm("cleanup", TEST_LIMIT_S);
    server_stop(&server); /* when a test above did not get to it */
    vn_cache_clear();
    temp_directory_remove(directory);
    harness_watchdog_disarm();
    return harness_finish();
}
