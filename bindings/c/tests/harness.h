/*
 * harness.h: the small test harness the C contract tests share (header-only; each test is one .c file).
 *
 * - TEST(fn) runs one test function and counts it passed or failed; EXPECT(cond, ...) records a failure with
 *   its line and keeps going; the summary line "<name>: N passed, N failed" ends every run.
 * - Every wait is bounded: WAIT_UNTIL(cond, ms) re-checks `cond` under one mutex each time notify() is called,
 *   with pthread_cond_timedwait on CLOCK_MONOTONIC. Code that changes what a waiter looks at calls notify()
 *   afterwards (callbacks do, from library threads). POLL_UNTIL(cond, every, ms) re-checks a condition nobody can
 *   notify about (a file another process writes) every `every` ms, also bounded.
 * - A watchdog thread ends the process with a message when a test runs longer than its limit, so a deadlock
 *   in the library fails the run instead of hanging it.
 */
#ifndef VOICENOTE_TEST_HARNESS_H
#define VOICENOTE_TEST_HARNESS_H

#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <voicenote.h>

static const char *harness_name = "test";
static atomic_int harness_failures; /* failures recorded by the running test */
static atomic_int harness_passed, harness_failed; /* tests counted by harness_run */

/* ------------------------------------------------------------------------------------------------------------ */
/* Time */

static inline struct timespec harness_deadline_ms(int ms) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec += 1;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static inline long long harness_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A mutex and a condition variable on the monotonic clock. */
typedef struct monitor {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
} monitor;

static inline void monitor_init(monitor *m) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_mutex_init(&m->mutex, NULL);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Failures */

static inline int harness_fail(const char *file, int line, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "  FAIL %s:%d: ", file, line);
    vfprintf(stderr, fmt, args);
    fprintf(stderr, "\n");
    va_end(args);
    atomic_fetch_add(&harness_failures, 1);
    return 0;
}

/* Records a failure (with a printf-style message) when `cond` is false; evaluates to `cond`. */
#define EXPECT(cond, ...) ((cond) ? 1 : harness_fail(__FILE__, __LINE__, __VA_ARGS__))
/* Expects a status; prints both names and this thread's last error message when it differs. */
#define EXPECT_STATUS(want, got)                                                                              \
    do {                                                                                                      \
        int want_ = (want), got_ = (got);                                                                     \
        EXPECT(want_ == got_, "%s: expected %s (%d), got %s (%d); last error: %s", #got, vn_status_name(want_), \
               want_, vn_status_name(got_), got_, vn_last_error_message());                                   \
    } while (0)

/* The summary line; exits 0 only when nothing failed. */
static inline int harness_finish(void) {
    printf("%s: %d passed, %d failed\n", harness_name, atomic_load(&harness_passed), atomic_load(&harness_failed));
    fflush(stdout);
    return atomic_load(&harness_failed) == 0 ? 0 : 1;
}

