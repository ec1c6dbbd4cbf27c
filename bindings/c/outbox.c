/*
 * outbox.c: sending voice notes through a durable outbox, as a chat client does: a note added survives a crash from
 * the moment vn_outbox_add() returns; each uploaded payload is handed to the client until it acknowledges it.
 *
 * Usage:  outbox                               makes an outbox in a temporary directory, adds a short recording (a
 *                                              WAV tone) and lists it (no network; what `make run` does)
 *         outbox DIR ENDPOINT [--raw] [--header "Name: value"]... [FILE]...
 *                                              adds the FILEs to the outbox in DIR, sends everything in it to
 *                                              ENDPOINT, prints each uploaded payload (one JSON line) and
 *                                              acknowledges it; exits when nothing is left to send
 *
 * What it shows:
 * - vn_outbox_create() on a directory the client keeps (e.g. ~/.local/share/<client>/outbox), with upload options
 *   (multipart for Stream, --raw for Matrix's media upload) and HTTP headers given at each start, never stored.
 * - vn_outbox_subscribe() before vn_outbox_start(): UPLOADED events, including those of notes uploaded before a
 *   crash and never acknowledged; WAITING (a transient failure, with its back-off) and FAILED (permanent) on stderr.
 * - The hand-off: the client sends its message with the payload, then vn_outbox_acknowledge(); a client that can
 *   die between the two deduplicates by the item's id.
 * - vn_outbox_copy_items(): the items as JSON, to show an "uploading…/failed, tap to retry" state per message.
 *
 * Build:  cc outbox.c $(pkg-config --cflags --libs voicenote) -o outbox
 * Exit status: 0 when everything was sent; 1 when a call fails or items stayed failed; 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, mkdtemp */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voicenote.h>

/* The uploaded items the event thread handed over, for the main thread to acknowledge. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int64_t handed[256];
static size_t handed_count;

static int fail(const char *what, int status) {
    fprintf(stderr, "outbox: %s: %s: %s\n", what, vn_status_name(status), vn_last_error_message());
    return 1;
}

static void on_event(void *user_data, const vn_outbox_event *event) {
    (void)user_data;
    if (event->kind == VN_OUTBOX_EVENT_UPLOADED) {
        printf("{\"id\":%lld,\"payload\":%s}\n", (long long)event->id, event->payload_json);
        fflush(stdout);
        pthread_mutex_lock(&lock);
        if (handed_count < sizeof handed / sizeof handed[0]) handed[handed_count++] = event->id;
        pthread_mutex_unlock(&lock);
    } else if (event->kind == VN_OUTBOX_EVENT_WAITING) {
        fprintf(stderr, "outbox: item %lld: %s (again in %.1f s)\n", (long long)event->id, event->message,
                event->retry_in);
    } else if (event->kind == VN_OUTBOX_EVENT_FAILED) {
        fprintf(stderr, "outbox: item %lld failed: %s\n", (long long)event->id, event->message);
    }
    pthread_mutex_lock(&lock);
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

/* Whether the items JSON still has an item the outbox will send or hand off (not only failed ones); sets *failed. */
static int pending(const char *json, int *failed) {
    *failed = strstr(json, "\"state\":\"failed\"") != NULL;
    return strstr(json, "\"state\":\"queued\"") || strstr(json, "\"state\":\"sending\"") ||
           strstr(json, "\"state\":\"waiting\"") || strstr(json, "\"state\":\"uploaded\"") ||
           strstr(json, "\"state\":\"held\"");
}

/* Writes a 0.5 s 440 Hz WAV tone. */
static int write_tone(const char *path) {
    FILE *file = fopen(path, "wb");
    if (!file) return 0;
    const uint32_t rate = 16000, frames = rate / 2;
    uint8_t header[44] = "RIFF\0\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0\0\0\0\0\0\0\0\0\x02\0\x10\0data";
    uint32_t values[] = {36 + frames * 2, rate, rate * 2, frames * 2};
    memcpy(header + 4, &values[0], 4);
    memcpy(header + 24, &values[1], 4);
    memcpy(header + 28, &values[2], 4);
    memcpy(header + 40, &values[3], 4);
    fwrite(header, 1, sizeof header, file);
    for (uint32_t i = 0; i < frames; i++) {
        int16_t sample = (int16_t)((i * 440 * 2 % rate) < rate ? 4000 : -4000);
        fwrite(&sample, 2, 1, file);
    }
    return fclose(file) == 0;
}

