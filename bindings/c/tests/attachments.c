/*
 * attachments.c: attachment payloads, types and names, and the next voice message through the C API (voicenote.h,
 * sections "Attachment payloads", "Attachment types and names", "Messages and the next voice message"). Uploads
 * are in uploads.c.
 *
 * - Payloads: Stream's two payload tests (no extra data; an extra key lands in extra data); a payload with nested
 *   extra data (int64 extremes, shortest reals, escapes, \u0000, non-ASCII) and its known keys in an unusual order
 *   comes back byte-identical; every getter and setter, absent values, removal, where a new key goes; `file_size`
 *   read as Stream reads it; bad JSON with its exact status; argument checks (NULL and destroyed handles, NULL outs).
 * - vn_payload_from_recording on an Ogg Opus note made at test time (a WAV tone from harness.h, opusenc): title,
 *   file:// URL, size, MIME type, duration and 100 levels from the file, or the given duration and waveform.
 * - Types: by file name, by MIME type, of a received attachment object; vn_attachment_check_local's statuses;
 *   recording display names.
 * - The next voice message with Tests/Fixtures/messages/stream-next-item.json (every case of its "_comment") and
 *   a `consecutive` case of this file's own.
 * - Matrix: a content made and read back; received `mxc://` URIs against the spec's grammar (dot segments, ports,
 *   escapes, empty parts) in a content and in vn_matrix_download_url; a NUL in a received body or MIME type.
 * - A 1 MiB payload of one 95,000-key object read whole; repeated keys (refused; canonically equivalent ones merged).
 *
 * Needs opusenc on PATH. Nothing here waits on another thread; the watchdog still bounds every test.
 */
#define _XOPEN_SOURCE 700 /* nftw, strdup */
#include "harness.h"
#include "child.h"

#include <math.h> /* NAN and INFINITY only: the tests link no libm */

#define TONE_SECONDS 1.5

static char directory[256]; /* the test's temporary directory */
static char note_path[300];

/* ------------------------------------------------------------------------------------------------------------ */
/* Helpers */

/* Parses NUL-terminated `json`, expecting VN_OK; NULL when it failed. */
static vn_payload *parse(const char *json) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_parse(json, strlen(json), &payload));
    return payload;
}

/* The compact JSON of a payload (a static copy; "" on failure). */
static const char *compact(const vn_payload *payload) {
    static char text[4096];
    char *json = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_to_json(payload, 0, &json));
    snprintf(text, sizeof text, "%s", json ? json : "");
    vn_free(json);
    return text;
}

#define EXPECT_JSON(payload, want)                                                                            \
    do {                                                                                                      \
        const char *got_ = compact(payload);                                                                  \
        EXPECT(strcmp(got_, (want)) == 0, "payload JSON\n    got  %s\n    want %s", got_, (want));             \
    } while (0)

/* Expects a text field's value (NULL: absent). */
static void expect_field(const vn_payload *payload, int field, const char *want) {
    char unset, *text = &unset;
    EXPECT_STATUS(VN_OK, vn_payload_copy_field(payload, field, &text));
    if (!EXPECT(text != &unset, "field %d: *out_text was not written", field)) return;
    int same = want == NULL ? text == NULL : text != NULL && strcmp(text, want) == 0;
    EXPECT(same, "field %d is %s, want %s", field, text ? text : "NULL", want ? want : "NULL");
    vn_free(text);
}

static void expect_extra(const vn_payload *payload, const char *want) {
    char *extra = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_copy_extra_data(payload, &extra));
    EXPECT(extra != NULL && strcmp(extra, want) == 0, "extra data %s, want %s", extra ? extra : "NULL", want);
    vn_free(extra);
}

/* The status of parsing `length` bytes of `json`, with *out checked to be NULL after a failure. */
static int parse_status(const char *json, size_t length) {
    vn_payload *payload = (vn_payload *)&payload;
    int status = vn_payload_parse(json, length, &payload);
    if (status != VN_OK) EXPECT(payload == NULL, "*out is not NULL after a failed parse");
    vn_payload_destroy(status == VN_OK ? payload : NULL);
    return status;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Payloads */

#define STREAM_PAYLOAD                                                                                        \
    "{\"title\":\"audio\",\"asset_url\":\"https://example.com/audio.aac\",\"file_size\":10485760,"          \
    "\"mime_type\":\"audio/aac\""

/* Stream's first payload test: the known keys decode, nothing is left over as extra data. */
static void test_stream_payload_without_extra_data(void) {
    vn_payload *payload = parse(STREAM_PAYLOAD "}");
    if (payload == NULL) return;
    expect_field(payload, VN_PAYLOAD_TITLE, "audio");
    expect_field(payload, VN_PAYLOAD_ASSET_URL, "https://example.com/audio.aac");
    expect_field(payload, VN_PAYLOAD_MIME_TYPE, "audio/aac");
    expect_field(payload, VN_PAYLOAD_TYPE, NULL);
    int64_t size = 0;
    EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
    EXPECT(size == 10485760, "file_size %lld", (long long)size);
    expect_extra(payload, "{}");
    EXPECT_JSON(payload, STREAM_PAYLOAD "}");
    vn_payload_destroy(payload);
}

/* Stream's second payload test: an unknown key ("comment") lands in extra data and is written back in place. */
static void test_stream_payload_with_comment_in_extra_data(void) {
    vn_payload *payload = parse(STREAM_PAYLOAD ",\"comment\":\"Some comment\"}");
    if (payload == NULL) return;
    expect_extra(payload, "{\"comment\":\"Some comment\"}");
    expect_field(payload, VN_PAYLOAD_TITLE, "audio");
    EXPECT_JSON(payload, STREAM_PAYLOAD ",\"comment\":\"Some comment\"}");
    vn_payload_destroy(payload);
}

/* In the library's canonical form (raw UTF-8, shortest reals, \u0000 and \t escaped), known keys out of their usual
 * order, extra data before and after them. */
#define ROUND_TRIP_EXTRA                                                                                      \
    "\"custom\":{\"nested\":{\"list\":[1,-2,{\"deep\":[true,false,null]}],\"empty\":{},\"none\":[]},"       \
    "\"max\":9223372036854775807,\"min\":-9223372036854775808,"                                             \
    "\"reals\":[0.1,1e-07,2.5,-0.0,1.7976931348623157e+308,5e-324,0.30000000000000004],"                    \
    "\"text\":\"quote \\\" tab \\t nul \\u0000 caf\xc3\xa9" " \xe2\x98\x83 \xf0\x9f\x98\x80 end\"}"
#define ROUND_TRIP                                                                                            \
    "{" ROUND_TRIP_EXTRA ",\"title\":\"R\xc3\xa9union\",\"type\":\"voiceRecording\","                        \
    "\"asset_url\":\"https://cdn.example.com/v/1.ogg\",\"waveform_data\":[0.0,0.25,1.0],\"file_size\":42,"   \
    "\"duration\":2.5,\"mime_type\":\"audio/ogg\",\"tail\":\"last\"}"

/* Read and written back, a payload keeps every key in its place and every value exact; the pretty form reads back
 * to the same payload. */
static void test_round_trip_is_byte_identical(void) {
    vn_payload *payload = parse(ROUND_TRIP);
    if (payload == NULL) return;
    EXPECT_JSON(payload, ROUND_TRIP);
    expect_extra(payload, "{" ROUND_TRIP_EXTRA ",\"tail\":\"last\"}");
    expect_field(payload, VN_PAYLOAD_TITLE, "R\xc3\xa9union");
    double duration = 0, levels[3] = {0};
    size_t count = 0;
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, levels, 3, &count));
    EXPECT(duration == 2.5 && count == 3 && levels[1] == 0.25, "duration %g, %zu levels", duration, count);

    char *pretty = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_to_json(payload, 2, &pretty));
    EXPECT(pretty != NULL && strstr(pretty, "\n  \"custom\": {\n    \"nested\"") != NULL, "indent 2 gave %s",
           pretty ? pretty : "NULL");
    vn_payload *again = pretty ? parse(pretty) : NULL;
    if (again != NULL) EXPECT_JSON(again, ROUND_TRIP);
    vn_payload_destroy(again);
    vn_free(pretty);
    vn_payload_destroy(payload);
}

