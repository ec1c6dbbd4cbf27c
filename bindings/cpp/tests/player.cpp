/*
 * player.cpp: the C++ player (voicenote/player.hpp) against real ALSA PCMs — an opusenc note plays to its end on a
 * file speaker (ALSA's `file` plugin over `null`, unpaced: the frames it writes are the note's), with the current
 * context first, FINISHED naming the location and the frames matching the duration; pause, seek, rate, volume and
 * skip silence show in the context; events reach the test's thread through an event_loop; a missing file is a
 * FAILED event (errc::not_found: a load returns at once and never throws for the file itself) while refused calls
 * throw at once (errc::unsupported, invalid_argument, misuse); NaN seeks and out-of-range rates are refused;
 * byte sources and URLs load; session hooks refuse and rethrow; the player is move-only and nothrow-movable,
 * destroying it (or assigning over it) ends its subscriptions, and a subscription may end inside its own callback;
 * made with `mpris`, an idle player has its bus name but is not on the bus, and set_metadata takes its texts (what
 * the desktop sees of a loaded note is bindings/c/tests/desktop.c's and the Python suite's, on a private bus).
 *
 * Needs opusenc on PATH. Every wait is bounded and waits for a condition.
 */
#include "harness.hpp"

#include <voicenote/player.hpp>
#include <voicenote/recorder.hpp>

#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

using namespace std::chrono_literals;

static_assert(!std::is_copy_constructible_v<voicenote::player>, "players are move-only");
static_assert(!std::is_copy_assignable_v<voicenote::player>, "players are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::player>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::player>, "moves never throw");
static_assert(std::is_copy_constructible_v<voicenote::player_event>, "events are plain values");
static_assert(std::is_same_v<decltype(voicenote::player_context::current_time), voicenote::seconds>,
              "times are seconds");

namespace {

/** What a subscriber saw, guarded by the waiter's mutex. */
struct event_log {
    harness::waiter waiter;
    std::vector<voicenote::player_event> events;
    std::optional<voicenote::player_state> last_state;
    std::thread::id foreign_thread;  // set when a callback ran on an unexpected thread (checked by the loop test)

    std::function<void(const voicenote::player_event &)> callback() {
        return [this](const voicenote::player_event &event) { add(event); };
    }
    void add(const voicenote::player_event &event) {
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            events.push_back(event);
            if (event.type == voicenote::player_event_type::context) last_state = event.context.state;
        }
        waiter.notify();
    }
    /** Events of `type` so far (call under the mutex, or when no callback can run). */
    int count(voicenote::player_event_type type) const {
        int n = 0;
        for (const auto &event : events) n += event.type == type;
        return n;
    }
    /** Waits until `type` came `n` times and the last context is `state`. */
    bool wait_for(voicenote::player_event_type type, int n, voicenote::player_state state) {
        return waiter.wait_until([&] { return count(type) >= n && last_state == state; });
    }
    std::vector<voicenote::player_event> snapshot() { return waiter.read(events); }
};

bool near(double a, double b, double tolerance) { return std::fabs(a - b) <= tolerance; }

}  // namespace

