/* record.c — records a voice message with voicenote's recorder and prints what happened.
 *
 *   record [--clean] DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE [UPLOAD_URL]]]
 *
 * With --clean, voice cleanup is on (vn_recorder_options_set_voice_cleanup: noise suppression, a high-pass and
 * automatic gain before the encoder).
 * Shows: recorder options (directory, device by name or by ALSA configuration text, a length limit), subscribing
 * to events (context steps with levels, then FINISHED with the file, its duration, size and waveform), waiting for
 * the take to finish with a condition variable, and the error path (vn_strerror + vn_last_error_message).
 * With DEVICE "default" it records from the default microphone; tests pass a virtual one (ALSA's file plugin),
 * defined in ALSA_CONFIG_FILE, whose text is handed to the library (vn_recorder_options_set_device).
 * With UPLOAD_URL, the take is uploaded while it is recorded (vn_uploader_upload_recording(), a raw body as Matrix's
 * media upload takes it) and the uploaded payload printed; a take that already ended when the upload was asked for
 * (a virtual microphone is faster than real time) is uploaded as a file instead, as a host would.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under strict C */
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

/* Waits (bounded) for the upload to end and prints the uploaded payload; 0 when it was uploaded. */
static int report_upload(vn_uploader *uploader) {
    int state = 0;
    int status = vn_uploader_wait(uploader, 30000, &state);
    if (status != VN_OK) return fail("vn_uploader_wait", status);
    char *payload = NULL;
    if ((status = vn_uploader_copy_result(uploader, &payload)) != VN_OK) return fail("the upload", status);
    printf("uploaded: %s\n", payload);
    vn_free(payload);
    return 0;
}

/* Starts uploading the running take while it is recorded; 1 when it had already ended (upload its file then). */
static int upload_while_recording(vn_uploader *uploader, vn_recorder *recorder) {
    int status = vn_uploader_upload_recording(uploader, recorder);
    if (status == VN_OK) {
        printf("uploading while recording\n");
        return 0;
    }
    if (status != VN_E_MISUSE) fail("vn_uploader_upload_recording", status);
    return 1;
}

int main(int argc, char **argv) {
    int clean = argc > 1 && strcmp(argv[1], "--clean") == 0;
    if (clean) { /* the rest as without it */
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    if (argc < 3 || argc > 6) {
        fprintf(stderr, "usage: record [--clean] DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE [UPLOAD_URL]]]\n");
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
        (status = vn_recorder_options_set_limits(options, seconds, 1, 0)) != VN_OK ||
        (status = vn_recorder_options_set_voice_cleanup(options, clean)) != VN_OK) {
        vn_recorder_options_destroy(options);
        free(configuration);
        return fail("setting recorder options", status);
    }
    free(configuration); /* the options copied it */
    vn_recorder *recorder = NULL;
    status = vn_recorder_create(options, &recorder);
    vn_recorder_options_destroy(options);
    if (status != VN_OK) return fail("vn_recorder_create", status);

    vn_uploader *uploader = NULL;
    if (argc > 5) {
        vn_upload_options *sending = NULL;
        if ((status = vn_upload_options_create(&sending)) == VN_OK &&
            (status = vn_upload_options_set_mode(sending, VN_UPLOAD_RAW)) == VN_OK)
            status = vn_uploader_create(argv[5], sending, &uploader);
        vn_upload_options_destroy(sending);
        if (status != VN_OK) {
            vn_recorder_destroy(recorder);
            return fail("vn_uploader_create", status);
        }
    }

    take_state take = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};
    if ((status = vn_recorder_subscribe(recorder, on_event, &take, NULL, NULL)) != VN_OK ||
        (status = vn_recorder_begin(recorder)) != VN_OK) {
        vn_recorder_destroy(recorder);
        vn_uploader_destroy(uploader);
        return fail("recording", status);
    }
    printf("recording %.1f s...\n", seconds);
    int upload_file_after = uploader != NULL && upload_while_recording(uploader, recorder);

    /* Wait for the take to end by its length limit; bounded. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)seconds + 30;
    pthread_mutex_lock(&take.mutex);
    int waited = 0;
    while (!take.stopped && waited != ETIMEDOUT) waited = pthread_cond_timedwait(&take.changed, &take.mutex, &deadline);
    int ok = take.finished && take.failed == 0;
    pthread_mutex_unlock(&take.mutex);
    char *path = NULL;
    if (ok && upload_file_after && vn_recorder_copy_path(recorder, &path) == VN_OK) {
        printf("the take ended first: uploading %s\n", path);
        if ((status = vn_uploader_upload_file(uploader, path, NULL)) != VN_OK) ok = !fail("vn_uploader_upload_file", status);
        vn_free(path);
    }
    vn_recorder_destroy(recorder);
    if (waited == ETIMEDOUT) {
        fprintf(stderr, "the take did not finish in time\n");
        vn_uploader_destroy(uploader);
        return 1;
    }
    if (ok && uploader != NULL) ok = report_upload(uploader) == 0;
    vn_uploader_destroy(uploader);
    return ok ? 0 : 1;
}
