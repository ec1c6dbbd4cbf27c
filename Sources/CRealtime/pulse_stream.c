/* PulseAudio streams with a role (pulse_streams.h): one libpulse context and stream per device, driven by libpulse's
 * threaded main loop (`vn-pulse`). A capture stream's read callback moves what the server delivers into the ring;
 * a playback stream is fed by a `vn-playback` thread of ours, which takes the main loop's lock only for the moment
 * of a write or a measurement. Neither thread allocates, writes files or calls Swift. */
#define _GNU_SOURCE
#include "pulse_streams.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <pulse/pulseaudio.h>

#include "playback_waits.h"

/* How long a dry ring or a full server buffer is waited on before the thread looks at its flags again. */
#define WAIT_STEP_MS 20

struct vnpa_stream {
    pa_threaded_mainloop *loop;
    pa_context *context;
    pa_stream *stream;
    vnpa_direction direction;
    unsigned rate;
    size_t channels;
    size_t frame_bytes;
    size_t period_frames;
    size_t buffer_frames;
    unsigned period_us;
    int16_t *buffer;            /* playback: one buffer of frames taken from the ring; capture: one period of silence */
    vnshim_ring *ring;          /* capture: under the main loop's lock; playback: the owner's, while a thread runs */
    size_t taken;               /* capture: frames of libpulse's current fragment already in the ring (under the lock) */
    pa_time_event *retry;       /* capture: looks again at what the ring had no room for (under the lock) */
    sem_t wake;                 /* posted by libpulse's callbacks (state, write requests, drain): a waiter looks again */
    sem_t ended;                /* playback: posted when the thread ends; a waiter that takes it posts it again */
    sem_t progress;             /* playback: posted when the thread leaves the ring at most half full, and at its end */
    pthread_t thread;
    int thread_joinable;        /* owner side only */
    pa_operation *drain;        /* playback: the thread's drain while it plays the end out (under the lock) */
    int drain_result;           /* 0 pending, 1 played out, -1 failed (under the lock) */
    _Atomic int stop_requested;
    _Atomic int end_of_stream;
    _Atomic int running;
    _Atomic int finished;
    _Atomic int error;
    _Atomic int64_t frames;
    _Atomic int64_t dropped;    /* playback: frames written, never heard (capture drops none: see pump) */
    _Atomic int64_t xruns;
};

/* ---- callbacks (libpulse's thread, its lock held) ------------------------------------------------------------ */

static void context_state_changed(pa_context *context, void *userdata) {
    (void)context;
    vnpa_stream *s = userdata;
    sem_post(&s->wake);
}

static void stream_state_changed(pa_stream *stream, void *userdata) {
    vnpa_stream *s = userdata;
    pa_stream_state_t state = pa_stream_get_state(stream);
    if ((state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED) &&
        atomic_load_explicit(&s->running, memory_order_acquire)) {
        atomic_store_explicit(&s->error, -ENODEV, memory_order_release);
        if (s->direction == VNPA_CAPTURE) {
            atomic_store_explicit(&s->running, 0, memory_order_release);
            if (s->ring != NULL) vnshim_ring_notify(s->ring);   /* after `running` drops, so the reader sees it */
        }
    }
    sem_post(&s->wake);
}

static void stream_requested(pa_stream *stream, size_t bytes, void *userdata) {
    (void)stream;
    (void)bytes;
    vnpa_stream *s = userdata;
    sem_post(&s->wake);
}

static void stream_xrun(pa_stream *stream, void *userdata) {
    (void)stream;
    vnpa_stream *s = userdata;
    atomic_fetch_add_explicit(&s->xruns, 1, memory_order_relaxed);
}

/* Up to `frame_count` frames (`samples`, or silence for a hole) into the ring, as far as it has room; how many. */
static size_t deliver(vnpa_stream *s, const int16_t *samples, size_t frame_count) {
    size_t room = (s->ring->capacity - vnshim_ring_available(s->ring)) / s->channels;
    size_t count = frame_count < room ? frame_count : room;
    if (samples == NULL && count > s->period_frames) count = s->period_frames;
    if (count == 0) return 0;
    vnshim_ring_write(s->ring, samples != NULL ? samples : s->buffer, count * s->channels);
    atomic_fetch_add_explicit(&s->frames, (int64_t)count, memory_order_relaxed);
    return count;
}

