/*
 * attachment.c: the attachment of a voice message, as a chat client sends it: its payload, then its upload.
 *
 * Usage:  attachment                          writes a short recording (a WAV tone) to a temporary directory and
 *                                             prints its payload (no network; what `make run` does)
 *         attachment FILE [--title T]         prints the voiceRecording payload of FILE
 *         attachment FILE --upload ENDPOINT [--header "Name: value"]... [--query NAME=VALUE]... [--raw] [--title T]
 *                                             uploads FILE and prints the uploaded payload
 *
 * What it shows:
 * - vn_payload_from_recording(): Stream's `voiceRecording` payload of a finished recording: title (the file name),
 *   asset_url (its file:// URL), file_size, mime_type, duration and 100 waveform levels. A client that has the
 *   recorder's FINISHED event passes its duration and waveform instead of -1 and NULL, and nothing is decoded.
 *   vn_payload_set_field() changes a field (--title; the default run uses vn_recording_display_name(0),
 *   "Recording", as Stream names a message's first recording); vn_payload_to_json() with indent 2 prints it.
 * - An uploader (vn_uploader_create): multipart/form-data to Stream's POST /channels/{type}/{id}/file, or with
 *   --raw the bare body to Matrix's /_matrix/media/v3/upload. Stream needs its `api_key` as a query parameter
 *   (--query api_key=KEY, vn_upload_options_add_query) and `Authorization` and `Stream-Auth-Type: jwt` headers
 *   (--header, through vn_http_options); Matrix needs `Authorization: Bearer TOKEN`.
 * - Upload events (vn_uploader_subscribe): PENDING, UPLOADING with progress (printed on stderr), then UPLOADED with
 *   the payload whose asset_url is the server's (an https URL, or an mxc:// URI for Matrix), or FAILED with a
 *   status and a message naming the HTTP status. The local file is never changed or deleted, whatever happens.
 * - Errors: a failing call returns a negative vn_status; vn_status_name() and vn_last_error_message() say why.
 *
 * Build:  cc attachment.c $(pkg-config --cflags --libs voicenote) -o attachment
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(attachment PRIVATE voicenote::voicenote)
 * Exit status: 0 on success; 1 when a call or the upload fails (status and messages on stderr); 2 for a usage
 * error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, mkdtemp */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <voicenote.h>

#define MAX_OPTIONS 16    /* --header and --query each */
#define STALL_SECONDS 60  /* how long the upload may go without an event before the sample gives up */

static int usage(const char *problem) {
    if (problem != NULL) fprintf(stderr, "attachment: %s\n", problem);
    fprintf(stderr, "usage: attachment [FILE [--title T]]\n"
                    "       attachment FILE --upload ENDPOINT [--header \"Name: value\"]... [--query NAME=VALUE]... "
                    "[--raw] [--title T]\n");
    return 2;
}

