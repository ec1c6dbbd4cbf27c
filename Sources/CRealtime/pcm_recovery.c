/* What the capture and playback loops share: see pcm_recovery.h. */
#define _GNU_SOURCE
#include "pcm_recovery.h"
#include <errno.h>
#include <poll.h>
#include <time.h>

/* The most poll descriptors a PCM may have (plugins use one to three). */
#define MAX_POLL_DESCRIPTORS 16

/* snd_pcm_resume answering -EAGAIN: retry this many times, 10 ms apart, then fall back to prepare. */
#define RESUME_ATTEMPTS 100

void vnshim_sleep_milliseconds(long milliseconds) {
    struct timespec request = {milliseconds / 1000, (milliseconds % 1000) * 1000000L};
    while (nanosleep(&request, &request) != 0 && errno == EINTR) {
    }
}

/* The error a PCM reporting POLLERR is in, as snd_pcm_wait would answer. */
static int state_error(snd_pcm_t *pcm) {
    switch (snd_pcm_state(pcm)) {
    case SND_PCM_STATE_XRUN: return -EPIPE;
    case SND_PCM_STATE_SUSPENDED: return -ESTRPIPE;
    case SND_PCM_STATE_DISCONNECTED: return -ENODEV;
    default: return -EIO;
    }
}

int vnshim_pcm_wait_bounded(snd_pcm_t *pcm, int timeout_ms) {
    struct pollfd descriptors[MAX_POLL_DESCRIPTORS];
    int count = snd_pcm_poll_descriptors(pcm, descriptors, MAX_POLL_DESCRIPTORS);
    if (count <= 0) {
        /* No descriptor to wait on (or too many): let the read or write say, after a bounded pause. */
        vnshim_sleep_milliseconds(1);
        return 1;
    }
    int polled = poll(descriptors, (nfds_t)count, timeout_ms);
    if (polled < 0) return errno == EINTR ? 0 : -errno;
    if (polled == 0) return 0;
    unsigned short revents = 0;
    int result = snd_pcm_poll_descriptors_revents(pcm, descriptors, (unsigned)count, &revents);
    if (result < 0) return result;
    if (revents & (POLLERR | POLLNVAL)) return state_error(pcm);
    if (revents & (POLLIN | POLLOUT)) return 1;
    vnshim_sleep_milliseconds(1);
    return 0;
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
