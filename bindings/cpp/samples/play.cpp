/* play.cpp — plays a voice message (a file or an http(s) URL) to its end with voicenote's player and prints its
 * progress: bindings/c/play.c with the C++ layer (voicenote.hpp).
 *
 *   play FILE_OR_URL [--rate R] [--device NAME [--device-config ALSA_CONFIG_FILE]]
 *                    [--header "Name: value"]... [--ca-file PEM] [--key KEY]
 *                    [--mpris IDENTITY [--artist SENDER]] [--role ROLE]
 *
 * Shows: voicenote::player_options (the device by name or by ALSA configuration text, the progress interval),
 * subscribing to events with a std::function (the current context first, then progress contexts, FINISHED or
 * FAILED) and a voicenote::subscription that ends it, the rate, loading with autoplay, waiting for the end with a
 * condition variable, and the error path: a refused call throws voicenote::error (its name(), the status's
 * description and the library's detail()); a file that cannot be played, or an HTTP status, is a FAILED event with
 * its status and message. A path, a file:// URL or a plain http(s) URL goes to player::load (an http(s) URL plays
 * while it downloads, with the default HTTP options). An http(s) URL with --header, --ca-file or --key goes to
 * player::load_url with voicenote::http_options: request headers (Matrix authenticated media needs
 * "Authorization: Bearer TOKEN"), a PEM file of CA certificates to trust instead of the system's, and a stable key
 * that names the media in the media cache instead of the URL (a signed CDN URL changes; the key does not), so a
 * replay of the same key makes no request.
 * --mpris shows the player to the desktop's media keys and controls (player_options::mpris) with "Voice message" and
 * the SENDER (player::set_metadata); --role gives the playback stream a role on a PulseAudio server
 * (player_options::stream_role: "phone" has the server itself quiet the music while the note plays).
 * With no --device it plays to the default ALSA device; tests pass a file speaker (ALSA's file plugin), defined in
 * ALSA_CONFIG_FILE, whose text is handed to the library (player_options::device_configuration).
 *
 * Build:  c++ -std=c++17 play.cpp $(pkg-config --cflags --libs voicenote) -pthread -o play
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(play PRIVATE voicenote::voicenote)
 * Exit status: 0 when it played to its end, 1 when it could not be played, 2 for bad arguments.
 */
#include <voicenote.hpp>

#include "sample_support.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

/** How long the player may stay silent (no event at all) before the sample gives up. */
constexpr std::chrono::seconds stall_limit(30);

/** What the events said, guarded by `mutex`; `changed` is notified after each event. */
struct playback {
    std::mutex mutex;
    std::condition_variable changed;
    unsigned long events = 0; // every event, to tell a stall from progress
    bool finished = false;    // a FINISHED event arrived
    int failed = 0;           // the status of a FAILED event, 0 if none
    bool playing = false;     // the last context was PLAYING
};

void on_event(playback &play, const voicenote::player_event &event) {
    std::lock_guard<std::mutex> lock(play.mutex);
    play.events++;
    switch (event.type) {
    case voicenote::player_event_type::context: {
        const voicenote::player_context &context = event.context;
        bool playing = context.state == voicenote::player_state::playing;
        if (playing) {
            if (!play.playing) std::printf("playing %s at %.2fx\n", context.location.c_str(), context.rate);
            std::printf("  %6.2f / %s%.2f s%s\n", context.current_time.count(), context.duration_is_estimate ? "~" : "",
                        context.duration.count(), context.is_seeking ? " (seeking)" : "");
        }
        play.playing = playing;
        break;
    }
    case voicenote::player_event_type::finished:
        play.finished = true;
        std::printf("finished: %s\n", event.location.c_str());
        break;
    case voicenote::player_event_type::failed:
        play.failed = event.status;
        std::fprintf(stderr, "play: failed: %s: %s\n", vn_status_name(event.status), event.message.c_str());
        break;
    case voicenote::player_event_type::item_changed:
    case voicenote::player_event_type::listened:
        break;
    }
    std::fflush(stdout);
    play.changed.notify_all();
}

int usage(const char *problem) {
    if (problem != nullptr) std::fprintf(stderr, "play: %s\n", problem);
    std::fprintf(stderr, "usage: play FILE_OR_URL [--rate R] [--device NAME [--device-config ALSA_CONFIG_FILE]]\n"
                         "                        [--header \"Name: value\"]... [--ca-file PEM] [--key KEY]\n"
                         "                        [--mpris IDENTITY [--artist SENDER]] [--role ROLE]\n");
    return 2;
}