/* The four text fields: read, set, removed and set again; asset_url cannot be removed or made relative; invalid
 * UTF-8 and unknown fields are refused and change nothing. */
static void test_text_fields(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_create("https://cdn.example.com/a.ogg", &payload));
    if (payload == NULL) return;
    EXPECT_JSON(payload, "{\"type\":\"voiceRecording\",\"asset_url\":\"https://cdn.example.com/a.ogg\"}");
    expect_field(payload, VN_PAYLOAD_TYPE, "voiceRecording");
    expect_field(payload, VN_PAYLOAD_TITLE, NULL);
    expect_field(payload, VN_PAYLOAD_MIME_TYPE, NULL);
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_MIME_TYPE, "audio/ogg"));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TITLE, "Recording(2)"));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_ASSET_URL, "mxc://example.org/abc"));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TYPE, "audio"));
    EXPECT_JSON(payload, "{\"type\":\"audio\",\"title\":\"Recording(2)\",\"asset_url\":\"mxc://example.org/abc\","
                         "\"mime_type\":\"audio/ogg\"}");
    expect_field(payload, VN_PAYLOAD_ASSET_URL, "mxc://example.org/abc");

    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TYPE, NULL));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_MIME_TYPE, NULL));
    expect_field(payload, VN_PAYLOAD_TYPE, NULL);
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TYPE, "voiceRecording")); /* back in first place */
    const char *settled = "{\"type\":\"voiceRecording\",\"title\":\"Recording(2)\","
                          "\"asset_url\":\"mxc://example.org/abc\"}";
    EXPECT_JSON(payload, settled);

    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_field(payload, VN_PAYLOAD_ASSET_URL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_field(payload, VN_PAYLOAD_ASSET_URL, "relative/a.ogg"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_field(payload, VN_PAYLOAD_TITLE, "bad \xff\xfe"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_field(payload, 4, "x"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_field(payload, -1, "x"));
    char *text = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_copy_field(payload, 4, &text));
    EXPECT_JSON(payload, settled);
    vn_payload_destroy(payload);
}

/* A new known key goes to its place among the known keys (Stream's order: type, title, asset_url, file_size,
 * mime_type, duration, waveform_data), whichever setter adds it; extra keys around them stay where they are. */
static void test_new_keys_go_to_their_place(void) {
    vn_payload *payload = parse("{\"x\":1,\"asset_url\":\"https://a.example/b\",\"y\":2,\"duration\":2.5,\"w\":3}");
    if (payload == NULL) return;
    const double level = 0.5;
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TYPE, "voiceRecording"));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_MIME_TYPE, "audio/ogg"));
    EXPECT_STATUS(VN_OK, vn_payload_set_waveform(payload, &level, 1));
    EXPECT_STATUS(VN_OK, vn_payload_set_file_size(payload, 9));
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_TITLE, "T"));
    EXPECT_JSON(payload, "{\"x\":1,\"type\":\"voiceRecording\",\"title\":\"T\",\"asset_url\":\"https://a.example/b\","
                         "\"y\":2,\"file_size\":9,\"mime_type\":\"audio/ogg\",\"duration\":2.5,\"waveform_data\":[0.5],"
                         "\"w\":3}");
    vn_payload_destroy(payload);
}

/* file_size, duration and waveform_data: -1, -1 and 0 when absent; set and read back exactly (the waveform as
 * doubles, the first `capacity` copied); a negative value or NULL removes them; NaN and infinities are refused. */