static void retry_pump(pa_mainloop_api *api, pa_time_event *event, const struct timeval *when, void *userdata);

/* Looks again after one period (the ring's consumer frees room at its pace; it never calls into libpulse). */
static void arm_retry(vnpa_stream *s) {
    struct timeval when;
    gettimeofday(&when, NULL);
    when.tv_usec += (suseconds_t)s->period_us;
    when.tv_sec += when.tv_usec / 1000000;
    when.tv_usec %= 1000000;
    pa_mainloop_api *api = pa_threaded_mainloop_get_api(s->loop);
    if (s->retry == NULL) {
        s->retry = api->time_new(api, &when, retry_pump, s);
    } else {
        api->time_restart(s->retry, &when);
    }
}

/* Moves what libpulse holds into the ring, as far as the ring has room; the lock is held. What does not fit stays in
 * libpulse's queue (the current fragment from `taken` on) and is looked at again a period later, as the ALSA thread
 * leaves frames in the device's buffer: a consumer that falls behind, or a source that posts seconds at once (a
 * Bluetooth or network source, PulseAudio's sine source), loses nothing. The queue is bounded by the stream's
 * maxlength, beyond which the server drops and reports an overflow. Not capturing, everything is dropped. */
static void pump(vnpa_stream *s) {
    const void *data;
    size_t size;
    int capturing = s->ring != NULL && atomic_load_explicit(&s->running, memory_order_acquire);
    while (pa_stream_peek(s->stream, &data, &size) == 0 && size > 0) {
        size_t frame_count = size / s->frame_bytes;
        while (capturing && s->taken < frame_count) {
            const int16_t *from = data != NULL ? (const int16_t *)data + s->taken * s->channels : NULL;
            size_t count = deliver(s, from, frame_count - s->taken);      /* NULL: a hole the server left, silence */
            if (count == 0) {
                arm_retry(s);
                return;
            }
            s->taken += count;
        }
        pa_stream_drop(s->stream);
        s->taken = 0;
    }
}

static void retry_pump(pa_mainloop_api *api, pa_time_event *event, const struct timeval *when, void *userdata) {
    (void)api;
    (void)event;
    (void)when;
    vnpa_stream *s = userdata;
    if (s->stream != NULL) pump(s);
}

static void capture_readable(pa_stream *stream, size_t bytes, void *userdata) {
    (void)stream;
    (void)bytes;
    pump(userdata);
}

static void drained(pa_stream *stream, int success, void *userdata) {
    (void)stream;
    vnpa_stream *s = userdata;
    s->drain_result = success ? 1 : -1;
    sem_post(&s->wake);
}

/* ---- setup --------------------------------------------------------------------------------------------------- */

static void set_message(char *message, size_t size, const char *what, int pa_error) {
    if (message == NULL || size == 0) return;
    if (pa_error != 0)
        snprintf(message, size, "%s: %s", what, pa_strerror(pa_error));
    else
        snprintf(message, size, "%s", what);
}

static int errno_of(int pa_error) {
    switch (pa_error) {
    case PA_ERR_NOENTITY: return -ENOENT;
    case PA_ERR_CONNECTIONREFUSED:
    case PA_ERR_INVALIDSERVER:
    case PA_ERR_ACCESS:
    case PA_ERR_AUTHKEY: return -ECONNREFUSED;
    case PA_ERR_TIMEOUT: return -ETIMEDOUT;
    case PA_ERR_INVALID: return -EINVAL;
    default: return -EIO;
    }
}

