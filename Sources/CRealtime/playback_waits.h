/* The two waits on a playback thread, made by its owner (the end) and its producer (room in the ring), shared by the
 * ALSA playback loop (playback_loop.c) and the libpulse playback stream (pulse_stream.c). Private to CRealtime
 * (outside include/); its includers define _GNU_SOURCE (sem_clockwait). */
#ifndef VOICENOTE_PLAYBACK_WAITS_H
#define VOICENOTE_PLAYBACK_WAITS_H

#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>

#include "deadline.h"

/** Waits up to `timeout_ms` until `*running` drops, on `ended`: a latch the thread posts once as it ends (after
 *  `running` drops), which a waiter that takes it posts again for the others. 1 when not running, 0 on timeout. */
static inline int vnshim_wait_until_ended(sem_t *ended, _Atomic int *running, int timeout_ms) {
    struct timespec deadline = vnshim_deadline_after_ms(CLOCK_MONOTONIC, timeout_ms);
    while (atomic_load_explicit(running, memory_order_acquire)) {
        if (sem_clockwait(ended, CLOCK_MONOTONIC, &deadline) != 0) {
            if (errno == EINTR) continue;
            return !atomic_load_explicit(running, memory_order_acquire);
        }
        sem_post(ended);                                  /* the latch stays set for other waiters */
    }
    return 1;
}

/** Waits up to `timeout_ms` for a post of `progress` (room in the ring, or the thread's end) while `*running`. 1 when
 *  posted or not running, 0 on timeout. */
static inline int vnshim_wait_for_progress(sem_t *progress, _Atomic int *running, int timeout_ms) {
    if (!atomic_load_explicit(running, memory_order_acquire)) return 1;
    struct timespec deadline = vnshim_deadline_after_ms(CLOCK_MONOTONIC, timeout_ms);
    while (sem_clockwait(progress, CLOCK_MONOTONIC, &deadline) != 0) {
        if (errno != EINTR) return !atomic_load_explicit(running, memory_order_acquire);
    }
    return 1;
}

#endif
