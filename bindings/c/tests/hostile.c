/*
 * hostile.c: numbers and call orders a careless or hostile host passes never crash the process.
 *
 * - Every function that takes a number gets NaN, ±infinity, negative, 0, tiny and huge values (and SIZE_MAX /
 *   UINT64_MAX for counts): each answers with a status (VN_E_INVALID_ARG naming the allowed range where the value
 *   is refused), never a trap, a hang or a giant allocation; refused options stay as they were.
 * - Paths and names that are not valid UTF-8 are VN_E_INVALID_ARG, never taken for another file.
 * - Recorder calls in every order of up to four, with nothing in between, on ALSA's `null` device (a tap on
 *   record then pause used to crash in libopusenc); each call answers VN_OK or VN_E_MISUSE and no `.part` is left.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "harness.h"
#include "child.h"

#include <dirent.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const double hostile_doubles[] = {NAN, INFINITY, -INFINITY, -1.0, -DBL_MIN, 2e14, 1e300, DBL_MAX};
#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The last error names a range ("…") or the allowed values. */
static void expect_range_message(const char *what) {
    const char *message = vn_last_error_message();
    EXPECT(message != NULL && (strstr(message, "\xe2\x80\xa6") != NULL || strstr(message, " or ") != NULL),
           "%s: the message names no range: %s", what, message ? message : "(null)");
}

static atomic_int take_ended; /* a FINISHED or TOO_SHORT event arrived */
static void on_recorder_event(void *user_data, const vn_recorder_event *event) {
    (void)user_data;
    if (event->type == VN_RECORDER_EVENT_FINISHED || event->type == VN_RECORDER_EVENT_TOO_SHORT) {
        atomic_store(&take_ended, 1);
        notify();
    }
}

static void test_recorder_option_numbers(void) {
    vn_recorder_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&options));
    if (options == NULL) return;
    for (size_t i = 0; i < COUNT(hostile_doubles); i++) {
        double v = hostile_doubles[i];
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_limits(options, v, 10, 0));
        expect_range_message("maximum");
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_limits(options, 60, v, 0));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_limits(options, 60, 10, v));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_intervals(options, v, 0.5));
        expect_range_message("meter interval");
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_intervals(options, 0.1, v));
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_encoder(options, 32000, 10, v));
        expect_range_message("frame duration");
    }
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_intervals(options, DBL_MIN, 0.5));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_intervals(options, 0, 0.5));
    const int bitrates[] = {INT_MIN, -1, 0, 5999, 256001, INT_MAX};
    for (size_t i = 0; i < COUNT(bitrates); i++) {
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_encoder(options, bitrates[i], 10, 20));
        expect_range_message("bitrate");
    }
    const int complexities[] = {INT_MIN, -1, 11, INT_MAX};
    for (size_t i = 0; i < COUNT(complexities); i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_encoder(options, 32000, complexities[i], 20));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_format(options, INT_MIN));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_format(options, INT_MAX));
    /* Edges that are allowed. */
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, 0, 0, 0));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, DBL_MIN, DBL_MIN, DBL_MIN));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, 1e6, 1e6, 1e6));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_intervals(options, 0.01, 60));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_encoder(options, 6000, 0, 2.5));

    /* A refused value leaves the options as they were: a huge maximum once passed here and trapped in begin. */
    char directory[] = "/tmp/vn-hostile-XXXXXX";
    EXPECT(mkdtemp(directory) != NULL, "mkdtemp failed");
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_directory(options, directory));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_device(options, "null", NULL));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, 0.25, 0, 0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_limits(options, 2e14, 0, 0));
    vn_recorder *recorder = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_create(options, &recorder));
    vn_recorder_options_destroy(options);
    if (recorder == NULL) {
        temp_directory_remove(directory);
        return;
    }
    EXPECT_STATUS(VN_OK, vn_recorder_subscribe(recorder, on_recorder_event, NULL, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_recorder_begin(recorder));
    int ended = 0;
    WAIT_UNTIL(ended, atomic_load(&take_ended), 20000);
    EXPECT(ended, "the 0.25 s maximum did not end the take");

    /* Levels: counts beyond size_t's signed range, and a NULL buffer, on an idle recorder too. */
    float levels[8];
    size_t written = 99;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_levels(recorder, 5, NULL, 10, &written));
    EXPECT(written == 0, "written is %zu after a failed call", written);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_levels(recorder, SIZE_MAX, levels, SIZE_MAX, &written));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_levels(recorder, 9, levels, 8, &written));
    EXPECT_STATUS(VN_OK, vn_recorder_levels(recorder, 0, NULL, 0, &written));
    EXPECT_STATUS(VN_OK, vn_recorder_levels(recorder, 8, levels, 8, &written));
    vn_recorder_destroy(recorder);
    temp_directory_remove(directory);
}

