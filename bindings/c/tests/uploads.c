/*
 * uploads.c: the uploader through the C API (voicenote.h, section "Uploads"), against Tests/Servers/http_server.py,
 * which this test starts and stops itself.
 *
 * - Multipart (Stream's POST /channels/{type}/{id}/file): the server got one part "file" with the file's name, MIME
 *   type and exact bytes, the vn_http_options headers and the percent-encoded `api_key` query parameter; events go
 *   PENDING -> UPLOADING (progress 0, steps of at least 0.05, then 1) -> UPLOADED, on a thread that is neither the
 *   caller's nor the upload thread, and the UPLOADED payload equals vn_uploader_copy_result's.
 * - Raw (Matrix's media upload) of a memory source: Content-Type and ?filename=, the exact bytes, an mxc:// asset_url.
 * - Failures: HTTP 413, 401, 404, 500 (the message names "HTTP nnn"), a response that is not JSON, a dropped
 *   connection; a retry after failfirst-1; vn_uploader_cancel of a 12 MB upload to a slow reader ends it within
 *   2 s; VN_E_BUSY while one runs; synchronous refusals (a file removed before the upload, a directory, an https
 *   location, the size limit). No failure changes the local file.
 * - The post-processor hook: a vn_strdup'ed rewrite is the result, it runs on "vn-upload"; a negative status or an
 *   unparsable answer fails the upload; release runs exactly once (replaced while idle, replaced while running,
 *   removed, the uploader destroyed). vn_uploader_destroy from inside the uploader's own event callback and its hook.
 * - A voiceRecording upload without a payload reads the note's duration and waveform, and fails with VN_E_FORMAT
 *   for a file that is not audio; other uploads here pass payloads (vn_payload_create) for random-bytes files.
 * - Events through a vn_event_loop arrive only inside vn_event_loop_dispatch on the calling thread.
 *
 * Needs python3 and opusenc on PATH. Every wait is bounded and waits for a condition: WAIT_UNTIL for events and
 * hooks (the callbacks notify()), POLL_UNTIL for the server's request log (written by another process).
 */
#define _XOPEN_SOURCE 700 /* nftw, strdup */
#include "harness.h"
#include "child.h"

#define TONE_SECONDS 1.5
#define WAIT_MS 20000
#define LOG_WAIT_MS 5000
#define MEDIUM_SIZE 3000000    /* several progress steps */
#define LARGE_SIZE 12000000    /* more than loopback's socket buffers take from a slow reader */
#define CHANNEL "/channels/messaging/"

static char directory[256];
static char note_path[300], medium_path[300], large_path[300];
static unsigned char *medium_bytes, *large_bytes;
static test_server server;
static pthread_t main_thread;

/* ------------------------------------------------------------------------------------------------------------ */
/* An uploader's events, recorded; fields guarded by the harness monitor (WAIT_UNTIL reads them under it) */

#define MAX_EVENTS 512
typedef struct recorder {
    int states[MAX_EVENTS];
    double progress[MAX_EVENTS];
    int count, ends, uploaded;  /* events; FAILED or UPLOADED ones; UPLOADED ones */
    int status;                 /* of the last FAILED */
    char message[512];          /* of the last FAILED */
    char *payload;              /* of the last UPLOADED (malloc'ed) */
    int on_main, on_upload_thread, outside_dispatch, late; /* callbacks where none may run */
    int released;
    int in_dispatch;            /* set by the test around vn_event_loop_dispatch */
    vn_uploader *destroy_at_uploading; /* destroyed from inside the first UPLOADING callback */
    int destroyed;
} recorder;

static void on_upload_event(void *user_data, const vn_upload_event *event) {
    recorder *r = user_data;
    char name[32];
    thread_name(name, sizeof name);
    vn_uploader *destroy = NULL;
    pthread_mutex_lock(&harness_sync.mutex);
    if (r->destroyed) r->late++;
    if (r->count < MAX_EVENTS) {
        r->states[r->count] = event->state;
        r->progress[r->count] = event->progress;
    }
    r->count++;
    r->on_main += pthread_equal(pthread_self(), main_thread) != 0;
    r->on_upload_thread += strcmp(name, "vn-upload") == 0;
    r->outside_dispatch += !r->in_dispatch;
    if (event->state == VN_UPLOAD_FAILED) {
        r->status = event->status;
        snprintf(r->message, sizeof r->message, "%s", event->message ? event->message : "(no message)");
    }
    if (event->state == VN_UPLOAD_UPLOADED) {
        free(r->payload);
        r->payload = event->payload_json ? strdup(event->payload_json) : NULL;
        r->uploaded++;
    }
    r->ends += event->state == VN_UPLOAD_FAILED || event->state == VN_UPLOAD_UPLOADED;
    if (event->state == VN_UPLOAD_UPLOADING && r->destroy_at_uploading != NULL) {
        destroy = r->destroy_at_uploading;
        r->destroy_at_uploading = NULL;
    }
    pthread_mutex_unlock(&harness_sync.mutex);
    if (destroy != NULL) {
        vn_uploader_destroy(destroy); /* from inside its own callback: must not wait for itself */
        pthread_mutex_lock(&harness_sync.mutex);
        r->destroyed = 1;
        pthread_mutex_unlock(&harness_sync.mutex);
    }
    notify();
}

