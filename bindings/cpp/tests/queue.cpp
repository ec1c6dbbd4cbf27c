/*
 * queue.cpp: queue players through the C++ layer (voicenote/queue.hpp and the player's set_data_source,
 * use_messages and next) on a file speaker (ALSA's `file` plugin over `null`, unpaced).
 *
 * - A data source (a std::function) gives the second of two opusenc notes after the first, then nothing: they play
 *   back to back (ITEM_CHANGED, FINISHED for each, then STOPPED; the speaker's file holds both), and the function is
 *   destroyed once the player is.
 * - The answer's setters throw inside the data source (errc::invalid_argument), a URL answer carries its key to
 *   ITEM_CHANGED and fails as a network event, and an answer kept past its call is errc::misuse.
 * - next() refuses without a data source or with nothing loaded (errc::misuse) and skips a paused item; an empty
 *   function unsets the data source and releases the old one.
 * - use_messages plays what a channel's messages name next; invalid JSON is errc::format and keeps the data
 *   source set before.
 * - set_skip_listened ("play unplayed") passes over a note set_listened marked; the others send `listened` (their
 *   key, before their `finished`) and listened() tells them after.
 *
 * Needs opusenc on PATH. Every wait is bounded; "nothing more arrived" is checked after a fence: a volume change,
 * whose CONTEXT comes after every event sent before it.
 */
#include "harness.hpp"

#include <voicenote/player.hpp>
#include <voicenote/queue.hpp>

#include <cmath>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;

static_assert(!std::is_copy_constructible_v<voicenote::queue_answer>, "an answer is a view of one call");
static_assert(!std::is_move_constructible_v<voicenote::queue_answer>, "an answer is a view of one call");
static_assert(std::is_invocable_v<voicenote::queue_data_source, std::string_view, std::string_view,
                                  voicenote::queue_answer &>,
              "a data source takes the current location, its key and the answer");

namespace {

std::string joined(const std::vector<std::string> &lines) {
    std::string text;
    for (const auto &line : lines) text += "\n    " + line;
    return text;
}

/** ITEM_CHANGED ("changed KEY"), FINISHED ("finished LOCATION") and FAILED ("failed STATUS") in order, and the
 *  last context, guarded by the waiter's mutex. */
struct queue_log {
    harness::waiter waiter;
    std::vector<std::string> items;
    std::vector<std::string> changed_locations;
    std::vector<std::string> listened;  // "KEY after N finished"
    int finished = 0, failed = 0;
    std::optional<voicenote::player_state> state;
    double volume = -1;

    std::function<void(const voicenote::player_event &)> callback() {
        return [this](const voicenote::player_event &event) {
            {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                switch (event.type) {
                case voicenote::player_event_type::context:
                    state = event.context.state;
                    volume = event.context.volume;
                    break;
                case voicenote::player_event_type::item_changed:
                    items.push_back("changed " + event.key);
                    changed_locations.push_back(event.location);
                    break;
                case voicenote::player_event_type::finished:
                    finished++;
                    items.push_back("finished " + event.location);
                    break;
                case voicenote::player_event_type::failed:
                    failed++;
                    items.push_back(std::string("failed ") + voicenote::error(event.status, event.message).name());
                    break;
                case voicenote::player_event_type::listened:
                    listened.push_back(event.key + " after " + std::to_string(finished) + " finished");
                    break;
                }
            }
            waiter.notify();
        };
    }

    /** Waits until every event sent before now has arrived: the CONTEXT of a volume change comes after them. */
    bool fence(voicenote::player &player) {
        static int round = 0;
        double target = 0.5 + 0.01 * (++round % 40);
        player.set_volume(target);
        return waiter.wait_until([&] { return std::fabs(volume - target) < 1e-9; });
    }

    /** Waits until `n` items finished and the last context is stopped. */
    bool wait_for_finished(int n) {
        return waiter.wait_until([&] { return finished == n && state == voicenote::player_state::stopped; });
    }

    std::vector<std::string> snapshot() { return waiter.read(items); }

    /**
     * Plays `first` and waits for it and `second` (what the data source gives after it) to finish, then for the
     * fence: "" when exactly those two played, in order, else what went wrong.
     */
    std::string play_back_to_back(voicenote::player &player, const std::string &first, const std::string &second) {
        player.load(first, true);
        std::string problems;
        if (!wait_for_finished(2)) problems += "two FINISHED then STOPPED did not come; ";
        if (!fence(player)) problems += "the fence did not come; ";
        std::vector<std::string> want = {"changed " + first, "finished " + first, "changed " + second,
                                         "finished " + second};
        auto got = snapshot();
        if (got != want) problems += "got:" + joined(got) + "\n  want:" + joined(want);
        return problems;
    }
};

}  // namespace