static void test_plays_a_note_to_its_end() {
    harness::temp_directory directory("play");
    std::string note = directory / "note.ogg", output = directory / "speaker.raw";
    REQUIRE(harness::write_note(directory, 2.0, note), "opusenc failed");
    event_log log;
    {
        voicenote::player player(harness::speaker(output));
        voicenote::subscription subscription = player.subscribe(log.callback());
        EXPECT(subscription.id() != 0, "no subscription id");
        player.load(note, true, 1.5s);
        EXPECT(log.wait_for(voicenote::player_event_type::finished, 1, voicenote::player_state::stopped),
               "no FINISHED then STOPPED");
        auto events = log.snapshot();
        REQUIRE(!events.empty(), "no event");
        EXPECT(events.front().type == voicenote::player_event_type::context &&
                   events.front().context.state == voicenote::player_state::not_loaded,
               "the first event is not the current context");
        bool playing_named = false, hint_shown = false;
        for (const auto &event : events) {
            if (event.type == voicenote::player_event_type::context) {
                const auto &context = event.context;
                bool playing = context.state == voicenote::player_state::playing;
                playing_named = playing_named || (playing && context.location == note);
                hint_shown = hint_shown || (context.duration_is_estimate && context.duration == 1.5s);
            }
            if (event.type == voicenote::player_event_type::finished) EXPECT(event.location == note, event.location);
            EXPECT(event.type != voicenote::player_event_type::failed,
                   event.code().message() << ": " << event.message);
        }
        EXPECT(playing_named, "no PLAYING context naming the note");
        EXPECT(hint_shown, "the duration hint never showed");
        voicenote::player_context context = player.context();
        EXPECT(context.state == voicenote::player_state::stopped && context.current_time == 0s,
               "after the end: state " << static_cast<int>(context.state) << " at " << context.current_time.count());
        EXPECT(near(context.duration.count(), 2.0, 0.01) && !context.duration_is_estimate, context.duration.count());
        EXPECT(context.buffered_fraction == 1 && !context.code() && context.location.empty(),
               context.buffered_fraction << " " << context.last_status << " " << context.location);
        EXPECT(player.location() == note, player.location());
    }  // the player is destroyed: the device is closed and the speaker's file complete
    long long frames = harness::frames_written(output);
    double want = 2.0 * harness::rate_hz;
    EXPECT(frames >= 0 && near(static_cast<double>(frames), want, 0.02 * want), frames << " frames, want " << want);
}