static void test_waveform_numbers(void) {
    static const unsigned char not_audio[64] = {0};
    float out[128];
    size_t count = 99;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_memory(not_audio, sizeof not_audio, 0, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_memory(not_audio, sizeof not_audio, SIZE_MAX, out, SIZE_MAX, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG,
                  vn_waveform_memory(not_audio, sizeof not_audio, VN_WAVEFORM_MAX_SAMPLES + 1, out, SIZE_MAX, &count));
    expect_range_message("samples");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_memory(not_audio, SIZE_MAX, 100, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_memory(not_audio, (size_t)1 << 63, 100, out, 128, &count));
    EXPECT_STATUS(VN_E_FORMAT, vn_waveform_memory(not_audio, sizeof not_audio, 100, out, SIZE_MAX, &count));

    static const int16_t pcm[4] = {0, 1000, -1000, 0};
    const int channels[] = {INT_MIN, -1, 0, 256, INT_MAX};
    for (size_t i = 0; i < COUNT(channels); i++)
        EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_from_pcm_s16(pcm, 4, channels[i], 100, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_from_pcm_s16(pcm, SIZE_MAX, 1, 100, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_from_pcm_s16(pcm, SIZE_MAX / 2, 2, 100, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_from_pcm_s16(pcm, 4, 1, SIZE_MAX, out, SIZE_MAX, &count));
    static const float nan_pcm[4] = {NAN, INFINITY, -INFINITY, -FLT_MAX};
    EXPECT_STATUS(VN_OK, vn_waveform_from_pcm_f32(nan_pcm, 4, 1, 4, out, 128, &count));
    for (size_t i = 0; i < count; i++) EXPECT(out[i] >= 0 && out[i] <= 1, "value %zu is %f", i, (double)out[i]);

    static const float values[5] = {NAN, INFINITY, -1, 0.5f, 2};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_resample(values, 5, 0, out, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_resample(values, 5, SIZE_MAX, out, SIZE_MAX, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_resample(values, 5, VN_WAVEFORM_MAX_SAMPLES + 1, out, SIZE_MAX, &count));
    expect_range_message("target");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_resample(values, SIZE_MAX, 100, out, 128, &count));
    EXPECT_STATUS(VN_OK, vn_waveform_resample(values, 5, 100, out, 128, &count));

    for (size_t i = 0; i < COUNT(hostile_doubles); i++) {
        double v = hostile_doubles[i];
        if (isfinite(v) && v > 0) {
            /* Absurd widths are capped: 100000 bars at most, and too little room says how many are needed. */
            EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_bars(values, 5, v, 10, out, 128, &count));
            EXPECT(count == 100000, "%g wide: %zu bars needed", v, count);
            EXPECT_STATUS(VN_OK, vn_waveform_bars(values, 5, 100, v, out, 128, &count));
        } else {
            EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_bars(values, 5, v, 10, out, 128, &count));
            EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_bars(values, 5, 100, v, out, 128, &count));
        }
    }
    EXPECT_STATUS(VN_OK, vn_waveform_bars(values, 5, DBL_MIN, DBL_MIN, out, 128, &count));
    EXPECT(count == 0, "a tiny width gives %zu bars", count);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_bars(values, SIZE_MAX, 100, 10, out, 128, &count));

    int32_t encoded[128];
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_encode(VN_WAVEFORM_MATRIX, values, SIZE_MAX, encoded, 128, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_encode(INT_MIN, values, 5, encoded, 128, &count));
    EXPECT_STATUS(VN_OK, vn_waveform_encode(VN_WAVEFORM_MATRIX, values, 5, encoded, 128, &count));
    EXPECT_STATUS(VN_E_FORMAT, vn_waveform_decode(VN_WAVEFORM_MATRIX, encoded, SIZE_MAX, out, SIZE_MAX, &count));
    EXPECT_STATUS(VN_E_FORMAT, vn_waveform_decode(VN_WAVEFORM_SIGNAL, encoded, (size_t)1 << 40, out, SIZE_MAX, &count));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_decode(INT_MAX, encoded, 5, out, 128, &count));
}

static void ignore_test_event(void *user_data, const vn_test_event *event) {
    (void)user_data;
    (void)event;
}

static void test_paths_that_are_not_utf8(void) {
    /* An existing file whose name is not UTF-8: refused as such, not reported missing under a repaired name. */
    char directory[] = "/tmp/vn-latin1-XXXXXX";
    EXPECT(mkdtemp(directory) != NULL, "mkdtemp failed");
    char path[64];
    snprintf(path, sizeof path, "%s/caf\xe9.ogg", directory);
    FILE *file = fopen(path, "w");
    EXPECT(file != NULL, "cannot create %s", path);
    if (file != NULL) fclose(file);
    vn_audio_info info = {.size = sizeof info};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_audio_info_file(path, &info));
    EXPECT(strstr(vn_last_error_message(), "UTF-8") != NULL, "message: %s", vn_last_error_message());
    float out[100];
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_file(path, 100, out, 100, NULL));
    vn_source *source = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_file(path, &source));
    vn_recorder_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_directory(options, path));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_device(options, "caf\xe9", NULL));
    vn_recorder_options_destroy(options);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recover(path, NULL, NULL, NULL));
    unlink(path);
    rmdir(directory);
}

