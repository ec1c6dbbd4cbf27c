/*
 * waveform.cpp: the waveform of an audio file, as a chat client computes it before sending a voice message (the
 * task of bindings/c/waveform.c, with the C++ layer).
 *
 * Usage:  waveform [-v] [-t] FILE [SAMPLES]    SAMPLES values (default voicenote::waveform_default_samples, 100)
 *         waveform --baseline                  loads the library and prints its version, nothing else
 *
 * What it shows:
 * - voicenote::waveform_file(): one call decodes the file (Ogg Opus, AAC, MP3, WAV, FLAC, Vorbis) as it streams it
 *   and returns SAMPLES levels in 0…1 as a std::vector<float> (docs/waveform.md). The levels are printed as one JSON
 *   array on stdout, formatted as `voicenote waveform FILE --samples SAMPLES` prints them: each rounded to 4
 *   decimals, in the shortest text that reads back to that value.
 * - voicenote::audio_info_file() (with -v): the stream's facts as a struct (duration as voicenote::seconds), on
 *   stderr.
 * - Errors: a failing call throws voicenote::error, which carries the status (status(), name(), code(), comparable
 *   with voicenote::errc) and the library's detail message for that call (detail()).
 * -t (and -v) also print the wall time of the waveform_file() call alone on stderr, without process start-up.
 * --baseline is the same process doing nothing useful, the reference for memory figures.
 *
 * Build:  c++ -std=c++17 waveform.cpp $(pkg-config --cflags --libs voicenote) -o waveform
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(waveform PRIVATE voicenote::voicenote)
 * Exit status: 0 on success; 1 when a call fails (status and messages on stderr); 2 for a usage error.
 */
#include <voicenote.hpp>
#include <voicenote/analysis.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int usage() {
    std::fprintf(stderr, "usage: waveform [-v] [-t] FILE [SAMPLES]\n       waveform --baseline\n");
    return 2;
}

/** Reports a failed call with everything the library says about it; returns the exit status 1. */
int report_failure(const char *call, const char *path, const voicenote::error &e) {
    std::fprintf(stderr, "%s(\"%s\") failed: %d %s: %s\n", call, path, e.status(), e.name(),
                 e.code().message().c_str());
    std::fprintf(stderr, "  detail: %s\n", e.detail().c_str());
    return 1;
}

/** Prints one level as the CLI does: rounded to 4 decimals (in float, half away from zero, then as a double), in
 *  the shortest text that reads back to the same double, with ".0" added to a whole number. */
void print_level(float level, bool first) {
    double scaled = static_cast<double>(level * 10000.0f);
    double rounded = static_cast<double>(static_cast<long>(scaled < 0 ? scaled - 0.5 : scaled + 0.5)) / 10000.0;
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        std::snprintf(text, sizeof text, "%.*g", precision, rounded);
        if (std::strtod(text, nullptr) == rounded) break;
    }
    std::printf("%s%s%s", first ? "" : ",", text, std::strpbrk(text, ".e") ? "" : ".0");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc == 2 && std::strcmp(argv[1], "--baseline") == 0) {
        std::printf("voicenote %s\n", voicenote::version().c_str());
        return 0;
    }
    bool verbose = false, timed = false;
    int arg = 1;
    for (; arg < argc && argv[arg][0] == '-' && argv[arg][1] != '\0'; arg++) {
        if (std::strcmp(argv[arg], "-v") == 0) {
            verbose = true;
        } else if (std::strcmp(argv[arg], "-t") == 0) {
            timed = true;
        } else {
            return usage();
        }
    }
    if (argc - arg < 1 || argc - arg > 2) return usage();
    const char *path = argv[arg];
    unsigned long samples = voicenote::waveform_default_samples;
    if (argc - arg == 2) {
        char *end = nullptr;
        samples = std::strtoul(argv[arg + 1], &end, 10);
        if (*end != '\0' || samples == 0 || samples > 1000000) {
            std::fprintf(stderr, "SAMPLES must be a whole number from 1 to 1000000\n");
            return 2;
        }
    }

    if (verbose) {
        try {
            voicenote::audio_info info = voicenote::audio_info_file(path);
            std::fprintf(stderr, "%s: %s, %d Hz, %d channel%s, %.3f s%s, %.1f kbit/s\n", path, info.codec.c_str(),
                         info.sample_rate, info.channels, info.channels == 1 ? "" : "s", info.duration.count(),
                         info.duration_is_estimate ? " (estimated)" : "", static_cast<double>(info.bitrate) / 1000.0);
        } catch (const voicenote::error &e) {
            return report_failure("voicenote::audio_info_file", path, e);
        }
    }

    std::vector<float> levels;
    auto started = std::chrono::steady_clock::now();
    try {
        levels = voicenote::waveform_file(path, samples);
    } catch (const voicenote::error &e) {
        return report_failure("voicenote::waveform_file", path, e);
    }
    std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;

    std::putchar('[');
    for (std::size_t i = 0; i < levels.size(); i++) print_level(levels[i], i == 0);
    std::puts("]");
    if (verbose || timed) {
        std::fprintf(stderr, "voicenote::waveform_file: %zu values in %.3f ms\n", levels.size(), elapsed.count());
    }
    return 0;
}
