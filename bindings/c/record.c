/* record.c — records a voice message with voicenote's recorder and prints what happened.
 *
 *   record DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE]]
 *
 * Shows: recorder options (directory, device by name or by ALSA configuration text, a length limit), subscribing
 * to events (context steps with levels, then FINISHED with the file, its duration, size and waveform), waiting for
 * the take to finish with a condition variable, and the error path (vn_strerror + vn_last_error_message).
 * With DEVICE "default" it records from the default microphone; tests pass a virtual one (ALSA's file plugin),
 * defined in ALSA_CONFIG_FILE, whose text is handed to the library (vn_recorder_options_set_device).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <voicenote.h>

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int stopped;     /* the recorder reported state STOPPED after a take */
    int finished;    /* a FINISHED event arrived */
    int failed;      /* the status of a FAILED event, 0 if none */
    int steps;       /* context steps seen while recording */
} take_state;

static void on_event(void *user_data, const vn_recorder_event *event) {
    take_state *take = user_data;
    pthread_mutex_lock(&take->mutex);
    switch (event->type) {
    case VN_RECORDER_EVENT_CONTEXT:
        if (event->context.state == VN_RECORDER_RECORDING) take->steps++;
        if (event->context.state == VN_RECORDER_STOPPED && take->steps > 0) take->stopped = 1;
        break;
    case VN_RECORDER_EVENT_FINISHED:
        take->finished = 1;
        printf("finished: %s\n  duration %.3f s, %lld bytes, waveform of %zu values:", event->path, event->duration_s,
               (long long)event->size_bytes, event->waveform_count);
        for (size_t i = 0; i < event->waveform_count; i += 10) printf(" %.2f", event->waveform[i]);
        printf(" ...\n");
        break;
    case VN_RECORDER_EVENT_FAILED:
        take->failed = event->status;
        printf("failed: %s: %s\n", vn_status_name(event->status), event->message);
        break;
    default:
        break;
    }
    pthread_cond_broadcast(&take->changed);
    pthread_mutex_unlock(&take->mutex);
}

/* The whole text of a small file, or NULL; the caller frees it. */
static char *read_text(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    char *text = calloc(1, 65536);
    size_t length = text ? fread(text, 1, 65535, file) : 0;
    fclose(file);
    if (text) text[length] = '\0';
    return text;
}

static int fail(const char *what, int status) {
    fprintf(stderr, "%s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status), vn_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: record DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE]]\n");
        return 2;
    }
    char *configuration = argc > 4 ? read_text(argv[4]) : NULL;
    if (argc > 4 && configuration == NULL) {
        fprintf(stderr, "cannot read %s\n", argv[4]);
        return 2;
    }
    double seconds = atof(argv[2]);
    vn_recorder_options *options = NULL;
    int status = vn_recorder_options_create(&options);
    if (status != VN_OK) return fail("vn_recorder_options_create", status);
    if ((status = vn_recorder_options_set_directory(options, argv[1])) != VN_OK ||
        (status = vn_recorder_options_set_device(options, argc > 3 ? argv[3] : "default", configuration)) != VN_OK ||
        (status = vn_recorder_options_set_limits(options, seconds, 1, 0)) != VN_OK) {
        vn_recorder_options_destroy(options);
        free(configuration);
        return fail("setting recorder options", status);
    }
    free(configuration); /* the options copied it */
    vn_recorder *recorder = NULL;
    status = vn_recorder_create(options, &recorder);
    vn_recorder_options_destroy(options);
    if (status != VN_OK) return fail("vn_recorder_create", status);

    take_state take = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};
    if ((status = vn_recorder_subscribe(recorder, on_event, &take, NULL, NULL)) != VN_OK ||
        (status = vn_recorder_begin(recorder)) != VN_OK) {
        vn_recorder_destroy(recorder);
        return fail("recording", status);
    }
    printf("recording %.1f s...\n", seconds);

    /* Wait for the take to end by its length limit; bounded. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)seconds + 30;
    pthread_mutex_lock(&take.mutex);
    int waited = 0;
    while (!take.stopped && waited != ETIMEDOUT) waited = pthread_cond_timedwait(&take.changed, &take.mutex, &deadline);
    int ok = take.finished && take.failed == 0;
    pthread_mutex_unlock(&take.mutex);
    vn_recorder_destroy(recorder);
    if (waited == ETIMEDOUT) {
        fprintf(stderr, "the take did not finish in time\n");
        return 1;
    }
    return ok ? 0 : 1;
}