/* Waits, within `deadline`, for the context (`for_stream` 0) or the stream to be ready. The lock is not held. */
static int wait_ready(vnpa_stream *s, int for_stream, const struct timespec *deadline, char *message, size_t size) {
    for (;;) {
        pa_threaded_mainloop_lock(s->loop);
        int ready = 0, failed = 0, pa_error = 0;
        if (for_stream) {
            pa_stream_state_t state = pa_stream_get_state(s->stream);
            ready = state == PA_STREAM_READY;
            failed = state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED;
        } else {
            pa_context_state_t state = pa_context_get_state(s->context);
            ready = state == PA_CONTEXT_READY;
            failed = !PA_CONTEXT_IS_GOOD(state);
        }
        if (failed) pa_error = pa_context_errno(s->context);
        pa_threaded_mainloop_unlock(s->loop);
        if (ready) return 0;
        if (failed) {
            set_message(message, size, for_stream ? "the PulseAudio stream failed" : "cannot connect to PulseAudio",
                        pa_error);
            return errno_of(pa_error);
        }
        if (sem_clockwait(&s->wake, CLOCK_MONOTONIC, deadline) != 0 && errno == ETIMEDOUT) {
            set_message(message, size,
                        for_stream ? "the PulseAudio stream was not set up in time"
                                   : "the PulseAudio server did not answer in time",
                        0);
            return -ETIMEDOUT;
        }
    }
}

static int valid(const vnpa_request *r) {
    return r != NULL && r->rate >= 8000 && r->rate <= 192000 && r->channels >= 1 && r->channels <= 8 &&
           r->period_ms >= 1 && r->period_ms <= 1000 && r->buffer_ms <= 10000 && r->timeout_ms <= 60000 &&
           r->stream_name != NULL;
}