static void test_number_fields(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_create("https://cdn.example.com/a.ogg", &payload));
    if (payload == NULL) return;
    int64_t size = 0;
    double duration = 0, levels[4] = {0};
    size_t count = 99;
    EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, NULL, 0, &count));
    EXPECT(size == -1 && duration == -1 && count == 0, "absent: size %lld, duration %g, count %zu", (long long)size,
           duration, count);

    const double values[3] = {0.1, 0.30000000000000004, 1.0};
    EXPECT_STATUS(VN_OK, vn_payload_set_file_size(payload, INT64_MAX));
    EXPECT_STATUS(VN_OK, vn_payload_set_duration_s(payload, 0.1));
    EXPECT_STATUS(VN_OK, vn_payload_set_waveform(payload, values, 3));
    EXPECT_JSON(payload, "{\"type\":\"voiceRecording\",\"asset_url\":\"https://cdn.example.com/a.ogg\","
                         "\"file_size\":9223372036854775807,\"duration\":0.1,"
                         "\"waveform_data\":[0.1,0.30000000000000004,1.0]}");
    EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, levels, 2, &count));
    EXPECT(size == INT64_MAX && duration == 0.1, "size %lld, duration %.17g", (long long)size, duration);
    EXPECT(count == 3 && levels[0] == values[0] && levels[1] == values[1] && levels[2] == 0,
           "waveform: %zu values, %.17g %.17g, and the third slot %g", count, levels[0], levels[1], levels[2]);
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, levels, SIZE_MAX, &count));
    EXPECT(count == 3 && levels[2] == 1.0, "capacity SIZE_MAX: %zu values", count);

    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_duration_s(payload, NAN));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_duration_s(payload, INFINITY));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_duration_s(payload, -INFINITY)); /* not "remove it" */
    const double bad[2] = {0.5, NAN};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_waveform(payload, bad, 2));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_waveform(payload, values, 1048577));
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
    EXPECT(duration == 0.1, "a refused duration changed it to %g", duration);

    EXPECT_STATUS(VN_OK, vn_payload_set_file_size(payload, -1));
    EXPECT_STATUS(VN_OK, vn_payload_set_duration_s(payload, -0.5));
    EXPECT_STATUS(VN_OK, vn_payload_set_waveform(payload, NULL, 0));
    EXPECT_JSON(payload, "{\"type\":\"voiceRecording\",\"asset_url\":\"https://cdn.example.com/a.ogg\"}");
    EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, NULL, 0, &count));
    EXPECT(size == -1 && count == 0, "after removal: size %lld, count %zu", (long long)size, count);
    vn_payload_destroy(payload);
}

/* Extra data: replaced as a whole (a kept key stays in place, a dropped one goes, a new one goes at the end), known
 * keys refused with VN_E_INVALID_ARG, non-objects with VN_E_FORMAT, NULL for none. */
static void test_extra_data(void) {
    vn_payload *payload = parse("{\"x\":1,\"title\":\"t\",\"asset_url\":\"https://a.example/b\",\"y\":2}");
    if (payload == NULL) return;
    EXPECT_STATUS(VN_OK, vn_payload_set_extra_data(payload, "{\"z\":[3],\"y\":{\"k\":4}}"));
    EXPECT_JSON(payload, "{\"title\":\"t\",\"asset_url\":\"https://a.example/b\",\"y\":{\"k\":4},\"z\":[3]}");
    expect_extra(payload, "{\"y\":{\"k\":4},\"z\":[3]}");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_extra_data(payload, "{\"title\":\"x\"}"));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_extra_data(payload, "{\"waveform_data\":[]}"));
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_set_extra_data(payload, "[1]"));
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_set_extra_data(payload, "{\"a\":"));
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_set_extra_data(payload, "{\"a\":1,\"a\":2}"));
    expect_extra(payload, "{\"y\":{\"k\":4},\"z\":[3]}");
    EXPECT_STATUS(VN_OK, vn_payload_set_extra_data(payload, NULL));
    expect_extra(payload, "{}");
    EXPECT_JSON(payload, "{\"title\":\"t\",\"asset_url\":\"https://a.example/b\"}");
    vn_payload_destroy(payload);
}

/* file_size as Stream reads it: a real rounded (1024.6 -> 1025), 0 for a real outside int64 or a non-number. */
static void test_file_size_normalisation(void) {
    static const struct {
        const char *value;
        int64_t want;
    } cases[] = {{"1024.6", 1025}, {"1024.4", 1024}, {"1e300", 0}, {"\"12\"", 0}, {"10485760", 10485760}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char json[128], want[128];
        snprintf(json, sizeof json, "{\"asset_url\":\"https://a.example/b\",\"file_size\":%s}", cases[i].value);
        snprintf(want, sizeof want, "{\"asset_url\":\"https://a.example/b\",\"file_size\":%lld}",
                 (long long)cases[i].want);
        vn_payload *payload = parse(json);
        if (payload == NULL) continue;
        int64_t size = -7;
        EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
        EXPECT(size == cases[i].want, "file_size %s read as %lld, want %lld", cases[i].value, (long long)size,
               (long long)cases[i].want);
        EXPECT_JSON(payload, want);
        vn_payload_destroy(payload);
    }
}

/* Bad payload JSON, each with its documented status: VN_E_FORMAT for invalid JSON, 10,000 levels of nesting (64
 * pass, 65 do not), invalid UTF-8, an integer beyond int64, a real beyond double, duplicate keys, a missing or
 * relative asset_url, a non-object, known keys of the wrong type; VN_E_TOO_LARGE over 1 MiB (exactly 1 MiB passes). */
static void test_bad_payload_json(void) {
    static const char *const bad[] = {
        "{\"asset_url\":",
        "{\"asset_url\":\"https://a.example/b\",\"t\":\"\xff\xfe\"}",
        "{\"asset_url\":\"https://a.example/b\",\"n\":9223372036854775808}",
        "{\"asset_url\":\"https://a.example/b\",\"n\":-9223372036854775809}",
        "{\"asset_url\":\"https://a.example/b\",\"r\":1e400}",
        "{\"asset_url\":\"https://a.example/b\",\"n\":1,\"n\":2}",
        "{\"title\":\"no url\"}",
        "{\"asset_url\":\"relative/b.ogg\"}",
        "{\"asset_url\":5}",
        "[{\"asset_url\":\"https://a.example/b\"}]",
        "{\"asset_url\":\"https://a.example/b\",\"title\":5}",
        "{\"asset_url\":\"https://a.example/b\",\"duration\":\"2\"}",
        "{\"asset_url\":\"https://a.example/b\",\"waveform_data\":[\"a\"]}",
        "{\"asset_url\":\"https://a.example/b\",\"duration\":NaN}",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status = parse_status(bad[i], strlen(bad[i]));
        EXPECT(status == VN_E_FORMAT, "%s: %s, want VN_E_FORMAT", bad[i], vn_status_name(status));
    }

    size_t capacity = (1u << 20) + 64;
    char *text = malloc(capacity);
    if (text == NULL) harness_fatal("out of memory");
    for (int depth = 10000; depth >= 64; depth = depth == 10000 ? 65 : depth - 1) { /* 10000, 65, 64 */
        size_t n = (size_t)snprintf(text, capacity, "{\"asset_url\":\"https://a.example/b\",\"d\":");
        for (int i = 1; i < depth; i++) text[n++] = '[';
        for (int i = 1; i < depth; i++) text[n++] = ']';
        text[n++] = '}';
        int status = parse_status(text, n);
        EXPECT(status == (depth <= 64 ? VN_OK : VN_E_FORMAT), "%d levels: %s", depth, vn_status_name(status));
    }
    for (size_t size = (1u << 20) + 1; size >= (1u << 20); size--) { /* 1 MiB + 1, then exactly 1 MiB */
        size_t n = (size_t)snprintf(text, capacity, "{\"asset_url\":\"https://a.example/b\",\"pad\":\"");
        while (n < size - 2) text[n++] = 'a';
        text[n++] = '"';
        text[n++] = '}';
        int status = parse_status(text, n);
        EXPECT(status == (size == 1u << 20 ? VN_OK : VN_E_TOO_LARGE), "%zu bytes: %s", n, vn_status_name(status));
    }
    free(text);
}

