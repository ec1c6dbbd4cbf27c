/* Absolute deadlines for timed waits (sem_timedwait, sem_clockwait), shared by the ring and the playback loops.
 * Private to CRealtime (outside include/). */
#ifndef VOICENOTE_DEADLINE_H
#define VOICENOTE_DEADLINE_H

#include <time.h>

/** The time on `clock` `timeout_ms` milliseconds from now (a negative timeout counts as 0). */
static inline struct timespec vnshim_deadline_after_ms(clockid_t clock, int timeout_ms) {
    if (timeout_ms < 0) timeout_ms = 0;
    struct timespec deadline;
    clock_gettime(clock, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

#endif
