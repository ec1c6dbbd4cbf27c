/*
 * waveform_batch.c: vn_waveform_batch_* through the C ABI — results in input order, one per input, equal to
 * vn_waveform_file(), a missing file as its result without stopping the batch; the timeout, the end, the refusals
 * (NULL, ranges, a struct too small, adding after the end), and a destroy while workers run. Taking results on two
 * threads at once is the caller's to avoid (one call at a time); adding from one thread while another takes is fine
 * and is done here. A batch of one long note splits it over the idle workers.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include "harness.h"
#include "child.h"

enum { SAMPLES = 50, NOTES = 24 };

static char directory[256];
static char note[300];
static char missing[320];
static char long_directory[300];
static char long_note[340];

/* A one-second note, and a 45-second one: long enough for four ranges of at least ten seconds. */
static int make_note(void) {
    snprintf(long_directory, sizeof long_directory, "%s/long", directory);
    return write_note(directory, 1.0, note, sizeof note) && mkdir(long_directory, 0700) == 0 &&
           write_note(long_directory, 45.0, long_note, sizeof long_note);
}

typedef struct adder {
    vn_waveform_batch *batch;
    atomic_int failures;
} adder;

/* Adds NOTES inputs, every fifth one missing, then ends the input. */
static void *add_inputs(void *argument) {
    adder *a = argument;
    for (int i = 0; i < NOTES; i++) {
        if (vn_waveform_batch_add(a->batch, i % 5 == 2 ? missing : note) != VN_OK) atomic_fetch_add(&a->failures, 1);
    }
    if (vn_waveform_batch_end_input(a->batch) != VN_OK) atomic_fetch_add(&a->failures, 1);
    return NULL;
}

static void test_results_in_input_order_while_another_thread_adds(void) {
    float alone[SAMPLES];
    size_t alone_count = 0;
    EXPECT_STATUS(VN_OK, vn_waveform_file(note, SAMPLES, alone, SAMPLES, &alone_count));
    vn_waveform_batch *batch = NULL;
    EXPECT_STATUS(VN_OK, vn_waveform_batch_create(SAMPLES, 3, NULL, &batch));
    if (batch == NULL) return;
    static adder a;
    a.batch = batch;
    atomic_store(&a.failures, 0);
    pthread_t thread;
    EXPECT(pthread_create(&thread, NULL, add_inputs, &a) == 0, "pthread_create");
    size_t taken = 0;
    for (;;) {
        vn_waveform_result result = {.size = sizeof result};
        int rc = vn_waveform_batch_next(batch, 30000, &result);
        if (rc == 0) break;
        EXPECT(rc == 1, "vn_waveform_batch_next returned %s", vn_status_name(rc));
        if (rc != 1) break;
        EXPECT(result.index == taken, "result %zu came as %zu", taken, result.index);
        if (result.index % 5 == 2) {
            EXPECT(result.status == VN_E_NOT_FOUND && strcmp(result.location, missing) == 0 && result.count == 0 &&
                       result.values == NULL && strstr(result.message, "missing.ogg") != NULL,
                   "result %zu: %s %s (%s)", taken, vn_status_name(result.status), result.location, result.message);
        } else {
            EXPECT(result.status == VN_OK && result.count == SAMPLES && strcmp(result.message, "") == 0,
                   "result %zu: %s %s", taken, vn_status_name(result.status), result.message);
            EXPECT(result.count == SAMPLES && memcmp(result.values, alone, sizeof alone) == 0,
                   "result %zu differs from vn_waveform_file()", taken);
            EXPECT(result.duration_s > 0.99 && result.duration_s < 1.01, "duration %g", result.duration_s);
        }
        taken++;
    }
    pthread_join(thread, NULL);
    EXPECT(taken == NOTES, "%zu results for %d inputs", taken, NOTES);
    EXPECT(atomic_load(&a.failures) == 0, "adding failed %d times", atomic_load(&a.failures));
    vn_waveform_result result = {.size = sizeof result};
    EXPECT(vn_waveform_batch_next(batch, 0, &result) == 0, "the ended batch gave more");
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_add(batch, note));
    vn_waveform_batch_destroy(batch);
}

