/* The ALSA capture thread (docs/recorder.md, "Threads"): it only moves periods from the PCM into a lock-free ring.
 * Once started it never allocates, never takes a lock shared with other threads, never writes files and never
 * calls back into Swift: a plain pthread running C, so the rule holds by construction. Everything it reports
 * (frames, overruns, the error that ended it) is in C11 atomics the owner reads at any time. */
#define _GNU_SOURCE
#include "realtime.h"
#include "pcm_recovery.h"
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

/* The bounded wait's timeout: bounds how long stop() waits for the thread (plus one read). */
#define WAIT_TIMEOUT_MS 20

struct vnshim_capture {
    snd_pcm_t *pcm;             /* owned; NULL after close */
    int16_t *buffer;            /* one period of interleaved frames, allocated at create */
    size_t period_frames;
    size_t channels;
    long hold_ms;               /* how long a full ring may hold the device back before periods are dropped */
    long hold_step_ms;          /* sleep between looks at a full ring */
    vnshim_ring *ring;          /* the destination while a thread runs; the owner keeps it alive until stop */
    pthread_t thread;
    int thread_joinable;        /* owner side only (start/stop/close are serialized by the owner) */
    _Atomic int stop_requested;
    _Atomic int running;
    _Atomic int error;          /* the negative ALSA error that ended the thread, 0 if none */
    _Atomic int64_t overruns;
    _Atomic int64_t frames;
    _Atomic int64_t dropped_frames;
    _Atomic uint64_t iterations;
    _Atomic uint64_t recoveries;
};

/* Whole frames the ring has room for; only grows until this thread writes. */
static size_t ring_space_frames(vnshim_capture *c) {
    return (c->ring->capacity - vnshim_ring_available(c->ring)) / c->channels;
}

/* Writes whole frames into the ring; frames that do not fit are dropped and counted as one overrun. */
static void deliver(vnshim_capture *c, size_t frame_count) {
    size_t fitting = ring_space_frames(c);
    size_t kept = frame_count < fitting ? frame_count : fitting;
    if (kept > 0) vnshim_ring_write(c->ring, c->buffer, kept * c->channels);
    atomic_fetch_add_explicit(&c->frames, (int64_t)kept, memory_order_relaxed);
    if (kept < frame_count) {
        atomic_fetch_add_explicit(&c->overruns, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->dropped_frames, (int64_t)(frame_count - kept), memory_order_relaxed);
    }
}

static void *capture_main(void *argument) {
    vnshim_capture *c = argument;
    pthread_setname_np(pthread_self(), "vn-capture");
    vnshim_alsa_errors_silence_thread();
    int recoveries_without_progress = 0;
    int empty_reads = 0;
    long held_ms = 0;
    int error = 0;
    while (!atomic_load_explicit(&c->stop_requested, memory_order_acquire)) {
        atomic_fetch_add_explicit(&c->iterations, 1, memory_order_relaxed);
        /* Back-pressure: while the ring has no room for a period, leave the frames in the device's buffer for up
         * to that buffer's length, so a consumer that falls behind briefly loses nothing and a device faster than
         * real time (ALSA's file plugin) is read at the consumer's pace. A consumer stalled longer than that is
         * not waited for: periods are then read and dropped (counted as overruns) as the device delivers them. */
        size_t ring_frames = c->ring->capacity / c->channels;
        if (ring_space_frames(c) >= (c->period_frames < ring_frames ? c->period_frames : ring_frames)) {
            held_ms = 0;
        } else if (held_ms < c->hold_ms) {
            vnshim_sleep_milliseconds(c->hold_step_ms);
            held_ms += c->hold_step_ms;
            continue;
        }
        snd_pcm_sframes_t result = vnshim_pcm_wait_bounded(c->pcm, WAIT_TIMEOUT_MS);
        if (result == 0) continue;                       /* not ready: look at the stop flag again */
        if (result > 0) result = snd_pcm_readi(c->pcm, c->buffer, c->period_frames);
        if (result > 0) {
            recoveries_without_progress = 0;
            empty_reads = 0;
            deliver(c, (size_t)result);
            continue;
        }
        if (result == 0 || result == -EAGAIN || result == -EINTR) {
            /* Ready but nothing to read: a plugin whose poll wakes early. Never let that become a busy loop. */
            if (++empty_reads >= 3) vnshim_sleep_milliseconds(1);
            continue;
        }
        if ((result == -EPIPE || result == -ESTRPIPE) &&
            ++recoveries_without_progress > VNSHIM_MAX_RECOVERIES_WITHOUT_PROGRESS) {
            error = (int)result;
            break;
        }
        if (result == -EPIPE) {
            atomic_fetch_add_explicit(&c->overruns, 1, memory_order_relaxed);
            atomic_fetch_add_explicit(&c->recoveries, 1, memory_order_relaxed);
            int recovered = snd_pcm_recover(c->pcm, -EPIPE, 1);
            if (recovered == 0) recovered = snd_pcm_start(c->pcm);
            if (recovered < 0) {
                error = recovered;
                break;
            }
            continue;
        }
        if (result == -ESTRPIPE) {
            atomic_fetch_add_explicit(&c->recoveries, 1, memory_order_relaxed);
            int resumed = vnshim_pcm_resume_after_suspend(c->pcm, &c->stop_requested, 1);
            if (resumed < 0) {
                error = resumed;
                break;
            }
            continue;
        }
        error = (int)result;                              /* -ENODEV, -EIO, -EBADFD, ...: the device is gone */
        break;
    }
    if (error != 0) {
        atomic_store_explicit(&c->error, error, memory_order_release);
        atomic_store_explicit(&c->running, 0, memory_order_release);
        vnshim_ring_notify(c->ring);                      /* after `running` drops, so a woken reader sees it */
    } else {
        atomic_store_explicit(&c->running, 0, memory_order_release);
    }
    return NULL;
}