/* Ends the run now (after a deadlock or a broken library state that later tests would trip over). */
static inline void harness_fatal(const char *what) {
    fprintf(stderr, "  FATAL: %s; stopping the run\n", what);
    atomic_fetch_add(&harness_failed, 1);
    harness_finish();
    fflush(stderr);
    _exit(1);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Bounded waits: one monitor for everything a test waits on */

static monitor harness_sync;

/* Wakes WAIT_UNTIL; call after changing anything a waiter checks. */
static inline void notify(void) {
    pthread_mutex_lock(&harness_sync.mutex);
    pthread_cond_broadcast(&harness_sync.cond);
    pthread_mutex_unlock(&harness_sync.mutex);
}

/* Sets `ok` to whether `predicate` became true within `ms` milliseconds. `predicate` must only read atomics or
 * state guarded by the harness monitor. */
#define WAIT_UNTIL(ok, predicate, ms)                                                                               \
    do {                                                                                                       \
        struct timespec deadline_ = harness_deadline_ms(ms);                                                   \
        pthread_mutex_lock(&harness_sync.mutex);                                                               \
        while (!(predicate)) {                                                                                 \
            if (pthread_cond_timedwait(&harness_sync.cond, &harness_sync.mutex, &deadline_) == ETIMEDOUT) break; \
        }                                                                                                      \
        (ok) = (predicate) ? 1 : 0;                                                                            \
        pthread_mutex_unlock(&harness_sync.mutex);                                                             \
    } while (0)

/* Sets `ok` to whether `predicate` became true within `ms` milliseconds, re-checking it every `every_ms`: for a
 * condition nothing can notify() about (a file another process writes). Bounded like WAIT_UNTIL. */
#define POLL_UNTIL(ok, predicate, every_ms, ms)                                                                \
    do {                                                                                                       \
        long long poll_end_ = harness_now_ms() + (ms);                                                         \
        while (!(predicate) && harness_now_ms() < poll_end_) delay_ms(every_ms);                               \
        (ok) = (predicate) ? 1 : 0;                                                                            \
    } while (0)

/* Blocks the calling thread for `ms` milliseconds on a condition nobody signals: a deliberate delay (e.g. to
 * keep a callback running), never a substitute for waiting on a condition. */
static inline void delay_ms(int ms) {
    monitor m;
    monitor_init(&m);
    struct timespec deadline = harness_deadline_ms(ms);
    pthread_mutex_lock(&m.mutex);
    while (pthread_cond_timedwait(&m.cond, &m.mutex, &deadline) != ETIMEDOUT) {}
    pthread_mutex_unlock(&m.mutex);
    pthread_cond_destroy(&m.cond);
    pthread_mutex_destroy(&m.mutex);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Watchdog */

static monitor harness_watchdog_monitor;
static const char *harness_watchdog_test; /* guarded by harness_watchdog_monitor */
static struct timespec harness_watchdog_deadline;
static int harness_watchdog_limit_s;

static inline void *harness_watchdog_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&harness_watchdog_monitor.mutex);
    for (;;) {
        int rc = 0;
        while (harness_watchdog_test == NULL) pthread_cond_wait(&harness_watchdog_monitor.cond, &harness_watchdog_monitor.mutex);
        const char *armed = harness_watchdog_test;
        while (harness_watchdog_test == armed && rc != ETIMEDOUT) {
            rc = pthread_cond_timedwait(&harness_watchdog_monitor.cond, &harness_watchdog_monitor.mutex,
                                        &harness_watchdog_deadline);
        }
        if (harness_watchdog_test == armed && rc == ETIMEDOUT) {
            fprintf(stderr, "  FAIL watchdog: %s did not finish within %d s (deadlock?)\n", armed,
                    harness_watchdog_limit_s);
            harness_fatal("watchdog");
        }
    }
    return NULL;
}

static inline void harness_watchdog_arm(const char *test, int seconds) {
    pthread_mutex_lock(&harness_watchdog_monitor.mutex);
    harness_watchdog_test = test;
    harness_watchdog_limit_s = seconds;
    harness_watchdog_deadline = harness_deadline_ms(seconds * 1000);
    pthread_cond_broadcast(&harness_watchdog_monitor.cond);
    pthread_mutex_unlock(&harness_watchdog_monitor.mutex);
}

static inline void harness_watchdog_disarm(void) {
    pthread_mutex_lock(&harness_watchdog_monitor.mutex);
    harness_watchdog_test = NULL;
    pthread_cond_broadcast(&harness_watchdog_monitor.cond);
    pthread_mutex_unlock(&harness_watchdog_monitor.mutex);
}

static inline void harness_init(const char *name) {
    harness_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    monitor_init(&harness_sync);
    monitor_init(&harness_watchdog_monitor);
    pthread_t watchdog;
    if (pthread_create(&watchdog, NULL, harness_watchdog_main, NULL) != 0) {
        fprintf(stderr, "cannot start the watchdog thread\n");
        exit(1);
    }
    pthread_detach(watchdog);
}