static void test_pause_seek_rate_and_settings_show_in_the_context() {
    harness::temp_directory directory("settings");
    std::string note = directory / "long.ogg";
    REQUIRE(harness::write_note(directory, 20.0, note), "opusenc failed");
    event_log log;
    voicenote::player player(harness::speaker("/dev/null"));
    auto subscription = player.subscribe(log.callback());
    player.load(note);  // not autoplay: it ends paused at 0
    EXPECT(log.waiter.wait_until([&] { return log.last_state == voicenote::player_state::paused; }), "not paused");
    EXPECT(player.context().current_time == 0s, player.context().current_time.count());

    player.seek(12.5s);
    player.set_rate(2.0);
    player.set_volume(0.25);
    player.set_skip_silence(true);
    player.set_leveling(true, -20, 3);
    auto refused = harness::error_of([&] { player.set_leveling(true, -5); });
    EXPECT(refused == voicenote::errc::invalid_argument, harness::name_of(refused));
    EXPECT(log.waiter.wait_until([&] {
        if (log.events.empty()) return false;
        const auto &context = log.events.back().context;
        return context.skip_silence && !context.is_seeking && context.state == voicenote::player_state::paused;
    }), "the settings' contexts did not come");
    voicenote::player_context context = player.context();
    EXPECT(context.leveling && context.leveling_target_lufs == -20 && context.leveling_offset_db == 3 &&
               context.leveling_gain_db == 0,  // on from the next note loaded
           context.leveling_target_lufs);
    EXPECT(context.state == voicenote::player_state::paused && near(context.current_time.count(), 12.5, 0.001),
           "paused at " << context.current_time.count());
    EXPECT(context.rate == 2.0 && context.volume == 0.25 && context.skip_silence,
           context.rate << " " << context.volume);

    // Refused numbers throw before anything changes.
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double time : {nan, inf, -inf}) {
        try {
            player.seek(voicenote::seconds(time));
            EXPECT(false, "seek(" << time << ") was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
        }
    }
    for (double rate : {0.0, 0.49, 2.51, 3.0, nan, inf}) {
        try {
            player.set_rate(rate);
            EXPECT(false, "set_rate(" << rate << ") was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
        }
    }
    for (double volume : {-0.01, 1.01, nan}) {
        try {
            player.set_volume(volume);
            EXPECT(false, "set_volume(" << volume << ") was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
        }
    }
    context = player.context();
    EXPECT(context.rate == 2.0 && context.volume == 0.25 && near(context.current_time.count(), 12.5, 0.001),
           "a refused call changed the context");

    // Playing from 12.5 s pauses where the listener is, once it is heard; stop goes back to 0.
    player.seek(0s);
    player.set_rate(0.5);
    harness::waiter paused_waiter;
    bool paused_inside = false;
    auto pauser = player.subscribe([&](const voicenote::player_event &event) {
        if (event.type == voicenote::player_event_type::context &&
            event.context.state == voicenote::player_state::playing && event.context.current_time > 0s) {
            player.pause();  // allowed inside callbacks
            {
                std::lock_guard<std::mutex> lock(paused_waiter.mutex());
                paused_inside = true;
            }
            paused_waiter.notify();
        }
    });
    std::size_t before = log.snapshot().size();
    player.play();
    EXPECT(paused_waiter.wait_until([&] { return paused_inside; }), "no PLAYING context came");
    pauser.reset();
    EXPECT(log.waiter.wait_until([&] {
        bool played = false;
        for (std::size_t i = before; i < log.events.size(); i++) {
            if (log.events[i].type != voicenote::player_event_type::context) continue;
            played = played || log.events[i].context.state == voicenote::player_state::playing;
            if (played && log.events[i].context.state == voicenote::player_state::paused) return true;
        }
        return false;
    }), "no PLAYING then PAUSED context");
    context = player.context();
    EXPECT(context.state == voicenote::player_state::paused && context.current_time > 0s && context.current_time < 20s,
           "state " << static_cast<int>(context.state) << " at " << context.current_time.count());
    player.stop();
    context = player.context();
    EXPECT(context.state == voicenote::player_state::stopped && context.current_time == 0s &&
               near(context.duration.count(), 20.0, 0.01),
           "after stop: state " << static_cast<int>(context.state) << " at " << context.current_time.count());
}

static void test_a_missing_file_is_a_failed_event() {
    harness::temp_directory directory("missing");
    std::string missing = directory / "no-such-note.ogg", output = directory / "speaker.raw";
    event_log log;
    voicenote::player player(harness::speaker(output));
    auto subscription = player.subscribe(log.callback());
    player.load(missing, true, 3s);  // returns at once: the file is opened on the player's thread
    EXPECT(log.wait_for(voicenote::player_event_type::failed, 1, voicenote::player_state::not_loaded),
           "no FAILED then NOT_LOADED");
    for (const auto &event : log.snapshot()) {
        if (event.type != voicenote::player_event_type::failed) continue;
        EXPECT(event.code() == voicenote::errc::not_found, event.status);
        EXPECT(!event.message.empty(), "a FAILED event without a message");
    }
    voicenote::player_context context = player.context();
    EXPECT(context.state == voicenote::player_state::not_loaded && context.code() == voicenote::errc::not_found &&
               context.duration == 0s,
           "state " << static_cast<int>(context.state) << ", last status " << context.last_status);
    EXPECT(player.location() == missing, "the failed location was not kept: " << player.location());

    auto expect_thrown = [](voicenote::errc code, const char *what, const std::function<void()> &call) {
        try {
            call();
            EXPECT(false, what << " did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == code, what << ": " << e.what());
            EXPECT(!e.detail().empty(), what << ": no detail");
        }
    };
    expect_thrown(voicenote::errc::misuse, "play after a failed load", [&] { player.play(); });
    expect_thrown(voicenote::errc::unsupported, "a gopher URL", [&] { player.load("gopher://example.org/a.ogg"); });
    expect_thrown(voicenote::errc::invalid_argument, "an empty location", [&] { player.load(""); });
    expect_thrown(voicenote::errc::invalid_argument, "a NaN hint",
                  [&] { player.load(missing, false, voicenote::seconds(std::nan(""))); });
    expect_thrown(voicenote::errc::invalid_argument, "a URL of another scheme",
                  [&] { player.load_url("ftp://example.org/a.ogg"); });
    expect_thrown(voicenote::errc::invalid_argument, "an empty key",
                  [&] { player.load_url("http://127.0.0.1:1/a.ogg", {}, std::string_view()); });
    expect_thrown(voicenote::errc::invalid_argument, "a progress interval of 0",
                  [] {
                      voicenote::player_options options;
                      options.progress_interval = 0s;
                      voicenote::player refused(options);
                  });
    expect_thrown(voicenote::errc::invalid_argument, "a configuration without a device", [] {
        voicenote::player_options options;
        options.device_configuration = "pcm.x { type null }";
        voicenote::player refused(options);
    });
    expect_thrown(voicenote::errc::invalid_argument, "a resume limit over 100000", [] {
        voicenote::player_options options;
        options.resume_limit = 100001;
        voicenote::player refused(options);
    });
    EXPECT(log.snapshot().size() >= 2 && harness::frames_written(output) <= 0, "something played");
}

static void test_events_reach_the_host_thread_through_the_loop() {
    harness::temp_directory directory("loop");
    std::string note = directory / "note.ogg";
    REQUIRE(harness::write_note(directory, 1.0, note), "opusenc failed");
    voicenote::event_loop loop;
    voicenote::player_options options = harness::speaker("/dev/null");
    options.loop = &loop;
    options.progress_interval = 250ms;
    voicenote::player player(options);
    std::thread::id host = std::this_thread::get_id();
    std::vector<voicenote::player_event> events;
    bool elsewhere = false;
    auto subscription = player.subscribe([&](const voicenote::player_event &event) {
        events.push_back(event);
        elsewhere = elsewhere || std::this_thread::get_id() != host;
    });
    player.load(note, true);
    auto finished = [&] {
        for (const auto &event : events)
            if (event.type == voicenote::player_event_type::finished) return true;
        return false;
    };
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!finished() && std::chrono::steady_clock::now() < deadline) {
        if (loop.wait(1000ms)) loop.dispatch();
    }
    EXPECT(finished(), "no FINISHED through the loop (" << events.size() << " events)");
    EXPECT(!elsewhere, "a callback ran off the dispatching thread");
    EXPECT(!events.empty() && events.front().type == voicenote::player_event_type::context, "the first event");
}

static void test_ownership_moves_and_destruction() {
    harness::temp_directory directory("moves");
    bool released = false, assigned_released = false;
    voicenote::subscription kept;
    {
        voicenote::player first(harness::speaker("/dev/null"));
        auto witness = harness::release_witness(released);
        kept = first.subscribe([witness](const voicenote::player_event &) {});
        witness.reset();
        vn_player *c_player = first.get();
        voicenote::player second(std::move(first));
        EXPECT(second.get() == c_player && first.get() == nullptr, "the move did not take the handle");  // NOLINT
        try {
            (void)first.context();  // NOLINT: a moved-from player gives the C call NULL
            EXPECT(false, "context() of a moved-from player did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::misuse, e.what());
        }
        EXPECT(second.context().state == voicenote::player_state::not_loaded, "the moved-to player works");
        EXPECT(!released, "the callback is held while subscribed");

        // Assigning over a player destroys it (and ends its subscriptions) before taking the other's.
        voicenote::player third(harness::speaker("/dev/null"));
        auto other_witness = harness::release_witness(assigned_released);
        voicenote::subscription ended = third.subscribe([other_witness](const voicenote::player_event &) {});
        other_witness.reset();
        third = std::move(second);
        EXPECT(assigned_released, "assigning over a player did not end its subscriptions");
        EXPECT(third.get() == c_player && !released, "the assigned player is the first one");
        ended.reset();  // already ended by the destroy: nothing happens
    }
    EXPECT(released, "destroying the player did not release the callback");
    kept.reset();
    EXPECT(!kept, "reset empties it");
    voicenote::player player;
    harness::expect_error(
        voicenote::errc::invalid_argument, [&] { (void)player.subscribe(nullptr); }, "an empty callback");
}

static void test_a_subscription_ended_inside_its_own_callback() {
    harness::temp_directory directory("self");
    std::string note = directory / "note.ogg";
    REQUIRE(harness::write_note(directory, 1.0, note), "opusenc failed");
    voicenote::player player(harness::speaker("/dev/null"));
    // The current context comes at once, on the event thread, maybe before subscribe() has returned: the callback
    // waits for its subscription to be stored before it ends it (self_ending_subscriber).
    harness::self_ending_subscriber self;
    self.subscribe(player);
    event_log log;
    auto other = player.subscribe(log.callback());
    player.load(note, true);
    EXPECT(log.wait_for(voicenote::player_event_type::finished, 1, voicenote::player_state::stopped), "no FINISHED");
    EXPECT(self.waiter.wait_until([&] { return self.released; }), "the callback was not released");
    std::lock_guard<std::mutex> lock(self.waiter.mutex());
    EXPECT(self.calls == 1, "the callback ran " << self.calls << " times");
}

static void test_a_memory_source_and_a_url_load() {
    harness::temp_directory directory("source");
    std::string note = directory / "note.ogg", output = directory / "speaker.raw";
    REQUIRE(harness::write_note(directory, 1.0, note), "opusenc failed");
    std::ifstream in(note, std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(!bytes.empty(), "cannot read the note");
    event_log log;
    {
        voicenote::player player(harness::speaker(output));
        auto subscription = player.subscribe(log.callback());
        {
            voicenote::source source = voicenote::source::memory(bytes);
            player.load_source(source, true);
        }  // the player keeps what it reads
        EXPECT(log.wait_for(voicenote::player_event_type::finished, 1, voicenote::player_state::stopped),
               "the memory source did not play to its end");
        EXPECT(player.location() == "memory", player.location());

        // A URL where nothing listens: the load returns at once, the failure is an event.
        voicenote::http_options http;
        http.headers.emplace_back("Authorization", "Bearer token");
        http.connect_timeout = 5s;
        player.load_url("http://127.0.0.1:1/note.ogg", http, std::string_view("message-1/0"), true);
        EXPECT(log.wait_for(voicenote::player_event_type::failed, 1, voicenote::player_state::not_loaded),
               "the URL did not fail");
        for (const auto &event : log.snapshot())
            if (event.type == voicenote::player_event_type::failed)
                EXPECT(event.code() == voicenote::errc::network, event.status << ": " << event.message);
        EXPECT(player.location() == "http://127.0.0.1:1/note.ogg", player.location());
    }
    long long frames = harness::frames_written(output);
    EXPECT(frames >= 0 && near(static_cast<double>(frames), harness::rate_hz, 0.02 * harness::rate_hz),
           frames << " frames");
}

static void test_session_hooks_refuse_and_rethrow() {
    harness::temp_directory directory("hooks");
    std::string note = directory / "note.ogg";
    REQUIRE(harness::write_note(directory, 1.0, note), "opusenc failed");
    enum { allow, refuse, throw_error, throw_other } mode = refuse;
    std::atomic<int> activated{0}, deactivated{0};
    std::atomic<bool> wrong_kind{false};
    harness::waiter waiter;
    {
        voicenote::player_options options = harness::speaker("/dev/null");
        options.activate = [&](voicenote::session_kind kind) {
            wrong_kind = wrong_kind || kind != voicenote::session_kind::playback;
            activated++;
            if (mode == throw_error) throw voicenote::error(VN_E_PERMISSION, "the host is in a call");
            if (mode == throw_other) throw std::runtime_error("host failure");
            return mode == allow;
        };
        options.deactivate = [&](voicenote::session_kind kind) {
            wrong_kind = wrong_kind || kind != voicenote::session_kind::playback;
            deactivated++;
            waiter.notify();
        };
        voicenote::player player(options);
        event_log log;
        auto subscription = player.subscribe(log.callback());
        try {
            player.load(note, true);
            EXPECT(false, "a refused autoplay load did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::busy, e.what());
        }
        EXPECT(player.context().state == voicenote::player_state::not_loaded, "a refused load changed the state");
        player.load(note);
        EXPECT(log.waiter.wait_until([&] { return log.last_state == voicenote::player_state::paused; }), "not paused");
        mode = throw_error;
        try {
            player.play();
            EXPECT(false, "play did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::permission && e.detail() == "the host is in a call", e.what());
        }
        mode = throw_other;
        try {
            player.play();
            EXPECT(false, "play did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::busy && e.detail().find("host failure") != std::string::npos, e.what());
        }
        mode = allow;
        player.play();
        EXPECT(log.wait_for(voicenote::player_event_type::finished, 1, voicenote::player_state::stopped),
               "no FINISHED");
        EXPECT(waiter.wait_until([&] { return deactivated >= 1; }), "deactivate was not told after the end");
        EXPECT(activated == 4, "activate asked " << activated << " times");
    }
    EXPECT(!wrong_kind, "a hook was asked about another kind");
}

static void test_mpris_options_name_and_metadata() {
    harness::temp_directory directory("mpris");
    voicenote::player plain(harness::speaker(directory / "a.raw"));
    EXPECT(!plain.mpris_name() && !plain.mpris_exported(), "a player without mpris has an MPRIS name");
    plain.set_metadata("/notes/a.ogg", "ignored");  // nothing to show: no failure
    auto options = harness::speaker(directory / "b.raw");
    options.mpris = "Chat 2";
    options.mpris_desktop_entry = "org.example.Chat";
    voicenote::player shown(options);
    auto name = shown.mpris_name();
    EXPECT(name && name->rfind("org.mpris.MediaPlayer2.Chat_2.instance", 0) == 0, (name ? *name : "no name"));
    EXPECT(!shown.mpris_exported(), "an idle player is on the bus");
    shown.set_metadata("/notes/a.ogg", "Voice message", "Alice", "file:///avatars/alice.png");
    harness::expect_error(voicenote::errc::invalid_argument, [&] { shown.set_metadata("", "t"); }, "an empty key");
    options.pause_other_players = true;  // taken (what it does is the C and Python suites', with fake players)
    voicenote::player pausing(options);
    options.mpris = "";
    harness::expect_error(voicenote::errc::invalid_argument, [&] { voicenote::player refused(options); },
                          "an empty identity");
}

// What a role does on a sound server is the Swift and Python suites' (a private PulseAudio and its ducking).
static void test_stream_roles_are_taken_and_checked() {
    voicenote::player_options options;
    options.stream_role = "phone";
    voicenote::player roled(options);
    options.stream_role = "";
    harness::expect_error(voicenote::errc::invalid_argument, [&] { voicenote::player refused(options); },
                          "an empty role");
    voicenote::recorder_options recording;
    recording.stream_role = "phone";
    voicenote::recorder recorder(recording);
    recording.stream_role = std::string(65, 'a');
    harness::expect_error(voicenote::errc::invalid_argument, [&] { voicenote::recorder refused(recording); },
                          "a role of 65 bytes");
}

int main() {
    harness::name() = "player";
    harness::temp_directory cache("player-cache");
    setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);  // remembered positions and downloads stay in the test's own
    TEST(test_plays_a_note_to_its_end);
    TEST(test_pause_seek_rate_and_settings_show_in_the_context);
    TEST(test_a_missing_file_is_a_failed_event);
    TEST(test_events_reach_the_host_thread_through_the_loop);
    TEST(test_ownership_moves_and_destruction);
    TEST(test_a_subscription_ended_inside_its_own_callback);
    TEST(test_a_memory_source_and_a_url_load);
    TEST(test_session_hooks_refuse_and_rethrow);
    TEST(test_mpris_options_name_and_metadata);
    TEST(test_stream_roles_are_taken_and_checked);
    return harness::finish();
}