static void test_two_notes_play_back_to_back() {
    harness::temp_directory directory("queue");
    std::string first = directory / "first.ogg", second = directory / "second.ogg", output = directory / "speaker.raw";
    REQUIRE(harness::write_note(directory, 1.0, first) && harness::write_note(directory, 1.0, second),
            "opusenc failed");
    queue_log log;
    std::atomic<int> asked{0};
    std::atomic<bool> key_differs{false};
    bool released = false;
    {
        voicenote::player player(harness::speaker(output));
        auto subscription = player.subscribe(log.callback());
        auto witness = harness::release_witness(log.waiter, released);
        player.set_data_source([&, witness](std::string_view location, std::string_view key,
                                            voicenote::queue_answer &answer) {
            asked++;
            key_differs = key_differs || location != key;  // local paths: the key is the absolute path
            if (key == first) answer.set_location(second);  // after the second: nothing, the queue ends
        });
        witness.reset();
        std::string played = log.play_back_to_back(player, first, second);
        EXPECT(played.empty(), played);
        EXPECT(asked >= 2, "the data source was asked " << asked << " times");
        EXPECT(!key_differs, "the key of a path differs from its location");
        voicenote::player_context context = player.context();
        EXPECT(context.state == voicenote::player_state::stopped && context.current_time == 0s,
               "state " << static_cast<int>(context.state));
        EXPECT(player.location() == second, player.location());
        EXPECT(!log.waiter.read(released), "the data source was dropped while set");
    }  // destroying the player closes the device and drops the data source
    EXPECT(log.waiter.read(released), "the data source was not released with the player");
    long long frames = harness::frames_written(output), want_frames = static_cast<long long>(2 * harness::rate_hz);
    EXPECT(frames >= want_frames && frames <= want_frames + static_cast<long long>(harness::rate_hz / 10),
           "the speaker holds " << frames << " frames, want " << want_frames << " (one open device, no gap)");
}

/**
 * A data source that throws (a refused answer not caught, or its own exception) ends the queue there; one that
 * destroys its own player (with session hooks, which the player's decoder thread may call after the destroy returns)
 * leaves them allocated: nothing runs freed memory (ASan in the reviews), and the hooks ran.
 */
static void test_a_data_source_that_throws_or_destroys_its_player() {
    harness::temp_directory directory("queue-throw");
    std::string first = directory / "first.ogg", output = directory / "speaker.raw";
    REQUIRE(harness::write_note(directory, 1.0, first), "opusenc failed");
    {
        queue_log log;
        voicenote::player player(harness::speaker(output));
        auto subscription = player.subscribe(log.callback());
        player.set_data_source([](std::string_view, std::string_view, voicenote::queue_answer &answer) {
            answer.set_location("");  // refused: throws inside the data source
        });
        player.load(first, true);
        EXPECT(log.wait_for_finished(1), "the note did not finish after the data source threw");
    }
    harness::waiter waiter;
    std::atomic<int> activated{0}, deactivated{0};
    bool destroyed = false;
    auto options = harness::speaker(output);
    options.activate = [&](voicenote::session_kind) { activated++; return true; };
    options.deactivate = [&](voicenote::session_kind) { deactivated++; };
    auto player = std::make_unique<voicenote::player>(options);
    player->set_data_source([&](std::string_view, std::string_view, voicenote::queue_answer &) {
        std::lock_guard<std::mutex> lock(waiter.mutex());
        player.reset();  // on its own decoder thread
        destroyed = true;
        waiter.notify_locked();
    });
    player->load(first, true);
    EXPECT(waiter.wait_until([&] { return destroyed; }), "the data source was not asked");
    EXPECT(activated >= 1, "activate ran " << activated << " times");
}