bool is_http_url(const std::string &location) {
    return location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0;
}

} // namespace

int main(int argc, char **argv) {
    std::optional<std::string> file, device, config_path, ca_file, key, mpris, artist, role;
    std::vector<std::pair<std::string, std::string>> headers;
    double rate = 1.0;
    for (int i = 1; i < argc; i++) {
        std::string argument = argv[i];
        if (argument == "--rate" || argument == "--device" || argument == "--device-config" || argument == "--header" ||
            argument == "--ca-file" || argument == "--key" || argument == "--mpris" || argument == "--artist" ||
            argument == "--role") {
            if (i + 1 >= argc) return usage("an option lacks its value");
            std::string value = argv[++i];
            if (argument == "--device") {
                device = value;
            } else if (argument == "--device-config") {
                config_path = value;
            } else if (argument == "--header") {
                auto header = sample::parse_header(value);
                if (!header) return usage("--header takes \"Name: value\"");
                headers.push_back(*header);
            } else if (argument == "--ca-file") {
                ca_file = value;
            } else if (argument == "--key") {
                key = value;
            } else if (argument == "--mpris") {
                mpris = value;
            } else if (argument == "--artist") {
                artist = value;
            } else if (argument == "--role") {
                role = value;
            } else {
                std::size_t used = 0;
                try {
                    rate = std::stod(value, &used);
                } catch (const std::exception &) {
                    used = 0;
                }
                if (used == 0 || used != value.size()) return usage("--rate takes a number (0.5 to 2.5)");
            }
        } else if (argument.size() > 1 && argument[0] == '-') {
            return usage("unknown option");
        } else if (!file) {
            file = argument;
        } else {
            return usage("one FILE_OR_URL only");
        }
    }
    if (!file) return usage(nullptr);
    if (config_path && !device) return usage("--device-config needs --device NAME");
    if (artist && !mpris) return usage("--artist goes with --mpris");
    bool with_http_options = !headers.empty() || ca_file || key;
    if (with_http_options && !is_http_url(*file)) return usage("--header, --ca-file and --key need an http(s) URL");

    auto options = sample::player_options("play", device, config_path);
    if (!options) return 2;
    options->progress_interval = std::chrono::milliseconds(250);
    options->mpris = mpris;      // the library checks the identity (not empty) and the role (printable ASCII)
    options->stream_role = role;

    playback play; // outlives the player, whose callbacks use it
    const char *step = "creating the player";
    try {
        voicenote::player player(*options); // the player keeps its own copy of the options
        step = "subscribing";
        voicenote::subscription subscription =
            player.subscribe([&play](const voicenote::player_event &event) { on_event(play, event); });
        step = "setting the rate";
        player.set_rate(rate);
        if (mpris) {
            // What the desktop's controls show for this note: set before it loads, keyed by the location as loaded.
            step = "setting what the media controls show";
            player.set_metadata(*file, "Voice message", artist);
        }
        // Returns at once; a file that cannot be opened or decoded, or a URL that cannot be fetched (an HTTP status,
        // a network failure), arrives as a FAILED event.
        if (with_http_options) {
            step = "loading the URL";
            voicenote::http_options http;
            http.headers = headers;
            http.ca_file = ca_file;
            player.load_url(*file, http, key ? std::optional<std::string_view>(*key) : std::nullopt, true);
        } else {
            step = "loading";
            player.load(*file, true);
        }

        // Wait for the end or a failure; bounded: give up when no event at all came for stall_limit.
        std::unique_lock<std::mutex> lock(play.mutex);
        bool stalled = false;
        while (!play.finished && play.failed == 0 && !stalled) {
            unsigned long seen = play.events;
            stalled = !play.changed.wait_for(lock, stall_limit,
                                             [&] { return play.finished || play.failed != 0 || play.events != seen; });
        }
        bool finished = play.finished;
        int failed = play.failed;
        lock.unlock();
        // Leaving the scope destroys the subscription, then the player: sound stops, the device closes, and no
        // callback runs after that.
        if (!finished && failed == 0) {
            std::fprintf(stderr, "play: no progress for %lld s; giving up\n",
                         static_cast<long long>(stall_limit.count()));
            return 1;
        }
        return finished && failed == 0 ? 0 : 1;
    } catch (const voicenote::error &e) {
        return sample::print_error("play", step, e);
    }
}