static void count_release(void *user_data) {
    atomic_int *released = user_data;
    atomic_fetch_add(released, 1);
    notify();
}

static void recorder_release(void *user_data) {
    recorder *r = user_data;
    pthread_mutex_lock(&harness_sync.mutex);
    r->released++;
    pthread_mutex_unlock(&harness_sync.mutex);
    notify();
}

static void recorder_init(recorder *r) {
    free(r->payload);
    memset(r, 0, sizeof *r);
}

/* Waits until the recorder saw `ends` ends (FAILED or UPLOADED); 1 when it did. */
static int wait_ends(recorder *r, int ends, int ms) {
    int ok = 0;
    WAIT_UNTIL(ok, r->ends >= ends, ms);
    return EXPECT(ok, "no end of the upload within %d ms (%d events)", ms, r->count);
}

/* An uploader for `path` on the test server, subscribed to `r`; options from `options` (NULL: the defaults). */
static vn_uploader *uploader_for(const char *path, vn_upload_options *options, recorder *r) {
    char url[300];
    snprintf(url, sizeof url, "%s%s", server.base_url, path);
    vn_uploader *uploader = NULL;
    EXPECT_STATUS(VN_OK, vn_uploader_create(url, options, &uploader));
    if (uploader != NULL && r != NULL) {
        recorder_init(r);
        EXPECT_STATUS(VN_OK, vn_uploader_subscribe(uploader, on_upload_event, r, recorder_release, NULL));
    }
    return uploader;
}

/* Options of one mode. */
static vn_upload_options *options_for(int mode) {
    vn_upload_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_upload_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_upload_options_set_mode(options, mode));
    return options;
}

/* A payload for random-bytes files, so that nothing reads them as audio. */
static vn_payload *placeholder(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_create("https://placeholder.example/file", &payload));
    return payload;
}

/* The logged request containing the fragments, once the server wrote it (bounded); malloc'ed or NULL. */
static char *logged(const char *a, const char *b) {
    char *line = NULL;
    int ok = 0;
    POLL_UNTIL(ok, line != NULL || (line = log_find(&server, a, b, NULL)) != NULL, 10, LOG_WAIT_MS);
    EXPECT(ok, "the server logged no request with %s %s", a, b ? b : "");
    return line;
}

/* Whether the server stored exactly these bytes for the logged request `line`. */
static int stored_as(const char *line, const void *bytes, size_t size) {
    char upload[64], path[400];
    log_string(line, "upload", upload, sizeof upload);
    snprintf(path, sizeof path, "%s/%s", server.root, upload);
    return upload[0] != '\0' && file_holds(path, bytes, size);
}

/* Reads a result's payload; expects a text field of it. */
static void expect_result_field(const char *json, int field, const char *want) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_parse(json ? json : "", json ? strlen(json) : 0, &payload));
    char *text = NULL;
    if (payload != NULL) EXPECT_STATUS(VN_OK, vn_payload_copy_field(payload, field, &text));
    EXPECT(text != NULL && strcmp(text, want) == 0, "field %d of the result is %s, want %s", field,
           text ? text : "NULL", want);
    vn_free(text);
    vn_payload_destroy(payload);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Successful uploads */

/* A multipart upload: what the server received (part, name, MIME type, bytes, headers, query), the states and
 * progress of the events, the thread they ran on, and the UPLOADED payload equal to the result. */