int vnpa_open(const vnpa_request *r, vnpa_stream **out, char *message, size_t size) {
    *out = NULL;
    if (!valid(r)) {
        set_message(message, size, "a PulseAudio stream request out of range", 0);
        return -EINVAL;
    }
    const char *load_message = NULL;
    if (vnpa_load(&load_message) != 0) {
        set_message(message, size, load_message, 0);
        return -ENOENT;
    }
    vnpa_stream *s = calloc(1, sizeof *s);
    if (s == NULL) return -ENOMEM;
    s->direction = r->direction;
    s->rate = r->rate;
    s->channels = r->channels;
    s->frame_bytes = r->channels * sizeof(int16_t);
    s->period_frames = (size_t)r->rate * r->period_ms / 1000;
    s->period_us = r->period_ms * 1000;
    if (s->period_frames == 0) s->period_frames = 1;
    size_t buffer_ms = r->buffer_ms > r->period_ms ? r->buffer_ms : (size_t)r->period_ms * 8;
    s->buffer_frames = (size_t)r->rate * buffer_ms / 1000;
    sem_init(&s->wake, 0, 0);
    sem_init(&s->ended, 0, 0);
    sem_init(&s->progress, 0, 0);
    size_t buffer_samples = (r->direction == VNPA_PLAYBACK ? s->buffer_frames : s->period_frames) * r->channels;
    s->buffer = calloc(buffer_samples, sizeof(int16_t));
    s->loop = s->buffer ? pa_threaded_mainloop_new() : NULL;
    if (s->loop == NULL) {
        vnpa_close(s);
        return -ENOMEM;
    }
    pa_threaded_mainloop_set_name(s->loop, "vn-pulse");
    struct timespec deadline = vnshim_deadline_after_ms(CLOCK_MONOTONIC, (int)r->timeout_ms);

    /* The client is named after the program, as ALSA's pulse plugin names its own. */
    const char *application = program_invocation_short_name;
    if (application == NULL || application[0] == 0) application = "voicenote";
    pa_proplist *client = pa_proplist_new();
    pa_proplist_sets(client, PA_PROP_APPLICATION_NAME, application);
    s->context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(s->loop), application, client);
    pa_proplist_free(client);
    if (s->context == NULL) {
        vnpa_close(s);
        return -ENOMEM;
    }
    pa_context_set_state_callback(s->context, context_state_changed, s);
    if (pa_context_connect(s->context, r->server, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0) {
        int pa_error = pa_context_errno(s->context);
        set_message(message, size, "cannot connect to PulseAudio", pa_error);
        vnpa_close(s);
        return errno_of(pa_error);
    }
    if (pa_threaded_mainloop_start(s->loop) < 0) {
        set_message(message, size, "cannot start libpulse's thread", 0);
        vnpa_close(s);
        return -EIO;
    }
    int result = wait_ready(s, 0, &deadline, message, size);
    if (result != 0) {
        vnpa_close(s);
        return result;
    }

    pa_sample_spec spec = {.format = PA_SAMPLE_S16LE, .rate = r->rate, .channels = (uint8_t)r->channels};
    pa_proplist *properties = pa_proplist_new();
    pa_proplist_sets(properties, PA_PROP_MEDIA_NAME, r->stream_name);
    if (r->role != NULL) pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, r->role);
    uint32_t period_bytes = (uint32_t)(s->period_frames * s->frame_bytes);
    pa_buffer_attr attributes = {
        .maxlength = (uint32_t)-1,
        .tlength = (uint32_t)(s->buffer_frames * s->frame_bytes),
        .prebuf = period_bytes,                /* playing starts with one period; an underrun waits for one again */
        .minreq = period_bytes,
        .fragsize = period_bytes,
    };
    pa_stream_flags_t flags = PA_STREAM_START_CORKED | PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_AUTO_TIMING_UPDATE |
                              PA_STREAM_ADJUST_LATENCY;
    pa_threaded_mainloop_lock(s->loop);
    s->stream = pa_stream_new_with_proplist(s->context, r->stream_name, &spec, NULL, properties);
    int connected = -1;
    if (s->stream != NULL) {
        pa_stream_set_state_callback(s->stream, stream_state_changed, s);
        if (r->direction == VNPA_CAPTURE) {
            pa_stream_set_read_callback(s->stream, capture_readable, s);
            pa_stream_set_overflow_callback(s->stream, stream_xrun, s);
            connected = pa_stream_connect_record(s->stream, r->device, &attributes, flags);
        } else {
            pa_stream_set_write_callback(s->stream, stream_requested, s);
            pa_stream_set_underflow_callback(s->stream, stream_xrun, s);
            connected = pa_stream_connect_playback(s->stream, r->device, &attributes, flags, NULL, NULL);
        }
    }
    int pa_error = connected < 0 ? pa_context_errno(s->context) : 0;
    pa_threaded_mainloop_unlock(s->loop);
    pa_proplist_free(properties);
    if (connected < 0) {
        set_message(message, size, "cannot set up a PulseAudio stream", pa_error);
        vnpa_close(s);
        return s->stream == NULL ? -ENOMEM : errno_of(pa_error);
    }
    result = wait_ready(s, 1, &deadline, message, size);
    if (result != 0) {
        vnpa_close(s);
        return result;
    }
    *out = s;
    return 0;
}

size_t vnpa_period_frames(vnpa_stream *s) { return s->period_frames; }

size_t vnpa_buffer_frames(vnpa_stream *s) { return s->buffer_frames; }

/* Corks (or uncorks) and, when asked, drops what the server holds; the lock is held. The server runs the requests in
 * order, so a flush is sent while the stream is still corked: after an uncork, a source may post at once (a sine
 * source posts two seconds ahead) and a flush behind it would drop the take's first frames. */
static void cork(vnpa_stream *s, int corked, int flush) {
    if (pa_stream_get_state(s->stream) != PA_STREAM_READY) return;
    pa_operation *operation;
    if (flush && !corked) {
        operation = pa_stream_flush(s->stream, NULL, NULL);
        if (operation != NULL) pa_operation_unref(operation);
    }
    operation = pa_stream_cork(s->stream, corked, NULL, NULL);
    if (operation != NULL) pa_operation_unref(operation);
    if (flush && corked) {
        operation = pa_stream_flush(s->stream, NULL, NULL);
        if (operation != NULL) pa_operation_unref(operation);
    }
}

