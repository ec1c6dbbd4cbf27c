/* record.cpp — records a voice message with voicenote's recorder (the C++ layer) and prints what happened.
 *
 *   record [--clean] DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE]]
 *
 * With --clean, voice cleanup is on (recorder_options::voice_cleanup).
 * Shows: recorder_options (directory, device by name or by ALSA configuration text, a length limit), subscribing
 * to events (context steps with levels, then `finished` with the file, its duration, size and waveform), waiting
 * for the take to finish with a condition variable, and the error path (voicenote::error: the status's name, its
 * description and the library's detail). With DEVICE "default" it records from the default microphone; tests pass
 * a virtual one (ALSA's file plugin), defined in ALSA_CONFIG_FILE, whose text is handed to the library
 * (recorder_options::device_configuration).
 */
#include <voicenote.hpp>
#include <voicenote/recorder.hpp>

#include "sample_support.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>

namespace {

/** What the events said about the take; guarded by `mutex`. */
struct take_state {
    std::mutex mutex;
    std::condition_variable changed;
    bool stopped = false;   // the recorder reported state stopped after a take
    bool finished = false;  // a finished event arrived
    int failed = 0;         // the status of a failed event, 0 if none
    int steps = 0;          // context steps seen while recording
};

void on_event(take_state &take, const voicenote::recorder_event &event) {
    std::lock_guard<std::mutex> lock(take.mutex);
    switch (event.type) {
    case voicenote::recorder_event_type::context:
        if (event.context.state == voicenote::recorder_state::recording) take.steps++;
        if (event.context.state == voicenote::recorder_state::stopped && take.steps > 0) take.stopped = true;
        break;
    case voicenote::recorder_event_type::finished:
        take.finished = true;
        std::printf("finished: %s\n  duration %.3f s, %lld bytes, waveform of %zu values:", event.path.c_str(),
                    event.duration.count(), static_cast<long long>(event.size_bytes), event.waveform.size());
        for (std::size_t i = 0; i < event.waveform.size(); i += 10) std::printf(" %.2f", event.waveform[i]);
        std::printf(" ...\n");
        break;
    case voicenote::recorder_event_type::failed:
        take.failed = event.status;
        std::printf("failed: %s: %s\n", vn_status_name(event.status), event.message.c_str());
        break;
    default:
        break;
    }
    take.changed.notify_all();
}

}  // namespace

int main(int argc, char **argv) {
    bool clean = argc > 1 && std::string(argv[1]) == "--clean";
    if (clean) {  // the rest as without it
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    if (argc < 3 || argc > 5) {
        std::cerr << "usage: record [--clean] DIRECTORY SECONDS [DEVICE [ALSA_CONFIG_FILE]]\n";
        return 2;
    }
    voicenote::recorder_options options;
    options.voice_cleanup = clean;
    options.directory = argv[1];
    options.device = argc > 3 ? argv[3] : "default";
    if (argc > 4) {
        options.device_configuration = sample::read_text(argv[4]);
        if (!options.device_configuration) {
            std::cerr << "cannot read " << argv[4] << "\n";
            return 2;
        }
    }
    double seconds = std::atof(argv[2]);
    // At most SECONDS, a warning 1 s before the end, no minimum.
    options.limits = voicenote::recorder_limits{voicenote::seconds(seconds), voicenote::seconds(1), {}};

    take_state take;
    try {
        voicenote::recorder recorder(options);
        auto subscription =
            recorder.subscribe([&take](const voicenote::recorder_event &event) { on_event(take, event); });
        recorder.begin();
        std::printf("recording %.1f s...\n", seconds);
        std::fflush(stdout);

        // Wait for the take to end by its length limit; bounded.
        std::unique_lock<std::mutex> lock(take.mutex);
        bool ended = take.changed.wait_for(lock, voicenote::seconds(seconds + 30), [&take] { return take.stopped; });
        bool ok = take.finished && take.failed == 0;
        lock.unlock();
        if (!ended) {
            std::cerr << "the take did not finish in time\n";
            return 1;
        }
        return ok ? 0 : 1;
    } catch (const voicenote::error &e) {
        std::cerr << "recording: " << e.name() << " (" << e.code().message() << "): " << e.detail() << "\n";
        return 1;
    }
}
