/* The ALSA playback thread (ARCHITECTURE.md, "Threads"): it only moves frames from a lock-free ring into the PCM.
 * Decoding, time-stretching and volume happen on the player's decoder thread, which fills the ring. Once started
 * this thread never allocates, never takes a lock shared with other threads, never writes files and never calls
 * back into Swift: a plain pthread running C, so the rule holds by construction. Everything it reports (frames,
 * underruns, the error that ended it, the position) is in C11 atomics the owner reads at any time; the PCM itself
 * is touched only by this thread while it runs, so no lock inside alsa-lib is contended either.
 *
 * A dry ring is waited on (vnshim_ring_wait), never polled, and nothing is written meanwhile: no silence is made
 * up. The device plays what it holds and, when that runs out, underruns; the underrun is counted and recovered
 * (snd_pcm_recover leaves the PCM prepared) and playback restarts when frames come again. Made-up silence would
 * make "frames written" count frames the listener never got from the producer, and the position (written minus
 * delay) would drift from the audio by every gap; an underrun leaves both exact, and the count tells the player
 * its producer is late.
 *
 * The PCM starts by itself once its buffer is full (start threshold = buffer size), or here when the ring stays dry
 * for a whole wait with frames queued (a late producer, a stream shorter than the buffer): frames are not held back
 * for longer than that. At the end of stream the thread lets the device play what it holds (watching snd_pcm_delay,
 * bounded: a device whose delay stops shrinking ends the run with -ETIMEDOUT) and then stops the PCM; snd_pcm_drain
 * is not used because in non-blocking mode each plugin answers it differently and in blocking mode nothing bounds
 * it. Before that, a run whose frames do not fill their last period gets that period completed with silence, as
 * aplay does: ALSA's rate plugin (`plug` converting 44.1 kHz to a 48 kHz device, say) converts whole periods
 * only, so a partial last period would never be heard and the delay would never shrink to zero. The padding is
 * the one made-up silence: never counted as frames written, and taken off the delay the position reports. */
#define _GNU_SOURCE
#include "realtime.h"
#include "playback_waits.h"
#include "pcm_recovery.h"
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The bounded wait's timeout while the device's buffer is full: bounds how long stop() waits for the thread. */
#define WAIT_TIMEOUT_MS 20
/* Longest sleep while the end of stream plays out: the run ends at most this late after the last frame was heard. */
#define PLAY_OUT_STEP_MS 20
/* While the end plays out, a delay that does not shrink for this long (at least; two buffers if longer) means the
 * device stopped playing. */
#define PLAY_OUT_STALL_MS 1000

struct vnshim_playback {
    snd_pcm_t *pcm;             /* owned; NULL after close */
    int16_t *buffer;            /* one period of interleaved frames, allocated at create */
    size_t period_frames;
    size_t buffer_frames;
    size_t channels;
    unsigned rate;
    int ring_wait_ms;           /* how long a dry ring is waited on before the device is looked at again */
    long stall_ms;              /* see PLAY_OUT_STALL_MS */
    vnshim_ring *ring;          /* the source while a thread runs; the owner keeps it alive until stop */
    pthread_t thread;
    int thread_joinable;        /* owner side only (start/stop/close are serialized by the owner) */
    int ended_by_stop;          /* written by the thread, read by the owner after the join */
    int64_t dropped;            /* one writer at a time: the thread while it runs, else the owner */
    int64_t padding;            /* silent frames written to complete the last period (the thread's; see above) */
    size_t run_frames;          /* frames written since the PCM was last prepared (the thread's) */
    sem_t ended;                /* posted when the thread ends; a waiter that takes it posts it again (a latch) */
    sem_t progress;             /* posted when the thread leaves the ring at most half full, and when it ends */
    _Atomic int stop_requested;
    _Atomic int end_of_stream;
    _Atomic int running;
    _Atomic int finished;       /* the last run played the end of stream out */
    _Atomic int error;          /* the negative error that ended the thread, 0 if none */
    _Atomic int64_t frames;
    _Atomic int64_t underruns;
    _Atomic uint64_t iterations;
    _Atomic uint64_t recoveries;
    /* The position as last measured, behind a sequence lock (odd while being written; one writer at a time). */
    _Atomic uint64_t sequence;
    _Atomic int64_t snapshot_written;
    _Atomic int64_t snapshot_dropped;
    _Atomic int64_t snapshot_delay;
    _Atomic int64_t snapshot_time_ns;   /* CLOCK_MONOTONIC of the measurement */
    _Atomic int snapshot_advancing;     /* the PCM was running: the delay shrinks in real time from then on */
};

