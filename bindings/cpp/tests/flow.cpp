/*
 * flow.cpp: the hold-to-record flow through the C++ layer (voicenote::flow, voicenote::manual_clock), over a real
 * recorder on a virtual microphone (ALSA's `file` plugin reading 30 s of raw tone, unpaced) and a real player on a
 * file speaker, both made through the C API and owned by detail::handle. The flow's time is a manual clock; its
 * events, the recorder's and the player's come through an event_loop dispatched on the test's own thread.
 *
 * - The scripted path: a tap shows the tip, the clock hides it; press, hold, slide up to lock, stop, play, pause,
 *   seek, trim, send (attachment_ready, then publish without confirmation); press and slide left to cancel (the file
 *   deleted); keys (record held, Escape cancels); toggle mode and confirm().
 * - Errors: a command in the wrong state throws errc::misuse and changes nothing; NaN coordinates and times, an
 *   unknown key, a trim outside the take, options out of range throw errc::invalid_argument; moved-from objects
 *   throw errc::misuse.
 * - Drafts: park, list, restore into preview, clear, in a temporary directory.
 * - Ownership: move-only, nothrow moves; destroying (or moving over) a flow ends its subscriptions; a subscription
 *   destroyed inside its own callback; a flow destroyed inside its own callback on the event thread.
 */
#include "harness.hpp"

#include <voicenote/flow.hpp>
#include <voicenote/player.hpp>
#include <voicenote/recorder.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

#include <dirent.h>

using namespace std::chrono_literals;
using voicenote::errc;
using voicenote::flow;
using voicenote::flow_event;
using voicenote::flow_event_type;
using voicenote::flow_key;
using voicenote::flow_state;
using voicenote::seconds;

using recorder_handle = voicenote::detail::handle<vn_recorder, vn_recorder_destroy>;
using player_handle = voicenote::detail::handle<vn_player, vn_player_destroy>;

