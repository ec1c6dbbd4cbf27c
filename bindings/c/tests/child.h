/*
 * child.h: what the tests that start other programs or keep files (attachments.c, remote.c, uploads.c) need besides
 * harness.h: child processes (opusenc, Tests/Servers/http_server.py) with every wait bounded, the server's JSON-lines
 * request log, files of known bytes, and the test's temporary directory. Header-only, like harness.h; include it
 * after harness.h, with _XOPEN_SOURCE 700 defined before both (nftw).
 *
 * - spawn() starts a program with its stdin and stdout on pipes; finish_child() waits for it with a deadline (its
 *   stdout reaching end of file, through poll) and SIGKILLs it after that, so nothing here can hang a test.
 * - encode_opus() runs `opusenc --quiet WAV OGG` (write_note() encodes harness.h's tone with it);
 *   server_start() runs http_server.py with --exit-with-stdin (it also ends when this process dies and its stdin
 *   pipe closes) and reads "PORT <n>"; server_stop() is SIGTERM and a bounded wait. The server is found at
 *   $VOICENOTE_REPO/Tests/Servers/http_server.py, else relative to this header's path (the tests' Makefile
 *   compiles them by absolute path).
 * - log_find() returns the first logged request containing every given fragment, log_count() counts them: the log
 *   is json.dumps(sort_keys=True), so `"name": value` fragments match exactly.
 * - temp_directory_create() makes $TMPDIR/vn-<name>-XXXXXX, temp_directory_remove() removes it with all it holds;
 *   fixture_setup() runs a test program's setup under the watchdog and cleans up when it fails.
 */
#ifndef VOICENOTE_TEST_CHILD_H
#define VOICENOTE_TEST_CHILD_H

#include "harness.h"

#if !defined(_XOPEN_SOURCE) || _XOPEN_SOURCE < 700
#error "child.h: define _XOPEN_SOURCE 700 before including harness.h (nftw)"
#endif

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>

extern char **environ;

#define SERVER_START_MS 10000
#define SERVER_STOP_MS 5000
#define ENCODE_MS 30000

/* ------------------------------------------------------------------------------------------------------------ */
/* Child processes */

static inline int child_pipe(int fds[2]) {
    if (pipe(fds) != 0) return 0;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 1;
}

/* Starts argv[0] (looked up in PATH) with stdin and stdout on close-on-exec pipes whose other ends go to *to_child
 * and *from_child; stderr is ours. Returns the pid, or -1. */
