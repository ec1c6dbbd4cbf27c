/*
 * waveforms.cpp: the waveforms of many voice messages in one process, as a backend fills them in for messages sent
 * without one — one pool of the library's threads, results in the order the files were given (the task of
 * bindings/c/waveforms.c, with the C++ layer).
 *
 * Usage:  waveforms FILE|URL...     prints one line per input: its length and 20 values, or its error
 *
 * What it shows:
 * - voicenote::waveform_batch: the pool (jobs 0: the CPUs this process may use), stopped when it goes out of scope;
 * - add() and end_input(): the inputs (a real program adds as it reads, a window ahead of the results it takes, so
 *   memory stays bounded);
 * - next(): results in input order on this thread, each a voicenote::waveform_result with its own status — a
 *   failing file is a result, not the end of the batch. Without a timeout, `while (auto result = batch.next())`
 *   takes every result and ends when the input has ended (with a timeout, ended() tells the end from a timeout).
 * - Calls that fail throw voicenote::error.
 *
 * Build:  c++ -std=c++17 waveforms.cpp $(pkg-config --cflags --libs voicenote) -o waveforms
 * Exit status: 0 when every input has its waveform; 1 when any failed or a call failed; 2 for a usage error.
 */
#include <voicenote.hpp>
#include <voicenote/analysis.hpp>

#include <cstdio>

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: waveforms FILE|URL...\n");
        return 2;
    }
    bool failed = false;
    try {
        voicenote::waveform_batch batch(20);
        for (int i = 1; i < argc; i++) batch.add(argv[i]);
        batch.end_input();
        while (auto result = batch.next()) {
            if (!result->ok()) {
                std::printf("%zu %s: %s (%s)\n", result->index, result->location.c_str(),
                            vn_status_name(result->status), result->message.c_str());
                failed = true;
                continue;
            }
            std::printf("%zu %s: %.3f s", result->index, result->location.c_str(), result->duration.count());
            for (float value : result->values) std::printf(" %.2f", value);
            std::printf("\n");
        }
    } catch (const voicenote::error &e) {
        std::fprintf(stderr, "waveforms: %s: %s\n", e.name(), e.detail().c_str());
        return 1;
    }
    return failed ? 1 : 0;
}