/* NULL handles are VN_E_MISUSE, NULL out-pointers VN_E_INVALID_ARG, a destroyed payload VN_E_MISUSE; *out is NULL
 * after a failed create; vn_payload_destroy(NULL) does nothing. */
static void test_payload_argument_checks(void) {
    vn_payload *payload = (vn_payload *)&payload;
    char *text = NULL;
    int64_t size = 0;
    double seconds = 0;
    size_t count = 0;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_create(NULL, &payload));
    EXPECT(payload == NULL, "*out is not NULL after a failed create");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_create("relative.ogg", &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_create("https://a.example/b", NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_parse("{}", 2, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_parse(NULL, 2, &payload));

    EXPECT_STATUS(VN_E_MISUSE, vn_payload_to_json(NULL, 0, &text));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_copy_field(NULL, VN_PAYLOAD_TITLE, &text));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_field(NULL, VN_PAYLOAD_TITLE, "t"));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_get_file_size(NULL, &size));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_file_size(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_get_duration_s(NULL, &seconds));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_duration_s(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_get_waveform(NULL, NULL, 0, &count));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_waveform(NULL, NULL, 0));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_copy_extra_data(NULL, &text));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_extra_data(NULL, NULL));

    EXPECT_STATUS(VN_OK, vn_payload_create("https://a.example/b", &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_to_json(payload, 0, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_to_json(payload, -1, &text));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_to_json(payload, 17, &text));
    vn_payload *parsed = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_parse(NULL, 0, &parsed));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_find_next_item(NULL, 0, "u", NULL, VN_NEXT_SAME_MESSAGE, &text));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_type_of_json(NULL, 0, &text));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_copy_field(payload, VN_PAYLOAD_TITLE, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_get_file_size(payload, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_get_duration_s(payload, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_get_waveform(payload, NULL, 0, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_get_waveform(payload, NULL, 1, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_copy_extra_data(payload, NULL));
    vn_payload_destroy(payload);
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_to_json(payload, 0, &text));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_file_size(payload, 1));
    vn_payload_destroy(payload); /* destroyed twice: detected, nothing happens */
    vn_payload_destroy(NULL);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* vn_payload_from_recording */

/* A note made at test time: title its file name, asset_url its file:// URL, file_size from disk, audio/ogg, the
 * duration read from the file and 100 levels in 0…1 computed from it. */
static void test_payload_from_recording_reads_the_file(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_from_recording(note_path, -1, NULL, 0, &payload));
    if (payload == NULL) return;
    char url[400];
    snprintf(url, sizeof url, "file://%s", note_path);
    expect_field(payload, VN_PAYLOAD_TYPE, "voiceRecording");
    expect_field(payload, VN_PAYLOAD_TITLE, "note.ogg");
    if (strspn(note_path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == strlen(note_path))
        expect_field(payload, VN_PAYLOAD_ASSET_URL, url); /* else percent-encoded: not spelled out here */
    expect_field(payload, VN_PAYLOAD_MIME_TYPE, "audio/ogg");
    struct stat info;
    int64_t size = -1;
    EXPECT_STATUS(VN_OK, vn_payload_get_file_size(payload, &size));
    EXPECT(stat(note_path, &info) == 0 && size == (int64_t)info.st_size && size > 0, "file_size %lld, on disk %lld",
           (long long)size, (long long)info.st_size);
    double duration = -1, levels[128];
    size_t count = 0, above_zero = 0, in_range = 0;
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
    EXPECT(duration > 0 && distance(duration, TONE_SECONDS) < 0.05, "duration %g, the tone lasts %g", duration,
           TONE_SECONDS);
    EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, levels, 128, &count));
    for (size_t i = 0; i < count && i < 128; i++) {
        in_range += levels[i] >= 0 && levels[i] <= 1;
        above_zero += levels[i] > 0;
    }
    EXPECT(count == 100 && in_range == 100, "%zu levels, %zu of them in 0…1", count, in_range);
    EXPECT(above_zero > 50, "only %zu of the tone's levels are above 0", above_zero);
    vn_payload_destroy(payload);
}

/* A given duration and waveform are used as given (no decoding: a file that is not audio is fine then); when they
 * must be read, a non-audio file is VN_E_FORMAT; NaN or infinite durations and levels, a missing file, a
 * directory and NULL arguments are refused. */