/* Runs one test under the watchdog and counts it. */
#define TEST_LIMIT_S 60
#define TEST(fn) harness_run(#fn, fn)
static inline void harness_run(const char *name, void (*fn)(void)) {
    atomic_store(&harness_failures, 0);
    long long start = harness_now_ms();
    harness_watchdog_arm(name, TEST_LIMIT_S);
    fn();
    harness_watchdog_disarm();
    int failures = atomic_load(&harness_failures);
    if (failures == 0) {
        atomic_fetch_add(&harness_passed, 1);
        printf("ok    %s (%lld ms)\n", name, harness_now_ms() - start);
    } else {
        atomic_fetch_add(&harness_failed, 1);
        printf("FAIL  %s (%d failed expectations)\n", name, failures);
    }
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Threads */

static inline pthread_t harness_start_thread(void *(*body)(void *), void *arg) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, arg) != 0) harness_fatal("pthread_create failed");
    return thread;
}

/* How far apart two numbers are. */
static inline double distance(double a, double b) { return a > b ? a - b : b - a; }

/* ------------------------------------------------------------------------------------------------------------ */
/* A tone as a WAV file */

static inline void put16(FILE *file, unsigned value) {
    fputc((int)(value & 0xff), file);
    fputc((int)((value >> 8) & 0xff), file);
}

static inline void put32(FILE *file, uint32_t value) {
    put16(file, value & 0xffff);
    put16(file, value >> 16);
}

/* Writes `seconds` of a 440 Hz triangle tone as 48 kHz mono 16-bit PCM WAV; 0 when the file cannot be written. */
static inline int write_tone(const char *path, double seconds) {
    const uint32_t rate = 48000;
    FILE *file = fopen(path, "wb");
    if (file == NULL) return 0;
    uint32_t frames = (uint32_t)(seconds * rate);
    fputs("RIFF", file);
    put32(file, 36 + frames * 2);
    fputs("WAVEfmt ", file);
    put32(file, 16);
    put16(file, 1);        /* PCM */
    put16(file, 1);        /* mono */
    put32(file, rate);
    put32(file, rate * 2); /* bytes per second */
    put16(file, 2);        /* block align */
    put16(file, 16);       /* bits */
    fputs("data", file);
    put32(file, frames * 2);
    for (uint32_t i = 0; i < frames; i++) {
        uint32_t phase = (uint32_t)(((uint64_t)i * 440 * 65536 / rate) & 0xffff); /* 0…65535 per period */
        int32_t value = phase < 32768 ? (int32_t)phase - 16384 : 49152 - (int32_t)phase; /* -16384…16384 */
        put16(file, (unsigned)(uint16_t)(int16_t)(value / 2));
    }
    return fclose(file) == 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* File speakers: ALSA's file plugin over null (not paced), writing mono S16 frames to a file */

/* Frames (mono S16) a file speaker wrote to `path`; -1 when the file is missing. */
static inline long long frames_written(const char *path) {
    struct stat info;
    return stat(path, &info) == 0 ? (long long)info.st_size / 2 : -1;
}

/* A player on a file speaker writing `output`, with progress every 50 ms and what `configure` (NULL: nothing more)
 * sets on its options. */
static inline vn_player *configured_speaker_player(const char *output, void (*configure)(vn_player_options *)) {
    char configuration[600];
    snprintf(configuration, sizeof configuration,
             "pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0644 }", output);
    vn_player_options *options = NULL;
    vn_player *player = NULL;
    EXPECT_STATUS(VN_OK, vn_player_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_player_options_set_device(options, "vn_spk", configuration));
    EXPECT_STATUS(VN_OK, vn_player_options_set_progress_interval(options, 0.05));
    if (configure != NULL) configure(options);
    EXPECT_STATUS(VN_OK, vn_player_create(options, &player));
    vn_player_options_destroy(options);
    return player;
}

/* A player on a file speaker writing `output`, with progress every 50 ms. */
static inline vn_player *speaker_player(const char *output) { return configured_speaker_player(output, NULL); }

#endif /* VOICENOTE_TEST_HARNESS_H */