static void test_answers_refuse_carry_a_url_key_and_end_with_their_call() {
    harness::temp_directory directory("answer");
    std::string first = directory / "first.ogg";
    REQUIRE(harness::write_note(directory, 1.0, first), "opusenc failed");
    const std::string url = "http://127.0.0.1:1/note.ogg", url_key = "message-7/0";  // nothing listens on port 1
    queue_log log;
    std::mutex mutex;
    std::vector<std::string> refusals;
    vn_queue_answer *kept = nullptr;
    voicenote::player player(harness::speaker("/dev/null"));
    auto subscription = player.subscribe(log.callback());
    player.set_data_source([&](std::string_view, std::string_view key, voicenote::queue_answer &answer) {
        if (key != first) return;  // after the URL fails: nothing, the queue ends
        std::lock_guard<std::mutex> lock(mutex);
        kept = answer.get();
        auto refused = [&](const char *what, const std::function<void()> &call) {
            try {
                call();
                refusals.push_back(std::string(what) + " was taken");
            } catch (const voicenote::error &e) {
                if (e.code() != voicenote::errc::invalid_argument)
                    refusals.push_back(std::string(what) + ": " + e.what());
            }
        };
        refused("an empty location", [&] { answer.set_location(""); });
        refused("an ftp URL", [&] { answer.set_url("ftp://example.org/note.ogg"); });
        refused("an empty key", [&] { answer.set_url(url, {}, std::string_view()); });
        answer.set_location(first);  // replaced by the answer below
        voicenote::http_options http;
        http.headers.emplace_back("Authorization", "Bearer token");
        answer.set_url(url, http, std::string_view(url_key));
    });
    player.load(first, true);
    EXPECT(log.waiter.wait_until([&] { return log.failed == 1 && log.state == voicenote::player_state::not_loaded; }),
           "the URL answer did not fail to load");
    EXPECT(log.fence(player), "the fence did not come");
    std::vector<std::string> want = {"changed " + first, "finished " + first, "changed " + url_key,
                                     "failed VN_E_NETWORK"};
    auto got = log.snapshot();
    EXPECT(got == want, "got:" << joined(got) << "\n  want:" << joined(want));
    {
        std::lock_guard<std::mutex> lock(log.waiter.mutex());
        EXPECT(log.changed_locations.size() == 2 && log.changed_locations[1] == url, "ITEM_CHANGED location");
    }
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT(refusals.empty(), "refusals:" << joined(refusals));
    REQUIRE(kept != nullptr, "the data source kept no answer");
    try {
        voicenote::queue_answer(kept).set_location(first);  // the answer of a call that returned
        EXPECT(false, "an answer kept past its call was taken");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::misuse, e.what());
    }
}