static void test_multipart_upload(void) {
    vn_http_options *http = NULL;
    EXPECT_STATUS(VN_OK, vn_http_options_create(&http));
    EXPECT_STATUS(VN_OK, vn_http_options_add_header(http, "Authorization", "Bearer tok"));
    EXPECT_STATUS(VN_OK, vn_http_options_add_header(http, "Stream-Auth-Type", "jwt"));
    vn_upload_options *options = options_for(VN_UPLOAD_MULTIPART);
    EXPECT_STATUS(VN_OK, vn_upload_options_set_http(options, http));
    vn_http_options_destroy(http); /* copied */
    EXPECT_STATUS(VN_OK, vn_upload_options_add_query(options, "api_key", "k e&y/\xc3\xbc"));
    static recorder r;
    vn_uploader *uploader = uploader_for(CHANNEL "multipart/file", options, &r);
    vn_upload_options_destroy(options); /* copied */
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload); /* copied */
    if (!wait_ends(&r, 1, WAIT_MS)) {
        vn_uploader_destroy(uploader);
        return;
    }
    char *result = NULL;
    EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
    pthread_mutex_lock(&harness_sync.mutex);
    int count = r.count < MAX_EVENTS ? r.count : MAX_EVENTS, in_order = 1, steps_ok = 1, uploading = 0;
    double last = -1;
    for (int i = 0; i < count; i++) {
        int want = i == 0 ? VN_UPLOAD_PENDING : i == count - 1 ? VN_UPLOAD_UPLOADED : VN_UPLOAD_UPLOADING;
        in_order &= r.states[i] == want;
        if (r.states[i] != VN_UPLOAD_UPLOADING) continue;
        double p = r.progress[i];
        steps_ok &= uploading == 0 ? p == 0 : p >= last && (p == 1 || p - last >= 0.05 - 1e-9);
        last = p;
        uploading++;
    }
    EXPECT(in_order && count >= 3, "%d events, not PENDING, UPLOADING…, UPLOADED", count);
    EXPECT(steps_ok && last == 1 && uploading >= 3, "%d progress events, not 0, steps of >= 0.05, then 1 (last %g)",
           uploading, last);
    EXPECT(r.on_main == 0 && r.on_upload_thread == 0, "%d callbacks on the caller's thread, %d on vn-upload",
           r.on_main, r.on_upload_thread);
    EXPECT(r.payload != NULL && result != NULL && strcmp(r.payload, result) == 0,
           "the UPLOADED payload\n    %s\n  differs from the result\n    %s", r.payload ? r.payload : "NULL",
           result ? result : "NULL");
    pthread_mutex_unlock(&harness_sync.mutex);

    /* The result: the server's URL (and its thumb_url), the file's name, size and MIME type. */
    char *line = logged("\"path\": \"" CHANNEL "multipart/file?", "\"status\": 200");
    char upload[64], want_url[160];
    log_string(line, "upload", upload, sizeof upload);
    snprintf(want_url, sizeof want_url, "%s/range/%s", server.base_url, upload);
    expect_result_field(result, VN_PAYLOAD_ASSET_URL, want_url);
    expect_result_field(result, VN_PAYLOAD_TITLE, "memo.m4a");
    expect_result_field(result, VN_PAYLOAD_MIME_TYPE, "audio/mp4");
    EXPECT(result != NULL && strstr(result, "\"file_size\":3000000") && strstr(result, "\"thumb_url\":\""),
           "the result lacks the size or the thumb_url: %s", result ? result : "NULL");
    /* What the server received. */
    static const char *const fragments[] = {
        "\"parts\": [{\"content_type\": \"audio/mp4\", \"filename\": \"memo.m4a\", \"name\": \"file\"",
        "\"size\": 3000000",
        "\"authorization\": \"Bearer tok\"",
        "\"stream-auth-type\": \"jwt\"",
        "\"query\": {\"api_key\": \"k e&y/\\u00fc\"}",
    };
    for (size_t i = 0; line != NULL && i < sizeof fragments / sizeof fragments[0]; i++)
        EXPECT(strstr(line, fragments[i]) != NULL, "the server's record lacks %s:\n    %s", fragments[i], line);
    EXPECT(line != NULL && stored_as(line, medium_bytes, MEDIUM_SIZE), "the stored upload differs from the file");
    EXPECT(file_holds(medium_path, medium_bytes, MEDIUM_SIZE), "the local file changed");
    free(line);
    vn_free(result);
    vn_uploader_destroy(uploader);
    EXPECT(r.released == 1, "the subscription was released %d times", r.released);
}

/* A raw upload of a memory source: the body is the bytes, with the MIME type of the name and ?filename=; the
 * response's content_uri (mxc://) is the asset_url. */
static void test_raw_upload_of_memory_source(void) {
    enum { SIZE = 200000 };
    unsigned char *bytes = random_bytes(SIZE, 2);
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, SIZE, &source));
    vn_upload_options *options = options_for(VN_UPLOAD_RAW);
    static recorder r;
    vn_uploader *uploader = uploader_for("/_matrix/media/v3/upload", options, &r);
    vn_upload_options_destroy(options);
    EXPECT_STATUS(VN_OK, vn_uploader_upload_source(uploader, source, "voice.ogg", NULL, NULL));
    if (wait_ends(&r, 1, WAIT_MS)) {
        char *result = NULL;
        EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
        char *line = logged("\"path\": \"/_matrix/media/v3/upload?filename=voice.ogg\"", "\"status\": 200");
        char upload[64] = "", want_url[96];
        log_string(line, "upload", upload, sizeof upload);
        snprintf(want_url, sizeof want_url, "mxc://localhost/%d", atoi(upload + strcspn(upload, "0123456789")));
        expect_result_field(result, VN_PAYLOAD_ASSET_URL, want_url);
        expect_result_field(result, VN_PAYLOAD_TITLE, "voice.ogg");
        expect_result_field(result, VN_PAYLOAD_MIME_TYPE, "audio/ogg");
        EXPECT(line != NULL && strstr(line, "\"content_type\": \"audio/ogg\""), "no Content-Type audio/ogg: %s",
               line ? line : "NULL");
        EXPECT(line != NULL && stored_as(line, bytes, SIZE), "the stored upload differs from the source's bytes");
        free(line);
        vn_free(result);
    }
    vn_uploader_destroy(uploader); /* gives the source back */
    vn_source_destroy(source);
    free(bytes);
}

/* A voiceRecording upload without a payload reads the note's duration and waveform; a random-bytes file is then
 * VN_E_FORMAT before anything is sent, while as a "file" attachment it uploads as it is. */
