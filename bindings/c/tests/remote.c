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
 * temporary directory, so the user's cache is never touched. Needs python3 and opusenc on PATH. The server is found
 * at $VOICENOTE_REPO/Tests/Servers/http_server.py, else relative to this file's path (the Makefile compiles it by
 * its absolute path). Tests run in order: the cache replay uses what the header-and-key test downloaded.
 *
 * Every wait is bounded: WAIT_UNTIL for player events, poll() with a deadline for the server's pipes, POLL_UNTIL
 * for the server's request log and the cache size (files another process or thread writes, which nothing notifies).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

#define RATE 48000
#define TONE_SECONDS 2.0
#define WAIT_MS 30000
#define SERVER_START_MS 10000
#define SERVER_STOP_MS 5000
#define LOG_WAIT_MS 5000
#define KEY "message-1/0"

static char directory[256];  /* the test's temporary directory, served as the server's root */
static char wav_path[300], note_path[300], cache_path[300], log_path[300];
static char base_url[64];    /* http://127.0.0.1:<port> */

static pid_t server_pid = -1;
static int server_stdin = -1, server_stdout = -1; /* our ends of the server's pipes */

/* ------------------------------------------------------------------------------------------------------------ */
/* Child processes: stdin and stdout on pipes, waited for by their stdout reaching end of file */

static int cloexec_pipe(int fds[2]) {
    if (pipe(fds) != 0) return 0;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 1;
}

/* Starts argv[0] (looked up in PATH) with its stdin and stdout on pipes whose other ends go to *to_child and
 * *from_child (close-on-exec, so later children do not hold them); stderr is ours. Returns the pid, or -1. */
static pid_t spawn(char *const argv[], int *to_child, int *from_child) {
    int in[2], out[2];
    if (!cloexec_pipe(in)) return -1;
    if (!cloexec_pipe(out)) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        fprintf(stderr, "  cannot start %s: %s\n", argv[0], strerror(rc));
        close(in[1]);
        close(out[0]);
        return -1;
    }
    *to_child = in[1];
    *from_child = out[0];
    return pid;
}

/* Reads what the child writes until `deadline_ms` (harness_now_ms time): stops after a newline when `line` is
 * given (filled with the first line, NUL-terminated), else at end of file. Returns 1 when it got what it waited for. */
static int read_child(int fd, long long deadline_ms, char *line, size_t capacity) {
    size_t length = 0;
    char buffer[512];
    for (;;) {
        long long left = deadline_ms - harness_now_ms();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int rc = poll(&p, 1, (int)left);
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return 0;
        ssize_t got = read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return line == NULL; /* end of file: the child closed stdout (it exited) */
        if (line == NULL) continue;
        for (ssize_t i = 0; i < got && length + 1 < capacity; i++) {
            if (buffer[i] == '\n') {
                line[length] = '\0';
                return 1;
            }
            line[length++] = buffer[i];
        }
    }
}

/* Waits up to `ms` for the child to exit (its stdout reaches end of file), SIGKILLs it after that, reaps it and
 * closes our pipe ends (`to_child` may be -1 when already closed). Returns its exit status, or -1 when it had to
 * be killed or did not exit normally. */
static int finish_child(pid_t pid, int to_child, int from_child, int ms) {
    int exited = read_child(from_child, harness_now_ms() + ms, NULL, 0);
    if (!exited) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (to_child >= 0) close(to_child);
    close(from_child);
    return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int encode_note(void) {
    char *argv[] = {"opusenc", "--quiet", wav_path, note_path, NULL};
    int to_child = -1, from_child = -1;
    pid_t pid = spawn(argv, &to_child, &from_child);
    if (pid < 0) return 0;
    close(to_child); /* opusenc reads the WAV file, not stdin */
    int status = finish_child(pid, -1, from_child, 30000);
    if (status != 0) fprintf(stderr, "  opusenc failed (%d)\n", status);
    return status == 0;
}

/* The repository's root: $VOICENOTE_REPO, else this file's path without "bindings/c/tests/remote.c". */
static void repo_root(char *out, size_t capacity) {
    const char *from_environment = getenv("VOICENOTE_REPO");
    if (from_environment != NULL && from_environment[0] != '\0') {
        snprintf(out, capacity, "%s", from_environment);
        return;
    }
    snprintf(out, capacity, "%s", __FILE__);
    char *tail = strstr(out, "bindings/c/tests/remote.c");
    if (tail != NULL) *tail = '\0';
    if (out[0] == '\0' || tail == NULL) snprintf(out, capacity, ".");
}

/* Starts http_server.py serving `directory` and sets base_url; 1 on success. With --exit-with-stdin the server
 * also ends when this process dies (its stdin pipe closes), so a crashed test leaves no server behind. */
static int start_server(void) {
    char root[512], script[600];
    repo_root(root, sizeof root);
    snprintf(script, sizeof script, "%s/Tests/Servers/http_server.py", root);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "  no %s (set VOICENOTE_REPO to the repository)\n", script);
        return 0;
    }
    char *argv[] = {"python3", script, "--root", directory, "--log", log_path, "--port", "0", "--exit-with-stdin",
                    NULL};
    server_pid = spawn(argv, &server_stdin, &server_stdout);
    if (server_pid < 0) return 0;
    char line[128];
    int port = 0;
    if (!read_child(server_stdout, harness_now_ms() + SERVER_START_MS, line, sizeof line) ||
        sscanf(line, "PORT %d", &port) != 1 || port <= 0) {
        fprintf(stderr, "  http_server.py did not print PORT <n> within %d ms\n", SERVER_START_MS);
        finish_child(server_pid, server_stdin, server_stdout, 0);
        server_pid = -1;
        return 0;
    }
    snprintf(base_url, sizeof base_url, "http://127.0.0.1:%d", port);
    return 1;
}

