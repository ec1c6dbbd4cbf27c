/*
 * waveforms.c: the waveforms of many voice messages in one process, as a backend fills them in for messages sent
 * without one — one pool of the library's threads, results in the order the files were given.
 *
 * Usage:  waveforms FILE|URL...     prints one line per input: its length and 20 values, or its error
 *
 * What it shows:
 * - vn_waveform_batch_create(): the pool (jobs 0: the CPUs this process may use);
 * - vn_waveform_batch_add() and vn_waveform_batch_end_input(): the inputs (a real program adds as it reads, a
 *   window ahead of the results it takes, so memory stays bounded);
 * - vn_waveform_batch_next(): results in input order on this thread, each with its own status — a failing file is
 *   a result, not the end of the batch; its pointers stay valid until the next call.
 *
 * Build:  cc waveforms.c $(pkg-config --cflags --libs voicenote) -o waveforms
 * Exit status: 0 when every input has its waveform; 1 when any failed or a call failed; 2 for a usage error.
 */
#include <stdio.h>

#include <voicenote.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: waveforms FILE|URL...\n");
        return 2;
    }
    vn_waveform_batch *batch = NULL;
    int status = vn_waveform_batch_create(20, 0, NULL, &batch);
    if (status != VN_OK) {
        fprintf(stderr, "vn_waveform_batch_create: %s: %s\n", vn_status_name(status), vn_last_error_message());
        return 1;
    }
    for (int i = 1; i < argc && status == VN_OK; i++) status = vn_waveform_batch_add(batch, argv[i]);
    if (status == VN_OK) status = vn_waveform_batch_end_input(batch);
    int failed = status != VN_OK;
    if (failed) fprintf(stderr, "adding the inputs: %s: %s\n", vn_status_name(status), vn_last_error_message());

    vn_waveform_result result = {.size = sizeof result};
    int added = !failed; /* a failing input is one result among the others: every result is printed */
    while (added && (status = vn_waveform_batch_next(batch, -1, &result)) == 1) {
        if (result.status != VN_OK) {
            printf("%zu %s: %s (%s)\n", result.index, result.location, vn_status_name(result.status), result.message);
            failed = 1;
            continue;
        }
        printf("%zu %s: %.3f s", result.index, result.location, result.duration_s);
        for (size_t v = 0; v < result.count; v++) printf(" %.2f", result.values[v]);
        printf("\n");
    }
    if (status < 0) {
        fprintf(stderr, "vn_waveform_batch_next: %s\n", vn_status_name(status));
        failed = 1;
    }
    vn_waveform_batch_destroy(batch);
    return failed;
}