static void test_voice_recording_reads_the_file(void) {
    static recorder r;
    vn_uploader *uploader = uploader_for(CHANNEL "voice/file", NULL, &r);
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, note_path, NULL));
    if (wait_ends(&r, 1, WAIT_MS)) {
        char *result = NULL;
        EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
        vn_payload *payload = NULL;
        EXPECT_STATUS(VN_OK, vn_payload_parse(result ? result : "", result ? strlen(result) : 0, &payload));
        double duration = -1;
        size_t count = 0;
        EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
        EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, NULL, 0, &count));
        EXPECT(distance(duration, TONE_SECONDS) < 0.05 && count == 100, "duration %g, %zu levels", duration, count);
        vn_payload_destroy(payload);
        vn_free(result);
    }
    vn_uploader_destroy(uploader);

    uploader = uploader_for(CHANNEL "notaudio/file", NULL, &r);
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, NULL));
    if (wait_ends(&r, 1, WAIT_MS)) {
        EXPECT_STATUS(VN_E_FORMAT, vn_uploader_copy_result(uploader, NULL));
        pthread_mutex_lock(&harness_sync.mutex);
        EXPECT(r.count == 2 && r.states[0] == VN_UPLOAD_PENDING && r.status == VN_E_FORMAT,
               "%d events, the last %s: %s", r.count, vn_status_name(r.status), r.message);
        pthread_mutex_unlock(&harness_sync.mutex);
    }
    vn_uploader_destroy(uploader);

    vn_upload_options *options = options_for(VN_UPLOAD_MULTIPART);
    EXPECT_STATUS(VN_OK, vn_upload_options_set_attachment_type(options, "file"));
    uploader = uploader_for(CHANNEL "asfile/file", options, &r);
    vn_upload_options_destroy(options);
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, NULL));
    if (wait_ends(&r, 1, WAIT_MS)) {
        char *result = NULL;
        EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
        expect_result_field(result, VN_PAYLOAD_TYPE, "file");
        vn_free(result);
    }
    vn_uploader_destroy(uploader);
    char *sent = log_find(&server, CHANNEL "notaudio/", NULL);
    EXPECT(sent == NULL, "the file that is not audio was sent: %s", sent);
    free(sent);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Failures */

/* HTTP statuses and bad responses: the event's and the result's status, "HTTP nnn" in the message; the file
 * stays as it was. */
static void test_http_failures(void) {
    static const struct {
        const char *mode;
        int status;
        const char *text;
    } cases[] = {
        {"status-413", VN_E_TOO_LARGE, "HTTP 413"}, {"status-401", VN_E_PERMISSION, "HTTP 401"},
        {"status-404", VN_E_NOT_FOUND, "HTTP 404"}, {"status-500", VN_E_NETWORK, "HTTP 500"},
        {"notjson", VN_E_FORMAT, NULL},             {"drop", VN_E_NETWORK, NULL},
    };
    vn_payload *payload = placeholder();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "/uploadmode/%s" CHANNEL "failures/file", cases[i].mode);
        static recorder r;
        vn_uploader *uploader = uploader_for(path, NULL, &r);
        EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
        if (wait_ends(&r, 1, WAIT_MS)) {
            int status = vn_uploader_copy_result(uploader, NULL);
            EXPECT(status == cases[i].status, "%s: %s, want %s", cases[i].mode, vn_status_name(status),
                   vn_status_name(cases[i].status));
            if (cases[i].text != NULL)
                EXPECT(strstr(vn_last_error_message(), cases[i].text) != NULL, "%s: the message lacks %s: %s",
                       cases[i].mode, cases[i].text, vn_last_error_message());
            pthread_mutex_lock(&harness_sync.mutex);
            EXPECT(r.status == cases[i].status && r.uploaded == 0, "%s: FAILED with %s (%s)", cases[i].mode,
                   vn_status_name(r.status), r.message);
            pthread_mutex_unlock(&harness_sync.mutex);
        }
        vn_uploader_destroy(uploader);
        EXPECT(file_holds(medium_path, medium_bytes, MEDIUM_SIZE), "%s changed the local file", cases[i].mode);
    }
    vn_payload_destroy(payload);
}

/* A retry after a failure (the server fails the first request) sends the file again and succeeds; retry is
 * VN_E_MISUSE before any upload and after a success. */
static void test_retry_after_failure(void) {
    static recorder r;
    vn_uploader *uploader = uploader_for("/uploadmode/failfirst-1" CHANNEL "retry/file", NULL, &r);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_retry(uploader));
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    if (wait_ends(&r, 1, WAIT_MS)) {
        EXPECT_STATUS(VN_E_NETWORK, vn_uploader_copy_result(uploader, NULL));
        EXPECT_STATUS(VN_OK, vn_uploader_retry(uploader));
        if (wait_ends(&r, 2, WAIT_MS)) {
            char *result = NULL;
            EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
            EXPECT(r.uploaded == 1, "%d UPLOADED events", r.uploaded);
            vn_free(result);
            char *line = logged("\"path\": \"/uploadmode/failfirst-1" CHANNEL "retry/file\"", "\"status\": 200");
            EXPECT(line != NULL && stored_as(line, medium_bytes, MEDIUM_SIZE), "the retried upload differs");
            free(line);
            EXPECT_STATUS(VN_E_MISUSE, vn_uploader_retry(uploader));
        }
    }
    vn_uploader_destroy(uploader);
}