static void test_payload_from_recording_given_values(void) {
    const float given[3] = {0.25f, 0.5f, 1.0f};
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_from_recording(note_path, 2.5, given, 3, &payload));
    if (payload != NULL) {
        double duration = 0, levels[4] = {0};
        size_t count = 0;
        EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(payload, &duration));
        EXPECT_STATUS(VN_OK, vn_payload_get_waveform(payload, levels, 4, &count));
        EXPECT(duration == 2.5 && count == 3 && levels[0] == 0.25 && levels[2] == 1.0,
               "duration %g and %zu levels, not the given ones", duration, count);
        vn_payload_destroy(payload);
    }
    char other[320];
    snprintf(other, sizeof other, "%s/random.bin", directory);
    unsigned char *bytes = random_bytes(5000, 7);
    EXPECT(write_bytes(other, bytes, 5000), "cannot write %s", other);
    free(bytes);
    payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_from_recording(other, 1.0, given, 3, &payload));
    if (payload != NULL) expect_field(payload, VN_PAYLOAD_MIME_TYPE, "application/octet-stream");
    vn_payload_destroy(payload);
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_from_recording(other, -1, NULL, 0, &payload));
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_from_recording(other, 1.0, NULL, 0, &payload));
    EXPECT(payload == NULL, "*out is not NULL after a failure");

    char missing[320];
    snprintf(missing, sizeof missing, "%s/missing.ogg", directory);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(note_path, NAN, NULL, 0, &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(note_path, INFINITY, NULL, 0, &payload));
    const float not_finite[2][2] = {{0.5f, NAN}, {INFINITY, 0.5f}};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(note_path, 1.0, not_finite[0], 2, &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(note_path, 1.0, not_finite[1], 2, &payload));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_payload_from_recording(missing, -1, NULL, 0, &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(directory, -1, NULL, 0, &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(NULL, -1, NULL, 0, &payload));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_recording(note_path, -1, NULL, 0, NULL));
    unlink(other);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Attachment types and names */

/* vn_attachment_type_for_file and vn_mime_type_for_file by extension (case-insensitive; only the last path
 * component counts); NULL is "file" and application/octet-stream. */
static void test_types_for_files(void) {
    static const struct {
        const char *name, *type, *mime;
    } cases[] = {
        {"a.ogg", "audio", "audio/ogg"},       {"a.opus", "audio", "audio/ogg"},
        {"dir/a.aac", "audio", "audio/aac"},   {"a.m4a", "audio", "audio/mp4"},
        {"a.mp3", "audio", "audio/mpeg"},      {"a.wav", "audio", "audio/wav"},
        {"NOTE.OGG", "audio", "audio/ogg"},    {"a.png", "image", "image/png"},
        {"a.mp4", "video", "video/mp4"},       {"a.pdf", "file", "application/octet-stream"},
        {"noext", "file", "application/octet-stream"}, {"d.ogg/noext", "file", "application/octet-stream"},
        {NULL, "file", "application/octet-stream"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *type = vn_attachment_type_for_file(cases[i].name), *mime = vn_mime_type_for_file(cases[i].name);
        EXPECT(type != NULL && strcmp(type, cases[i].type) == 0, "%s: type %s, want %s",
               cases[i].name ? cases[i].name : "NULL", type ? type : "NULL", cases[i].type);
        EXPECT(mime != NULL && strcmp(mime, cases[i].mime) == 0, "%s: MIME type %s, want %s",
               cases[i].name ? cases[i].name : "NULL", mime ? mime : "NULL", cases[i].mime);
    }
}

/* The type of a received attachment object: og_scrape_url makes it linkPreview, no type string is unknown, a custom
 * type is kept; only `length` bytes are read; non-objects, oversize text and NULL arguments are refused. */
static void test_attachment_type_of_json(void) {
    static const struct {
        const char *json, *want;
    } cases[] = {
        {"{\"type\":\"image\",\"og_scrape_url\":\"https://a.example\"}", "linkPreview"},
        {"{\"og_scrape_url\":\"https://a.example\"}", "linkPreview"},
        {"{\"asset_url\":\"https://a.example/b\"}", "unknown"},
        {"{\"type\":5}", "unknown"},
        {"{\"type\":\"voiceRecording\"}", "voiceRecording"},
        {"{\"type\":\"x-poll\"}", "x-poll"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *type = NULL;
        EXPECT_STATUS(VN_OK, vn_attachment_type_of_json(cases[i].json, strlen(cases[i].json), &type));
        EXPECT(type != NULL && strcmp(type, cases[i].want) == 0, "%s: %s, want %s", cases[i].json,
               type ? type : "NULL", cases[i].want);
        vn_free(type);
    }
    const char *trailing = "{\"type\":\"audio\"}garbage";
    char *type = NULL;
    EXPECT_STATUS(VN_OK, vn_attachment_type_of_json(trailing, 16, &type));
    EXPECT(type != NULL && strcmp(type, "audio") == 0, "the first 16 bytes gave %s", type ? type : "NULL");
    vn_free(type);
    EXPECT_STATUS(VN_E_FORMAT, vn_attachment_type_of_json("[]", 2, &type));
    EXPECT_STATUS(VN_E_FORMAT, vn_attachment_type_of_json("{\"type\":", 8, &type));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_type_of_json(NULL, 2, &type));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_type_of_json("{}", 2, NULL));
    size_t big = (1u << 20) + 1;
    char *text = malloc(big);
    if (text == NULL) harness_fatal("out of memory");
    memset(text, ' ', big);
    text[0] = '{';
    text[big - 1] = '}';
    EXPECT_STATUS(VN_E_TOO_LARGE, vn_attachment_type_of_json(text, big, &type));
    free(text);
}