void vnpa_disconnect(vnpa_stream *s) {
    if (s->loop != NULL) {
        if (s->direction == VNPA_CAPTURE) {
            if (s->stream != NULL) vnpa_capture_stop(s);
        } else {
            if (s->stream != NULL) vnpa_playback_stop(s);
        }
        pa_threaded_mainloop_lock(s->loop);
    }
    if (s->retry != NULL) {
        pa_mainloop_api *api = pa_threaded_mainloop_get_api(s->loop);
        api->time_free(s->retry);
        s->retry = NULL;
    }
    if (s->stream != NULL) {
        pa_stream_set_state_callback(s->stream, NULL, NULL);
        pa_stream_set_read_callback(s->stream, NULL, NULL);
        pa_stream_set_write_callback(s->stream, NULL, NULL);
        pa_stream_set_underflow_callback(s->stream, NULL, NULL);
        pa_stream_set_overflow_callback(s->stream, NULL, NULL);
        pa_stream_disconnect(s->stream);
        pa_stream_unref(s->stream);
    }
    if (s->context != NULL) {
        pa_context_set_state_callback(s->context, NULL, NULL);
        pa_context_disconnect(s->context);
        pa_context_unref(s->context);
    }
    s->stream = NULL;
    s->context = NULL;
    if (s->loop != NULL) {
        pa_threaded_mainloop_unlock(s->loop);
        pa_threaded_mainloop_stop(s->loop);
        pa_threaded_mainloop_free(s->loop);
        s->loop = NULL;
    }
}

void vnpa_close(vnpa_stream *s) {
    if (s == NULL) return;
    vnpa_disconnect(s);
    sem_destroy(&s->wake);
    sem_destroy(&s->ended);
    sem_destroy(&s->progress);
    free(s->buffer);
    free(s);
}

/* ---- capture ------------------------------------------------------------------------------------------------- */

int vnpa_capture_start(vnpa_stream *s, vnshim_ring *ring) {
    if (s->loop == NULL) return -EBADFD;
    if (atomic_load_explicit(&s->running, memory_order_acquire)) return -EBUSY;
    pa_threaded_mainloop_lock(s->loop);
    if (pa_stream_get_state(s->stream) != PA_STREAM_READY) {
        pa_threaded_mainloop_unlock(s->loop);
        return -EIO;
    }
    pump(s);                                                /* not capturing yet: what libpulse still holds goes */
    s->ring = ring;
    atomic_store_explicit(&s->error, 0, memory_order_relaxed);
    atomic_store_explicit(&s->running, 1, memory_order_release);
    cork(s, 0, 1);
    pa_threaded_mainloop_unlock(s->loop);
    return 0;
}

void vnpa_capture_stop(vnpa_stream *s) {
    if (s->loop == NULL) return;
    pa_threaded_mainloop_lock(s->loop);
    atomic_store_explicit(&s->running, 0, memory_order_release);
    cork(s, 1, 1);
    vnshim_ring *ring = s->ring;
    s->ring = NULL;
    pump(s);                                                /* not capturing: what libpulse holds is dropped */
    pa_threaded_mainloop_unlock(s->loop);
    if (ring != NULL) vnshim_ring_notify(ring);            /* a consumer waiting on the ring notices the stop */
}

/* ---- playback ------------------------------------------------------------------------------------------------ */

/* Frames the server holds that have not been heard: its interpolated latency; the lock is held. -1 when it has no
 * timing yet. */
static int64_t server_delay(vnpa_stream *s) {
    pa_usec_t latency = 0;
    int negative = 0;
    if (pa_stream_get_state(s->stream) != PA_STREAM_READY ||
        pa_stream_get_latency(s->stream, &latency, &negative) != 0)
        return -1;
    if (negative) return 0;
    return (int64_t)(latency * s->rate / 1000000);
}