/* Adds "Name: value" as a header (the text is changed in place). */
static int add_header(vn_http_options *http, char *line) {
    char *colon = strchr(line, ':');
    if (!colon) return VN_E_INVALID_ARG;
    *colon = '\0';
    char *value = colon + 1;
    while (*value == ' ') value++;
    return vn_http_options_add_header(http, line, value);
}

static int default_run(void) {
    char folder[] = "/tmp/voicenote-outbox-XXXXXX", note[64], directory[64];
    if (!mkdtemp(folder)) return 1;
    snprintf(note, sizeof note, "%s/note.wav", folder);
    snprintf(directory, sizeof directory, "%s/outbox", folder);
    if (!write_tone(note)) return 1;
    vn_outbox *box = NULL;
    int status = vn_outbox_create(directory, "https://chat.example.com/channels/messaging/c1/file", NULL, &box);
    if (status != VN_OK) return fail("vn_outbox_create", status);
    int64_t id = 0;
    char *json = NULL;
    if ((status = vn_outbox_add(box, note, NULL, &id)) != VN_OK || (status = vn_outbox_copy_items(box, &json)) != VN_OK) {
        vn_outbox_destroy(box);
        return fail("the outbox", status);
    }
    printf("added item %lld (not started: nothing is sent)\n%s\n", (long long)id, json);
    vn_free(json);
    vn_outbox_destroy(box);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 1) return default_run();
    if (argc < 3) {
        fprintf(stderr, "usage: outbox [DIR ENDPOINT [--raw] [--header \"Name: value\"]... [FILE]...]\n");
        return 2;
    }
    vn_upload_options *options = NULL;
    vn_http_options *http = NULL;
    vn_outbox *box = NULL;
    int status = vn_upload_options_create(&options);
    if (status == VN_OK) status = vn_http_options_create(&http);
    for (int i = 3; status == VN_OK && i < argc; i++) {
        if (strcmp(argv[i], "--raw") == 0) status = vn_upload_options_set_mode(options, VN_UPLOAD_RAW);
        else if (strcmp(argv[i], "--header") == 0 && i + 1 < argc) status = add_header(http, argv[++i]);
    }
    if (status == VN_OK) status = vn_upload_options_set_http(options, http);
    if (status == VN_OK) status = vn_outbox_create(argv[1], argv[2], options, &box);
    vn_http_options_destroy(http);
    vn_upload_options_destroy(options);
    if (status != VN_OK) return fail("vn_outbox_create", status);
    status = vn_outbox_subscribe(box, on_event, NULL, NULL, NULL);
    for (int i = 3; status == VN_OK && i < argc; i++) {
        if (strcmp(argv[i], "--header") == 0) i++;
        else if (strcmp(argv[i], "--raw") != 0) status = vn_outbox_add(box, argv[i], NULL, NULL);
    }
    if (status == VN_OK) status = vn_outbox_start(box);
    int failed = 0;
    while (status == VN_OK) {
        int64_t ready[256];
        size_t count;
        pthread_mutex_lock(&lock);
        count = handed_count;
        memcpy(ready, handed, count * sizeof ready[0]);
        handed_count = 0;
        pthread_mutex_unlock(&lock);
        /* Here a client sends its message with the payload; then: */
        for (size_t i = 0; i < count && status == VN_OK; i++) status = vn_outbox_acknowledge(box, ready[i]);
        char *json = NULL;
        if (status != VN_OK || (status = vn_outbox_copy_items(box, &json)) != VN_OK) break;
        int more = pending(json, &failed);
        vn_free(json);
        if (!more) break;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1; /* a bound, never the condition: every event wakes it */
        pthread_mutex_lock(&lock);
        if (handed_count == 0) pthread_cond_timedwait(&changed, &lock, &until);
        pthread_mutex_unlock(&lock);
    }
    vn_outbox_destroy(box);
    if (status != VN_OK) return fail("the outbox", status);
    return failed ? 1 : 0;
}
