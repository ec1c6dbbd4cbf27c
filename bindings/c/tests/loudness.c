/*
 * loudness.c: a note's loudness through the C API (voicenote.h, vn_loudness): vn_waveform_analyse_file() and
 * _source() give the waveform of vn_waveform_file() and the loudness in one pass; the batch's results carry it (or
 * not, vn_waveform_batch_set_loudness()); a payload made from the file carries it in its extra data and in its Matrix
 * content, and reads it back; a stranger's implausible figures are never taken; a player levels a note by the
 * loudness given with its load (vn_player_set_leveling(), vn_player_load_with_loudness()); refusals and NULLs.
 *
 * The note is harness.h's 440 Hz triangle at -12 dBFS peak (RMS -16.8 dBFS, so about -17.5 LUFS: BS.1770's
 * K-weighting leaves 440 Hz nearly alone) encoded by opusenc. Needs opusenc on PATH.
 */
#define _XOPEN_SOURCE 700 /* nftw, strdup */
#include "harness.h"
#include "child.h"

#include <math.h> /* INFINITY and NAN only: the tests link no libm */

#define TONE_SECONDS 4.0
#define TONE_LUFS (-17.5)

static char directory[256];
static char note_path[300];

static int setup(void) { return write_note(directory, TONE_SECONDS, note_path, sizeof note_path); }

/* The loudness in a payload's JSON, or its absence. */
static int json_has(const vn_payload *payload, const char *needle) {
    char *json = NULL;
    if (vn_payload_to_json(payload, 0, &json) != VN_OK || json == NULL) return 0;
    int found = strstr(json, needle) != NULL;
    vn_free(json);
    return found;
}

static void test_one_pass_gives_the_waveform_and_the_loudness(void) {
    float values[100], plain[100];
    size_t count = 0, plain_count = 0;
    double duration = -1;
    vn_loudness loudness = {.known = 7};
    EXPECT_STATUS(VN_OK, vn_waveform_analyse_file(note_path, 100, values, 100, &count, &duration, &loudness));
    EXPECT_STATUS(VN_OK, vn_waveform_file(note_path, 100, plain, 100, &plain_count));
    EXPECT(count == 100 && plain_count == 100 && memcmp(values, plain, sizeof values) == 0,
           "the analysis's waveform differs from vn_waveform_file()'s");
    EXPECT(distance(duration, TONE_SECONDS) < 0.03, "duration %g, want %g", duration, TONE_SECONDS);
    EXPECT(loudness.known == 1, "known %d", loudness.known);
    EXPECT(distance(loudness.integrated_lufs, TONE_LUFS) < 1.0, "integrated %g LUFS, want about %g",
           loudness.integrated_lufs, TONE_LUFS);
    EXPECT(loudness.range_lu >= 0 && loudness.range_lu < 1, "a steady tone's range is %g LU", loudness.range_lu);
    EXPECT(loudness.true_peak_dbtp > -13 && loudness.true_peak_dbtp < -11, "true peak %g dBTP, the tone peaks at -12",
           loudness.true_peak_dbtp);

    /* Without a loudness to fill, nothing is measured; the waveform and length are the same. */
    duration = -1;
    EXPECT_STATUS(VN_OK, vn_waveform_analyse_file(note_path, 100, values, 100, NULL, &duration, NULL));
    EXPECT(memcmp(values, plain, sizeof values) == 0 && distance(duration, TONE_SECONDS) < 0.03, "without loudness");

    /* Through a source: the same figures. */
    vn_source *source = NULL;
    vn_loudness again = {0};
    EXPECT_STATUS(VN_OK, vn_source_create_file(note_path, &source));
    EXPECT_STATUS(VN_OK, vn_waveform_analyse_source(source, 100, values, 100, NULL, NULL, &again));
    EXPECT(again.known == 1 && again.integrated_lufs == loudness.integrated_lufs &&
               again.true_peak_dbtp == loudness.true_peak_dbtp, "the source's loudness differs");
    vn_source_destroy(source);

    /* Failures zero the outputs. */
    loudness.known = 1;
    duration = 5;
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_waveform_analyse_file("/nonexistent/x.ogg", 100, values, 100, NULL, &duration, &loudness));
    EXPECT(loudness.known == 0 && duration == 0, "a failed call left known %d, duration %g", loudness.known, duration);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_analyse_file(note_path, 100, values, 99, NULL, NULL, &loudness));
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_analyse_source(NULL, 100, values, 100, NULL, NULL, &loudness));
}