/* Starts uploading the 12 MB file to a reader of 100 kB/s and waits until its body reaches the server. */
static vn_uploader *start_slow_upload(const char *channel, recorder *r) {
    char path[128];
    snprintf(path, sizeof path, "/uploadmode/slowread-100000" CHANNEL "%s/file", channel);
    vn_uploader *uploader = uploader_for(path, NULL, r);
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, large_path, payload));
    vn_payload_destroy(payload);
    int ok = 0;
    POLL_UNTIL(ok, server_receiving(&server, path, NULL), 10, WAIT_MS);
    EXPECT(ok, "the body did not reach the server within %d ms", WAIT_MS);
    return uploader;
}

/* vn_uploader_cancel while the body is being sent ends the upload FAILED with VN_E_CANCELLED within 2 s. */
static void test_cancel_while_uploading(void) {
    static recorder r;
    vn_uploader *uploader = start_slow_upload("cancel", &r);
    long long start = harness_now_ms();
    EXPECT_STATUS(VN_OK, vn_uploader_cancel(uploader));
    int ok = 0;
    WAIT_UNTIL(ok, r.ends >= 1, 2000);
    EXPECT(ok, "no end within 2 s of vn_uploader_cancel");
    EXPECT(r.status == VN_E_CANCELLED && r.uploaded == 0, "ended with %s (%s)", vn_status_name(r.status), r.message);
    EXPECT(harness_now_ms() - start < 2000, "the cancel took %lld ms", harness_now_ms() - start);
    EXPECT_STATUS(VN_E_CANCELLED, vn_uploader_copy_result(uploader, NULL));
    int state = -1;
    EXPECT_STATUS(VN_OK, vn_uploader_wait(uploader, 0, &state));
    EXPECT(state == VN_UPLOAD_FAILED, "state %d after the cancel", state);
    EXPECT_STATUS(VN_OK, vn_uploader_cancel(uploader)); /* nothing runs: a no-op */
    vn_uploader_destroy(uploader);
    EXPECT(file_holds(large_path, large_bytes, LARGE_SIZE), "the cancel changed the local file");
}

/* While an upload runs, another is VN_E_BUSY, retry and copy_result VN_E_MISUSE; none of them disturbs it. */
static void test_second_upload_is_busy(void) {
    static recorder r;
    vn_uploader *uploader = start_slow_upload("busy", &r);
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory("abc", 3, &source));
    EXPECT_STATUS(VN_E_BUSY, vn_uploader_upload_file(uploader, medium_path, NULL));
    EXPECT_STATUS(VN_E_BUSY, vn_uploader_upload_source(uploader, source, "a.bin", NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_retry(uploader));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_copy_result(uploader, NULL));
    int state = -1;
    EXPECT_STATUS(VN_OK, vn_uploader_wait(uploader, 0, &state));
    pthread_mutex_lock(&harness_sync.mutex); /* the upload runs: its callbacks write `r` under this mutex */
    int ends = r.ends;
    pthread_mutex_unlock(&harness_sync.mutex);
    EXPECT(state == VN_UPLOAD_UPLOADING && ends == 0, "state %d, %d ends after the refused calls", state, ends);
    EXPECT_STATUS(VN_OK, vn_uploader_cancel(uploader));
    wait_ends(&r, 1, WAIT_MS);
    vn_uploader_destroy(uploader);
    vn_source_destroy(source);
}

/* Refused at once, with no upload started: a file removed before the upload, a directory, an https location, a
 * file over the limit, a destroyed payload. */
static void test_synchronous_refusals(void) {
    char gone[320];
    snprintf(gone, sizeof gone, "%s/gone.bin", directory);
    EXPECT(write_bytes(gone, "x", 1) && unlink(gone) == 0, "cannot make and remove %s", gone);
    vn_upload_options *options = options_for(VN_UPLOAD_MULTIPART);
    EXPECT_STATUS(VN_OK, vn_upload_options_set_max_bytes(options, 1000));
    vn_uploader *uploader = uploader_for(CHANNEL "refusals/file", options, NULL);
    vn_upload_options_destroy(options);
    vn_payload *payload = placeholder(), *destroyed = placeholder();
    vn_payload_destroy(destroyed);
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_uploader_upload_file(uploader, gone, payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_upload_file(uploader, directory, payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_upload_file(uploader, "https://cdn.example.com/a.ogg", payload));
    EXPECT_STATUS(VN_E_TOO_LARGE, vn_uploader_upload_file(uploader, medium_path, payload));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_file(uploader, note_path, destroyed));
    int state = -1;
    EXPECT_STATUS(VN_OK, vn_uploader_wait(uploader, 0, &state));
    EXPECT(state == VN_UPLOAD_PENDING, "state %d: a refused upload started", state);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_copy_result(uploader, NULL));
    vn_payload_destroy(payload);
    vn_uploader_destroy(uploader);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The post-processor hook */

typedef struct hook_state {
    atomic_int calls, released, on_upload_thread, block, let_go, destroyed;
    int answer;                 /* the status returned */
    const char *rewrite;        /* "title": a rewrite; "garbage": not JSON; NULL: keep */
    vn_uploader *destroy;       /* destroyed from inside the hook */
} hook_state;