static void *playback_main(void *argument) {
    vnpa_stream *s = argument;
    pthread_setname_np(pthread_self(), "vn-playback");
    int error = 0, finished = 0;
    while (!atomic_load_explicit(&s->stop_requested, memory_order_acquire)) {
        /* Wake-ups already posted are about what the look below sees: dropped, so a wait after it sleeps until
         * something new happens rather than returning once per stale post. */
        while (sem_trywait(&s->wake) == 0) {
        }
        while (vnshim_ring_wait(s->ring, 0)) {
        }
        /* The end mark first: the producer marks it after its last write, so the ring read after holds every
         * frame (read the other way round, a last write could be left behind a drain). */
        int end = atomic_load_explicit(&s->end_of_stream, memory_order_acquire);
        size_t ring_frames = vnshim_ring_available(s->ring) / s->channels;
        size_t moved = 0;
        int server_full = 0;
        pa_threaded_mainloop_lock(s->loop);
        if (pa_stream_get_state(s->stream) != PA_STREAM_READY) {
            error = -ENODEV;
        } else if (s->drain != NULL) {
            if (s->drain_result != 0) {
                finished = s->drain_result > 0;
                if (!finished) error = -EIO;
                pa_operation_unref(s->drain);
                s->drain = NULL;
            }
        } else if (ring_frames > 0) {
            size_t writable = pa_stream_writable_size(s->stream) / s->frame_bytes;
            moved = ring_frames < writable ? ring_frames : writable;
            if (moved > s->buffer_frames) moved = s->buffer_frames;
            if (moved > 0) {
                vnshim_ring_read(s->ring, s->buffer, moved * s->channels);
                if (pa_stream_write(s->stream, s->buffer, moved * s->frame_bytes, NULL, 0, PA_SEEK_RELATIVE) < 0)
                    error = -EIO;
                atomic_fetch_add_explicit(&s->frames, (int64_t)moved, memory_order_relaxed);
            } else {
                server_full = 1;
            }
        } else if (end) {
            s->drain_result = 0;
            s->drain = pa_stream_drain(s->stream, drained, s);   /* plays what the server holds, prebuffer or not */
            if (s->drain == NULL) error = -EIO;
        }
        int draining = s->drain != NULL;
        pa_threaded_mainloop_unlock(s->loop);
        if (error != 0 || finished) break;
        if (moved > 0) {
            int progress = 0;
            sem_getvalue(&s->progress, &progress);
            if (progress == 0 && vnshim_ring_available(s->ring) <= s->ring->capacity / 2) sem_post(&s->progress);
            continue;
        }
        if (draining || server_full) {
            struct timespec deadline = vnshim_deadline_after_ms(CLOCK_MONOTONIC, WAIT_STEP_MS);
            (void)sem_clockwait(&s->wake, CLOCK_MONOTONIC, &deadline);
        } else if (!end) {
            (void)vnshim_ring_wait(s->ring, WAIT_STEP_MS);    /* the producer's writes and end_of_stream wake it */
        }
    }
    if (s->drain != NULL) {                                   /* stopped while the end played out */
        pa_threaded_mainloop_lock(s->loop);
        pa_operation_cancel(s->drain);
        pa_operation_unref(s->drain);
        s->drain = NULL;
        pa_threaded_mainloop_unlock(s->loop);
    }
    if (error != 0) atomic_store_explicit(&s->error, error, memory_order_release);
    atomic_store_explicit(&s->finished, finished, memory_order_release);
    atomic_store_explicit(&s->running, 0, memory_order_release);
    sem_post(&s->ended);                                      /* after `running` drops, so a woken waiter sees it */
    sem_post(&s->progress);
    return NULL;
}

static void join_thread(vnpa_stream *s) {
    if (!s->thread_joinable) return;
    atomic_store_explicit(&s->stop_requested, 1, memory_order_release);
    sem_post(&s->wake);
    if (s->ring != NULL) vnshim_ring_notify(s->ring);
    pthread_join(s->thread, NULL);
    s->thread_joinable = 0;
}