/* SIGTERM, then a bounded wait for the exit; returns the server's exit status (0 expected), or -1. */
static int stop_server(void) {
    if (server_pid < 0) return 0;
    kill(server_pid, SIGTERM);
    int status = finish_child(server_pid, server_stdin, server_stdout, SERVER_STOP_MS);
    server_pid = -1;
    return status;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The server's request log: one JSON object per line (json.dumps(sort_keys=True): `"name": value`) */

/* How many logged requests contain every one of the given fragments (NULL-terminated list). */
static int count_requests(const char *fragment, ...) {
    FILE *file = fopen(log_path, "r");
    if (file == NULL) return 0;
    int count = 0;
    char line[8192];
    while (fgets(line, sizeof line, file) != NULL) {
        if (strchr(line, '\n') == NULL) break; /* a line still being written */
        int all = 1;
        va_list args;
        va_start(args, fragment);
        for (const char *f = fragment; f != NULL && all; f = va_arg(args, const char *))
            all = strstr(line, f) != NULL;
        va_end(args);
        count += all;
    }
    fclose(file);
    return count;
}

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
    snprintf(url, sizeof url, "%s/range/note.ogg", base_url);
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
    POLL_UNTIL(ok, count_requests("\"path\": \"/range/note.ogg\"", "\"method\": \"GET\"", NULL) >= 1, 10, LOG_WAIT_MS);
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
        snprintf(url, sizeof url, "%s%s", base_url, cases[i].path);
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
        POLL_UNTIL(ok, count_requests(logged_path, logged_status, NULL) >= 1, 10, LOG_WAIT_MS);
        EXPECT(ok, "the server logged no %s answered %d", cases[i].path, cases[i].http);
    }
}

static void test_argument_checks(void) {
    char url[128];
    snprintf(url, sizeof url, "%s/range/note.ogg", base_url);

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
    snprintf(url, sizeof url, "%s/auth/tok/range/note.ogg", base_url);
    const char *path = "\"path\": \"/auth/tok/range/note.ogg\"", *header = "\"authorization\": \"Bearer tok\"";
    /* test_http_statuses asked this path without the header once (401): count from here. */
    int all_before = count_requests(path, NULL), refused_before = count_requests(path, "\"status\": 401", NULL);
    int64_t before = cache_size();
    play_url_to_end(url, KEY, "bearer");

    int ok = 0;
    POLL_UNTIL(ok, cache_size() > before, 10, LOG_WAIT_MS);
    EXPECT(ok, "the played download was not kept (cache size %lld, %lld before)", (long long)cache_size(),
           (long long)before);
    /* The server writes a request's line when its response ends. */
    POLL_UNTIL(ok, count_requests(path, header, "\"completed\": true", NULL) >= 1, 10, LOG_WAIT_MS);
    EXPECT(ok, "the server logged no completed request with %s", header);
    int all = count_requests(path, NULL) - all_before, with_header = count_requests(path, header, NULL);
    EXPECT(all == with_header, "%d of %d requests lacked the header", all - with_header, all);
    EXPECT(count_requests(path, "\"status\": 401", NULL) == refused_before, "a request was refused with 401");
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
    snprintf(url, sizeof url, "%s/stall/%ld/note.ogg", base_url, stall_after);
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
    POLL_UNTIL(ok, count_requests(logged, "\"completed\": false", NULL) >= 1, 10,
               LOG_WAIT_MS);
    EXPECT(ok, "the server still holds the stalled response %d ms after the destroy", LOG_WAIT_MS);
    unlink(output);
}

static void test_replay_from_cache_without_server(void) {
    EXPECT(stop_server() == 0, "http_server.py did not exit cleanly on SIGTERM");
    char url[128];
    snprintf(url, sizeof url, "%s/auth/tok/range/note.ogg?sig=2", base_url); /* no server answers any more */
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

static int remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw) {
    (void)info;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void) {
    harness_init("remote");
    snprintf(directory, sizeof directory, "%s/vn-remote-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(directory) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(wav_path, sizeof wav_path, "%s/tone.wav", directory);
    snprintf(note_path, sizeof note_path, "%s/note.ogg", directory);
    snprintf(cache_path, sizeof cache_path, "%s/cache", directory);
    snprintf(log_path, sizeof log_path, "%s/requests.jsonl", directory);
    harness_watchdog_arm("setup", TEST_LIMIT_S); /* opusenc and the server's start are bounded too */
    int ready = write_tone(wav_path, TONE_SECONDS) && encode_note() && vn_cache_set_directory(cache_path) == VN_OK &&
                start_server();
    harness_watchdog_disarm();
    if (!ready) {
        fprintf(stderr, "  FATAL: setup failed (a tone, opusenc, the cache directory, http_server.py)\n");
        nftw(directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        return 1;
    }
    TEST(test_url_source_matches_file);
    TEST(test_http_statuses);
    TEST(test_argument_checks);
    TEST(test_player_with_header_and_key);
    TEST(test_destroy_while_stalled);
    TEST(test_replay_from_cache_without_server); /* stops the server */
    harness_watchdog_arm("cleanup", TEST_LIMIT_S);
    stop_server(); /* when a test above did not get to it */
    vn_cache_clear();
    nftw(directory, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    harness_watchdog_disarm();
    return harness_finish();
}
