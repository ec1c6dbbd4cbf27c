/* record_file.c — the "ours" side of the recorder CPU bench (bench/run.py, section recorder-cpu).
 *
 *   record_file DIRECTORY RAW SECONDS [TIMEOUT_S [clean]]
 *
 * With `clean`, voice cleanup is on (vn_recorder_options_set_voice_cleanup(): bench section `cleanup`).
 * Records RAW (headerless S16_LE, 48 kHz, mono) through libvoicenote's recorder, from a virtual microphone: ALSA's
 * `file` plugin reading RAW (`infile`) over a `null` slave, given to the library as configuration text with
 * vn_recorder_options_set_device(). The file plugin delivers as fast as it is read, so the take runs at the
 * encoder's pace. Everything else is the default (docs/formats.md) (Opus 32 kbit/s VBR, complexity 10, 20 ms frames, VOIP, meter
 * every 0.1 s, duration every 0.5 s); the maximum length is SECONDS (vn_recorder_options_set_limits(SECONDS, 10,
 * 0)), so the take ends at exactly SECONDS * 48000 frames and is finished by the library. The program waits for
 * the FINISHED event (a condition variable with a deadline of TIMEOUT_S, default SECONDS + 120) and exits.
 *
 * On success prints one line on stdout:  {"path": "...", "duration_s": D, "size_bytes": N, "events": E}
 * Exit status: 0 when FINISHED arrived (and no FAILED); 1 on a failure or timeout (message on stderr); 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voicenote.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int finished;          /* FINISHED arrived */
    int failed;            /* status of a FAILED event, 0 if none */
    int too_short;         /* TOO_SHORT arrived */
    long events;           /* every event, CONTEXT steps included */
    double duration_s;     /* FINISHED */
    long long size_bytes;  /* FINISHED */
    char path[4096];       /* FINISHED */
} take_state;

static void on_event(void *user_data, const vn_recorder_event *event) {
    take_state *take = user_data;
    pthread_mutex_lock(&take->mutex);
    take->events++;
    switch (event->type) {
    case VN_RECORDER_EVENT_FINISHED:
        take->finished = 1;
        take->duration_s = event->duration_s;
        take->size_bytes = (long long)event->size_bytes;
        snprintf(take->path, sizeof take->path, "%s", event->path ? event->path : "");
        break;
    case VN_RECORDER_EVENT_FAILED:
        take->failed = event->status;
        fprintf(stderr, "record_file: FAILED event: %s: %s\n", vn_status_name(event->status),
                event->message ? event->message : "");
        break;
    case VN_RECORDER_EVENT_TOO_SHORT:
        take->too_short = 1;
        break;
    default:
        break;
    }
    pthread_cond_broadcast(&take->changed);
    pthread_mutex_unlock(&take->mutex);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "record_file: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 6 || (argc == 6 && strcmp(argv[5], "clean") != 0)) {
        fprintf(stderr, "usage: record_file DIRECTORY RAW SECONDS [TIMEOUT_S [clean]]\n");
        return 2;
    }
    int clean = argc == 6;
    const char *directory = argv[1], *raw = argv[2];
    double seconds = atof(argv[3]);
    double timeout_s = argc > 4 ? atof(argv[4]) : seconds + 120;
    if (seconds <= 0 || timeout_s <= 0 || strchr(raw, '"') != NULL || strchr(raw, '\\') != NULL) {
        fprintf(stderr, "record_file: SECONDS and TIMEOUT_S must be > 0, RAW must not contain \" or \\\n");
        return 2;
    }
    char configuration[8192];
    snprintf(configuration, sizeof configuration,
             "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }", raw);

    vn_recorder_options *options = NULL;
    int status = vn_recorder_options_create(&options);
    if (status != VN_OK) return fail("vn_recorder_options_create", status);
    if ((status = vn_recorder_options_set_directory(options, directory)) != VN_OK ||
        (status = vn_recorder_options_set_device(options, "vn_mic", configuration)) != VN_OK ||
        (status = vn_recorder_options_set_limits(options, seconds, 10, 0)) != VN_OK ||
        (status = vn_recorder_options_set_voice_cleanup(options, clean)) != VN_OK) {
        vn_recorder_options_destroy(options);
        return fail("setting recorder options", status);
    }
    vn_recorder *recorder = NULL;
    status = vn_recorder_create(options, &recorder);
    vn_recorder_options_destroy(options);
    if (status != VN_OK) return fail("vn_recorder_create", status);

    take_state take;
    memset(&take, 0, sizeof take);
    pthread_mutex_init(&take.mutex, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&take.changed, &attributes);
    pthread_condattr_destroy(&attributes);

    if ((status = vn_recorder_subscribe(recorder, on_event, &take, NULL, NULL)) != VN_OK) {
        vn_recorder_destroy(recorder);
        return fail("vn_recorder_subscribe", status);
    }
    if ((status = vn_recorder_begin(recorder)) != VN_OK) {
        vn_recorder_destroy(recorder);
        return fail("vn_recorder_begin", status);
    }

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)timeout_s;
    pthread_mutex_lock(&take.mutex);
    int waited = 0;
    while (!take.finished && !take.too_short && take.failed == 0 && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&take.changed, &take.mutex, &deadline);
    pthread_mutex_unlock(&take.mutex);
    vn_recorder_destroy(recorder); /* joins the encoder thread; no events after this */

    if (!take.finished) {
        fprintf(stderr, "record_file: %s\n", waited == ETIMEDOUT ? "no FINISHED event before the deadline"
                                             : take.too_short     ? "the take was too short"
                                                                  : "the take failed");
        return 1;
    }
    if (take.failed != 0) return 1;
    printf("{\"path\": \"%s\", \"duration_s\": %.6f, \"size_bytes\": %lld, \"events\": %ld}\n", take.path,
           take.duration_s, take.size_bytes, take.events);
    return 0;
}
