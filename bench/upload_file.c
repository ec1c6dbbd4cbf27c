/* upload_file.c — the "ours" side of the upload bench (bench/run.py, section upload; bench/sections/upload.py).
 *
 *   upload_file ENDPOINT FILE TAKES
 *
 * Makes one uploader for ENDPOINT (multipart mode, Stream's `POST /channels/<type>/<id>/file`; default HTTP
 * options), then TAKES times: a payload from vn_payload_create("file:///bench") (given, so the library does not
 * decode FILE for its duration and waveform: the take is the transfer), vn_uploader_upload_file(FILE, payload),
 * vn_uploader_wait(no limit), and vn_uploader_copy_result(), which must be VN_OK. The time of a take is
 * CLOCK_MONOTONIC from just before vn_uploader_upload_file to just after vn_uploader_wait returns; the payload is
 * made before and destroyed after it. The first take of the process includes libcurl's dlopen, the network and
 * upload threads' start and the first connection; the JSON says which take is first.
 *
 * Prints one JSON line per take on stdout:
 *   {"take": N, "first_in_process": true|false, "ms": T, "bytes": B, "asset_url": "..."}
 * (asset_url: the uploaded payload's, the server's answer; B: FILE's size). Exit status: 0 when every take was
 * uploaded; 1 on a failure (message on stderr); 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <voicenote.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int fail(const char *what, int status) {
    fprintf(stderr, "upload_file: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

/* Writes `text` as a JSON string (the URL the server answered; escapes what JSON needs). */
static void print_json_string(const char *text) {
    putchar('"');
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\') printf("\\%c", *c);
        else if (*c < 0x20) printf("\\u%04x", *c);
        else putchar(*c);
    }
    putchar('"');
}

/* The asset_url of an uploaded payload's JSON, copied (free with vn_free), or NULL. */
static char *asset_url_of(const char *json) {
    vn_payload *payload = NULL;
    char *url = NULL;
    if (vn_payload_parse(json, strlen(json), &payload) != VN_OK) return NULL;
    if (vn_payload_copy_field(payload, VN_PAYLOAD_ASSET_URL, &url) != VN_OK) url = NULL;
    vn_payload_destroy(payload);
    return url;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: upload_file ENDPOINT FILE TAKES\n");
        return 2;
    }
    const char *endpoint = argv[1], *file = argv[2];
    char *end = NULL;
    long takes = strtol(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || takes < 1) {
        fprintf(stderr, "upload_file: TAKES must be a number ≥ 1\n");
        return 2;
    }
    struct stat info;
    if (stat(file, &info) != 0) {
        perror(file);
        return 1;
    }

    vn_upload_options *options = NULL;
    int status = vn_upload_options_create(&options);
    if (status != VN_OK) return fail("vn_upload_options_create", status);
    if ((status = vn_upload_options_set_mode(options, VN_UPLOAD_MULTIPART)) != VN_OK) {
        vn_upload_options_destroy(options);
        return fail("vn_upload_options_set_mode", status);
    }
    vn_uploader *uploader = NULL;
    status = vn_uploader_create(endpoint, options, &uploader);
    vn_upload_options_destroy(options);
    if (status != VN_OK) return fail("vn_uploader_create", status);

    for (long take = 1; take <= takes; take++) {
        vn_payload *payload = NULL;
        if ((status = vn_payload_create("file:///bench", &payload)) != VN_OK) {
            vn_uploader_destroy(uploader);
            return fail("vn_payload_create", status);
        }
        int state = -1;
        int64_t started = now_ns();
        status = vn_uploader_upload_file(uploader, file, payload);
        if (status == VN_OK) status = vn_uploader_wait(uploader, -1, &state);
        int64_t ended = now_ns();
        vn_payload_destroy(payload);
        if (status != VN_OK) {
            vn_uploader_destroy(uploader);
            return fail("vn_uploader_upload_file / vn_uploader_wait", status);
        }
        char *result = NULL;
        if ((status = vn_uploader_copy_result(uploader, &result)) != VN_OK) {
            fprintf(stderr, "upload_file: take %ld ended in state %d\n", take, state);
            vn_uploader_destroy(uploader);
            return fail("vn_uploader_copy_result", status);
        }
        if (state != VN_UPLOAD_UPLOADED) {
            fprintf(stderr, "upload_file: take %ld: vn_uploader_copy_result is VN_OK but the state is %d\n", take,
                    state);
            vn_free(result);
            vn_uploader_destroy(uploader);
            return 1;
        }
        char *url = result ? asset_url_of(result) : NULL;
        vn_free(result);
        printf("{\"take\": %ld, \"first_in_process\": %s, \"ms\": %.3f, \"bytes\": %lld, \"asset_url\": ", take,
               take == 1 ? "true" : "false", (double)(ended - started) / 1e6, (long long)info.st_size);
        if (url) print_json_string(url);
        else printf("null");
        printf("}\n");
        fflush(stdout);
        vn_free(url);
    }
    vn_uploader_destroy(uploader);
    return 0;
}
