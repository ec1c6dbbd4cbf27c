/* What the capture and playback loops share: see pcm_recovery.h. */
#define _GNU_SOURCE
#include "pcm_recovery.h"
#include <errno.h>
#include <time.h>

/* snd_pcm_resume answering -EAGAIN: retry this many times, 10 ms apart, then fall back to prepare. */
#define RESUME_ATTEMPTS 100

void vnshim_sleep_milliseconds(long milliseconds) {
    struct timespec request = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    while (nanosleep(&request, &request) != 0 && errno == EINTR) {
    }
}

int vnshim_pcm_resume_after_suspend(snd_pcm_t *pcm, _Atomic int *stop_requested, int restart) {
    for (int attempt = 0; attempt < RESUME_ATTEMPTS; attempt++) {
        if (atomic_load_explicit(stop_requested, memory_order_acquire)) return 0;
        int result = snd_pcm_resume(pcm);
        if (result == 0 && snd_pcm_state(pcm) != SND_PCM_STATE_SUSPENDED) return 0;
        if (result != -EAGAIN) break;
        vnshim_sleep_milliseconds(10);
    }
    int result = snd_pcm_prepare(pcm);
    if (result == 0 && restart) result = snd_pcm_start(pcm);
    return result;
}