static int post_process(void *user_data, const char *payload_json, char **out) {
    hook_state *h = user_data;
    char name[32];
    thread_name(name, sizeof name);
    atomic_fetch_add(&h->on_upload_thread, strcmp(name, "vn-upload") == 0);
    atomic_fetch_add(&h->calls, 1);
    notify();
    if (atomic_load(&h->block)) {
        int ok = 0;
        WAIT_UNTIL(ok, atomic_load(&h->let_go), WAIT_MS);
        EXPECT(ok, "the blocked hook was not let go within %d ms", WAIT_MS);
    }
    if (h->destroy != NULL) {
        vn_uploader_destroy(h->destroy); /* from inside its own hook */
        atomic_store(&h->destroyed, 1);
    }
    if (h->rewrite != NULL && strcmp(h->rewrite, "garbage") == 0) {
        *out = vn_strdup("not a payload");
    } else if (h->rewrite != NULL) {
        vn_payload *payload = NULL;
        char *json = NULL;
        if (vn_payload_parse(payload_json, strlen(payload_json), &payload) == VN_OK &&
            vn_payload_set_field(payload, VN_PAYLOAD_TITLE, h->rewrite) == VN_OK &&
            vn_payload_set_extra_data(payload, "{\"post_processed\":true}") == VN_OK &&
            vn_payload_to_json(payload, 0, &json) == VN_OK)
            *out = vn_strdup(json);
        vn_free(json);
        vn_payload_destroy(payload);
    }
    return h->answer;
}

static void hook_release(void *user_data) { count_release(&((hook_state *)user_data)->released); }

/* Uploads the medium file with a placeholder payload and waits for the end; 1 when it ended. */
static int upload_and_wait(vn_uploader *uploader, recorder *r, int ends) {
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    return wait_ends(r, ends, WAIT_MS);
}

/* A hook's vn_strdup'ed rewrite is the result and the UPLOADED payload; it ran once, on "vn-upload", and is
 * released once when the uploader is destroyed. */
static void test_post_processor_rewrites(void) {
    static recorder r;
    static hook_state h;
    memset(&h, 0, sizeof h);
    h.rewrite = "Rewritten";
    vn_uploader *uploader = uploader_for(CHANNEL "rewrite/file", NULL, &r);
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &h, hook_release));
    if (upload_and_wait(uploader, &r, 1)) {
        char *result = NULL;
        EXPECT_STATUS(VN_OK, vn_uploader_copy_result(uploader, &result));
        expect_result_field(result, VN_PAYLOAD_TITLE, "Rewritten");
        EXPECT(result != NULL && strstr(result, "\"post_processed\":true") && strstr(result, "/range/uploads/"),
               "the result is not the rewrite of the server's: %s", result ? result : "NULL");
        EXPECT(r.payload != NULL && result != NULL && strcmp(r.payload, result) == 0, "UPLOADED carried %s",
               r.payload ? r.payload : "NULL");
        vn_free(result);
    }
    EXPECT(atomic_load(&h.calls) == 1 && atomic_load(&h.on_upload_thread) == 1, "%d calls, %d on vn-upload",
           atomic_load(&h.calls), atomic_load(&h.on_upload_thread));
    EXPECT(atomic_load(&h.released) == 0, "released while in place");
    vn_uploader_destroy(uploader);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&h.released) == 1, WAIT_MS);
    EXPECT(ok && atomic_load(&h.released) == 1, "released %d times after the destroy", atomic_load(&h.released));
}

/* A hook's negative status fails the upload with it; an answer that is not a payload fails it with VN_E_FORMAT. */
static void test_post_processor_failures(void) {
    static recorder r;
    static hook_state refuse, garbage;
    memset(&refuse, 0, sizeof refuse);
    memset(&garbage, 0, sizeof garbage);
    refuse.answer = VN_E_PERMISSION;
    garbage.rewrite = "garbage";
    vn_uploader *uploader = uploader_for(CHANNEL "hookfail/file", NULL, &r);
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &refuse, hook_release));
    if (upload_and_wait(uploader, &r, 1)) EXPECT_STATUS(VN_E_PERMISSION, vn_uploader_copy_result(uploader, NULL));
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &garbage, hook_release));
    if (upload_and_wait(uploader, &r, 2)) EXPECT_STATUS(VN_E_FORMAT, vn_uploader_copy_result(uploader, NULL));
    EXPECT(r.uploaded == 0, "%d uploads succeeded", r.uploaded);
    EXPECT(file_holds(medium_path, medium_bytes, MEDIUM_SIZE), "a failing hook changed the local file");
    vn_uploader_destroy(uploader);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&refuse.released) == 1 && atomic_load(&garbage.released) == 1, WAIT_MS);
    EXPECT(ok, "released %d and %d times", atomic_load(&refuse.released), atomic_load(&garbage.released));
}

/* release runs exactly once: for a hook replaced while idle, removed (NULL), replaced while it runs (only after it
 * returned), and in place when the uploader is destroyed. */