int vnpa_playback_start(vnpa_stream *s, vnshim_ring *ring) {
    if (s->loop == NULL) return -EBADFD;
    if (atomic_load_explicit(&s->running, memory_order_acquire)) return -EBUSY;
    join_thread(s);
    pa_threaded_mainloop_lock(s->loop);
    int ready = pa_stream_get_state(s->stream) == PA_STREAM_READY;
    if (ready) cork(s, 0, 0);
    pa_threaded_mainloop_unlock(s->loop);
    if (!ready) return -EIO;
    s->ring = ring;
    while (sem_trywait(&s->ended) == 0) {
    }
    while (sem_trywait(&s->progress) == 0) {
    }
    atomic_store_explicit(&s->stop_requested, 0, memory_order_relaxed);
    atomic_store_explicit(&s->end_of_stream, 0, memory_order_relaxed);
    atomic_store_explicit(&s->error, 0, memory_order_relaxed);
    atomic_store_explicit(&s->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&s->running, 1, memory_order_release);
    int created = pthread_create(&s->thread, NULL, playback_main, s);
    if (created != 0) {
        atomic_store_explicit(&s->running, 0, memory_order_release);
        s->ring = NULL;
        pa_threaded_mainloop_lock(s->loop);
        cork(s, 1, 1);
        pa_threaded_mainloop_unlock(s->loop);
        return -created;
    }
    s->thread_joinable = 1;
    return 0;
}

void vnpa_playback_end_of_stream(vnpa_stream *s) {
    atomic_store_explicit(&s->end_of_stream, 1, memory_order_release);
    if (s->ring != NULL) vnshim_ring_notify(s->ring);         /* a thread waiting on the dry ring looks at the flag */
}

int vnpa_playback_wait_end(vnpa_stream *s, int timeout_ms) {
    return vnshim_wait_until_ended(&s->ended, &s->running, timeout_ms);
}

int vnpa_playback_wait(vnpa_stream *s, int timeout_ms) {
    return vnshim_wait_for_progress(&s->progress, &s->running, timeout_ms);
}

void vnpa_playback_stop(vnpa_stream *s) {
    join_thread(s);
    if (s->loop == NULL) return;
    pa_threaded_mainloop_lock(s->loop);
    int64_t written = atomic_load_explicit(&s->frames, memory_order_relaxed);
    int64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
    int64_t unheard = atomic_load_explicit(&s->finished, memory_order_acquire) ? 0 : server_delay(s);
    if (unheard < 0 || pa_stream_get_state(s->stream) != PA_STREAM_READY) unheard = 0;
    if (unheard > written - dropped) unheard = written - dropped;
    atomic_store_explicit(&s->dropped, dropped + unheard, memory_order_relaxed);
    cork(s, 1, 1);
    pa_threaded_mainloop_unlock(s->loop);
    s->ring = NULL;
}

void vnpa_playback_position_now(vnpa_stream *s, vnshim_playback_position *position) {
    if (s->loop != NULL) pa_threaded_mainloop_lock(s->loop);
    int64_t written = atomic_load_explicit(&s->frames, memory_order_relaxed);
    int64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
    int64_t delay = 0;
    if (s->loop != NULL && atomic_load_explicit(&s->running, memory_order_acquire)) {
        delay = server_delay(s);
        if (delay < 0) delay = written - dropped;             /* no timing yet: nothing counts as heard */
    }
    if (s->loop != NULL) pa_threaded_mainloop_unlock(s->loop);
    if (delay > written - dropped) delay = written - dropped;
    position->frames_written = written;
    position->frames_dropped = dropped;
    position->delay_frames = delay;
}

/* ---- counters ------------------------------------------------------------------------------------------------ */

int vnpa_is_running(vnpa_stream *s) { return atomic_load_explicit(&s->running, memory_order_acquire); }

int vnpa_error(vnpa_stream *s) { return atomic_load_explicit(&s->error, memory_order_acquire); }

int vnpa_finished(vnpa_stream *s) { return atomic_load_explicit(&s->finished, memory_order_acquire); }

int64_t vnpa_frames(vnpa_stream *s) { return atomic_load_explicit(&s->frames, memory_order_relaxed); }

int64_t vnpa_dropped_frames(vnpa_stream *s) { return atomic_load_explicit(&s->dropped, memory_order_relaxed); }

int64_t vnpa_xruns(vnpa_stream *s) { return atomic_load_explicit(&s->xruns, memory_order_relaxed); }