vnshim_capture *vnshim_capture_create(struct _snd_pcm *pcm, size_t period_frames, size_t channels,
                                      unsigned period_ms, unsigned buffer_ms) {
    if (pcm == NULL || period_frames == 0 || channels == 0) return NULL;
    vnshim_capture *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->buffer = calloc(period_frames * channels, sizeof(int16_t));
    if (c->buffer == NULL) {
        free(c);
        return NULL;
    }
    c->pcm = pcm;
    c->period_frames = period_frames;
    c->channels = channels;
    c->hold_ms = buffer_ms > 0 ? (long)buffer_ms : 1;
    c->hold_step_ms = period_ms >= 8 ? (long)period_ms / 4 : 2;
    if (c->hold_step_ms > 5) c->hold_step_ms = 5;
    atomic_init(&c->stop_requested, 0);
    atomic_init(&c->running, 0);
    atomic_init(&c->error, 0);
    atomic_init(&c->overruns, 0);
    atomic_init(&c->frames, 0);
    atomic_init(&c->dropped_frames, 0);
    atomic_init(&c->iterations, 0);
    atomic_init(&c->recoveries, 0);
    return c;
}

/* Joins a thread that ended by itself (device lost) or was told to stop. */
static void join_thread(vnshim_capture *c) {
    if (!c->thread_joinable) return;
    atomic_store_explicit(&c->stop_requested, 1, memory_order_release);
    pthread_join(c->thread, NULL);
    c->thread_joinable = 0;
}

int vnshim_capture_start(vnshim_capture *c, vnshim_ring *ring) {
    if (c->pcm == NULL) return -EBADFD;
    if (atomic_load_explicit(&c->running, memory_order_acquire)) return -EBUSY;
    join_thread(c);
    vnshim_alsa_errors_begin();
    int result = snd_pcm_prepare(c->pcm);
    if (result == 0) result = snd_pcm_start(c->pcm);
    vnshim_alsa_errors_end();
    if (result < 0) return result;
    c->ring = ring;
    atomic_store_explicit(&c->stop_requested, 0, memory_order_relaxed);
    atomic_store_explicit(&c->error, 0, memory_order_relaxed);
    atomic_store_explicit(&c->running, 1, memory_order_release);
    int created = pthread_create(&c->thread, NULL, capture_main, c);
    if (created != 0) {
        atomic_store_explicit(&c->running, 0, memory_order_release);
        vnshim_alsa_errors_begin();
        snd_pcm_drop(c->pcm);
        vnshim_alsa_errors_end();
        return -created;
    }
    c->thread_joinable = 1;
    return 0;
}

void vnshim_capture_stop(vnshim_capture *c) {
    join_thread(c);
    if (c->pcm != NULL) {
        vnshim_alsa_errors_begin();
        snd_pcm_drop(c->pcm);
        vnshim_alsa_errors_end();
    }
    if (c->ring != NULL) vnshim_ring_notify(c->ring);   /* a consumer waiting on the ring notices the stop */
    c->ring = NULL;
}

void vnshim_capture_close(vnshim_capture *c) {
    vnshim_capture_stop(c);
    if (c->pcm != NULL) {
        vnshim_alsa_errors_begin();
        snd_pcm_close(c->pcm);
        vnshim_alsa_errors_end();
        c->pcm = NULL;
    }
}

void vnshim_capture_destroy(vnshim_capture *c) {
    if (c == NULL) return;
    vnshim_capture_close(c);
    free(c->buffer);
    free(c);
}

int vnshim_capture_is_running(vnshim_capture *c) { return atomic_load_explicit(&c->running, memory_order_acquire); }

int vnshim_capture_error(vnshim_capture *c) { return atomic_load_explicit(&c->error, memory_order_acquire); }

int64_t vnshim_capture_overruns(vnshim_capture *c) { return atomic_load_explicit(&c->overruns, memory_order_relaxed); }

int64_t vnshim_capture_frames(vnshim_capture *c) { return atomic_load_explicit(&c->frames, memory_order_relaxed); }

int64_t vnshim_capture_dropped_frames(vnshim_capture *c) {
    return atomic_load_explicit(&c->dropped_frames, memory_order_relaxed);
}

uint64_t vnshim_capture_iterations(vnshim_capture *c) {
    return atomic_load_explicit(&c->iterations, memory_order_relaxed);
}

uint64_t vnshim_capture_recoveries(vnshim_capture *c) {
    return atomic_load_explicit(&c->recoveries, memory_order_relaxed);
}
