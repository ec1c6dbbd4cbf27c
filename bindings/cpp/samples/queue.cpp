/* queue.cpp — plays voice messages (files or http(s) URLs) one after the other with a queue player, as a chat
 * client plays a thread's voice messages in a row: bindings/c/queue.c with the C++ layer (voicenote.hpp).
 *
 *   queue [--device NAME [--device-config ALSA_CONFIG_FILE]] FILE_OR_URL...
 *
 * Shows: a data source (player::set_data_source): a std::function the player calls on its own thread, with no
 * lock held, to ask which location follows the current one; it answers with voicenote::queue_answer::set_location
 * during the call, or sets nothing to end the queue. It may be asked several times about one item (ahead of its
 * end, when its audio is decoded, at its end), so it answers from the current location, the same way each time.
 * The player plays the answers back to back and sends player_event_type::item_changed (printed as "playing
 * LOCATION") for each item, then finished; an item that cannot be loaded is a failed event (printed on stderr) and
 * the queue goes on with the item after it. The library keeps the function until the player is destroyed. The main
 * thread waits with a condition variable until the item the data source ended the queue on has finished or failed,
 * and the player is stopped (or not loaded). Items are told apart by location: list each location once.
 * With no --device it plays to the default ALSA device; tests pass a file speaker (ALSA's file plugin), defined in
 * ALSA_CONFIG_FILE, whose text is handed to the library (player_options::device_configuration).
 *
 * Build:  c++ -std=c++17 queue.cpp $(pkg-config --cflags --libs voicenote) -pthread -o queue
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(queue PRIVATE voicenote::voicenote)
 * Exit status: 0 when every item played to its end, 1 when one failed (or the player went silent for 30 s), 2 for
 * bad arguments.
 */
#include <voicenote.hpp>

#include "sample_support.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

/** How long the player may stay silent (no event, no question) before the sample gives up. */
constexpr std::chrono::seconds stall_limit(30);

/** The list and what the player said about it, guarded by `mutex`; `changed` is notified after each change. */
struct queue_state {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> items; // the locations, in order
    std::size_t position = 0;       // the index of the item the data source was last asked about
    std::string ended;              // the item after which the data source answered nothing; "" until then
    std::string current;            // the item of the last item_changed
    bool current_done = false;      // it finished or failed
    std::optional<voicenote::player_state> state; // of the last context
    int failures = 0;               // failed events
    unsigned long activity = 0;     // events and questions, to tell a stall from progress

    /** The queue is over: the data source ended it after the current item, which finished or failed, and nothing
     *  plays. */
    bool over() const {
        return !ended.empty() && ended == current && current_done &&
               (state == voicenote::player_state::stopped || state == voicenote::player_state::not_loaded);
    }
};

/* The data source: the item after the current one, searched from the last position (it is asked about the current
 * item, or the one that just failed, several times). */
void next_item(queue_state &q, std::string_view current_location, voicenote::queue_answer &answer) {
    std::optional<std::string> next;
    {
        std::lock_guard<std::mutex> lock(q.mutex);
        std::size_t at = q.position;
        while (at < q.items.size() && q.items[at] != current_location) at++;
        if (at < q.items.size()) q.position = at;
        if (at + 1 < q.items.size()) next = q.items[at + 1];
        else q.ended = std::string(current_location); // the end of the list
        q.activity++;
    }
    q.changed.notify_all();
    if (!next) return;
    try {
        answer.set_location(*next); // the library copies it; the answer is valid only during this call
    } catch (const voicenote::error &e) {
        std::fprintf(stderr, "queue: cannot answer %s: %s\n", next->c_str(), e.detail().c_str());
    }
}

void on_event(queue_state &q, const voicenote::player_event &event) {
    {
        std::lock_guard<std::mutex> lock(q.mutex);
        q.activity++;
        switch (event.type) {
        case voicenote::player_event_type::item_changed:
            q.current = event.location;
            q.current_done = false;
            std::printf("playing %s\n", event.location.c_str());
            break;
        case voicenote::player_event_type::finished:
            q.current_done = true;
            std::printf("finished %s\n", event.location.c_str());
            break;
        case voicenote::player_event_type::failed:
            q.current_done = true;
            q.failures++;
            std::fprintf(stderr, "queue: %s: %s: %s\n", q.current.c_str(), vn_status_name(event.status),
                         event.message.c_str());
            break;
        case voicenote::player_event_type::listened:
            std::printf("listened %s\n", event.location.c_str());  // the moment for a read receipt
            break;
        case voicenote::player_event_type::context:
            q.state = event.context.state;
            break;
        }
        std::fflush(stdout);
    }
    q.changed.notify_all();
}

int usage(const char *problem) {
    if (problem != nullptr) std::fprintf(stderr, "queue: %s\n", problem);
    std::fprintf(stderr, "usage: queue [--device NAME [--device-config ALSA_CONFIG_FILE]] FILE_OR_URL...\n");
    return 2;
}

} // namespace

int main(int argc, char **argv) {
    std::optional<std::string> device, config_path;
    queue_state q; // outlives the player, whose callbacks and data source use it
    for (int i = 1; i < argc; i++) {
        std::string argument = argv[i];
        if (argument == "--device" || argument == "--device-config") {
            if (i + 1 >= argc) return usage("an option lacks its value");
            (argument == "--device" ? device : config_path) = std::string(argv[++i]);
        } else if (argument.size() > 1 && argument[0] == '-') {
            return usage("unknown option");
        } else {
            q.items.push_back(argument);
        }
    }
    if (q.items.empty()) return usage(nullptr);
    if (config_path && !device) return usage("--device-config needs --device NAME");
    auto options = sample::player_options("queue", device, config_path);
    if (!options) return 2;

    const char *step = "creating the player";
    try {
        voicenote::player player(*options); // the player keeps its own copy of the options
        step = "setting up the queue";
        voicenote::subscription subscription =
            player.subscribe([&q](const voicenote::player_event &event) { on_event(q, event); });
        // The key (the absolute path, or a URL's key) is not needed: this list is of locations.
        player.set_data_source([&q](std::string_view location, std::string_view, voicenote::queue_answer &answer) {
            next_item(q, location, answer);
        });
        // The first item is the host's load; every other one is the data source's answer. Returns at once.
        step = "loading";
        player.load(q.items[0], true);

        // Wait for the end of the queue; bounded: give up when nothing at all happened for stall_limit.
        std::unique_lock<std::mutex> lock(q.mutex);
        bool stalled = false;
        while (!q.over() && !stalled) {
            unsigned long seen = q.activity;
            stalled = !q.changed.wait_for(lock, stall_limit, [&] { return q.over() || q.activity != seen; });
        }
        bool over = q.over();
        int failures = q.failures;
        lock.unlock();
        // Leaving the scope destroys the subscription, then the player: sound stops, the device closes, and no
        // callback or data source call runs after that.
        if (!over) {
            std::fprintf(stderr, "queue: nothing happened for %lld s; giving up\n",
                         static_cast<long long>(stall_limit.count()));
            return 1;
        }
        return failures == 0 ? 0 : 1;
    } catch (const voicenote::error &e) {
        return sample::print_error("queue", step, e);
    }
}
