/* flow.cpp — drives the hold-to-record button (voicenote::flow) through a scripted sequence of gestures and prints
 * every event, as a chat client's composer would draw them. The C++ version of bindings/c/flow.c.
 *
 *   flow DIRECTORY [--mic NAME [--mic-config ALSA_CONFIG_FILE]] [--speaker NAME [--speaker-config ALSA_CONFIG_FILE]]
 *
 * Shows: a flow over a voicenote::recorder and a voicenote::player (both must outlive it); its events delivered on
 * the host's own thread through a voicenote::event_loop (as a GTK or Qt main loop would, here by wait() +
 * dispatch()); a voicenote::manual_clock standing in for the time a finger rests on the button, so the script does
 * not depend on how fast the machine is.
 * The script:
 *   1. a tap: the tip shows, and hides 2 s later;
 *   2. a hold: recording, a slide up locks it, stop puts it in preview, play, pause, trim to 0.25…1.25 s, send:
 *      attachment_ready prints the file, its duration and its voiceRecording payload;
 *   3. a hold and a slide left: cancelled, the file deleted.
 * With no --mic it records from the default microphone, with no --speaker it plays to the default device; tests pass
 * a virtual microphone and a file speaker (ALSA's file plugin), defined in ALSA configuration files whose text is
 * handed to the library.
 *
 * Build:  c++ -std=c++17 flow.cpp $(pkg-config --cflags --libs voicenote) -pthread -o flow
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(flow PRIVATE voicenote::voicenote)
 * Exit status: 0 when the script ran as described, 1 when a step failed or timed out, 2 for bad arguments.
 */
#include <voicenote.hpp>
#include <voicenote/flow.hpp>
#include <voicenote/player.hpp>
#include <voicenote/recorder.hpp>

#include "sample_support.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

using namespace std::chrono_literals;
using voicenote::flow_event_type;
using voicenote::flow_state;

namespace {

/** How long one step may take before the sample gives up (events come well within this). */
constexpr auto step_limit = 30s;

/** What the events told so far; only touched on the main thread (the loop delivers there). */
struct script_state {
    flow_state state = flow_state::idle;  // of the last view
    bool viewed = false;                  // whether a view came
    voicenote::seconds duration{0};       // of the last view
    bool preview_playing = false;         // of the last view
    int ready = 0;                        // attachment_ready events
    int failed = 0;                       // failed events
    std::string path;                     // the last take sent
    voicenote::seconds sent_duration{0};
    std::string description;              // the last accessible description printed
};

const char *state_name(flow_state state) {
    switch (state) {
    case flow_state::idle: return "idle";
    case flow_state::showing_tip: return "showing tip";
    case flow_state::recording: return "recording";
    case flow_state::locked: return "locked";
    case flow_state::preview: return "preview";
    }
    return "?";
}

void on_event(script_state &s, const voicenote::flow_event &event) {
    switch (event.type) {
    case flow_event_type::view: {
        const voicenote::flow_view &view = event.view;
        bool changed = !s.viewed || view.state != s.state || view.accessible_description != s.description;
        s.viewed = true;
        s.state = view.state;
        s.duration = view.duration;
        s.preview_playing = view.preview_playing;
        // Every event is printed; a step that changes only the time and levels gets a short line.
        if (changed) {
            std::printf("view: %-11s %6.2f s  \"%s\"", state_name(view.state), view.duration.count(),
                        view.accessible_description.c_str());
            if (view.state == flow_state::preview)
                std::printf("  trim %.2f…%.2f, %zu waveform values", view.trim_start.count(), view.trim_end.count(),
                            view.waveform.size());
            std::printf("\n");
            s.description = view.accessible_description;
        } else {
            std::printf("  step: %6.2f s, %zu levels, cancel alpha %.2f, lock padding %.1f%s\n", view.duration.count(),
                        view.levels.size(), view.slide_to_cancel_alpha, view.lock_padding,
                        view.preview_playing ? ", playing" : "");
        }
        break;
    }
    case flow_event_type::attachment_ready:
        s.ready++;
        s.path = event.path;
        s.sent_duration = event.duration;
        std::printf("attachment ready: %s, %.3f s, %zu waveform values\n  payload: %s\n", event.path.c_str(),
                    event.duration.count(), event.waveform.size(), event.payload_json.c_str());
        break;
    case flow_event_type::publish:
        std::printf("publish: %s\n", event.path.c_str());
        break;
    case flow_event_type::failed:
        s.failed++;
        std::printf("failed: %s: %s\n", vn_status_name(event.status), event.message.c_str());
        break;
    default:
        break;  // parked, or a kind added by a newer library
    }
}

/** Delivers events on this thread until `done()` holds; throws when it does not within step_limit. */
template <class Done>
void run_until(voicenote::event_loop &loop, Done done, const char *what) {
    auto deadline = std::chrono::steady_clock::now() + step_limit;
    for (;;) {
        loop.dispatch();
        if (done()) return;
        if (std::chrono::steady_clock::now() >= deadline)
            throw std::runtime_error(std::string("timed out waiting for ") + what);
        loop.wait(100ms);
    }
}

}  // namespace