/* Reports a failed call with everything the library says about it; returns the exit status 1. */
static int fail(const char *call, int status) {
    fprintf(stderr, "attachment: %s failed: %s (%s): %s\n", call, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

/* Prints a payload as indented JSON on stdout; 0 or the exit status 1. */
static int print_payload(const vn_payload *payload) {
    char *json = NULL;
    int status = vn_payload_to_json(payload, 2, &json);
    if (status != VN_OK) return fail("vn_payload_to_json", status);
    puts(json);
    vn_free(json);
    return 0;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The default run's recording: one second of a 440 Hz tone as 48 kHz mono 16-bit WAV */

static void put_le(FILE *file, uint32_t value, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((value >> (8 * i)) & 0xff), file);
}

static int write_tone(const char *path) {
    const uint32_t rate = 48000, frames = 48000;
    FILE *file = fopen(path, "wb");
    if (file == NULL) return 0;
    fputs("RIFF", file);
    put_le(file, 36 + frames * 2, 4);
    fputs("WAVEfmt ", file);
    put_le(file, 16, 4);
    put_le(file, 1, 2);        /* PCM */
    put_le(file, 1, 2);        /* mono */
    put_le(file, rate, 4);
    put_le(file, rate * 2, 4); /* bytes per second */
    put_le(file, 2, 2);        /* block align */
    put_le(file, 16, 2);       /* bits */
    fputs("data", file);
    put_le(file, frames * 2, 4);
    for (uint32_t i = 0; i < frames; i++) { /* a triangle wave: no libm needed */
        int32_t phase = (int32_t)(((uint64_t)i * 440 * 65536 / rate) & 0xffff);
        int32_t value = phase < 32768 ? phase - 16384 : 49152 - phase;
        put_le(file, (uint32_t)(uint16_t)(int16_t)(value / 2), 2);
    }
    return fclose(file) == 0;
}

/* Writes a tone to a temporary directory and prints its payload, titled as Stream titles a first recording. */
static int default_run(void) {
    const char *tmp = getenv("TMPDIR") != NULL && getenv("TMPDIR")[0] != '\0' ? getenv("TMPDIR") : "/tmp";
    char directory[512], path[600];
    snprintf(directory, sizeof directory, "%s/vn-attachment-XXXXXX", tmp);
    if (mkdtemp(directory) == NULL) {
        perror("attachment: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof path, "%s/voice.wav", directory);
    int result = 1;
    if (!write_tone(path)) {
        perror("attachment: writing the tone");
    } else {
        vn_payload *payload = NULL;
        char *name = NULL;
        int status = vn_payload_from_recording(path, -1, NULL, 0, &payload); /* -1, NULL: read from the file */
        if (status != VN_OK) {
            result = fail("vn_payload_from_recording", status);
        } else if ((status = vn_recording_display_name(0, &name)) != VN_OK ||
                   (status = vn_payload_set_field(payload, VN_PAYLOAD_TITLE, name)) != VN_OK) {
            result = fail("naming the recording", status);
        } else {
            result = print_payload(payload);
        }
        vn_free(name);
        vn_payload_destroy(payload);
    }
    unlink(path);
    rmdir(directory);
    return result;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Uploading */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    unsigned long events; /* every event, to tell a stall from progress */
    int ended;            /* UPLOADED or FAILED arrived */
    int last_percent;     /* the progress printed last */
} upload_state;

/* Runs on the library's event thread; prints progress and the end on stderr (the result goes to stdout). */
static void on_event(void *user_data, const vn_upload_event *event) {
    upload_state *upload = user_data;
    pthread_mutex_lock(&upload->mutex);
    upload->events++;
    switch (event->state) {
    case VN_UPLOAD_PENDING:
        fprintf(stderr, "upload: pending\n");
        break;
    case VN_UPLOAD_UPLOADING: {
        int percent = (int)(event->progress * 100.0 + 0.5);
        if (percent != upload->last_percent) fprintf(stderr, "upload: %3d%%\n", percent);
        upload->last_percent = percent;
        break;
    }
    case VN_UPLOAD_FAILED:
        fprintf(stderr, "upload: failed: %s: %s\n", vn_status_name(event->status), event->message);
        upload->ended = 1;
        break;
    case VN_UPLOAD_UPLOADED:
        fprintf(stderr, "upload: done\n");
        upload->ended = 1;
        break;
    default:
        break;
    }
    pthread_cond_broadcast(&upload->changed);
    pthread_mutex_unlock(&upload->mutex);
}

/* The options: the mode, the HTTP headers ("Name: value") and the query parameters ("NAME=VALUE"). */
static vn_upload_options *upload_options(int raw, char **headers, int header_count, char **queries, int query_count) {
    vn_upload_options *options = NULL;
    vn_http_options *http = NULL;
    int status = vn_upload_options_create(&options);
    if (status != VN_OK) {
        fail("vn_upload_options_create", status);
        return NULL;
    }
    if ((status = vn_upload_options_set_mode(options, raw ? VN_UPLOAD_RAW : VN_UPLOAD_MULTIPART)) != VN_OK ||
        (status = vn_http_options_create(&http)) != VN_OK) {
        fail("setting upload options", status);
        vn_upload_options_destroy(options);
        return NULL;
    }
    for (int i = 0; i < header_count && status == VN_OK; i++) {
        char *colon = strchr(headers[i], ':'), *value = colon + 1;
        *colon = '\0'; /* the name ends here */
        while (*value == ' ') value++;
        if ((status = vn_http_options_add_header(http, headers[i], value)) != VN_OK) fail("--header", status);
    }
    for (int i = 0; i < query_count && status == VN_OK; i++) {
        char *equals = strchr(queries[i], '=');
        *equals = '\0';
        if ((status = vn_upload_options_add_query(options, queries[i], equals + 1)) != VN_OK) fail("--query", status);
    }
    if (status == VN_OK && (status = vn_upload_options_set_http(options, http)) != VN_OK)
        fail("vn_upload_options_set_http", status);
    vn_http_options_destroy(http); /* the upload options copied them */
    if (status != VN_OK) {
        vn_upload_options_destroy(options);
        return NULL;
    }
    return options;
}

/* Uploads `path` with `payload` to `endpoint` and prints the uploaded payload; returns the exit status. */
static int upload(const char *path, const vn_payload *payload, const char *endpoint, vn_upload_options *options) {
    vn_uploader *uploader = NULL;
    int status = vn_uploader_create(endpoint, options, &uploader);
    if (status != VN_OK) return fail("vn_uploader_create", status);
    upload_state state = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, -1};
    if ((status = vn_uploader_subscribe(uploader, on_event, &state, NULL, NULL)) != VN_OK) {
        vn_uploader_destroy(uploader);
        return fail("vn_uploader_subscribe", status);
    }
    /* Returns at once; what the file or the server says arrives as events. */
    if ((status = vn_uploader_upload_file(uploader, path, payload)) != VN_OK) {
        vn_uploader_destroy(uploader);
        return fail("vn_uploader_upload_file", status);
    }

    /* Wait for the end; bounded: give up when no event at all came for STALL_SECONDS. */
    pthread_mutex_lock(&state.mutex);
    int waited = 0;
    while (!state.ended && waited != ETIMEDOUT) {
        unsigned long seen = state.events;
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += STALL_SECONDS;
        while (!state.ended && state.events == seen && waited != ETIMEDOUT)
            waited = pthread_cond_timedwait(&state.changed, &state.mutex, &deadline);
    }
    int ended = state.ended;
    pthread_mutex_unlock(&state.mutex);
    if (!ended) {
        vn_uploader_destroy(uploader); /* cancels the upload */
        fprintf(stderr, "attachment: no progress for %d s; giving up\n", STALL_SECONDS);
        return 1;
    }

    /* The outcome: the uploaded payload, or the failure's status (its detail in vn_last_error_message). */
    char *json = NULL;
    vn_payload *uploaded = NULL;
    int result = 1;
    if ((status = vn_uploader_copy_result(uploader, &json)) != VN_OK) {
        fail("the upload", status);
    } else if ((status = vn_payload_parse(json, strlen(json), &uploaded)) != VN_OK) {
        fail("vn_payload_parse", status);
    } else {
        result = print_payload(uploaded);
    }
    vn_payload_destroy(uploaded);
    vn_free(json);
    vn_uploader_destroy(uploader);
    return result;
}

int main(int argc, char **argv) {
    const char *file = NULL, *title = NULL, *endpoint = NULL;
    char *headers[MAX_OPTIONS], *queries[MAX_OPTIONS];
    int header_count = 0, query_count = 0, raw = 0;

    if (argc == 1) return default_run();
    for (int i = 1; i < argc; i++) {
        char *argument = argv[i];
        if (strcmp(argument, "--raw") == 0) {
            raw = 1;
        } else if (strcmp(argument, "--title") == 0 || strcmp(argument, "--upload") == 0 ||
                   strcmp(argument, "--header") == 0 || strcmp(argument, "--query") == 0) {
            if (i + 1 >= argc) return usage("an option lacks its value");
            char *value = argv[++i];
            if (strcmp(argument, "--title") == 0) {
                title = value;
            } else if (strcmp(argument, "--upload") == 0) {
                endpoint = value;
            } else if (strcmp(argument, "--header") == 0) {
                char *colon = strchr(value, ':');
                if (colon == NULL || colon == value) return usage("--header takes \"Name: value\"");
                if (header_count == MAX_OPTIONS) return usage("too many --header options");
                headers[header_count++] = value;
            } else {
                char *equals = strchr(value, '=');
                if (equals == NULL || equals == value) return usage("--query takes NAME=VALUE");
                if (query_count == MAX_OPTIONS) return usage("too many --query options");
                queries[query_count++] = value;
            }
        } else if (argument[0] == '-' && argument[1] != '\0') {
            return usage("unknown option");
        } else if (file == NULL) {
            file = argument;
        } else {
            return usage("one FILE only");
        }
    }
    if (file == NULL) return usage("no FILE");
    if (endpoint == NULL && (header_count > 0 || query_count > 0 || raw))
        return usage("--header, --query and --raw need --upload ENDPOINT");

    /* The payload: everything but the server's URL, read from the file (a recorder's duration and waveform would
     * be passed here instead of -1 and NULL). */
    vn_payload *payload = NULL;
    int status = vn_payload_from_recording(file, -1, NULL, 0, &payload);
    if (status != VN_OK) return fail("vn_payload_from_recording", status);
    if (title != NULL && (status = vn_payload_set_field(payload, VN_PAYLOAD_TITLE, title)) != VN_OK) {
        vn_payload_destroy(payload);
        return fail("vn_payload_set_field", status);
    }
    int result;
    if (endpoint == NULL) {
        result = print_payload(payload);
    } else {
        vn_upload_options *options = upload_options(raw, headers, header_count, queries, query_count);
        result = options == NULL ? 1 : upload(file, payload, endpoint, options);
        vn_upload_options_destroy(options); /* the uploader copied them */
    }
    vn_payload_destroy(payload);
    return result;
}