static void test_post_processor_release(void) {
    static recorder r;
    static hook_state a, b, c, running;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    memset(&running, 0, sizeof running);
    vn_uploader *uploader = uploader_for(CHANNEL "release/file", NULL, &r);
    int ok = 0;
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &a, hook_release));
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &b, hook_release));
    WAIT_UNTIL(ok, atomic_load(&a.released) == 1, WAIT_MS);
    EXPECT(ok && atomic_load(&b.released) == 0, "replaced: released %d times (b %d)", atomic_load(&a.released),
           atomic_load(&b.released));
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, NULL, NULL, NULL));
    WAIT_UNTIL(ok, atomic_load(&b.released) == 1, WAIT_MS);
    EXPECT(ok, "removed: released %d times", atomic_load(&b.released));

    atomic_store(&running.block, 1);
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &running, hook_release));
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    WAIT_UNTIL(ok, atomic_load(&running.calls) == 1, WAIT_MS);
    EXPECT(ok, "the hook did not run");
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &c, hook_release));
    EXPECT(atomic_load(&running.released) == 0, "released while its hook runs");
    atomic_store(&running.let_go, 1);
    notify();
    WAIT_UNTIL(ok, atomic_load(&running.released) == 1 && r.ends == 1, WAIT_MS);
    EXPECT(ok, "after the running hook returned: released %d times, %d ends", atomic_load(&running.released), r.ends);
    EXPECT(atomic_load(&c.calls) == 0, "the replacing hook ran for the upload in progress");

    vn_uploader_destroy(uploader);
    WAIT_UNTIL(ok, atomic_load(&c.released) == 1, WAIT_MS);
    EXPECT(ok, "destroyed: released %d times", atomic_load(&c.released));
    EXPECT(atomic_load(&a.released) == 1 && atomic_load(&b.released) == 1 && atomic_load(&running.released) == 1,
           "a release ran again: %d %d %d", atomic_load(&a.released), atomic_load(&b.released),
           atomic_load(&running.released));
}

/* vn_uploader_destroy from inside the uploader's own event callback returns; no callback runs after it; the
 * subscription and the hook are released once. */
static void test_destroy_inside_event_callback(void) {
    static recorder r;
    static hook_state h;
    memset(&h, 0, sizeof h);
    vn_uploader *uploader = uploader_for(CHANNEL "destroy-callback/file", NULL, &r);
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &h, hook_release));
    pthread_mutex_lock(&harness_sync.mutex);
    r.destroy_at_uploading = uploader;
    pthread_mutex_unlock(&harness_sync.mutex);
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    int ok = 0;
    WAIT_UNTIL(ok, r.destroyed && r.released == 1 && atomic_load(&h.released) == 1, WAIT_MS);
    EXPECT(ok, "destroyed %d, the subscription released %d times, the hook %d times", r.destroyed, r.released,
           atomic_load(&h.released));
    EXPECT(r.late == 0, "%d callbacks after the destroy", r.late);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_cancel(uploader));
}

/* vn_uploader_destroy from inside the uploader's own post-processor returns; the upload reports no UPLOADED; the
 * hook and the subscription are released once. */
static void test_destroy_inside_post_processor(void) {
    static recorder r;
    static hook_state h;
    memset(&h, 0, sizeof h);
    vn_uploader *uploader = uploader_for(CHANNEL "destroy-hook/file", NULL, &r);
    h.destroy = uploader;
    EXPECT_STATUS(VN_OK, vn_uploader_set_post_processor(uploader, post_process, &h, hook_release));
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&h.destroyed) && atomic_load(&h.released) == 1 && r.released == 1, WAIT_MS);
    EXPECT(ok, "destroyed %d, the hook released %d times, the subscription %d times", atomic_load(&h.destroyed),
           atomic_load(&h.released), r.released);
    EXPECT(r.uploaded == 0 && atomic_load(&h.calls) == 1, "%d UPLOADED events, %d hook calls", r.uploaded,
           atomic_load(&h.calls));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Event loops and arguments */

/* An uploader made with a vn_event_loop delivers its events only inside vn_event_loop_dispatch, on its caller. */
static void test_events_through_event_loop(void) {
    vn_event_loop *loop = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    if (loop == NULL) return;
    vn_upload_options *options = options_for(VN_UPLOAD_MULTIPART);
    EXPECT_STATUS(VN_OK, vn_upload_options_set_event_loop(options, loop));
    static recorder r;
    vn_uploader *uploader = uploader_for(CHANNEL "loop/file", options, &r);
    vn_upload_options_destroy(options);
    vn_payload *payload = placeholder();
    EXPECT_STATUS(VN_OK, vn_uploader_upload_file(uploader, medium_path, payload));
    vn_payload_destroy(payload);
    long long end = harness_now_ms() + WAIT_MS;
    int ended = 0;
    while (!ended && harness_now_ms() < end) {
        int pending = 0;
        EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, 100, &pending));
        pthread_mutex_lock(&harness_sync.mutex);
        r.in_dispatch = 1;
        pthread_mutex_unlock(&harness_sync.mutex);
        EXPECT_STATUS(VN_OK, vn_event_loop_dispatch(loop, NULL));
        pthread_mutex_lock(&harness_sync.mutex);
        r.in_dispatch = 0;
        ended = r.ends > 0;
        pthread_mutex_unlock(&harness_sync.mutex);
    }
    EXPECT(ended && r.uploaded == 1, "no UPLOADED within %d ms of dispatching", WAIT_MS);
    EXPECT(r.outside_dispatch == 0 && r.on_main == r.count, "%d of %d callbacks outside dispatch, %d on this thread",
           r.outside_dispatch, r.count, r.on_main);
    vn_uploader_destroy(uploader);
    vn_event_loop_destroy(loop);
}

