/* record_latency.c — begin and stop latencies of libvoicenote's recorder (bench/run.py, section recorder-latency).
 *
 *   record_latency takes DIRECTORY NAME CONFIGURATION SECONDS COUNT [TIMEOUT_S [pause]]
 *   record_latency floor NAME CONFIGURATION COUNT
 *
 * takes: COUNT takes in one process, one recorder, from the capture device NAME defined by the ALSA configuration
 * text CONFIGURATION (vn_recorder_options_set_device; everything else the defaults (docs/formats.md)). Each take:
 *   begin_ms             wall time of vn_recorder_begin() (CLOCK_MONOTONIC around the call: it returns with
 *                        capture running, docs/recorder.md);
 *   first_audio_ms       from the begin call to the first CONTEXT event with captured audio, minus the audio it
 *                        reports: how late the first frame left the microphone. Meaningful on a real-time
 *                        microphone only (a file microphone delivers faster than real time);
 *   then the take runs until a CONTEXT event reports SECONDS of captured audio, and
 *   stop_call_ms         wall time of vn_recorder_stop();
 *   stop_to_finished_ms  from the stop call to the FINISHED callback (its CLOCK_MONOTONIC time, taken first thing
 *                        in the callback);
 *   duration_at_stop_s   audio reported by the last CONTEXT event before stop; finished_duration_s the take's
 *                        length in FINISHED: the difference is what stop still had to encode (the ring's backlog).
 * With `pause`, each take is paused first (pause_call_ms: vn_recorder_pause() encodes what the ring holds and
 * flushes), then stopped from paused: stop_call_ms and stop_to_finished_ms are then the finishing alone (drain the
 * encoder, close, rename, the 100-value waveform, the event), without a faster-than-real-time device's backlog.
 * Every wait is a condition variable with a deadline (TIMEOUT_S per take, default SECONDS + 60); the takes' files
 * are deleted as they finish.
 *
 * floor: the same device opened, configured and started with alsa-lib alone, COUNT times: what begin cannot avoid.
 *   open_ms     snd_pcm_open_lconf (the configuration text parsed first, as the library does);
 *   start_ms    from the open call until snd_pcm_start returned: open + the hardware and software parameters the
 *               library sets (S16_LE, mono, 48 kHz near, 20 ms period near, buffer of 8 periods, avail_min one
 *               period, non-blocking) + prepare + start — the device part of begin;
 *   first_frame_ms  from the open call until the first snd_pcm_readi returned frames.
 *
 * Prints one JSON object on stdout. Exit status: 0 when every take finished; 1 on a failure or timeout (message
 * on stderr); 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h> /* unlink */

#include <voicenote.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------------------------------------------------------
 * takes */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int recording;              /* a take is running (set before begin, cleared at FINISHED) */
    double begin_called;        /* now_s() just before vn_recorder_begin() */
    double first_audio_at;      /* now_s() at the first CONTEXT with audio, 0 until then */
    double first_audio_s;       /* the audio it reported */
    double duration_s;          /* audio of the latest CONTEXT event */
    int finished;
    double finished_at;
    double finished_duration_s;
    long long finished_size;
    char path[4096];
    int failed;                 /* status of a FAILED event */
    int too_short;
} take_state;