static void test_a_payload_carries_the_loudness_to_stream_and_matrix(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_from_recording(note_path, -1, NULL, 0, &payload));
    if (payload == NULL) return;
    vn_loudness carried = {0};
    EXPECT_STATUS(VN_OK, vn_payload_get_loudness(payload, &carried));
    EXPECT(carried.known == 1 && distance(carried.integrated_lufs, TONE_LUFS) < 1.0, "carried %d %g", carried.known,
           carried.integrated_lufs);
    EXPECT(json_has(payload, "\"voicenote_loudness\":{\"integrated_lufs\":"), "no voicenote_loudness in the JSON");

    /* Matrix: the content carries it under our key, and reading the content back gives it again. */
    EXPECT_STATUS(VN_OK, vn_payload_set_field(payload, VN_PAYLOAD_ASSET_URL, "mxc://example.org/abcdef"));
    char *content = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_to_matrix_content(payload, NULL, &content));
    EXPECT(content != NULL && strstr(content, "\"org.voicenote.loudness\":{") != NULL, "content %s", content ? content : "");
    vn_payload *received = NULL;
    int is_voice = 0;
    if (content) EXPECT_STATUS(VN_OK, vn_payload_from_matrix_content(content, strlen(content), &received, &is_voice));
    vn_free(content);
    vn_loudness back = {0};
    if (received) EXPECT_STATUS(VN_OK, vn_payload_get_loudness(received, &back));
    EXPECT(back.known == 1 && back.integrated_lufs == carried.integrated_lufs && back.range_lu == carried.range_lu &&
               back.true_peak_dbtp == carried.true_peak_dbtp, "the Matrix content gave back %d %g", back.known,
           back.integrated_lufs);
    vn_payload_destroy(received);

    /* Silence round-trips as null; removal; refusals. */
    vn_loudness silent = {.known = 1, .integrated_lufs = -INFINITY, .range_lu = 0, .true_peak_dbtp = -INFINITY};
    EXPECT_STATUS(VN_OK, vn_payload_set_loudness(payload, &silent));
    EXPECT(json_has(payload, "{\"integrated_lufs\":null,\"range_lu\":0.0,\"true_peak_dbtp\":null}") ||
               json_has(payload, "{\"integrated_lufs\":null,\"range_lu\":0,\"true_peak_dbtp\":null}"),
           "silence is not written as nulls");
    vn_loudness read = {0};
    EXPECT_STATUS(VN_OK, vn_payload_get_loudness(payload, &read));
    EXPECT(read.known == 1 && read.integrated_lufs == -INFINITY && read.true_peak_dbtp == -INFINITY, "silence read back");
    vn_loudness bad[] = {
        {.known = 1, .integrated_lufs = NAN},
        {.known = 1, .integrated_lufs = -20, .range_lu = -1},
        {.known = 1, .integrated_lufs = 40},
        {.known = 1, .integrated_lufs = -20, .true_peak_dbtp = INFINITY},
        {.known = 2, .integrated_lufs = -20},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_set_loudness(payload, &bad[i]));
    EXPECT_STATUS(VN_OK, vn_payload_get_loudness(payload, &read));
    EXPECT(read.known == 1 && read.integrated_lufs == -INFINITY, "a refused loudness changed the payload");
    EXPECT_STATUS(VN_OK, vn_payload_set_loudness(payload, NULL));
    EXPECT_STATUS(VN_OK, vn_payload_get_loudness(payload, &read));
    EXPECT(read.known == 0 && !json_has(payload, "voicenote_loudness"), "NULL did not remove the loudness");
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_get_loudness(NULL, &read));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_payload_get_loudness(payload, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_payload_set_loudness(NULL, &silent));
    vn_payload_destroy(payload);
}

/* A stranger's payload: figures that are not numbers, out of range or missing are not a loudness. */
static void test_implausible_figures_from_a_stranger_are_not_taken(void) {
    const char *figures[] = {
        "{\"integrated_lufs\":500,\"range_lu\":1,\"true_peak_dbtp\":-1}",
        "{\"integrated_lufs\":\"loud\",\"range_lu\":1,\"true_peak_dbtp\":-1}",
        "{\"integrated_lufs\":-20,\"range_lu\":1}",
        "{\"integrated_lufs\":-20,\"range_lu\":null,\"true_peak_dbtp\":-1}",
        "{\"integrated_lufs\":-20,\"range_lu\":1e308,\"true_peak_dbtp\":-1}",
        "[-20,1,-1]",
        "-20",
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        char json[512];
        snprintf(json, sizeof json, "{\"asset_url\":\"https://example.com/a.ogg\",\"voicenote_loudness\":%s}", figures[i]);
        vn_payload *payload = NULL;
        EXPECT_STATUS(VN_OK, vn_payload_parse(json, strlen(json), &payload));
        vn_loudness read = {.known = 1};
        if (payload) EXPECT_STATUS(VN_OK, vn_payload_get_loudness(payload, &read));
        EXPECT(read.known == 0, "%s was taken as a loudness", figures[i]);
        vn_payload_destroy(payload);
    }
}