int main(int argc, char **argv) {
    std::string directory, mic = "default", speaker = "default";
    std::optional<std::string> mic_config_file, speaker_config_file;
    bool usage = false;
    for (int i = 1; i < argc && !usage; i++) {
        std::string argument = argv[i];
        if (argument == "--mic" && i + 1 < argc) mic = argv[++i];
        else if (argument == "--mic-config" && i + 1 < argc) mic_config_file = argv[++i];
        else if (argument == "--speaker" && i + 1 < argc) speaker = argv[++i];
        else if (argument == "--speaker-config" && i + 1 < argc) speaker_config_file = argv[++i];
        else if (directory.empty() && argument[0] != '-') directory = argument;
        else usage = true;
    }
    if (usage || directory.empty()) {
        std::cerr << "usage: flow DIRECTORY [--mic NAME [--mic-config FILE]] [--speaker NAME [--speaker-config FILE]]"
                  << std::endl;
        return 2;
    }
    std::optional<std::string> mic_config, speaker_config;
    if (mic_config_file) mic_config = sample::read_text(*mic_config_file);
    if (speaker_config_file) speaker_config = sample::read_text(*speaker_config_file);
    if ((mic_config_file && !mic_config) || (speaker_config_file && !speaker_config)) {
        std::cerr << "flow: cannot read an ALSA configuration file\n";
        return 2;
    }

    script_state s;
    try {
        // Set-up: the loop and the clock, then a recorder and a player delivering through the loop, then the flow.
        // Destroyed in reverse: the flow first (it cancels a running take), then what it used; the loop last.
        voicenote::event_loop loop;
        voicenote::manual_clock clock;
        voicenote::recorder_options recording;
        recording.directory = directory;
        recording.device = mic;
        recording.device_configuration = mic_config;
        recording.loop = &loop;
        voicenote::recorder recorder(recording);
        voicenote::player_options playing;
        playing.device = speaker;
        playing.device_configuration = speaker_config;
        playing.loop = &loop;
        voicenote::player player(playing);
        voicenote::flow_options options;
        options.loop = &loop;
        options.clock = &clock;
        voicenote::flow flow(recorder, player, options);
        voicenote::subscription subscription =
            flow.subscribe([&s](const voicenote::flow_event &event) { on_event(s, event); });

        // 1. A tap: the tip, hidden after 2 s of the clock.
        std::printf("-- a tap\n");
        run_until(loop, [&] { return s.viewed && s.state == flow_state::idle; }, "the first view");
        flow.press(200, 200);
        flow.release();
        run_until(loop, [&] { return s.state == flow_state::showing_tip; }, "the tip");
        clock.advance(2s);
        run_until(loop, [&] { return s.state == flow_state::idle; }, "the tip hidden");

        // 2. Hold, lock, stop, preview, play, pause, trim, send.
        std::printf("-- hold, slide up to lock, stop, play, trim, send\n");
        flow.press(200, 200);
        clock.advance(500ms);
        run_until(loop, [&] { return s.state == flow_state::recording && s.duration >= 1s; }, "1 s recorded");
        flow.move(200, 140);
        flow.release();
        run_until(loop, [&] { return s.state == flow_state::locked && s.duration >= 2s; }, "2 s recorded, locked");
        flow.stop();
        run_until(loop, [&] { return s.state == flow_state::preview; }, "the preview");
        flow.play();
        run_until(loop, [&] { return s.state == flow_state::preview && s.preview_playing; }, "the preview playing");
        flow.pause();
        flow.trim(250ms, 1250ms);
        run_until(loop, [&] { return s.state == flow_state::preview && std::fabs(s.duration.count() - 1.0) < 1e-6; },
                  "the trimmed preview");
        flow.send();
        run_until(loop, [&] { return s.ready > 0 && s.state == flow_state::idle; }, "the take sent");
        if (std::fabs(s.sent_duration.count() - 1.0) > 1e-6 || s.path.empty()) {
            std::fprintf(stderr, "flow: the sent take is %.6f s, not 1 s\n", s.sent_duration.count());
            return 1;
        }

        // 3. Hold, slide left: cancelled.
        std::printf("-- hold, slide left to cancel\n");
        flow.press(200, 200);
        clock.advance(500ms);
        run_until(loop, [&] { return s.state == flow_state::recording && s.duration >= 1s; }, "1 s recorded");
        flow.move(120, 200);
        run_until(loop, [&] { return s.state == flow_state::idle; }, "the take cancelled");
    } catch (const voicenote::error &e) {
        std::cerr << "flow: " << e.name() << ": " << e.detail() << "\n";
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "flow: " << e.what() << "\n";
        return 1;
    }
    if (s.failed > 0) return 1;
    std::printf("sent %s\n", s.path.c_str());
    return 0;
}