static inline pid_t spawn(char *const argv[], int *to_child, int *from_child) {
    int in[2], out[2];
    if (!child_pipe(in)) return -1;
    if (!child_pipe(out)) {
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

/* Reads the child's stdout until `deadline_ms` (harness_now_ms time): with `line`, up to the first newline (filled,
 * NUL-terminated); without, to end of file. Returns 1 when it got what it waited for. */
static inline int read_child(int fd, long long deadline_ms, char *line, size_t capacity) {
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
        if (got <= 0) return line == NULL; /* end of file: the child exited */
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

/* Waits up to `ms` for the child to exit, SIGKILLs it after that, reaps it and closes our ends (`to_child` may be
 * -1). Returns its exit status, or -1 when it had to be killed or did not exit normally. */
static inline int finish_child(pid_t pid, int to_child, int from_child, int ms) {
    int exited = read_child(from_child, harness_now_ms() + ms, NULL, 0);
    if (!exited) kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (to_child >= 0) close(to_child);
    close(from_child);
    return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `opusenc --quiet wav ogg`; 1 on success. */
static inline int encode_opus(const char *wav, const char *ogg) {
    char *argv[] = {"opusenc", "--quiet", (char *)wav, (char *)ogg, NULL};
    int to_child = -1, from_child = -1;
    pid_t pid = spawn(argv, &to_child, &from_child);
    if (pid < 0) return 0;
    close(to_child);
    int status = finish_child(pid, -1, from_child, ENCODE_MS);
    if (status != 0) fprintf(stderr, "  opusenc failed (%d)\n", status);
    return status == 0;
}

/* An Ogg Opus note of `seconds` of harness.h's tone: writes <directory>/tone.wav, encodes it to
 * <directory>/note.ogg and puts that path in `note_path`; 1 on success. */
static inline int write_note(const char *directory, double seconds, char *note_path, size_t capacity) {
    char wav_path[300];
    snprintf(wav_path, sizeof wav_path, "%s/tone.wav", directory);
    snprintf(note_path, capacity, "%s/note.ogg", directory);
    return write_tone(wav_path, seconds) && encode_opus(wav_path, note_path);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Tests/Servers/http_server.py */

typedef struct test_server {
    pid_t pid;
    int to_child, from_child;
    char base_url[64];  /* http://127.0.0.1:<port> */
    char root[300];     /* the directory it serves; uploads land in <root>/uploads/<n>.bin */
    char log_path[320]; /* its JSON-lines request log */
} test_server;

/* The repository's root: $VOICENOTE_REPO, else this header's path without "bindings/c/tests/child.h". */
static inline void repo_root(char *out, size_t capacity) {
    const char *from_environment = getenv("VOICENOTE_REPO");
    if (from_environment != NULL && from_environment[0] != '\0') {
        snprintf(out, capacity, "%s", from_environment);
        return;
    }
    snprintf(out, capacity, "%s", __FILE__);
    char *tail = strstr(out, "bindings/c/tests/child.h");
    if (tail != NULL) *tail = '\0';
    if (tail == NULL || out[0] == '\0') snprintf(out, capacity, ".");
}

/* Starts the server on a free port serving `root`, its log at <root>/requests.jsonl; 1 on success. */
static inline int server_start(test_server *server, const char *root) {
    char repo[512], script[600];
    repo_root(repo, sizeof repo);
    snprintf(script, sizeof script, "%s/Tests/Servers/http_server.py", repo);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "  no %s (set VOICENOTE_REPO to the repository)\n", script);
        return 0;
    }
    snprintf(server->root, sizeof server->root, "%s", root);
    snprintf(server->log_path, sizeof server->log_path, "%s/requests.jsonl", root);
    char *argv[] = {"python3", script, "--root", server->root, "--log", server->log_path, "--port", "0",
                    "--exit-with-stdin", NULL};
    server->pid = spawn(argv, &server->to_child, &server->from_child);
    if (server->pid < 0) return 0;
    char line[128];
    int port = 0;
    if (!read_child(server->from_child, harness_now_ms() + SERVER_START_MS, line, sizeof line) ||
        sscanf(line, "PORT %d", &port) != 1 || port <= 0) {
        fprintf(stderr, "  http_server.py did not print PORT <n> within %d ms\n", SERVER_START_MS);
        finish_child(server->pid, server->to_child, server->from_child, 0);
        server->pid = -1;
        return 0;
    }
    snprintf(server->base_url, sizeof server->base_url, "http://127.0.0.1:%d", port);
    return 1;
}

/* SIGTERM and a bounded wait; the server's exit status (0 expected), or -1. */
static inline int server_stop(test_server *server) {
    if (server->pid <= 0) return 0;
    kill(server->pid, SIGTERM);
    int status = finish_child(server->pid, server->to_child, server->from_child, SERVER_STOP_MS);
    server->pid = -1;
    return status;
}

/* Reads a log's complete lines (one still being written ends the scan) and counts those containing every
 * fragment (`fragment` and the NULL-terminated rest in `rest`); with `first`, stops at the first such line and
 * gives a malloc'ed copy of it there. */
static inline int log_scan_file(const char *path, char **first, const char *fragment, va_list rest) {
    FILE *file = fopen(path, "r");
    if (file == NULL) return 0;
    int count = 0;
    char line[16384];
    while ((first == NULL || count == 0) && fgets(line, sizeof line, file) != NULL) {
        if (strchr(line, '\n') == NULL) break; /* a line still being written */
        int all = 1;
        va_list args;
        va_copy(args, rest);
        for (const char *f = fragment; f != NULL && all; f = va_arg(args, const char *)) all = strstr(line, f) != NULL;
        va_end(args);
        count += all;
        if (all && first != NULL) *first = strdup(line);
    }
    fclose(file);
    return count;
}

static inline int log_scan(const test_server *server, char **first, const char *fragment, va_list rest) {
    return log_scan_file(server->log_path, first, fragment, rest);
}

/* Whether an upload whose logged line contains `fragment` (e.g. part of its path) has reached the server: its first
 * body bytes were read (a line in <log>.receiving). A test waits for this, not for a client-side progress figure,
 * which depends on the kernel's socket buffers. */
static inline int server_receiving(const test_server *server, const char *fragment, ...) {
    char path[340];
    snprintf(path, sizeof path, "%s.receiving", server->log_path);
    va_list rest;
    va_start(rest, fragment);
    int count = log_scan_file(path, NULL, fragment, rest);
    va_end(rest);
    return count > 0;
}

/* The first complete logged request containing every fragment (a NULL-terminated list), malloc'ed; NULL if none. */
static inline char *log_find(const test_server *server, const char *fragment, ...) {
    char *found = NULL;
    va_list rest;
    va_start(rest, fragment);
    log_scan(server, &found, fragment, rest);
    va_end(rest);
    return found;
}

/* How many complete logged requests contain every fragment (a NULL-terminated list). */
static inline int log_count(const test_server *server, const char *fragment, ...) {
    va_list rest;
    va_start(rest, fragment);
    int count = log_scan(server, NULL, fragment, rest);
    va_end(rest);
    return count;
}

/* Copies the string value of `"key": "…"` in a logged line into `out` ("" when absent). No unescaping. */
static inline void log_string(const char *line, const char *key, char *out, size_t capacity) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\": \"", key);
    const char *start = line != NULL ? strstr(line, pattern) : NULL;
    out[0] = '\0';
    if (start == NULL) return;
    start += strlen(pattern);
    const char *end = strchr(start, '"');
    if (end == NULL || (size_t)(end - start) >= capacity) return;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Files of known bytes */

/* `size` deterministic pseudo-random bytes (xorshift64 from `seed`), malloc'ed. */
static inline unsigned char *random_bytes(size_t size, uint64_t seed) {
    unsigned char *bytes = malloc(size ? size : 1);
    if (bytes == NULL) harness_fatal("out of memory");
    uint64_t x = seed ? seed : 88172645463325252ULL;
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        bytes[i] = (unsigned char)(x >> 24);
    }
    return bytes;
}

static inline int write_bytes(const char *path, const void *bytes, size_t size) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) return 0;
    int ok = fwrite(bytes, 1, size, file) == size;
    return fclose(file) == 0 && ok;
}