static void test_the_batch_gives_the_loudness_unless_told_not_to(void) {
    vn_waveform_batch *batch = NULL;
    EXPECT_STATUS(VN_OK, vn_waveform_batch_create(100, 1, NULL, &batch));
    if (batch == NULL) return;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_set_loudness(batch, 2));
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_set_loudness(NULL, 1));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, note_path));
    vn_waveform_result result = {.size = sizeof result};
    EXPECT(vn_waveform_batch_next(batch, 30000, &result) == 1, "no first result");
    EXPECT(result.status == VN_OK && result.loudness.known == 1 && distance(result.loudness.integrated_lufs, TONE_LUFS) < 1,
           "first result: status %d, known %d, %g LUFS", result.status, result.loudness.known,
           result.loudness.integrated_lufs);
    EXPECT_STATUS(VN_OK, vn_waveform_batch_set_loudness(batch, 0));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, note_path));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, "/nonexistent/x.ogg"));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_end_input(batch));
    EXPECT(vn_waveform_batch_next(batch, 30000, &result) == 1, "no second result");
    EXPECT(result.status == VN_OK && result.count == 100 && result.loudness.known == 0, "not measured: known %d",
           result.loudness.known);
    EXPECT(vn_waveform_batch_next(batch, 30000, &result) == 1, "no third result");
    EXPECT(result.status == VN_E_NOT_FOUND && result.loudness.known == 0, "a failure: status %d known %d", result.status,
           result.loudness.known);
    vn_waveform_batch_destroy(batch);
}

/* The largest magnitude among the S16 frames a file speaker wrote to `path`; -1 when unreadable. */
static int peak_of(const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -1;
    int16_t frames[4096];
    size_t count;
    int peak = 0;
    while ((count = fread(frames, sizeof frames[0], 4096, file)) > 0)
        for (size_t i = 0; i < count; i++) peak = frames[i] < 0 ? (-frames[i] > peak ? -frames[i] : peak) : (frames[i] > peak ? frames[i] : peak);
    fclose(file);
    return peak;
}

static int stopped_after_playing(vn_player *player, const char *output) {
    vn_player_context context = {.size = sizeof context};
    return vn_player_get_context(player, &context) == VN_OK && context.state == VN_PLAYER_STOPPED &&
           frames_written(output) >= (long long)(TONE_SECONDS * 48000 * 0.95);
}

/* The player levels the tone (-17.5 LUFS) to -10 LUFS from the loudness given with the load: a gain of +7.5 dB, seen in
 * its context and in what the speaker got (the triangle's -12 dBFS peak, 8192, raised 2.37 times). */
static void test_a_player_levels_a_note_by_its_given_loudness(void) {
    char output[320];
    snprintf(output, sizeof output, "%s/levelled.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_leveling(player, 2, -16, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_leveling(player, 1, -5, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_leveling(player, 1, NAN, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_set_leveling(player, 1, -16, 12.5));
    EXPECT_STATUS(VN_E_MISUSE, vn_player_set_leveling(NULL, 1, -16, 0));
    vn_loudness bad = {.known = 1, .integrated_lufs = NAN};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_load_with_loudness(player, note_path, 1, -1, &bad));
    EXPECT_STATUS(VN_OK, vn_player_set_leveling(player, 1, -10, 0));
    vn_loudness loudness = {0};
    float values[100];
    EXPECT_STATUS(VN_OK, vn_waveform_analyse_file(note_path, 100, values, 100, NULL, NULL, &loudness));
    EXPECT_STATUS(VN_OK, vn_player_load_with_loudness(player, note_path, 1, -1, &loudness));
    int ok = 0;
    POLL_UNTIL(ok, stopped_after_playing(player, output), 20, 30000);
    EXPECT(ok, "the levelled tone did not play to its end (%lld frames)", frames_written(output));
    vn_player_context context = {.size = sizeof context};
    EXPECT_STATUS(VN_OK, vn_player_get_context(player, &context));
    EXPECT(context.leveling == 1 && context.leveling_target_lufs == -10 && context.leveling_offset_db == 0,
           "leveling %d, target %g, offset %g", context.leveling, context.leveling_target_lufs, context.leveling_offset_db);
    EXPECT(distance(context.leveling_gain_db, -10 - loudness.integrated_lufs) < 1e-9 && distance(context.leveling_gain_db, 7.5) < 1.2,
           "gain %g dB for a note at %g LUFS", context.leveling_gain_db, loudness.integrated_lufs);
    int peak = peak_of(output);
    EXPECT(peak > 8192 * 2.0 && peak < 8192 * 2.8, "peak %d, the tone's 8192 raised by %g dB", peak, context.leveling_gain_db);
    vn_player_destroy(player);
}

int main(void) {
    harness_init("loudness");
    if (!temp_directory_create(directory, sizeof directory, "loudness")) return 1;
    if (!fixture_setup(setup, directory, "a tone, opusenc")) return 1;
    TEST(test_one_pass_gives_the_waveform_and_the_loudness);
    TEST(test_a_payload_carries_the_loudness_to_stream_and_matrix);
    TEST(test_implausible_figures_from_a_stranger_are_not_taken);
    TEST(test_the_batch_gives_the_loudness_unless_told_not_to);
    TEST(test_a_player_levels_a_note_by_its_given_loudness);
    temp_directory_remove(directory);
    return harness_finish();
}