/* Option setters and uploader calls refuse what the header says, with its statuses. */
static void test_argument_checks(void) {
    vn_upload_options *options = NULL;
    vn_uploader *uploader = (vn_uploader *)&uploader;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_create(NULL));
    EXPECT_STATUS(VN_OK, vn_upload_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_set_mode(options, 4));
    EXPECT_STATUS(VN_OK, vn_upload_options_set_mode(options, VN_UPLOAD_TUS));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_set_mode(options, -1));
    EXPECT_STATUS(VN_OK, vn_upload_options_set_mode(options, VN_UPLOAD_MATRIX));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_add_query(options, "", "v"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_add_query(options, NULL, "v"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_add_query(options, "k", NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_add_query(options, "k", "\xff"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_set_url_key(options, ""));
    EXPECT_STATUS(VN_OK, vn_upload_options_set_url_key(options, NULL));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_upload_options_set_attachment_type(options, "giphy"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_set_attachment_type(options, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_upload_options_set_max_bytes(options, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_upload_options_set_mode(NULL, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_create("ftp://example.org/up", options, &uploader));
    EXPECT(uploader == NULL, "*out is not NULL after a failed create");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_create(NULL, options, &uploader));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_create("https://example.org/up", options, NULL));
    vn_upload_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_upload_options_set_mode(options, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_create("https://example.org/up", options, &uploader));
    vn_upload_options_destroy(NULL);

    EXPECT_STATUS(VN_OK, vn_uploader_create("https://example.org/up", NULL, &uploader));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_subscribe(uploader, NULL, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_upload_file(uploader, NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_source(uploader, NULL, "a.bin", NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_recording(uploader, NULL));
    vn_recorder *idle = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_create(NULL, &idle));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_recording(uploader, idle)); /* no take runs */
    vn_recorder_destroy(idle);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_recording(uploader, idle)); /* a destroyed recorder */
    char *uri = (char *)&uri;
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_uploader_copy_content_uri(uploader, &uri));
    EXPECT(uri == NULL, "*out_uri is not NULL without a content URI");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_uploader_copy_content_uri(uploader, NULL));
    vn_uploader_destroy(uploader);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_recording(NULL, NULL));
    vn_flow_options *flowing = NULL;
    EXPECT_STATUS(VN_OK, vn_flow_options_create(&flowing));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_options_set_uploader(flowing, uploader)); /* destroyed */
    EXPECT_STATUS(VN_OK, vn_flow_options_set_uploader(flowing, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_flow_options_set_uploader(NULL, NULL));
    vn_flow_options_destroy(flowing);
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_copy_content_uri(NULL, &uri));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_cancel(uploader));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_cancel(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_retry(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_wait(NULL, 0, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_copy_result(NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_set_post_processor(NULL, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_uploader_upload_file(NULL, note_path, NULL));
    vn_uploader_destroy(NULL);
    EXPECT(vn_strdup(NULL) == NULL, "vn_strdup(NULL) is not NULL");
}

/* ------------------------------------------------------------------------------------------------------------ */

/* The note, two files of random bytes, and the server (serving <directory>/served). */
static int setup(void) {
    char root[300];
    snprintf(medium_path, sizeof medium_path, "%s/memo.m4a", directory); /* random bytes named as audio */
    snprintf(large_path, sizeof large_path, "%s/large.bin", directory);
    snprintf(root, sizeof root, "%s/served", directory);
    medium_bytes = random_bytes(MEDIUM_SIZE, 1);
    large_bytes = random_bytes(LARGE_SIZE, 3);
    return mkdir(root, 0700) == 0 && write_note(directory, TONE_SECONDS, note_path, sizeof note_path) &&
           write_bytes(medium_path, medium_bytes, MEDIUM_SIZE) && write_bytes(large_path, large_bytes, LARGE_SIZE) &&
           server_start(&server, root);
}

int main(void) {
    harness_init("uploads");
    main_thread = pthread_self();
    if (!temp_directory_create(directory, sizeof directory, "uploads")) return 1;
    if (!fixture_setup(setup, directory, "files, opusenc, http_server.py")) return 1;
    TEST(test_multipart_upload);
    TEST(test_raw_upload_of_memory_source);
    TEST(test_voice_recording_reads_the_file);
    TEST(test_http_failures);
    TEST(test_retry_after_failure);
    TEST(test_cancel_while_uploading);
    TEST(test_second_upload_is_busy);
    TEST(test_synchronous_refusals);
    TEST(test_post_processor_rewrites);
    TEST(test_post_processor_failures);
    TEST(test_post_processor_release);
    TEST(test_destroy_inside_event_callback);
    TEST(test_destroy_inside_post_processor);
    TEST(test_events_through_event_loop);
    TEST(test_argument_checks);
    harness_watchdog_arm("cleanup", TEST_LIMIT_S);
    EXPECT(server_stop(&server) == 0, "http_server.py did not exit cleanly on SIGTERM");
    temp_directory_remove(directory);
    harness_watchdog_disarm();
    free(medium_bytes);
    free(large_bytes);
    return harness_finish();
}