static void on_event(void *user_data, const vn_recorder_event *event) {
    double at = now_s();
    take_state *take = user_data;
    pthread_mutex_lock(&take->mutex);
    switch (event->type) {
    case VN_RECORDER_EVENT_CONTEXT:
        if (take->recording && event->context.state == VN_RECORDER_RECORDING && event->context.duration_s > 0) {
            if (take->first_audio_at == 0) {
                take->first_audio_at = at;
                take->first_audio_s = event->context.duration_s;
            }
            take->duration_s = event->context.duration_s;
        }
        break;
    case VN_RECORDER_EVENT_FINISHED:
        take->finished = 1;
        take->finished_at = at;
        take->finished_duration_s = event->duration_s;
        take->finished_size = (long long)event->size_bytes;
        snprintf(take->path, sizeof take->path, "%s", event->path ? event->path : "");
        take->recording = 0;
        break;
    case VN_RECORDER_EVENT_FAILED:
        take->failed = event->status;
        fprintf(stderr, "record_latency: FAILED event: %s: %s\n", vn_status_name(event->status),
                event->message ? event->message : "");
        break;
    case VN_RECORDER_EVENT_TOO_SHORT:
        take->too_short = 1;
        take->recording = 0;
        break;
    default:
        break;
    }
    pthread_cond_broadcast(&take->changed);
    pthread_mutex_unlock(&take->mutex);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "record_latency: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

static struct timespec deadline_after(double seconds) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double whole = (double)(time_t)seconds;
    t.tv_sec += (time_t)seconds;
    t.tv_nsec += (long)((seconds - whole) * 1e9);
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static void print_series(const char *name, const double *values, int count, int last) {
    printf("  \"%s\": [", name);
    for (int i = 0; i < count; i++) printf("%s%.4f", i ? ", " : "", values[i]);
    printf("]%s\n", last ? "" : ",");
}

static int run_takes(const char *directory, const char *name, const char *configuration, double seconds, int count,
                     double timeout_s, int pause_first) {
    vn_recorder_options *options = NULL;
    int status = vn_recorder_options_create(&options);
    if (status != VN_OK) return fail("vn_recorder_options_create", status);
    if ((status = vn_recorder_options_set_directory(options, directory)) != VN_OK ||
        (status = vn_recorder_options_set_device(options, name, configuration)) != VN_OK) {
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

    double *begin_ms = calloc((size_t)count, sizeof(double)), *first_audio_ms = calloc((size_t)count, sizeof(double));
    double *stop_call_ms = calloc((size_t)count, sizeof(double)), *finished_ms = calloc((size_t)count, sizeof(double));
    double *at_stop_s = calloc((size_t)count, sizeof(double)), *finished_s = calloc((size_t)count, sizeof(double));
    double *size_bytes = calloc((size_t)count, sizeof(double)), *pause_call_ms = calloc((size_t)count, sizeof(double));
    if (!pause_call_ms || !begin_ms || !first_audio_ms || !stop_call_ms || !finished_ms || !at_stop_s || !finished_s || !size_bytes) {
        fprintf(stderr, "record_latency: out of memory\n");
        return 1;
    }
    int result = 0;
    for (int i = 0; i < count && result == 0; i++) {
        pthread_mutex_lock(&take.mutex);
        take.recording = 1;
        take.first_audio_at = take.first_audio_s = take.duration_s = 0;
        take.finished = take.failed = take.too_short = 0;
        take.begin_called = now_s();
        pthread_mutex_unlock(&take.mutex);

        double called = now_s();
        status = vn_recorder_begin(recorder);
        double returned = now_s();
        if (status != VN_OK) {
            result = fail("vn_recorder_begin", status);
            break;
        }
        begin_ms[i] = (returned - called) * 1e3;

        /* Until the take holds `seconds` of audio (CONTEXT steps every 0.1 s of audio). */
        struct timespec deadline = deadline_after(timeout_s);
        int waited = 0;
        pthread_mutex_lock(&take.mutex);
        while (take.duration_s < seconds && take.failed == 0 && take.recording && waited != ETIMEDOUT)
            waited = pthread_cond_timedwait(&take.changed, &take.mutex, &deadline);
        at_stop_s[i] = take.duration_s;
        first_audio_ms[i] = take.first_audio_at > 0 ? (take.first_audio_at - called - take.first_audio_s) * 1e3 : -1;
        int ok = take.duration_s >= seconds && take.failed == 0 && take.recording;
        pthread_mutex_unlock(&take.mutex);
        if (!ok) {
            fprintf(stderr, "record_latency: take %d reached %.3f of %.3f s of audio (%s)\n", i + 1, at_stop_s[i],
                    seconds, waited == ETIMEDOUT ? "timed out" : "it ended or failed");
            vn_recorder_destroy(recorder);
            return 1;
        }

        if (pause_first) {
            double pause_called = now_s();
            status = vn_recorder_pause(recorder);
            pause_call_ms[i] = (now_s() - pause_called) * 1e3;
            if (status != VN_OK) {
                result = fail("vn_recorder_pause", status);
                break;
            }
        }
        double stop_called = now_s();
        status = vn_recorder_stop(recorder);
        double stop_returned = now_s();
        if (status != VN_OK) {
            result = fail("vn_recorder_stop", status);
            break;
        }
        stop_call_ms[i] = (stop_returned - stop_called) * 1e3;

        deadline = deadline_after(30);
        waited = 0;
        pthread_mutex_lock(&take.mutex);
        while (!take.finished && !take.too_short && take.failed == 0 && waited != ETIMEDOUT)
            waited = pthread_cond_timedwait(&take.changed, &take.mutex, &deadline);
        ok = take.finished && take.failed == 0;
        finished_ms[i] = (take.finished_at - stop_called) * 1e3;
        finished_s[i] = take.finished_duration_s;
        size_bytes[i] = (double)take.finished_size;
        char path[4096];
        snprintf(path, sizeof path, "%s", take.path);
        pthread_mutex_unlock(&take.mutex);
        if (!ok) {
            fprintf(stderr, "record_latency: take %d: %s\n", i + 1,
                    waited == ETIMEDOUT ? "no FINISHED event within 30 s of stop" : "no FINISHED event");
            result = 1;
            break;
        }
        if (path[0] != '\0') unlink(path);
    }
    vn_recorder_destroy(recorder);
    if (result != 0) return result;

    printf("{\n  \"mode\": \"takes\",\n  \"device\": \"%s\",\n  \"seconds\": %.3f,\n  \"count\": %d,\n", name, seconds, count);
    printf("  \"paused_before_stop\": %s,\n", pause_first ? "true" : "false");
    if (pause_first) print_series("pause_call_ms", pause_call_ms, count, 0);
    print_series("begin_ms", begin_ms, count, 0);
    print_series("first_audio_ms", first_audio_ms, count, 0);
    print_series("duration_at_stop_s", at_stop_s, count, 0);
    print_series("stop_call_ms", stop_call_ms, count, 0);
    print_series("stop_to_finished_ms", finished_ms, count, 0);
    print_series("finished_duration_s", finished_s, count, 0);
    print_series("size_bytes", size_bytes, count, 1);
    printf("}\n");
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------------
 * floor: alsa-lib alone */

static int alsa_fail(const char *what, int code) {
    fprintf(stderr, "record_latency floor: %s: %s\n", what, snd_strerror(code));
    return 1;
}

static int floor_once(const char *name, const char *configuration, double *open_ms, double *start_ms,
                      double *first_frame_ms) {
    double called = now_s();
    snd_config_t *top = NULL;
    snd_input_t *input = NULL;
    int result = snd_config_top(&top);
    if (result < 0) return alsa_fail("snd_config_top", result);
    result = snd_input_buffer_open(&input, configuration, (ssize_t)strlen(configuration));
    if (result < 0) return alsa_fail("snd_input_buffer_open", result);
    result = snd_config_load(top, input);
    snd_input_close(input);
    if (result < 0) return alsa_fail("snd_config_load", result);
    snd_pcm_t *pcm = NULL;
    result = snd_pcm_open_lconf(&pcm, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK, top);
    snd_config_delete(top);
    if (result < 0) return alsa_fail("snd_pcm_open_lconf", result);
    *open_ms = (now_s() - called) * 1e3;

    snd_pcm_hw_params_t *hw = NULL;
    snd_pcm_sw_params_t *sw = NULL;
    if ((result = snd_pcm_hw_params_malloc(&hw)) < 0 || (result = snd_pcm_sw_params_malloc(&sw)) < 0) {
        snd_pcm_hw_params_free(hw);
        snd_pcm_close(pcm);
        return alsa_fail("snd_pcm_hw_params_malloc", result);
    }
    unsigned rate = 48000, channels = 1;
    int direction = 0;
    snd_pcm_uframes_t period = 960, buffer, minimum;
    if ((result = snd_pcm_hw_params_any(pcm, hw)) < 0 || (result = snd_pcm_hw_params_set_rate_resample(pcm, hw, 0)) < 0 ||
        (result = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0 ||
        (result = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)) < 0 ||
        (result = snd_pcm_hw_params_set_channels_near(pcm, hw, &channels)) < 0 ||
        (result = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction)) < 0) {
        snd_pcm_hw_params_free(hw);
        snd_pcm_sw_params_free(sw);
        snd_pcm_close(pcm);
        return alsa_fail("hardware parameters", result);
    }
    period = rate / 50;
    direction = 0;
    if ((result = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction)) < 0) {
        snd_pcm_hw_params_free(hw);
        snd_pcm_sw_params_free(sw);
        snd_pcm_close(pcm);
        return alsa_fail("period size", result);
    }
    minimum = period * 8;
    snd_pcm_hw_params_set_buffer_size_min(pcm, hw, &minimum);
    buffer = period * 8;
    if ((result = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)) < 0 ||
        (result = snd_pcm_hw_params(pcm, hw)) < 0) {
        snd_pcm_hw_params_free(hw);
        snd_pcm_sw_params_free(sw);
        snd_pcm_close(pcm);
        return alsa_fail("buffer size / snd_pcm_hw_params", result);
    }
    direction = 0;
    snd_pcm_hw_params_get_period_size(hw, &period, &direction);
    if ((result = snd_pcm_sw_params_current(pcm, sw)) < 0 ||
        (result = snd_pcm_sw_params_set_avail_min(pcm, sw, period)) < 0 || (result = snd_pcm_sw_params(pcm, sw)) < 0 ||
        (result = snd_pcm_prepare(pcm)) < 0 || (result = snd_pcm_start(pcm)) < 0) {
        snd_pcm_hw_params_free(hw);
        snd_pcm_sw_params_free(sw);
        snd_pcm_close(pcm);
        return alsa_fail("software parameters / prepare / start", result);
    }
    *start_ms = (now_s() - called) * 1e3;
    snd_pcm_hw_params_free(hw);
    snd_pcm_sw_params_free(sw);

    int16_t *frames = calloc(period * channels, sizeof(int16_t));
    if (frames == NULL) {
        snd_pcm_close(pcm);
        return alsa_fail("calloc", -ENOMEM);
    }
    double deadline = now_s() + 10;
    *first_frame_ms = -1;
    while (now_s() < deadline) {
        result = snd_pcm_wait(pcm, 100);
        if (result < 0 && result != -EPIPE) break;
        snd_pcm_sframes_t read = snd_pcm_readi(pcm, frames, period);
        if (read > 0) {
            *first_frame_ms = (now_s() - called) * 1e3;
            break;
        }
        if (read == -EPIPE) snd_pcm_prepare(pcm), snd_pcm_start(pcm);
        else if (read < 0 && read != -EAGAIN) {
            result = (int)read;
            break;
        }
    }
    free(frames);
    snd_pcm_drop(pcm);
    snd_pcm_close(pcm);
    if (*first_frame_ms < 0) return alsa_fail("no frame within 10 s", result < 0 ? result : -ETIMEDOUT);
    return 0;
}