static int64_t monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Records a measured delay with the frames written and dropped so far. */
static void publish(vnshim_playback *p, int64_t delay, int advancing, int64_t time_ns) {
    uint64_t sequence = atomic_load_explicit(&p->sequence, memory_order_relaxed);
    atomic_store_explicit(&p->sequence, sequence + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&p->snapshot_written, atomic_load_explicit(&p->frames, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&p->snapshot_dropped, p->dropped, memory_order_relaxed);
    atomic_store_explicit(&p->snapshot_delay, delay > 0 ? delay : 0, memory_order_relaxed);
    atomic_store_explicit(&p->snapshot_time_ns, time_ns, memory_order_relaxed);
    atomic_store_explicit(&p->snapshot_advancing, advancing, memory_order_relaxed);
    atomic_store_explicit(&p->sequence, sequence + 2, memory_order_release);
}

/* The delay of a snapshot at `now_ns`: less what the device has played since, while it plays. */
static int64_t delay_at(int64_t delay, int advancing, int64_t time_ns, int64_t now_ns, unsigned rate) {
    if (advancing && now_ns > time_ns) delay -= (now_ns - time_ns) * (int64_t)rate / 1000000000LL;
    return delay > 0 ? delay : 0;
}

void vnshim_playback_position_now(vnshim_playback *p, vnshim_playback_position *position) {
    uint64_t before, after;
    int64_t written, dropped, delay, time_ns;
    int advancing;
    do {
        before = atomic_load_explicit(&p->sequence, memory_order_acquire);
        written = atomic_load_explicit(&p->snapshot_written, memory_order_relaxed);
        dropped = atomic_load_explicit(&p->snapshot_dropped, memory_order_relaxed);
        delay = atomic_load_explicit(&p->snapshot_delay, memory_order_relaxed);
        time_ns = atomic_load_explicit(&p->snapshot_time_ns, memory_order_relaxed);
        advancing = atomic_load_explicit(&p->snapshot_advancing, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        after = atomic_load_explicit(&p->sequence, memory_order_relaxed);
    } while (before != after || (before & 1) != 0);
    position->frames_written = written;
    position->frames_dropped = dropped;
    position->delay_frames = delay_at(delay, advancing, time_ns, monotonic_ns(), p->rate);
}

/* The error a PCM in `state` answers a write with; 0 for a state that plays. */
static int error_of_state(snd_pcm_state_t state) {
    switch (state) {
    case SND_PCM_STATE_XRUN: return -EPIPE;
    case SND_PCM_STATE_SUSPENDED: return -ESTRPIPE;
    case SND_PCM_STATE_DISCONNECTED: return -ENODEV;
    default: return 0;
    }
}

/* An error from the device while playing: 0 when recovered (go on), else the error that ends the thread. */
static int recover(vnshim_playback *p, int error, int *recoveries_without_progress) {
    if ((error == -EPIPE || error == -ESTRPIPE) &&
        ++*recoveries_without_progress > VNSHIM_MAX_RECOVERIES_WITHOUT_PROGRESS)
        return error;
    if (error == -EPIPE) {
        /* Underrun: the device played everything it had. Prepared again, it restarts when written. */
        atomic_fetch_add_explicit(&p->underruns, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&p->recoveries, 1, memory_order_relaxed);
        int recovered = snd_pcm_recover(p->pcm, -EPIPE, 1);
        p->run_frames = 0;                                /* prepared again: periods count from here */
        return recovered < 0 ? recovered : 0;
    }
    if (error == -ESTRPIPE) {
        atomic_fetch_add_explicit(&p->recoveries, 1, memory_order_relaxed);
        p->run_frames = 0;
        return vnshim_pcm_resume_after_suspend(p->pcm, &p->stop_requested, 0);
    }
    return error;                                         /* -ENODEV, -EIO, -EBADFD, ...: the device is gone */
}

/* Looks at the device: its state, the room in its buffer (`*avail`, frames) and its delay, published as the
 * position. 0, or the device's error (-EPIPE, -ESTRPIPE, -ENODEV, ...). A delay the PCM cannot tell (the pulse
 * plugin answers -EIO until its stream's first timing update, as after every prepare) is not an error: the frames its
 * buffer holds stand in for it. */
static int measure(vnshim_playback *p, snd_pcm_sframes_t *avail, snd_pcm_state_t *state, int64_t *delay_frames) {
    *avail = snd_pcm_avail(p->pcm);
    *state = snd_pcm_state(p->pcm);
    if (*avail < 0) return (int)*avail;
    int error = error_of_state(*state);                   /* some plugins answer avail in an error state */
    if (error < 0) return error;
    snd_pcm_sframes_t delay = 0;
    int result = snd_pcm_delay(p->pcm, &delay);
    if (result == -EPIPE || result == -ESTRPIPE || result == -ENODEV) return result;
    if (result < 0) delay = (size_t)*avail < p->buffer_frames ? (snd_pcm_sframes_t)p->buffer_frames - *avail : 0;
    delay -= p->padding;                                  /* the silence completing the last period is last out */
    if (delay < 0) delay = 0;
    *delay_frames = delay;
    publish(p, delay, *state == SND_PCM_STATE_RUNNING, monotonic_ns());
    return 0;
}

/* End of stream, the ring empty and every frame taken written: lets the device play what it holds, then stops it.
 * 0 when played out (`*finished` set) or a stop was requested, else the error that ends the thread. */
static int play_out(vnshim_playback *p, int *recoveries_without_progress, int *finished) {
    int64_t started_ns = monotonic_ns();
    int64_t deadline_ns = 0;
    int64_t smallest_delay = -1;
    int64_t progress_ns = started_ns;
    while (!atomic_load_explicit(&p->stop_requested, memory_order_acquire)) {
        atomic_fetch_add_explicit(&p->iterations, 1, memory_order_relaxed);
        snd_pcm_sframes_t avail = 0;
        snd_pcm_state_t state;
        int64_t delay = 0;
        int result = measure(p, &avail, &state, &delay);
        int64_t now_ns = monotonic_ns();
        if (result == -EPIPE) break;                      /* ran dry after the last frame: all of it was heard */
        if (result < 0) {
            result = recover(p, result, recoveries_without_progress);
            if (result < 0) return result;
            continue;
        }
        if (state == SND_PCM_STATE_PREPARED) {            /* fewer frames than the start threshold, or none */
            if (avail >= 0 && (size_t)avail < p->buffer_frames) {
                result = snd_pcm_start(p->pcm);
                if (result < 0) return result;
                continue;
            }
            break;
        }
        if (delay <= 0) break;
        if (deadline_ns == 0) {
            deadline_ns = started_ns + (2 * (int64_t)delay * 1000 / p->rate + p->stall_ms) * 1000000LL;
        }
        if (smallest_delay < 0 || delay < smallest_delay) {
            smallest_delay = delay;
            progress_ns = now_ns;
        } else if (now_ns - progress_ns > p->stall_ms * 1000000LL) {
            return -ETIMEDOUT;
        }
        if (now_ns > deadline_ns) return -ETIMEDOUT;
        long remaining_ms = (long)((int64_t)delay * 1000 / p->rate) + 1;
        vnshim_sleep_milliseconds(remaining_ms < PLAY_OUT_STEP_MS ? remaining_ms : PLAY_OUT_STEP_MS);
    }
    if (atomic_load_explicit(&p->stop_requested, memory_order_acquire)) return 0;
    snd_pcm_drop(p->pcm);
    publish(p, 0, 0, monotonic_ns());
    *finished = 1;
    return 0;
}

static void *playback_main(void *argument) {
    vnshim_playback *p = argument;
    pthread_setname_np(pthread_self(), "vn-playback");
    vnshim_alsa_errors_silence_thread();
    size_t pending = 0;                                   /* frames taken from the ring, not yet written */
    size_t pending_offset = 0;                            /* where they start in p->buffer, in frames */
    int recoveries_without_progress = 0;
    int idle_wakes = 0;                                   /* device waits or writes that moved nothing */
    int dry_wait_timed_out = 0;                           /* the last wait on the ring brought nothing */
    int finished = 0;
    int error = 0;
    int padding = 0;                                      /* `pending` is the silence completing the last period */
    p->padding = 0;
    p->run_frames = 0;
    while (!atomic_load_explicit(&p->stop_requested, memory_order_acquire)) {
        atomic_fetch_add_explicit(&p->iterations, 1, memory_order_relaxed);
        snd_pcm_sframes_t avail = 0;
        snd_pcm_state_t state;
        int64_t delay = 0;
        int result = measure(p, &avail, &state, &delay);
        if (result < 0) {
            result = recover(p, result, &recoveries_without_progress);
            if (result < 0) {
                error = result;
                break;
            }
            continue;
        }
        size_t room = avail > 0 ? (size_t)avail : 0;

        if (pending == 0) {
            size_t ring_frames = vnshim_ring_available(p->ring) / p->channels;
            size_t take = ring_frames < p->period_frames ? ring_frames : p->period_frames;
            if (take > room) take = room;
            if (take > 0) {
                vnshim_ring_read(p->ring, p->buffer, take * p->channels);
                /* The producer is woken once the ring is at most half full: one hand-over per half ring. */
                if (vnshim_ring_available(p->ring) <= p->ring->capacity / 2) sem_post(&p->progress);
                pending = take;
                pending_offset = 0;
            } else if (ring_frames == 0) {
                /* The ring is dry. */
                if (atomic_load_explicit(&p->end_of_stream, memory_order_acquire)) {
                    size_t partial = p->run_frames % p->period_frames;
                    if (partial != 0 && !padding) {       /* complete the last period first (see the top) */
                        memset(p->buffer, 0, (p->period_frames - partial) * p->channels * sizeof(int16_t));
                        pending = p->period_frames - partial;
                        pending_offset = 0;
                        padding = 1;
                        continue;
                    }
                    error = play_out(p, &recoveries_without_progress, &finished);
                    break;
                }
                size_t queued = room < p->buffer_frames ? p->buffer_frames - room : 0;
                if (state == SND_PCM_STATE_PREPARED && queued > 0 && dry_wait_timed_out) {
                    dry_wait_timed_out = 0;
                    result = snd_pcm_start(p->pcm);
                    if (result < 0 && (result = recover(p, result, &recoveries_without_progress)) < 0) {
                        error = result;
                        break;
                    }
                    continue;
                }
                /* Forget wake-ups of writes already read, look once more, then sleep until the next write, a
                 * notify (stop, end of stream) or the timeout. */
                while (vnshim_ring_wait(p->ring, 0)) {
                }
                if (vnshim_ring_available(p->ring) >= p->channels ||
                    atomic_load_explicit(&p->end_of_stream, memory_order_acquire))
                    continue;
                dry_wait_timed_out = !vnshim_ring_wait(p->ring, p->ring_wait_ms);
                continue;
            }
        }

        if (pending > 0 && room > 0) {
            size_t count = pending < room ? pending : room;
            snd_pcm_sframes_t written = snd_pcm_writei(p->pcm, p->buffer + pending_offset * p->channels, count);
            if (written > 0) {
                pending -= (size_t)written;
                pending_offset = pending == 0 ? 0 : pending_offset + (size_t)written;
                p->run_frames += (size_t)written;
                if (padding)
                    p->padding += written;                /* silence: not a frame of the stream */
                else
                    atomic_fetch_add_explicit(&p->frames, (int64_t)written, memory_order_relaxed);
                recoveries_without_progress = 0;
                idle_wakes = 0;
                dry_wait_timed_out = 0;
                continue;
            }
            if (written == 0 || written == -EAGAIN || written == -EINTR) {
                /* Room reported but nothing taken: never let that become a busy loop. */
                if (++idle_wakes >= 3) vnshim_sleep_milliseconds(1);
                continue;
            }
            result = recover(p, (int)written, &recoveries_without_progress);
            if (result < 0) {
                error = result;
                break;
            }
            continue;
        }

        /* Frames to write and no room: the buffer is full. Start it if a plugin did not, then wait for a period. */
        if (state == SND_PCM_STATE_PREPARED) {
            result = snd_pcm_start(p->pcm);
            if (result < 0 && (result = recover(p, result, &recoveries_without_progress)) < 0) {
                error = result;
                break;
            }
            continue;
        }
        snd_pcm_sframes_t waited = vnshim_pcm_wait_bounded(p->pcm, WAIT_TIMEOUT_MS);
        if (waited == 0) continue;                        /* timeout: look at the stop flag again */
        if (waited > 0) {
            /* Woken with room for less than a period: a plugin whose poll wakes early. */
            if (++idle_wakes >= 3) vnshim_sleep_milliseconds(1);
            continue;
        }
        result = recover(p, (int)waited, &recoveries_without_progress);
        if (result < 0) {
            error = result;
            break;
        }
    }
    p->ended_by_stop = error == 0 && !finished;
    if (error != 0) {
        /* What the device held is lost with it: no longer in the delay, dropped. */
        vnshim_playback_position position;
        vnshim_playback_position_now(p, &position);
        p->dropped += position.delay_frames;
        publish(p, 0, 0, monotonic_ns());
        atomic_store_explicit(&p->error, error, memory_order_release);
    }
    if (finished) atomic_store_explicit(&p->finished, 1, memory_order_release);
    atomic_store_explicit(&p->running, 0, memory_order_release);
    sem_post(&p->ended);                                  /* after `running` drops, so a woken waiter sees it */
    sem_post(&p->progress);
    return NULL;
}

vnshim_playback *vnshim_playback_create(struct _snd_pcm *pcm, unsigned rate, size_t channels, size_t period_frames,
                                        size_t buffer_frames) {
    if (pcm == NULL || rate == 0 || channels == 0 || period_frames == 0 || buffer_frames == 0) return NULL;
    vnshim_playback *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    p->buffer = calloc(period_frames * channels, sizeof(int16_t));
    if (p->buffer == NULL || sem_init(&p->ended, 0, 0) != 0) {
        free(p->buffer);
        free(p);
        return NULL;
    }
    if (sem_init(&p->progress, 0, 0) != 0) {
        sem_destroy(&p->ended);
        free(p->buffer);
        free(p);
        return NULL;
    }
    p->pcm = pcm;
    p->rate = rate;
    p->channels = channels;
    p->period_frames = period_frames;
    p->buffer_frames = buffer_frames;
    long period_ms = (long)(period_frames * 1000 / rate);
    p->ring_wait_ms = period_ms < 5 ? 5 : period_ms > 50 ? 50 : (int)period_ms;
    long buffer_ms = (long)(buffer_frames * 1000 / rate);
    p->stall_ms = 2 * buffer_ms > PLAY_OUT_STALL_MS ? 2 * buffer_ms : PLAY_OUT_STALL_MS;
    atomic_init(&p->stop_requested, 0);
    atomic_init(&p->end_of_stream, 0);
    atomic_init(&p->running, 0);
    atomic_init(&p->finished, 0);
    atomic_init(&p->error, 0);
    atomic_init(&p->frames, 0);
    atomic_init(&p->underruns, 0);
    atomic_init(&p->iterations, 0);
    atomic_init(&p->recoveries, 0);
    atomic_init(&p->sequence, 0);
    atomic_init(&p->snapshot_written, 0);
    atomic_init(&p->snapshot_dropped, 0);
    atomic_init(&p->snapshot_delay, 0);
    atomic_init(&p->snapshot_time_ns, 0);
    atomic_init(&p->snapshot_advancing, 0);
    return p;
}

/* Joins a thread that ended by itself or was told to stop; wakes it first if it waits on the ring. */
static void join_thread(vnshim_playback *p) {
    if (!p->thread_joinable) return;
    atomic_store_explicit(&p->stop_requested, 1, memory_order_release);
    vnshim_ring_notify(p->ring);
    pthread_join(p->thread, NULL);
    p->thread_joinable = 0;
}

int vnshim_playback_start(vnshim_playback *p, vnshim_ring *ring) {
    if (p->pcm == NULL) return -EBADFD;
    if (atomic_load_explicit(&p->running, memory_order_acquire)) return -EBUSY;
    join_thread(p);
    vnshim_alsa_errors_begin();
    int result = snd_pcm_prepare(p->pcm);
    vnshim_alsa_errors_end();
    if (result < 0) return result;
    p->ring = ring;
    p->ended_by_stop = 0;
    while (sem_trywait(&p->ended) == 0) {
    }
    while (sem_trywait(&p->progress) == 0) {
    }
    publish(p, 0, 0, monotonic_ns());
    atomic_store_explicit(&p->stop_requested, 0, memory_order_relaxed);
    atomic_store_explicit(&p->end_of_stream, 0, memory_order_relaxed);
    atomic_store_explicit(&p->error, 0, memory_order_relaxed);
    atomic_store_explicit(&p->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&p->running, 1, memory_order_release);
    int created = pthread_create(&p->thread, NULL, playback_main, p);
    if (created != 0) {
        atomic_store_explicit(&p->running, 0, memory_order_release);
        p->ring = NULL;
        vnshim_alsa_errors_begin();
        snd_pcm_drop(p->pcm);
        vnshim_alsa_errors_end();
        return -created;
    }
    p->thread_joinable = 1;
    return 0;
}

void vnshim_playback_end_of_stream(vnshim_playback *p) {
    atomic_store_explicit(&p->end_of_stream, 1, memory_order_release);
    if (p->ring != NULL) vnshim_ring_notify(p->ring);     /* a thread waiting on the dry ring looks at the flag */
}

int vnshim_playback_wait_end(vnshim_playback *p, int timeout_ms) {
    return vnshim_wait_until_ended(&p->ended, &p->running, timeout_ms);
}

int vnshim_playback_wait(vnshim_playback *p, int timeout_ms) {
    return vnshim_wait_for_progress(&p->progress, &p->running, timeout_ms);
}

void vnshim_playback_stop(vnshim_playback *p) {
    if (p->thread_joinable) {
        join_thread(p);
        if (p->ended_by_stop && p->pcm != NULL) {
            /* Stopped while the device held frames: those are never heard. Measured here, after the join, so the
             * PCM is ours alone; a delay the PCM cannot tell now is the thread's last measurement, extrapolated.
             * After an underrun (-EPIPE) nothing was held. */
            snd_pcm_sframes_t delay = 0;
            vnshim_alsa_errors_begin();
            int result = snd_pcm_delay(p->pcm, &delay);
            vnshim_alsa_errors_end();
            if (result < 0 && result != -EPIPE) {
                vnshim_playback_position position;
                vnshim_playback_position_now(p, &position);
                delay = (snd_pcm_sframes_t)position.delay_frames;
            }
            if (result != -EPIPE && delay > 0) p->dropped += delay;
            publish(p, 0, 0, monotonic_ns());
        }
    }
    if (p->pcm != NULL) {
        vnshim_alsa_errors_begin();
        snd_pcm_drop(p->pcm);
        vnshim_alsa_errors_end();
    }
    p->ring = NULL;
}

void vnshim_playback_close(vnshim_playback *p) {
    vnshim_playback_stop(p);
    if (p->pcm != NULL) {
        vnshim_alsa_errors_begin();
        snd_pcm_close(p->pcm);
        vnshim_alsa_errors_end();
        p->pcm = NULL;
    }
}

void vnshim_playback_destroy(vnshim_playback *p) {
    if (p == NULL) return;
    vnshim_playback_close(p);
    sem_destroy(&p->ended);
    sem_destroy(&p->progress);
    free(p->buffer);
    free(p);
}

int vnshim_playback_is_running(vnshim_playback *p) {
    return atomic_load_explicit(&p->running, memory_order_acquire);
}

int vnshim_playback_finished(vnshim_playback *p) { return atomic_load_explicit(&p->finished, memory_order_acquire); }

int vnshim_playback_error(vnshim_playback *p) { return atomic_load_explicit(&p->error, memory_order_acquire); }

int64_t vnshim_playback_frames(vnshim_playback *p) { return atomic_load_explicit(&p->frames, memory_order_relaxed); }

int64_t vnshim_playback_underruns(vnshim_playback *p) {
    return atomic_load_explicit(&p->underruns, memory_order_relaxed);
}

uint64_t vnshim_playback_iterations(vnshim_playback *p) {
    return atomic_load_explicit(&p->iterations, memory_order_relaxed);
}

uint64_t vnshim_playback_recoveries(vnshim_playback *p) {
    return atomic_load_explicit(&p->recoveries, memory_order_relaxed);
}