/* vn_attachment_check_local: types uploads do not take, other URL schemes, missing files, directories, the limit. */
static void test_check_local(void) {
    char url[400], missing[320];
    snprintf(url, sizeof url, "file://%s", note_path);
    snprintf(missing, sizeof missing, "%s/missing.ogg", directory);
    struct stat info;
    EXPECT(stat(note_path, &info) == 0, "no note");
    EXPECT_STATUS(VN_OK, vn_attachment_check_local(note_path, "voiceRecording", 0));
    EXPECT_STATUS(VN_OK, vn_attachment_check_local(url, "voiceRecording", 0));
    EXPECT_STATUS(VN_OK, vn_attachment_check_local(note_path, "file", (int64_t)info.st_size));
    EXPECT_STATUS(VN_E_TOO_LARGE, vn_attachment_check_local(note_path, "audio", (int64_t)info.st_size - 1));
    EXPECT_STATUS(VN_E_TOO_LARGE, vn_attachment_check_local(note_path, "voiceRecording", 10));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_attachment_check_local(note_path, "giphy", 0));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_attachment_check_local(note_path, "linkPreview", 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_check_local("https://cdn.example.com/a.ogg", "voiceRecording", 0));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_attachment_check_local(missing, "voiceRecording", 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_check_local(directory, "file", 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_check_local(note_path, "file", -1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_check_local(NULL, "file", 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_attachment_check_local(note_path, NULL, 0));
}

/* Stream's AudioRecordingNameFormatter: 0 is "Recording", n is "Recording(n)"; negative indexes are refused. */
static void test_recording_display_name(void) {
    static const struct {
        int index;
        const char *want;
    } cases[] = {{0, "Recording"}, {1, "Recording(1)"}, {3, "Recording(3)"}, {2147483647, "Recording(2147483647)"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *name = NULL;
        EXPECT_STATUS(VN_OK, vn_recording_display_name(cases[i].index, &name));
        EXPECT(name != NULL && strcmp(name, cases[i].want) == 0, "%d: %s", cases[i].index, name ? name : "NULL");
        vn_free(name);
    }
    char unset, *name = &unset;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recording_display_name(-1, &name));
    EXPECT(name == NULL, "*out_name is not NULL after a failure");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recording_display_name(0, NULL));
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The next voice message */

#define CDN "https://cdn.example.com/"

/* Expects vn_find_next_item's answer (want NULL: nothing follows). */
static void expect_next(const char *json, size_t length, const char *current, const char *user, int scope,
                        const char *want) {
    char unset, *next = &unset;
    int status = vn_find_next_item(json, length, current, user, scope, &next);
    EXPECT(status == VN_OK, "%s, scope %d: %s (%s)", current, scope, vn_status_name(status), vn_last_error_message());
    if (status != VN_OK || !EXPECT(next != &unset, "%s: *out_url was not written", current)) return;
    int same = want == NULL ? next == NULL : next != NULL && strcmp(next, want) == 0;
    EXPECT(same, "after %s (scope %d, user %s): %s, want %s", current, scope, user ? user : "NULL",
           next ? next : "NULL", want ? want : "NULL");
    vn_free(next);
}

/* Every case of the shared fixture's "_comment": no messages, an unknown URL, same-message, subsequent messages
 * from the same user (C is the current user). */
static void test_next_item_fixture(void) {
    char root[512], path[700];
    repo_root(root, sizeof root);
    snprintf(path, sizeof path, "%s/Tests/Fixtures/messages/stream-next-item.json", root);
    size_t length = 0;
    char *json = (char *)read_bytes(path, &length);
    EXPECT(json != NULL, "cannot read %s", path);
    if (json == NULL) return;
    json[length] = '\0'; /* read_bytes leaves room; only for strstr */
    EXPECT(strstr(json, "\"current_user_id\": \"C\"") != NULL, "the fixture's current user is no longer C");
    expect_next("[]", 2, CDN "vr1.ogg", "C", VN_NEXT_SAME_MESSAGE, NULL);
    expect_next("[]", 2, CDN "vr1.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, NULL);
    expect_next(json, length, CDN "unknown.ogg", "C", VN_NEXT_SAME_MESSAGE, NULL);
    expect_next(json, length, CDN "unknown.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, NULL);
    expect_next(json, length, CDN "vr1.ogg", "C", VN_NEXT_SAME_MESSAGE, CDN "vr2.ogg");
    expect_next(json, length, CDN "vr2.ogg", "C", VN_NEXT_SAME_MESSAGE, NULL);
    expect_next(json, length, CDN "vr1.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, CDN "vr2.ogg");
    expect_next(json, length, CDN "vr2.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, CDN "vr3.ogg");
    expect_next(json, length, CDN "vr3.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, NULL);
    expect_next(json, length, CDN "f.pdf", "C", VN_NEXT_SAME_MESSAGE, NULL); /* a file, not a voice recording */
    expect_next(json, length, CDN "vr1.ogg", "B", VN_NEXT_SUBSEQUENT_FROM_USER, NULL); /* B is the author */
    free(json);
}

/* VN_NEXT_CONSECUTIVE: across authors, skipping an image attachment and the current user's own note, up to a
 * message with no voice recording; the same-message and same-author scopes stop earlier on the same messages. */
static void test_next_item_consecutive(void) {
#define VOICE(url) "{\"type\":\"voiceRecording\",\"asset_url\":\"" url "\"}"
    static const char *json =
        "[{\"id\":\"m1\",\"user\":{\"id\":\"A\"},\"attachments\":[" VOICE(CDN "c1.ogg") "]},"
        "{\"id\":\"m2\",\"user\":{\"id\":\"B\"},\"attachments\":[{\"type\":\"image\",\"image_url\":\"" CDN "i.png\"},"
        VOICE(CDN "c2.ogg") "]},"
        "{\"id\":\"m3\",\"user\":{\"id\":\"C\"},\"attachments\":[" VOICE(CDN "mine.ogg") "]},"
        "{\"id\":\"m4\",\"user\":{\"id\":\"A\"},\"attachments\":[" VOICE(CDN "c3.ogg") "," VOICE(CDN "c4.ogg") "]},"
        "{\"id\":\"m5\",\"user\":{\"id\":\"B\"},\"text\":\"no voice here\"},"
        "{\"id\":\"m6\",\"user\":{\"id\":\"B\"},\"attachments\":[" VOICE(CDN "c5.ogg") "]}]";
#undef VOICE
    size_t length = strlen(json);
    expect_next(json, length, CDN "c1.ogg", "C", VN_NEXT_CONSECUTIVE, CDN "c2.ogg"); /* another author, past an image */
    expect_next(json, length, CDN "c2.ogg", "C", VN_NEXT_CONSECUTIVE, CDN "c3.ogg"); /* past C's own note */
    expect_next(json, length, CDN "c3.ogg", "C", VN_NEXT_CONSECUTIVE, CDN "c4.ogg");
    expect_next(json, length, CDN "c4.ogg", "C", VN_NEXT_CONSECUTIVE, NULL); /* m5 has none */
    expect_next(json, length, CDN "c5.ogg", "C", VN_NEXT_CONSECUTIVE, NULL); /* the last */
    expect_next(json, length, CDN "mine.ogg", "C", VN_NEXT_CONSECUTIVE, NULL); /* C sent it */
    expect_next(json, length, CDN "c1.ogg", "C", VN_NEXT_SUBSEQUENT_FROM_USER, NULL);
    expect_next(json, length, CDN "c3.ogg", "C", VN_NEXT_SAME_MESSAGE, CDN "c4.ogg");
    expect_next(json, length, CDN "c1.ogg", NULL, VN_NEXT_CONSECUTIVE, CDN "c2.ogg");
}

/* An unknown scope and NULL arguments are VN_E_INVALID_ARG; bad JSON and lists of the wrong JSON type VN_E_FORMAT. */
static void test_next_item_bad_input(void) {
    char *next = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_find_next_item("[]", 2, CDN "vr1.ogg", "C", 7, &next));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_find_next_item("[]", 2, CDN "vr1.ogg", "C", -1, &next));
    next = (char *)"not cleared";
    EXPECT_STATUS(VN_OK, vn_find_next_item("[]", 2, NULL, "C", 0, &next));  /* nothing plays: nothing follows */
    EXPECT(next == NULL, "an answer without a current location");
    EXPECT_STATUS(VN_E_FORMAT, vn_find_next_item("{", 1, NULL, "C", 0, &next));  /* the messages are still checked */
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_find_next_item("[]", 2, CDN "vr1.ogg", "C", 0, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_find_next_item(NULL, 2, CDN "vr1.ogg", "C", 0, &next));
    static const char *const bad[] = {"[{", "{}", "5", "[5]", "{\"messages\":{}}",
                                      "[{\"id\":\"m\",\"attachments\":{}}]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int status = vn_find_next_item(bad[i], strlen(bad[i]), CDN "vr1.ogg", "C", 0, &next);
        EXPECT(status == VN_E_FORMAT, "%s: %s, want VN_E_FORMAT", bad[i], vn_status_name(status));
    }
}

/* ------------------------------------------------------------------------------------------------------------ */

/* The note the payload tests read: a tone encoded with opusenc. */
static int setup(void) { return write_note(directory, TONE_SECONDS, note_path, sizeof note_path); }

/* Matrix: a payload with an mxc:// asset_url becomes Element's content, which reads back into a payload; the
 * authenticated-media URL; refusals. */
static void test_matrix_voice_message(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_create("mxc://example.org/abc", &payload));
    char *content = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_to_matrix_content(payload, NULL, &content)); /* no duration */
    EXPECT_STATUS(VN_OK, vn_payload_set_duration_s(payload, 2.5));
    double levels[3] = {0, 0.5, 1};
    EXPECT_STATUS(VN_OK, vn_payload_set_waveform(payload, levels, 3));
    EXPECT_STATUS(VN_OK, vn_payload_to_matrix_content(payload, "Voice", &content));
    EXPECT(content != NULL && strstr(content, "\"msgtype\":\"m.audio\"") && strstr(content, "\"duration\":2500") &&
               strstr(content, "\"org.matrix.msc3245.voice\":{}") && strstr(content, "\"body\":\"Voice\""),
           "content: %s", content ? content : "(null)");
    vn_payload *read = NULL;
    int voice = 0;
    EXPECT_STATUS(VN_OK, vn_payload_from_matrix_content(content, strlen(content), &read, &voice));
    double seconds = 0;
    EXPECT_STATUS(VN_OK, vn_payload_get_duration_s(read, &seconds));
    EXPECT(voice == 1 && seconds == 2.5, "voice %d, %g s", voice, seconds);
    vn_free(content);
    vn_payload_destroy(read);
    vn_payload_destroy(payload);
    const char *not_audio = "{\"msgtype\":\"m.text\",\"body\":\"hi\"}";
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_from_matrix_content(not_audio, strlen(not_audio), &read, &voice));
    EXPECT(read == NULL && voice == 0, "a refused content left a payload");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_from_matrix_content(NULL, 0, &read, NULL));
    char *url = NULL;
    EXPECT_STATUS(VN_OK, vn_matrix_download_url("mxc://example.org/abc", "https://m.example.org", &url));
    EXPECT(url && strcmp(url, "https://m.example.org/_matrix/client/v1/media/download/example.org/abc") == 0,
           "url %s", url ? url : "(null)");
    vn_free(url);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_matrix_download_url("https://h/x", "https://m.example.org", &url));
    EXPECT(url == NULL, "a refused URI left a URL");
}