static int run_floor(const char *name, const char *configuration, int count) {
    double *open_ms = calloc((size_t)count, sizeof(double)), *start_ms = calloc((size_t)count, sizeof(double));
    double *first_ms = calloc((size_t)count, sizeof(double));
    if (!open_ms || !start_ms || !first_ms) return alsa_fail("calloc", -ENOMEM);
    for (int i = 0; i < count; i++) {
        if (floor_once(name, configuration, &open_ms[i], &start_ms[i], &first_ms[i]) != 0) return 1;
        struct timespec pause = {0, 20000000L}; /* 20 ms between opens, as a user would not reopen faster */
        nanosleep(&pause, NULL);
    }
    printf("{\n  \"mode\": \"floor\",\n  \"device\": \"%s\",\n  \"count\": %d,\n", name, count);
    print_series("open_ms", open_ms, count, 0);
    print_series("start_ms", start_ms, count, 0);
    print_series("first_frame_ms", first_ms, count, 1);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 7 && argc <= 9 && strcmp(argv[1], "takes") == 0) {
        double seconds = atof(argv[5]);
        int count = atoi(argv[6]);
        double timeout_s = argc > 7 ? atof(argv[7]) : seconds + 60;
        int pause_first = argc > 8 && strcmp(argv[8], "pause") == 0;
        if (seconds <= 0 || count <= 0 || timeout_s <= 0 || (argc > 8 && !pause_first)) {
            fprintf(stderr, "record_latency: SECONDS, COUNT and TIMEOUT_S must be > 0; the last word is `pause`\n");
            return 2;
        }
        return run_takes(argv[2], argv[3], argv[4], seconds, count, timeout_s, pause_first);
    }
    if (argc == 5 && strcmp(argv[1], "floor") == 0) {
        int count = atoi(argv[4]);
        if (count <= 0) {
            fprintf(stderr, "record_latency: COUNT must be > 0\n");
            return 2;
        }
        return run_floor(argv[2], argv[3], count);
    }
    fprintf(stderr, "usage: record_latency takes DIRECTORY NAME CONFIGURATION SECONDS COUNT [TIMEOUT_S [pause]]\n"
                    "       record_latency floor NAME CONFIGURATION COUNT\n");
    return 2;
}
