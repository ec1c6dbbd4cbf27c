/*
 * waveform.c: the waveform of an audio file, as a chat client computes it before sending a voice message.
 *
 * Usage:  waveform [-v] [-t] FILE [SAMPLES]    SAMPLES values (default VN_WAVEFORM_DEFAULT_SAMPLES, 100)
 *         waveform --baseline                  loads the library and prints its version, nothing else
 *
 * What it shows:
 * - vn_waveform_file(): one call decodes the file (Ogg Opus, AAC, MP3, WAV, FLAC, Vorbis) as it streams it and
 *   returns SAMPLES levels in 0…1 into a buffer the caller owns (docs/waveform.md, the algorithm of Stream's SDKs).
 *   The levels are printed as one JSON array on stdout, formatted as `voicenote waveform FILE --samples SAMPLES`
 *   prints them: each rounded to 4 decimals, in the shortest text that reads back to that value.
 * - vn_audio_info_file() (with -v): the stream's facts, printed on stderr. Set `info.size` before the call; the
 *   library fills only that much of the struct, so a program built against this header keeps working with a
 *   newer library whose struct has grown.
 * - Errors: a failing call returns a negative vn_status; vn_status_name() and vn_strerror() describe the status
 *   (static text) and vn_last_error_message() gives this thread's detail for the call that just failed.
 * -t (and -v) also print the wall time of the vn_waveform_file() call alone on stderr, without process start-up
 * (`make bench` reads it as the in-process call time). --baseline is the same process doing nothing useful, the
 * reference for the bench's memory figures.
 *
 * Build:  cc waveform.c $(pkg-config --cflags --libs voicenote) -o waveform
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(waveform PRIVATE voicenote::voicenote)
 * Exit status: 0 on success; 1 when a call fails (status and messages on stderr); 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <voicenote.h>

static int usage(void) {
    fprintf(stderr, "usage: waveform [-v] [-t] FILE [SAMPLES]\n       waveform --baseline\n");
    return 2;
}

/* Reports a failed call with everything the library says about it; returns the exit status 1. */
static int report_failure(const char *call, const char *path, int status) {
    fprintf(stderr, "%s(\"%s\") failed: %d %s: %s\n", call, path, status, vn_status_name(status),
            vn_strerror(status));
    fprintf(stderr, "  detail: %s\n", vn_last_error_message());
    return 1;
}

/* Prints one level as the CLI does: rounded to 4 decimals (in float, half away from zero, then as a double), in
 * the shortest text that reads back to the same double, with ".0" added to a whole number. Levels are 0…1, so
 * the rounding needs no libm: in double, adding ½ to the scaled float is exact and the cast truncates. */
static void print_level(float level, int first) {
    double scaled = (double)(level * 10000.0f);
    double rounded = (double)(long)(scaled < 0 ? scaled - 0.5 : scaled + 0.5) / 10000.0;
    char text[40];
    int precision;
    for (precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, rounded);
        if (strtod(text, NULL) == rounded) break;
    }
    printf("%s%s%s", first ? "" : ",", text, strpbrk(text, ".e") ? "" : ".0");
}

static double seconds_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    int verbose = 0, timed = 0, arg = 1;
    const char *path;
    unsigned long samples = VN_WAVEFORM_DEFAULT_SAMPLES;
    float *levels;
    size_t count = 0, i;
    double started, elapsed;
    int status;

    if (argc == 2 && strcmp(argv[1], "--baseline") == 0) {
        printf("voicenote %s\n", vn_version_string());
        return 0;
    }
    for (; arg < argc && argv[arg][0] == '-' && argv[arg][1] != '\0'; arg++) {
        if (strcmp(argv[arg], "-v") == 0) {
            verbose = 1;
        } else if (strcmp(argv[arg], "-t") == 0) {
            timed = 1;
        } else {
            return usage();
        }
    }
    if (argc - arg < 1 || argc - arg > 2) return usage();
    path = argv[arg];
    if (argc - arg == 2) {
        char *end;
        samples = strtoul(argv[arg + 1], &end, 10);
        if (*end != '\0' || samples == 0 || samples > 1000000) {
            fprintf(stderr, "SAMPLES must be a whole number from 1 to 1000000\n");
            return 2;
        }
    }

    if (verbose) {
        vn_audio_info info;
        memset(&info, 0, sizeof info);
        info.size = sizeof info;
        status = vn_audio_info_file(path, &info);
        if (status != VN_OK) return report_failure("vn_audio_info_file", path, status);
        fprintf(stderr, "%s: %s, %d Hz, %d channel%s, %.3f s%s, %.1f kbit/s\n", path, info.codec, info.sample_rate,
                info.channels, info.channels == 1 ? "" : "s", info.duration_s,
                info.duration_is_estimate ? " (estimated)" : "", (double)info.bitrate / 1000.0);
    }

    levels = malloc(samples * sizeof *levels);
    if (levels == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    started = seconds_now();
    status = vn_waveform_file(path, samples, levels, samples, &count);
    elapsed = seconds_now() - started;
    if (status != VN_OK) {
        free(levels);
        return report_failure("vn_waveform_file", path, status);
    }

    putchar('[');
    for (i = 0; i < count; i++) print_level(levels[i], i == 0);
    puts("]");
    if (verbose || timed) fprintf(stderr, "vn_waveform_file: %lu values in %.3f ms\n", (unsigned long)count, elapsed * 1e3);
    free(levels);
    return 0;
}