/* A received content's url is pasted into the download URL's path, sent with the client's token: only the Matrix
 * grammar passes (server name: a DNS name, IPv4 or [IPv6] with an optional port 1-65535; media id: [A-Za-z0-9_-]+).
 * Each URI read from a content (VN_E_FORMAT when refused) and given to vn_matrix_download_url (VN_E_INVALID_ARG). */
static void test_matrix_uris_follow_the_grammar(void) {
    static const struct {
        const char *mxc;
        int ok;
    } cases[] = {
        {"mxc://example.org/AbC_d-1", 1}, {"mxc://matrix.example.org:8448/x", 1}, {"mxc://[::1]:8448/abc", 1},
        {"mxc://[2001:db8::1]/abc", 1}, {"mxc://127.0.0.1/abc", 1}, {"mxc://192.168.1.1:65535/abc", 1},
        {"mxc://localhost/abc", 1}, {"mxc://a-b.example/abc", 1},
        {"mxc://../config", 0}, {"mxc://./config", 0}, {"mxc://server/../x", 0}, {"mxc://server/./x", 0},
        {"mxc://server/..", 0}, {"mxc://a b/c", 0}, {"mxc://server/a b", 0}, {"mxc://example.org:99999/x", 0},
        {"mxc://example.org:0/x", 0}, {"mxc://example.org:/x", 0}, {"mxc://example.org:84a/x", 0},
        {"mxc://%2e%2e/config", 0}, {"mxc://server/%2e%2e", 0}, {"mxc://server/a%2Fb", 0}, {"mxc:///x", 0},
        {"mxc://server/", 0}, {"mxc://", 0}, {"mxc://server", 0}, {"mxc://example..org/x", 0},
        {"mxc://.example.org/x", 0}, {"mxc://example.org./x", 0}, {"mxc://-a.example/x", 0},
        {"mxc://a-.example/x", 0}, {"mxc://a_b.example/x", 0}, {"mxc://[::1/x", 0}, {"mxc://[::1]x/y", 0},
        {"mxc://[fe80::1%25eth0]/x", 0}, {"mxc://[example.org]/x", 0}, {"mxc://::1/x", 0},
        {"mxc://256.1.1.1/x", 0}, {"mxc://1.2.3/x", 0}, {"mxc://user@example.org/x", 0},
        {"mxc://example.org/x?y=1", 0}, {"mxc://example.org/x#y", 0}, {"mxc://example.org/a/b", 0},
        {"MXC://example.org/x", 0}, {"mxc:/example.org/x", 0},
    };
    char content[512];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = snprintf(content, sizeof content, "{\"msgtype\":\"m.audio\",\"body\":\"v\",\"url\":\"%s\"}", cases[i].mxc);
        vn_payload *read = NULL;
        int status = vn_payload_from_matrix_content(content, (size_t)n, &read, NULL);
        EXPECT(status == (cases[i].ok ? VN_OK : VN_E_FORMAT), "content url %s: %s", cases[i].mxc, vn_status_name(status));
        EXPECT(cases[i].ok || read == NULL, "a refused content left a payload");
        vn_payload_destroy(read);
        char *url = NULL;
        status = vn_matrix_download_url(cases[i].mxc, "https://m.example.org", &url);
        EXPECT(status == (cases[i].ok ? VN_OK : VN_E_INVALID_ARG), "download url of %s: %s", cases[i].mxc,
               vn_status_name(status));
        EXPECT(cases[i].ok == (url != NULL), "url %s", url ? url : "(null)");
        vn_free(url);
    }
    char *url = NULL;
    EXPECT_STATUS(VN_OK, vn_matrix_download_url("mxc://[::1]:8448/abc", "https://m.example.org/", &url));
    EXPECT(url && strcmp(url, "https://m.example.org/_matrix/client/v1/media/download/[::1]:8448/abc") == 0, "url %s",
           url ? url : "(null)");
    vn_free(url);
}

