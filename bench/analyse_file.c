/* analyse_file.c — one side of the loudness bench (bench/run.py, section loudness).
 *
 *   analyse_file FILE plain|loudness
 *
 * The waveform of FILE (100 values) through vn_waveform_analyse_file(): `plain` with no loudness to fill (the call
 * then measures nothing: the waveform alone), `loudness` with one (the waveform and the EBU R128 loudness in the
 * same decode). Prints one line: {"values": N, "duration_s": D, "known": K, "integrated_lufs": I, "range_lu": R,
 * "true_peak_dbtp": P}. Exit status 0 on success, 1 on a failure (message on stderr), 2 usage.
 */
#include <stdio.h>
#include <string.h>

#include <voicenote.h>

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[2], "plain") != 0 && strcmp(argv[2], "loudness") != 0)) {
        fprintf(stderr, "usage: analyse_file FILE plain|loudness\n");
        return 2;
    }
    float values[100];
    size_t count = 0;
    double duration = 0;
    vn_loudness loudness = {0};
    int status = vn_waveform_analyse_file(argv[1], 100, values, 100, &count, &duration,
                                          strcmp(argv[2], "loudness") == 0 ? &loudness : NULL);
    if (status != VN_OK) {
        fprintf(stderr, "vn_waveform_analyse_file: %s: %s\n", vn_status_name(status), vn_last_error_message());
        return 1;
    }
    printf("{\"values\": %zu, \"duration_s\": %.6f, \"known\": %d, \"integrated_lufs\": %.4f, \"range_lu\": %.4f, "
           "\"true_peak_dbtp\": %.4f}\n", count, duration, loudness.known, loudness.known ? loudness.integrated_lufs : 0,
           loudness.range_lu, loudness.known ? loudness.true_peak_dbtp : 0);
    return 0;
}