/* The bytes of a whole file (malloc'ed; the caller frees), or NULL. */
static inline unsigned char *read_bytes(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    unsigned char *bytes = NULL;
    long length = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    if (length >= 0 && fseek(file, 0, SEEK_SET) == 0) {
        bytes = malloc((size_t)length + 1);
        if (bytes != NULL && fread(bytes, 1, (size_t)length, file) != (size_t)length) {
            free(bytes);
            bytes = NULL;
        }
    }
    fclose(file);
    if (bytes != NULL) *size = (size_t)length;
    return bytes;
}

/* Whether the file at `path` holds exactly `size` bytes equal to `bytes`. */
static inline int file_holds(const char *path, const void *bytes, size_t size) {
    size_t got = 0;
    unsigned char *content = read_bytes(path, &got);
    int same = content != NULL && got == size && memcmp(content, bytes, size) == 0;
    free(content);
    return same;
}

/* This thread's name (/proc/thread-self/comm) into `out`. */
static inline void thread_name(char *out, size_t capacity) {
    out[0] = '\0';
    FILE *file = fopen("/proc/thread-self/comm", "r");
    if (file == NULL) return;
    if (fgets(out, (int)capacity, file) == NULL) out[0] = '\0';
    fclose(file);
    out[strcspn(out, "\n")] = '\0';
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The test's temporary directory */

/* Makes `directory` a fresh $TMPDIR/vn-<name>-XXXXXX (/tmp without TMPDIR); 0, after perror, when it cannot. */
static inline int temp_directory_create(char *directory, size_t capacity, const char *name) {
    const char *tmp = getenv("TMPDIR");
    snprintf(directory, capacity, "%s/vn-%s-XXXXXX", tmp ? tmp : "/tmp", name);
    if (mkdtemp(directory) != NULL) return 1;
    perror("mkdtemp");
    return 0;
}

static inline int temp_directory_remove_entry(const char *path, const struct stat *info, int flag, struct FTW *ftw) {
    (void)info;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes `directory` and everything below it (links are removed, not followed). */
static inline void temp_directory_remove(const char *directory) {
    nftw(directory, temp_directory_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Runs `setup` (files, child processes; 1 when all is ready) under the watchdog, so its waits are bounded too.
 * When it fails, says so, naming `what` it does, and removes `directory`. Returns whether it succeeded. */
static inline int fixture_setup(int (*setup)(void), const char *directory, const char *what) {
    harness_watchdog_arm("setup", TEST_LIMIT_S);
    int ready = setup();
    harness_watchdog_disarm();
    if (ready) return 1;
    fprintf(stderr, "  FATAL: setup failed (%s)\n", what);
    temp_directory_remove(directory);
    return 0;
}

#endif /* VOICENOTE_TEST_CHILD_H */