static void test_next_refuses_then_skips_and_unset_releases() {
    harness::temp_directory directory("next");
    std::string first = directory / "first.ogg", second = directory / "second.ogg";
    REQUIRE(harness::write_note(directory, 2.0, first) && harness::write_note(directory, 1.0, second),
            "opusenc failed");
    queue_log log;
    voicenote::player player(harness::speaker("/dev/null"));
    auto subscription = player.subscribe(log.callback());
    auto expect_misuse = [&](const char *when) {
        try {
            player.next();
            EXPECT(false, "next() " << when << " did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::misuse, when << ": " << e.what());
        }
    };
    expect_misuse("without a data source");
    auto source = [&first, &second](std::string_view, std::string_view key, voicenote::queue_answer &answer) {
        if (key == first) answer.set_location(second);
    };
    bool unset_released = false, released = false;
    auto unset_witness = harness::release_witness(log.waiter, unset_released);
    player.set_data_source([source, unset_witness](std::string_view location, std::string_view key,
                                                  voicenote::queue_answer &answer) { source(location, key, answer); });
    unset_witness.reset();
    expect_misuse("with nothing loaded");
    player.set_data_source(nullptr);  // a plain player again: the old function is dropped
    EXPECT(log.waiter.wait_until([&] { return unset_released; }), "the unset data source was not released");
    expect_misuse("after unsetting the data source");

    auto witness = harness::release_witness(log.waiter, released);
    player.set_data_source([source, witness](std::string_view location, std::string_view key,
                                             voicenote::queue_answer &answer) { source(location, key, answer); });
    witness.reset();
    player.load(first);  // paused
    EXPECT(log.waiter.wait_until([&] { return log.state == voicenote::player_state::paused; }), "not paused");
    player.next();  // skips the paused item at once
    EXPECT(log.wait_for_finished(1), "the next note did not play to its end");
    EXPECT(log.fence(player), "the fence did not come");
    std::vector<std::string> want = {"changed " + first, "changed " + second, "finished " + second};
    auto got = log.snapshot();
    EXPECT(got == want, "got:" << joined(got) << "\n  want:" << joined(want));
    EXPECT(!log.waiter.read(released), "the data source was dropped while set");
    player = voicenote::player();  // assigning over the player destroys it, and its data source with it
    EXPECT(log.waiter.read(released), "the data source was not released");
}

static void test_messages_name_what_follows() {
    harness::temp_directory directory("messages");
    std::string first = directory / "first.ogg", second = directory / "second.ogg";
    REQUIRE(harness::write_note(directory, 1.0, first) && harness::write_note(directory, 1.0, second),
            "opusenc failed");
    auto message = [](int id, const std::string &path) {
        return "{\"id\": \"m" + std::to_string(id) + "\", \"user\": {\"id\": \"friend\"}, \"attachments\": "
               "[{\"type\": \"voiceRecording\", \"asset_url\": \"" + path + "\"}]}";
    };
    std::string json = "[" + message(1, first) + ", " + message(2, second) + "]";
    queue_log log;
    voicenote::player player(harness::speaker("/dev/null"));
    auto subscription = player.subscribe(log.callback());
    bool released = false;
    auto witness = harness::release_witness(log.waiter, released);
    player.set_data_source([witness](std::string_view, std::string_view, voicenote::queue_answer &) {});
    witness.reset();
    for (const char *invalid : {"{\"messages\": [", "{\"messages\": 7}"}) {
        try {
            player.use_messages(invalid, std::string_view("me"), voicenote::next_scope::consecutive);
            EXPECT(false, invalid << " was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::format, e.what());
        }
    }
    try {
        player.use_messages(json, std::nullopt, static_cast<voicenote::next_scope>(3));
        EXPECT(false, "an unknown scope was taken");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
    }
    EXPECT(!log.waiter.read(released), "a refused use_messages dropped the data source set before");
    player.use_messages(json, std::string_view("me"), voicenote::next_scope::consecutive);
    EXPECT(log.waiter.wait_until([&] { return released; }), "use_messages did not release the data source it replaced");
    std::string played = log.play_back_to_back(player, first, second);
    EXPECT(played.empty(), played);
}

static void test_play_unplayed_passes_over_a_listened_note() {
    harness::temp_directory directory("unplayed");
    std::string notes[3] = {directory / "a.ogg", directory / "b.ogg", directory / "c.ogg"};
    std::string output = directory / "speaker.raw";
    for (const auto &note : notes) REQUIRE(harness::write_note(directory, 0.5, note), "opusenc failed");
    voicenote::listened_clear();
    EXPECT(!voicenote::listened(notes[1]), "listened before it was heard");
    voicenote::set_listened(notes[1], true);
    EXPECT(voicenote::listened("file://" + notes[1]), "a path and its file:// URL are one note");
    harness::expect_error(voicenote::errc::invalid_argument, [] { voicenote::listened(""); }, "an empty location");
    queue_log log;
    {
        voicenote::player player(harness::speaker(output));
        auto subscription = player.subscribe(log.callback());
        player.set_data_source([&](std::string_view, std::string_view key, voicenote::queue_answer &answer) {
            for (int i = 0; i < 2; i++)
                if (key == notes[i]) answer.set_location(notes[i + 1]);
        });
        player.set_skip_listened(true);
        std::string played = log.play_back_to_back(player, notes[0], notes[2]);
        EXPECT(played.empty(), played);
    }
    auto listened = log.waiter.read(log.listened);
    std::vector<std::string> want = {notes[0] + " after 0 finished", notes[2] + " after 1 finished"};
    EXPECT(listened == want, "listened:" << joined(listened));
    for (const auto &note : notes) EXPECT(voicenote::listened(note), note << " not listened");
    voicenote::set_listened(notes[2], false);
    EXPECT(!voicenote::listened(notes[2]), "still listened after set_listened(false)");
}

int main() {
    harness::name() = "queue";
    harness::temp_directory cache("queue-cache");
    setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);  // remembered positions and downloads stay in the test's own
    TEST(test_two_notes_play_back_to_back);
    TEST(test_a_data_source_that_throws_or_destroys_its_player);
    TEST(test_answers_refuse_carry_a_url_key_and_end_with_their_call);
    TEST(test_next_refuses_then_skips_and_unset_releases);
    TEST(test_messages_name_what_follows);
    TEST(test_play_unplayed_passes_over_a_listened_note);
    return harness::finish();
}