/* C gets a payload's text NUL-terminated: a received content whose body, info.mimetype or url holds a NUL is
 * VN_E_FORMAT (as a payload's own strings are), not a title cut short. */
static void test_matrix_content_with_a_nul_is_refused(void) {
    static const char *const contents[] = {
        "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\",\"body\":\"Hi\\u0000 there, click evil.example\"}",
        "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\",\"body\":\"\\u0000\"}",
        "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\",\"body\":\"end\\u0000\"}",
        "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\",\"body\":\"v\",\"info\":{\"mimetype\":\"audio/ogg\\u0000x\"}}",
        "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\\u0000x\",\"body\":\"v\"}",
    };
    for (size_t i = 0; i < sizeof contents / sizeof contents[0]; i++) {
        vn_payload *read = NULL;
        int voice = 7;
        int status = vn_payload_from_matrix_content(contents[i], strlen(contents[i]), &read, &voice);
        EXPECT(status == VN_E_FORMAT, "%s: %s, want VN_E_FORMAT", contents[i], vn_status_name(status));
        EXPECT(read == NULL && voice == 0, "a refused content left a payload");
        vn_payload_destroy(read);
    }
    const char *fine = "{\"msgtype\":\"m.audio\",\"url\":\"mxc://example.org/abc\",\"body\":\"Hi there \\u00e9\"}";
    vn_payload *read = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_from_matrix_content(fine, strlen(fine), &read, NULL));
    expect_field(read, VN_PAYLOAD_TITLE, "Hi there \xc3\xa9");
    vn_payload_destroy(read);
}

/* A 1 MiB payload whose extra data is one object of 95,000 keys parses whole, in order (14 s when every member was
 * placed by a linear search; `make bench` measures the time, not this test). A key that is there twice, byte for
 * byte, is VN_E_FORMAT even at the far end; keys that differ in bytes but are canonically equivalent (é, e + U+0301)
 * are one key: its first place, its last value. */
static void test_wide_payload_object(void) {
    enum { KEYS = 95000 };
    size_t capacity = (size_t)1 << 20;
    char *text = malloc(capacity);
    if (text == NULL) harness_fatal("out of memory");
    size_t n = (size_t)snprintf(text, capacity, "{\"asset_url\":\"https://a.example/b\",\"x\":{");
    for (int i = 0; i < KEYS; i++) n += (size_t)snprintf(text + n, capacity - n, "%s\"k%d\":0", i ? "," : "", i);
    n += (size_t)snprintf(text + n, capacity - n, "}}");
    EXPECT(n < capacity, "the text is %zu bytes", n);
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_parse(text, n, &payload));
    char *extra = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_copy_extra_data(payload, &extra));
    const char *object = strstr(text, "\"x\":");
    EXPECT(extra && object && strlen(extra) == n - (size_t)(object - text) + 1 && strncmp(extra + 1, object, n - (size_t)(object - text) - 1) == 0,
           "the extra data is not the object read");
    vn_free(extra);
    vn_payload_destroy(payload);
    n -= 2; /* the same object with k0 again at its end */
    n += (size_t)snprintf(text + n, capacity - n, ",\"k0\":1}}");
    EXPECT(parse_status(text, n) == VN_E_FORMAT, "a repeated key at the end of a wide object: %s",
           vn_status_name(parse_status(text, n)));
    free(text);
    payload = parse("{\"asset_url\":\"https://a.example/b\",\"\\u00e9\":1,\"y\":2,\"e\\u0301\":3}");
    if (payload != NULL) expect_extra(payload, "{\"\xc3\xa9\":3,\"y\":2}");
    vn_payload_destroy(payload);
}

int main(void) {
    harness_init("attachments");
    if (!temp_directory_create(directory, sizeof directory, "attachments")) return 1;
    if (!fixture_setup(setup, directory, "a tone, opusenc")) return 1;
    TEST(test_stream_payload_without_extra_data);
    TEST(test_stream_payload_with_comment_in_extra_data);
    TEST(test_round_trip_is_byte_identical);
    TEST(test_text_fields);
    TEST(test_new_keys_go_to_their_place);
    TEST(test_number_fields);
    TEST(test_extra_data);
    TEST(test_file_size_normalisation);
    TEST(test_bad_payload_json);
    TEST(test_payload_argument_checks);
    TEST(test_payload_from_recording_reads_the_file);
    TEST(test_payload_from_recording_given_values);
    TEST(test_types_for_files);
    TEST(test_attachment_type_of_json);
    TEST(test_check_local);
    TEST(test_recording_display_name);
    TEST(test_next_item_fixture);
    TEST(test_next_item_consecutive);
    TEST(test_next_item_bad_input);
    TEST(test_matrix_voice_message);
    TEST(test_matrix_uris_follow_the_grammar);
    TEST(test_matrix_content_with_a_nul_is_refused);
    TEST(test_wide_payload_object);
    temp_directory_remove(directory);
    return harness_finish();
}