static_assert(!std::is_copy_constructible_v<flow>, "flows are move-only");
static_assert(!std::is_copy_assignable_v<flow>, "flows are move-only");
static_assert(std::is_nothrow_move_constructible_v<flow>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<flow>, "moves never throw");
static_assert(!std::is_copy_constructible_v<voicenote::manual_clock>, "clocks are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::manual_clock>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::manual_clock>, "moves never throw");
static_assert(std::is_constructible_v<flow, recorder_handle &, player_handle &>, "made over anything with get()");
static_assert(std::is_constructible_v<flow, voicenote::recorder &, voicenote::player &>, "over the C++ classes");
static_assert(!std::is_constructible_v<flow, player_handle &, recorder_handle &>, "the recorder comes first");
static_assert(!std::is_constructible_v<flow, int &, int &>, "only objects whose get() gives the C handles");

namespace {

std::string directory;  // the test's temporary directory (main)
std::string microphone; // the ALSA configuration of vn_mic, reading 30 s of tone

/** Throws when an expression does not throw voicenote::error with `code`; returns whether it did. */
template <class Action>
bool throws(errc code, Action action, const char *what, int line) {
    try {
        action();
    } catch (const voicenote::error &e) {
        if (e.code() == code) return true;
        return harness::fail(__FILE__, line, std::string(what) + ": threw " + e.name() + " (" + e.what() + ")");
    }
    return harness::fail(__FILE__, line, std::string(what) + ": did not throw");
}
#define EXPECT_THROWS(code, statement) throws(code, [&] { statement; }, #statement, __LINE__)

recorder_handle make_recorder(voicenote::event_loop *loop) {
    auto options =
        voicenote::detail::make_handle<vn_recorder_options, vn_recorder_options_destroy>(vn_recorder_options_create);
    std::string takes = directory + "/takes";
    voicenote::detail::check(vn_recorder_options_set_directory(options.get(), takes.c_str()));
    voicenote::detail::check(vn_recorder_options_set_device(options.get(), "vn_mic", microphone.c_str()));
    if (loop) voicenote::detail::check(vn_recorder_options_set_event_loop(options.get(), loop->get()));
    return voicenote::detail::make_handle<vn_recorder, vn_recorder_destroy>(vn_recorder_create, options.get());
}

player_handle make_player(voicenote::event_loop *loop) {
    auto options =
        voicenote::detail::make_handle<vn_player_options, vn_player_options_destroy>(vn_player_options_create);
    std::string speaker = harness::speaker_configuration(directory + "/heard.raw");
    voicenote::detail::check(vn_player_options_set_device(options.get(), "vn_spk", speaker.c_str()));
    if (loop) voicenote::detail::check(vn_player_options_set_event_loop(options.get(), loop->get()));
    return voicenote::detail::make_handle<vn_player, vn_player_destroy>(vn_player_create, options.get());
}

/** How many finished takes (`*.ogg`) the recorder's directory holds. */
int takes_on_disk() {
    int count = 0;
    std::string takes = directory + "/takes";
    if (DIR *dir = opendir(takes.c_str())) {
        while (dirent *entry = readdir(dir)) {
            std::string name = entry->d_name;
            if (name.size() > 4 && name.compare(name.size() - 4, 4, ".ogg") == 0) count++;
        }
        closedir(dir);
    }
    return count;
}

bool exists(const std::string &path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0;
}

/**
 * A loop, a manual clock, a recorder and a player delivering through the loop, and a flow over them with the
 * loop and the clock; the events seen (touched only on this thread, in dispatch()). Members are destroyed in
 * reverse: the subscription, the flow, then what it used, the loop last.
 */
struct rig {
    std::thread::id host = std::this_thread::get_id();
    std::vector<flow_event> events;
    std::optional<voicenote::flow_view> view; // the last one
    bool off_thread = false;

    voicenote::event_loop loop;
    voicenote::manual_clock clock;
    recorder_handle recorder = make_recorder(&loop);
    player_handle player = make_player(&loop);
    std::optional<flow> the_flow;
    voicenote::subscription subscription;

    explicit rig(voicenote::flow_options options = {}) {
        options.loop = &loop;
        options.clock = &clock;
        the_flow.emplace(recorder, player, options);
        subscription = the_flow->subscribe([this](const flow_event &event) {
            off_thread = off_thread || std::this_thread::get_id() != host;
            if (event.type == flow_event_type::view) view = event.view;
            events.push_back(event);
        });
    }
    flow &f() { return *the_flow; }

    /** Dispatches until `done()` holds (at most 30 s); whether it does. */
    template <class Done>
    bool until(Done done) {
        auto deadline = std::chrono::steady_clock::now() + 30s;
        loop.dispatch();
        while (!done() && std::chrono::steady_clock::now() < deadline) {
            if (loop.wait(100ms)) loop.dispatch();
        }
        return done();
    }
    /** Until the last view is in `state` with at least `duration` recorded. */
    bool until_view(flow_state state, seconds duration = seconds(0)) {
        return until([&] { return view && view->state == state && view->duration >= duration; });
    }
    /** How many events of `type` came. */
    int count(flow_event_type type) const {
        int n = 0;
        for (const auto &event : events) n += event.type == type;
        return n;
    }
    /** The last event of `type` (nullptr: none). */
    const flow_event *last(flow_event_type type) const {
        for (auto it = events.rbegin(); it != events.rend(); ++it)
            if (it->type == type) return &*it;
        return nullptr;
    }
    /** Brings a fresh flow into `state` (recording: 0.3 s recorded); whether it got there. */
    bool reach(flow_state state) {
        if (!until_view(flow_state::idle)) return false;
        if (state == flow_state::idle) return true;
        f().press(200, 200);
        if (state == flow_state::showing_tip) {
            f().release();
            return until_view(flow_state::showing_tip);
        }
        clock.advance(seconds(0.5));
        if (!until_view(flow_state::recording, seconds(0.3))) return false;
        if (state == flow_state::recording) return true;
        f().lock();
        if (state == flow_state::locked) return until_view(flow_state::locked);
        f().stop();
        return until_view(flow_state::preview);
    }
};

}  // namespace

/* ------------------------------------------------------------------------------------------------------------ */

static void test_tap_hold_lock_stop_preview_trim_send() {
    voicenote::flow_options options;
    options.distances = voicenote::flow_distances{75, 50};
    options.times = voicenote::flow_times{seconds(0.5), seconds(2)};
    options.waveform_samples = 40;
    options.confirmation_required = false;
    rig r(options);
    REQUIRE(r.until_view(flow_state::idle), "no first view");
    EXPECT(r.f().state() == flow_state::idle, "not idle");

    // A tap: the tip, hidden when the clock has moved 2 s.
    r.f().press(200, 200);
    r.f().release();
    REQUIRE(r.until_view(flow_state::showing_tip), "no tip");
    EXPECT(r.view->tip_visible, "the tip is not visible");
    r.clock.advance(seconds(1.9));
    EXPECT(r.f().state() == flow_state::showing_tip, "the tip hid early");
    r.clock.advance(seconds(0.1));
    REQUIRE(r.until_view(flow_state::idle), "the tip did not hide");
    EXPECT(!r.view->tip_visible, "the tip is still visible");

    // Hold: recording once the minimum press has passed on the clock.
    int before = takes_on_disk();
    r.f().press(200, 200);
    r.clock.advance(seconds(0.4));
    r.loop.dispatch();
    EXPECT(r.f().state() != flow_state::recording, "recording before the minimum press");
    r.clock.advance(seconds(0.1));
    REQUIRE(r.until_view(flow_state::recording, seconds(1.0)), "no second recorded");
    EXPECT(r.f().state() == flow_state::recording, "state() disagrees");
    EXPECT(!r.view->levels.empty() && r.view->levels.size() <= 40, r.view->levels.size());
    EXPECT(!r.view->accessible_description.empty(), "no accessible description");
    EXPECT(!r.view->toggled, "toggled without toggle mode");

    // Slide up by more than the lock distance: locked; the release that follows is ignored.
    r.f().move(200, 140);
    r.f().release();
    REQUIRE(r.until_view(flow_state::locked, seconds(2.0)), "not locked with 2 s");

    // Stop: the preview, with the options' waveform size.
    r.f().stop();
    REQUIRE(r.until_view(flow_state::preview), "no preview");
    seconds recorded = r.view->duration;
    EXPECT(recorded >= seconds(2.0), recorded.count());
    EXPECT(r.view->waveform.size() == 40, r.view->waveform.size());
    EXPECT(r.view->trim_start == seconds(0) && std::fabs((r.view->trim_end - recorded).count()) < 1e-6,
           r.view->trim_start.count() << "…" << r.view->trim_end.count());

    // Play, pause, seek, trim.
    r.f().play();
    REQUIRE(r.until([&] { return r.view->state == flow_state::preview && r.view->preview_playing; }), "not playing");
    r.f().pause();
    REQUIRE(r.until([&] { return !r.view->preview_playing; }), "not paused");
    r.f().seek(seconds(0.5));
    REQUIRE(r.until([&] { return std::fabs(r.view->preview_position.count() - 0.5) < 1e-3; }),
            "the position is " << r.view->preview_position.count());
    r.f().trim(seconds(0.25), seconds(1.25));  // returns at once; the trimmed event ends it
    REQUIRE(r.until([&] {
        return r.view->state == flow_state::preview && std::fabs(r.view->duration.count() - 1.0) < 1e-6;
    }), "not trimmed: " << r.view->duration.count());
    const flow_event *trimmed = r.last(flow_event_type::trimmed);
    REQUIRE(trimmed && trimmed->status == 0 && !trimmed->code() && std::fabs(trimmed->duration.count() - 1.0) < 1e-6,
            "no trimmed event with the cut take");
    EXPECT(trimmed->waveform.size() == 40, trimmed->waveform.size());

    // Send: attachment_ready, then publish (no confirmation), then idle.
    r.f().send();
    REQUIRE(r.until([&] { return r.count(flow_event_type::publish) == 1 && r.view->state == flow_state::idle; }),
            "not sent");
    const flow_event *ready = r.last(flow_event_type::attachment_ready);
    const flow_event *publish = r.last(flow_event_type::publish);
    REQUIRE(ready && publish && ready < publish, "attachment_ready did not come before publish");
    EXPECT(std::fabs(ready->duration.count() - 1.0) < 1e-6, ready->duration.count());
    EXPECT(ready->waveform.size() == 40, ready->waveform.size());
    EXPECT(exists(ready->path), ready->path);
    EXPECT(ready->payload_json.find("file://") != std::string::npos, ready->payload_json);
    EXPECT(publish->path == ready->path, publish->path);
    EXPECT(r.count(flow_event_type::failed) == 0, "a failure: " << r.last(flow_event_type::failed)->message);
    EXPECT(takes_on_disk() == before + 1, takes_on_disk() << " takes");
    EXPECT(!r.off_thread, "a callback ran off the test's thread");
}

static void test_slide_to_cancel_and_keys() {
    voicenote::flow_options options;
    options.key_inputs = true;
    rig r(options);
    REQUIRE(r.until_view(flow_state::idle), "no first view");
    int before = takes_on_disk();

    // Press, hold, slide left past the cancel distance: idle, the file deleted.
    r.f().press(200, 200);
    r.clock.advance(seconds(0.5));
    REQUIRE(r.until_view(flow_state::recording, seconds(1.0)), "not recording");
    r.f().move(160, 200);
    r.loop.dispatch();
    EXPECT(r.f().state() == flow_state::recording, "cancelled before the cancel distance");
    EXPECT(r.view->slide_to_cancel_alpha < 1.0, r.view->slide_to_cancel_alpha);
    r.f().move(120, 200);
    REQUIRE(r.until_view(flow_state::idle), "not cancelled");
    r.f().release();  // ignored when idle

    // The record key held like the button; Escape cancels.
    r.f().key_down(flow_key::record);
    r.clock.advance(seconds(0.5));
    REQUIRE(r.until_view(flow_state::recording, seconds(0.3)), "the record key did not record");
    r.f().key_down(flow_key::escape);
    r.f().key_up(flow_key::escape);
    REQUIRE(r.until_view(flow_state::idle), "Escape did not cancel");
    r.f().key_up(flow_key::record);
    r.loop.dispatch();

    EXPECT(r.count(flow_event_type::attachment_ready) == 0, "a cancelled take was sent");
    EXPECT(r.count(flow_event_type::failed) == 0, "a failure: " << r.last(flow_event_type::failed)->message);
    EXPECT(takes_on_disk() == before, "cancelled takes are on disk: " << takes_on_disk() - before);
    EXPECT(!r.off_thread, "a callback ran off the test's thread");
}

static void test_toggle_mode_and_confirm() {
    voicenote::flow_options options;
    options.toggle_mode = true;  // confirmation stays required (the default)
    rig r(options);
    REQUIRE(r.until_view(flow_state::idle), "no first view");
    // A tap starts a locked, toggled take; the next press stops it into preview.
    r.f().press(200, 200);
    r.f().release();
    REQUIRE(r.until_view(flow_state::locked, seconds(0.5)), "the tap did not start a take");
    EXPECT(r.view->toggled, "not toggled");
    r.f().press(200, 200);
    r.f().release();
    REQUIRE(r.until_view(flow_state::preview), "the second press did not stop the take");
    // confirm() sends with publish.
    r.f().confirm();
    REQUIRE(r.until([&] { return r.count(flow_event_type::publish) == 1 && r.view->state == flow_state::idle; }),
            "confirm did not publish");
    EXPECT(r.count(flow_event_type::attachment_ready) == 1, r.count(flow_event_type::attachment_ready));

    // With confirmation required, send() alone gives attachment_ready and no publish.
    REQUIRE(r.reach(flow_state::locked), "no take");
    r.f().send();
    REQUIRE(r.until([&] { return r.count(flow_event_type::attachment_ready) == 2; }), "not sent");
    r.until_view(flow_state::idle);
    EXPECT(r.count(flow_event_type::publish) == 1, r.count(flow_event_type::publish));
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_commands_in_the_wrong_state_and_bad_numbers() {
    rig r;
    REQUIRE(r.reach(flow_state::idle), "not idle");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    // Commands that mean nothing when idle: misuse, and the state stays.
    EXPECT_THROWS(errc::misuse, r.f().lock());
    EXPECT_THROWS(errc::misuse, r.f().stop());
    EXPECT_THROWS(errc::misuse, r.f().discard());
    EXPECT_THROWS(errc::misuse, r.f().send());
    EXPECT_THROWS(errc::misuse, r.f().confirm());
    EXPECT_THROWS(errc::misuse, r.f().play());
    EXPECT_THROWS(errc::misuse, r.f().pause());
    EXPECT_THROWS(errc::misuse, r.f().seek(seconds(1)));
    EXPECT_THROWS(errc::misuse, r.f().trim(seconds(0), seconds(1)));
    EXPECT_THROWS(errc::misuse, r.f().park());  // no draft key
    EXPECT(r.f().state() == flow_state::idle, "a misused command changed the state");
    // Inputs that mean nothing are ignored; bad numbers and keys are refused.
    r.f().cancel();
    r.f().deactivate();
    r.f().release();
    r.f().key_down(flow_key::enter);  // key inputs are off: ignored
    EXPECT_THROWS(errc::invalid_argument, r.f().press(nan, 0));
    EXPECT_THROWS(errc::invalid_argument, r.f().move(0, inf));
    EXPECT_THROWS(errc::invalid_argument, r.f().key_down(static_cast<flow_key>(3)));
    EXPECT_THROWS(errc::invalid_argument, r.f().key_up(static_cast<flow_key>(-1)));
    EXPECT_THROWS(errc::invalid_argument, (void)r.f().subscribe(nullptr));
    EXPECT(r.f().state() == flow_state::idle, "a refused input changed the state");

    // Recording: play is misuse; a preview refuses NaN and ranges outside the take.
    REQUIRE(r.reach(flow_state::recording), "not recording");
    EXPECT_THROWS(errc::misuse, r.f().play());
    EXPECT(r.f().state() == flow_state::recording, "a misused play changed the state");
    r.f().stop();
    REQUIRE(r.until_view(flow_state::preview), "no preview");
    EXPECT_THROWS(errc::invalid_argument, r.f().seek(seconds(nan)));
    EXPECT_THROWS(errc::invalid_argument, r.f().trim(seconds(0.2), seconds(0.1)));
    EXPECT_THROWS(errc::invalid_argument, r.f().trim(seconds(0), seconds(1e9)));
    EXPECT_THROWS(errc::invalid_argument, r.f().trim(seconds(nan), seconds(0.1)));
    EXPECT_THROWS(errc::misuse, r.f().lock());
    EXPECT(r.f().state() == flow_state::preview, "a refused trim left the preview");
    r.f().discard();
    REQUIRE(r.until_view(flow_state::idle), "discard did not go idle");

    // Options out of range: the constructor throws.
    auto make = [&](voicenote::flow_options options) { flow refused(r.recorder, r.player, options); };
    voicenote::flow_options o;
    o.distances = voicenote::flow_distances{0, 50};
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o = {};
    o.distances = voicenote::flow_distances{75, nan};
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o = {};
    o.times = voicenote::flow_times{seconds(inf), seconds(2)};
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o = {};
    o.times = voicenote::flow_times{seconds(0.5), seconds(-1)};
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o = {};
    o.waveform_samples = 0;
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o.waveform_samples = 1048577;
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o = {};
    o.draft_key = "";
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o.draft_key = std::string(101, 'k');
    EXPECT_THROWS(errc::invalid_argument, make(o));
    o.draft_key = "k";
    o.drafts_directory = "";
    EXPECT_THROWS(errc::invalid_argument, make(o));

    // The clock refuses to go back or to NaN.
    EXPECT_THROWS(errc::invalid_argument, r.clock.advance(seconds(-0.1)));
    EXPECT_THROWS(errc::invalid_argument, r.clock.advance(seconds(nan)));

    // A moved-from recorder is misuse.
    recorder_handle none;
    EXPECT_THROWS(errc::misuse, flow refused(none, r.player));
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_park_list_restore_and_clear_drafts() {
    const std::string drafts = directory + "/drafts";
    const std::string key = "!room:example.org";
    EXPECT(flow::drafts_list(drafts).empty(), "drafts before any was parked");
    voicenote::flow_options options;
    options.draft_key = key;
    options.drafts_directory = drafts;
    std::string parked_path;
    seconds parked_duration{0};
    {
        rig r(options);
        REQUIRE(r.reach(flow_state::locked), "could not record");
        r.f().park();
        REQUIRE(r.until_view(flow_state::idle), "park did not go idle");
        const flow_event *parked = r.last(flow_event_type::parked);
        REQUIRE(parked && r.count(flow_event_type::parked) == 1, r.count(flow_event_type::parked) << " parked");
        EXPECT(parked < &r.events.back() && r.events.back().type == flow_event_type::view,
               "parked came after the idle view");
        EXPECT(parked->duration > seconds(0.3), parked->duration.count());
        EXPECT(exists(parked->path), parked->path);
        parked_path = parked->path;
        parked_duration = parked->duration;
    }
    auto listed = flow::drafts_list(drafts);
    REQUIRE(listed.size() == 1, listed.size() << " drafts");
    EXPECT(listed[0].key == key && listed[0].path == parked_path, listed[0].key << " " << listed[0].path);
    EXPECT(std::fabs((listed[0].duration - parked_duration).count()) < 1e-3, listed[0].duration.count());

    // Another flow with the key starts in preview with the take; destroyed in preview, the draft stays.
    {
        rig again(options);
        REQUIRE(again.until_view(flow_state::preview), "the draft was not restored");
        EXPECT(std::fabs((again.view->duration - parked_duration).count()) < 1e-3, again.view->duration.count());
        EXPECT(again.f().state() == flow_state::preview, "state() disagrees");
    }
    EXPECT(flow::drafts_list(drafts).size() == 1, "the draft was lost");

    EXPECT_THROWS(errc::invalid_argument, flow::drafts_clear(drafts, ""));
    flow::drafts_clear(drafts, "another key");
    EXPECT(flow::drafts_list(drafts).size() == 1, "clearing another key cleared this one");
    flow::drafts_clear(drafts, key);
    EXPECT(!exists(parked_path), "the draft's audio is still there");
    EXPECT(flow::drafts_list(drafts).empty(), "drafts left after clearing");

    // Two keys parked, then every draft cleared at once.
    for (const char *room : {"room one", "room two"}) {
        voicenote::flow_options each = options;
        each.draft_key = room;
        rig r(each);
        REQUIRE(r.reach(flow_state::preview), "could not record for " << room);
        r.f().park();
        REQUIRE(r.until([&] { return r.count(flow_event_type::parked) == 1; }), "not parked");
    }
    EXPECT(flow::drafts_list(drafts).size() == 2, flow::drafts_list(drafts).size());
    flow::drafts_clear(drafts);
    EXPECT(flow::drafts_list(drafts).empty(), "drafts left after clearing all");
}

/* ------------------------------------------------------------------------------------------------------------ */

static void test_moves_and_destruction_end_subscriptions() {
    rig r;
    REQUIRE(r.until_view(flow_state::idle), "no first view");
    voicenote::flow_options options;
    options.loop = &r.loop;
    options.clock = &r.clock;

    // Destroying a flow ends its subscriptions: the callback and its captures are released.
    bool released = false;
    voicenote::subscription kept;
    {
        auto witness = harness::release_witness(released);
        flow doomed(r.recorder, r.player, options);
        kept = doomed.subscribe([witness](const flow_event &) {});
        witness.reset();
        r.loop.dispatch();
        EXPECT(!released, "released while subscribed");
    }
    EXPECT(released, "destroying the flow did not release its callback");
    kept.reset();  // already ended: nothing happens

    // Moves: the moved-to flow works, the moved-from one is misuse.
    flow moved = std::move(*r.the_flow);
    EXPECT_THROWS(errc::misuse, r.the_flow->press(0, 0));
    EXPECT_THROWS(errc::misuse, (void)r.the_flow->state());
    EXPECT(r.the_flow->get() == nullptr, "the moved-from flow still holds its handle");
    moved.press(200, 200);
    moved.release();
    REQUIRE(r.until_view(flow_state::showing_tip), "the moved flow did not show the tip");  // r's subscription
    EXPECT(moved.state() == flow_state::showing_tip, "state() of the moved flow");

    // Moving over a flow destroys the flow it held, ending its subscriptions.
    released = false;
    flow other(r.recorder, r.player, options);
    {
        auto witness = harness::release_witness(released);
        kept = other.subscribe([witness](const flow_event &) {});
    }
    other = std::move(moved);
    EXPECT(released, "moving over the flow did not release its callback");
    EXPECT(other.state() == flow_state::showing_tip, "the moved-to flow lost its state");

    // A moved-from clock is misuse; a moved one works.
    voicenote::manual_clock clock;
    voicenote::manual_clock taken = std::move(clock);
    EXPECT_THROWS(errc::misuse, clock.advance(seconds(1)));  // NOLINT: moved-from on purpose
    taken.advance(seconds(1));
}

static void test_a_subscription_destroyed_inside_its_own_callback() {
    rig r;
    REQUIRE(r.until_view(flow_state::idle), "no first view");
    int calls = 0;
    bool released = false;
    std::optional<voicenote::subscription> self;
    {
        auto witness = harness::release_witness(released);
        self = r.f().subscribe([&, witness](const flow_event &) {
            calls++;
            self.reset();  // from inside its own callback: no wait, and no later call
        });
    }
    EXPECT(r.until([&] { return calls == 1 && released; }), "calls " << calls << ", released " << released);
    r.f().press(200, 200);
    r.f().release();
    REQUIRE(r.until_view(flow_state::showing_tip), "no tip");  // the rig's subscriber saw the later events
    EXPECT(calls == 1, "the callback ran " << calls << " times");
}

static void test_a_flow_destroyed_inside_its_own_callback() {
    rig r;  // its recorder and player; this flow delivers on the event thread
    // Static: the event thread may still be inside notify() when the wait below returns.
    static harness::waiter waiter;
    std::optional<flow> doomed;
    doomed.emplace(r.recorder, r.player);
    bool subscribed = false, released = false;
    int calls = 0;
    voicenote::subscription subscription;
    {
        auto witness = harness::release_witness(waiter, released);
        subscription = doomed->subscribe([&, witness](const flow_event &) {
            bool first = false;
            if (waiter.wait_until([&] { return subscribed; }, 10000ms)) {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                first = calls++ == 0;
            }
            if (first) doomed.reset();  // vn_flow_destroy inside the flow's own callback
            waiter.notify();
        });
    }
    { std::lock_guard<std::mutex> lock(waiter.mutex()); subscribed = true; }
    waiter.notify();
    EXPECT(waiter.wait_until([&] { return released; }), "the callback was not released");
    std::lock_guard<std::mutex> lock(waiter.mutex());
    EXPECT(calls == 1 && !doomed, "calls " << calls << ", destroyed " << !doomed);
    subscription.reset();  // already ended with its flow: nothing happens
}

int main() {
    harness::name() = "flow";
    harness::temp_directory temp("flow");
    directory = temp.path();
    std::string tone = temp / "mic.raw";
    if (!harness::write_tone(tone, 30, true)) return 1;
    microphone = harness::microphone_configuration(tone);
    TEST(test_tap_hold_lock_stop_preview_trim_send);
    TEST(test_slide_to_cancel_and_keys);
    TEST(test_toggle_mode_and_confirm);
    TEST(test_commands_in_the_wrong_state_and_bad_numbers);
    TEST(test_park_list_restore_and_clear_drafts);
    TEST(test_moves_and_destruction_end_subscriptions);
    TEST(test_a_subscription_destroyed_inside_its_own_callback);
    TEST(test_a_flow_destroyed_inside_its_own_callback);
    return harness::finish();
}