static void test_source_and_loop_numbers(void) {
    static const unsigned char bytes[16] = {0};
    vn_source *source = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_source_create_memory(bytes, SIZE_MAX, &source));
    EXPECT(source == NULL, "a source was made from SIZE_MAX bytes");
    expect_range_message("size");
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, 0, &source));
    vn_source_destroy(source);

    vn_event_loop *loop = NULL;
    EXPECT_STATUS(VN_OK, vn_event_loop_create(&loop));
    vn_test_source *test = NULL;
    EXPECT_STATUS(VN_OK, vn_test_source_create(loop, &test));
    if (loop == NULL || test == NULL) return;
    EXPECT_STATUS(VN_OK, vn_test_source_subscribe(test, ignore_test_event, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_test_source_emit(test, UINT64_MAX));
    EXPECT_STATUS(VN_OK, vn_test_source_emit(test, 3));
    /* With events pending, the most extreme timeouts return at once. */
    int pending = 0;
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, INT_MIN, &pending));
    EXPECT(pending, "no events pending after emit");
    EXPECT_STATUS(VN_OK, vn_event_loop_wait(loop, INT_MAX, &pending));
    /* A run whose end overflows the fired count runs until stopped. */
    EXPECT_STATUS(VN_OK, vn_test_source_start(test, UINT64_MAX, UINT32_MAX));
    EXPECT_STATUS(VN_OK, vn_test_source_stop(test));
    EXPECT_STATUS(VN_OK, vn_test_source_start(test, UINT64_MAX, 0));
    EXPECT_STATUS(VN_OK, vn_test_source_stop(test));
    vn_test_source_destroy(test);
    vn_event_loop_destroy(loop);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_log_set_handler(NULL, NULL, INT_MIN));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_log_set_handler(NULL, NULL, INT_MAX));
}

/* ------------------------------------------------------------------------------------------------------------ */

enum { CALL_BEGIN, CALL_PAUSE, CALL_RESUME, CALL_STOP, CALL_CANCEL, CALL_KINDS };
static const char *call_names[CALL_KINDS] = {"begin", "pause", "resume", "stop", "cancel"};

static int call(vn_recorder *recorder, int kind) {
    switch (kind) {
    case CALL_BEGIN: return vn_recorder_begin(recorder);
    case CALL_PAUSE: return vn_recorder_pause(recorder);
    case CALL_RESUME: return vn_recorder_resume(recorder);
    case CALL_STOP: return vn_recorder_stop(recorder);
    default: return vn_recorder_cancel(recorder);
    }
}

static int count_parts(const char *directory) {
    DIR *dir = opendir(directory);
    if (dir == NULL) return 0;
    int parts = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        size_t length = strlen(entry->d_name);
        if (length > 5 && strcmp(entry->d_name + length - 5, ".part") == 0) parts++;
    }
    closedir(dir);
    return parts;
}

static void test_hurried_recorder_calls(void) {
    char directory[] = "/tmp/vn-hurried-XXXXXX";
    EXPECT(mkdtemp(directory) != NULL, "mkdtemp failed");
    vn_recorder_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&options));
    if (options == NULL) {
        temp_directory_remove(directory);
        return;
    }
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_directory(options, directory));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_device(options, "null", NULL));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, 0.5, 0, 0));
    int sequences = 0;
    for (int length = 1; length <= 4; length++) {
        int total = 1;
        for (int i = 0; i < length; i++) total *= CALL_KINDS;
        for (int index = 0; index < total; index++) {
            vn_recorder *recorder = NULL;
            if (vn_recorder_create(options, &recorder) != VN_OK) {
                EXPECT(0, "vn_recorder_create failed: %s", vn_last_error_message());
                continue;
            }
            for (int i = 0, rest = index; i < length; i++, rest /= CALL_KINDS) {
                int status = call(recorder, rest % CALL_KINDS);
                EXPECT(status == VN_OK || status == VN_E_MISUSE, "sequence %d/%d: %s answered %s", length, index,
                       call_names[rest % CALL_KINDS], vn_status_name(status));
            }
            vn_recorder_destroy(recorder); /* finishes a take in progress */
            sequences++;
        }
    }
    EXPECT(sequences == 5 + 25 + 125 + 625, "%d sequences ran", sequences);
    EXPECT(count_parts(directory) == 0, "%d .part files left", count_parts(directory));
    vn_recorder_options_destroy(options);
    temp_directory_remove(directory);
}

int main(void) {
    harness_init("hostile");
    TEST(test_recorder_option_numbers);
    TEST(test_waveform_numbers);
    TEST(test_source_and_loop_numbers);
    TEST(test_paths_that_are_not_utf8);
    TEST(test_hurried_recorder_calls);
    return harness_finish();
}
