/*
 * threads.cpp: the C++ layer from several threads at once, for ThreadSanitizer (make test-tsan builds it with
 * clang++ -fsanitize=thread against the instrumented library): one thread records takes while another plays notes,
 * each in its own focus group so neither pauses the other; a third subscribes to and unsubscribes from the player
 * while it plays; the events of both arrive on library threads and are counted under one mutex; everything is
 * destroyed while events may still be on their way.
 */
#include "harness.hpp"

#include <optional>

using namespace std::chrono_literals;

/** Records `takes` takes of 0.3 s from a file microphone; returns how many finished. */
static int record_takes(const std::string &microphone, const std::string &directory, int takes,
                        harness::waiter &waiter, int &finished) {
    voicenote::focus_group own;
    voicenote::recorder_options options;
    options.directory = directory;
    options.device = "vn_mic";
    options.device_configuration = harness::microphone_configuration(microphone);
    options.limits = voicenote::recorder_limits{0.3s, 0.1s, 0s};
    options.focus = &own;
    voicenote::recorder recorder(options);
    auto events = recorder.subscribe([&](const voicenote::recorder_event &event) {
        if (event.type != voicenote::recorder_event_type::finished) return;
        std::lock_guard<std::mutex> lock(waiter.mutex());
        finished++;
        waiter.notify_locked();
    });
    for (int take = 0; take < takes; take++) {
        int before = 0;
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            before = finished;
        }
        recorder.begin();
        if (!waiter.wait_until([&] { return finished > before; })) return -1;
    }
    return takes;
}

/** Plays `note` `times` times to its end on a file speaker; returns how many ended. */
static int play_notes(const std::string &note, const std::string &speaker, int times, harness::waiter &waiter,
                      int &ended, voicenote::player *&shared) {
    voicenote::focus_group own;
    voicenote::player_options options;
    options.device = "vn_spk";
    options.device_configuration = harness::speaker_configuration(speaker);
    options.focus = &own;
    voicenote::player player(options);
    auto events = player.subscribe([&](const voicenote::player_event &event) {
        if (event.type != voicenote::player_event_type::finished) return;
        std::lock_guard<std::mutex> lock(waiter.mutex());
        ended++;
        waiter.notify_locked();
    });
    {
        std::lock_guard<std::mutex> lock(waiter.mutex());
        shared = &player;
        waiter.notify_locked();
    }
    for (int time = 0; time < times; time++) {
        int before = 0;
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            before = ended;
        }
        player.load(note, /*autoplay=*/true);
        if (!waiter.wait_until([&] { return ended > before; })) return -1;
    }
    std::lock_guard<std::mutex> lock(waiter.mutex());
    shared = nullptr;
    return times;
}

static void test_recording_and_playing_on_two_threads_while_a_third_subscribes() {
    harness::temp_directory directory("threads");
    std::string microphone = directory / "mic.raw", note = directory / "note.ogg";
    REQUIRE(harness::write_tone(microphone, 5.0, /*raw=*/true), "writing the microphone's tone");
    REQUIRE(harness::write_note(directory, 1.0, note), "opusenc failed");
    harness::waiter waiter;
    int finished = 0, ended = 0;
    voicenote::player *shared = nullptr;
    std::atomic<bool> playing_done{false};
    int recorded = 0, played = 0, churned = 0;
    std::thread recording([&] { recorded = record_takes(microphone, directory / "takes", 4, waiter, finished); });
    std::thread playing([&] {
        played = play_notes(note, directory / "speaker.raw", 4, waiter, ended, shared);
        playing_done = true;
    });
    std::thread subscribing([&] {
        // Subscribes to and unsubscribes from the player while it plays on the other thread.
        while (!playing_done) {
            std::unique_lock<std::mutex> lock(waiter.mutex());
            if (shared == nullptr) {
                lock.unlock();
                waiter.wait_until([&] { return shared != nullptr || playing_done; }, 1000ms);
                continue;
            }
            auto subscription = shared->subscribe([](const voicenote::player_event &) {});
            lock.unlock();
            churned++;
            subscription.reset();
        }
    });
    recording.join();
    playing.join();
    subscribing.join();
    EXPECT(recorded == 4, "recorded " << recorded);
    EXPECT(played == 4, "played " << played);
    EXPECT(churned > 0, "the third thread never subscribed");
}

int main() {
    harness::name() = "threads";
    TEST(test_recording_and_playing_on_two_threads_while_a_third_subscribes);
    return harness::finish();
}