static void test_timeout_refusals_and_destroy_while_running(void) {
    vn_waveform_batch *batch = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_create(0, 1, NULL, &batch));
    EXPECT(batch == NULL, "out set on failure");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_create(SAMPLES, 257, NULL, &batch));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_create(SAMPLES, -1, NULL, &batch));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_create(SAMPLES, 1, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_create(SAMPLES, 0, NULL, &batch));
    if (batch == NULL) return;
    vn_waveform_result result = {.size = sizeof result};
    long long start = harness_now_ms();
    EXPECT_STATUS(VN_E_BUSY, vn_waveform_batch_next(batch, 50, &result));
    EXPECT(harness_now_ms() - start < 5000, "the 50 ms timeout took %lld ms", harness_now_ms() - start);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_next(batch, 0, NULL));
    vn_waveform_result small = {.size = 8};
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_next(batch, 0, &small));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_waveform_batch_add(batch, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_add(NULL, note));
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_next(NULL, 0, &result));
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_end_input(NULL));
    for (int i = 0; i < 100; i++) EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, note));
    vn_waveform_batch_destroy(batch);  /* workers running: stopped and joined */
    EXPECT_STATUS(VN_E_MISUSE, vn_waveform_batch_add(batch, note));
    vn_waveform_batch_destroy(NULL);
}

static atomic_int split_lines;

static void count_split_lines(void *user_data, int level, const char *message) {
    (void)user_data;
    (void)level;
    if (strstr(message, "4 ranges decoded in parallel") != NULL && strstr(message, "long/note.ogg") != NULL) {
        atomic_fetch_add(&split_lines, 1);
    }
}

/* A batch of one long note splits it over its idle workers (the library says so at debug level): the values those
 * ranges give are within 0.001 of the one-pass call; a destroy while the ranges run joins them. */
static void test_one_long_note_is_split_over_the_idle_workers(void) {
    float alone[SAMPLES];
    size_t alone_count = 0;
    EXPECT_STATUS(VN_OK, vn_waveform_file(long_note, SAMPLES, alone, SAMPLES, &alone_count));
    atomic_store(&split_lines, 0);
    EXPECT_STATUS(VN_OK, vn_log_set_handler(count_split_lines, NULL, VN_LOG_DEBUG));
    vn_waveform_batch *batch = NULL;
    EXPECT_STATUS(VN_OK, vn_waveform_batch_create(SAMPLES, 4, NULL, &batch));
    if (batch == NULL) return;
    EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, long_note));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_end_input(batch));
    vn_waveform_result result = {.size = sizeof result};
    int rc = vn_waveform_batch_next(batch, 60000, &result);
    EXPECT(rc == 1 && result.status == VN_OK && result.count == SAMPLES, "next: %s, %s (%s)", vn_status_name(rc),
           vn_status_name(result.status), result.message);
    if (rc == 1 && result.count == SAMPLES) {
        for (size_t i = 0; i < SAMPLES; i++) {
            EXPECT(fabsf(result.values[i] - alone[i]) <= 0.001f, "value %zu: %g split, %g in one pass", i,
                   result.values[i], alone[i]);
        }
        EXPECT(result.duration_s > 44.99 && result.duration_s < 45.01, "duration %g", result.duration_s);
    }
    vn_waveform_batch_destroy(batch);
    EXPECT_STATUS(VN_OK, vn_log_set_handler(NULL, NULL, VN_LOG_WARNING));
    EXPECT(atomic_load(&split_lines) == 1, "%d lines said the note was split in four", atomic_load(&split_lines));

    EXPECT_STATUS(VN_OK, vn_waveform_batch_create(SAMPLES, 4, NULL, &batch));
    if (batch == NULL) return;
    EXPECT_STATUS(VN_OK, vn_waveform_batch_add(batch, long_note));
    EXPECT_STATUS(VN_OK, vn_waveform_batch_end_input(batch));
    vn_waveform_batch_destroy(batch);  /* the note's ranges may be running: finished and joined */
}

int main(void) {
    harness_init("waveform_batch");
    if (!temp_directory_create(directory, sizeof directory, "batch")) return 1;
    snprintf(missing, sizeof missing, "%s/missing.ogg", directory);
    if (!fixture_setup(make_note, directory, "write a tone and encode it with opusenc")) return 1;
    TEST(test_results_in_input_order_while_another_thread_adds);
    TEST(test_timeout_refusals_and_destroy_while_running);
    TEST(test_one_long_note_is_split_over_the_idle_workers);
    int status = harness_finish();
    temp_directory_remove(directory);
    return status;
}
