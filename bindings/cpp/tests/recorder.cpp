/*
 * recorder.cpp: voicenote::recorder over a virtual microphone (ALSA's `file` plugin reading a raw 48 kHz tone; it
 * delivers as fast as it is read, so takes are bounded by the maximum length or stopped after a step was seen) —
 * a take from begin to finished (path, duration, size, waveform, levels), pause and resume, cancel, events through
 * an event_loop on the test's thread (with a focus group), an AAC take with encoder and intervals, the session
 * hooks (called, refusing, throwing, held for the recorder's life), errors (a missing device, misuse, numbers
 * refused), ownership, and the subscription contract.
 */
#include "harness.hpp"

#include <voicenote/recorder.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using voicenote::recorder_event_type;
using voicenote::recorder_state;

static_assert(!std::is_copy_constructible_v<voicenote::recorder>, "recorders are move-only");
static_assert(!std::is_copy_assignable_v<voicenote::recorder>, "recorders are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::recorder>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::recorder>, "moves never throw");
static_assert(std::is_copy_constructible_v<voicenote::recorder_event>, "events are plain values");
static_assert(std::is_same_v<decltype(voicenote::recorder_event{}.duration), voicenote::seconds>, "times are seconds");

using harness::error_of;

/** The player tests' tolerance for a duration (bindings/c/tests/player.c: distance < 0.01 s). */
constexpr double tolerance_s = 0.01;

/** The options' limits with `maximum` and `warning` (no minimum). */
static voicenote::recorder_limits limits(voicenote::seconds maximum, voicenote::seconds warning = 0s) {
    voicenote::recorder_limits limits;
    limits.maximum = maximum;
    limits.warning = warning;
    return limits;
}

/** A directory with a virtual microphone reading `tone_s` of the tone, and a "takes" directory for the recorder. */
struct rig {
    harness::temp_directory directory{"recorder"};
    std::string tone = directory / "mic.raw";
    std::string takes = directory / "takes";
    bool ready = false;

    explicit rig(double tone_s = 3.0) { ready = harness::write_tone(tone, tone_s, /*raw=*/true); }

    /** Options recording from the microphone into `takes`. */
    voicenote::recorder_options options() const {
        voicenote::recorder_options options;
        options.directory = takes;
        options.device = "vn_mic";
        options.device_configuration = harness::microphone_configuration(tone);
        return options;
    }
    /** The same, with the limits `maximum` and `warning` (no minimum). */
    voicenote::recorder_options options(voicenote::seconds maximum, voicenote::seconds warning = 0s) const {
        auto options = this->options();
        options.limits = limits(maximum, warning);
        return options;
    }
    /** The names of the files in `takes` (none when it does not exist). */
    std::vector<std::string> files() const {
        std::vector<std::string> names;
        std::error_code ignored;
        for (const auto &entry : fs::directory_iterator(takes, ignored)) names.push_back(entry.path().filename());
        return names;
    }
};

/** Every event of one recorder, kept in order; waits are bounded. */
struct event_log {
    harness::waiter waiter;
    std::vector<voicenote::recorder_event> events;

    void add(const voicenote::recorder_event &event) {
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            events.push_back(event);
        }
        waiter.notify();
    }
    std::function<void(const voicenote::recorder_event &)> callback() {
        return [this](const voicenote::recorder_event &event) { add(event); };
    }
    /** Whether the take ended: a stopped context after a recording one (call with the mutex held). */
    bool ended() const {
        bool recorded = false;
        for (const auto &event : events) {
            if (event.type != recorder_event_type::context) continue;
            if (event.context.state == recorder_state::recording) recorded = true;
            if (event.context.state == recorder_state::stopped && recorded) return true;
        }
        return false;
    }
    /** Whether a recording context of at least `duration` came (call with the mutex held). */
    bool recorded(voicenote::seconds duration) const {
        for (const auto &event : events) {
            if (event.type == recorder_event_type::context && event.context.state == recorder_state::recording &&
                event.context.duration >= duration)
                return true;
        }
        return false;
    }
    bool wait_ended() {
        return waiter.wait_until([this] { return ended(); });
    }
    bool wait_recorded(voicenote::seconds duration) {
        return waiter.wait_until([this, duration] { return recorded(duration); });
    }
    /** A copy of the events so far. */
    std::vector<voicenote::recorder_event> snapshot() { return waiter.read(events); }
};

/** The first event of `type`, or null. */
static const voicenote::recorder_event *first(const std::vector<voicenote::recorder_event> &events,
                                              recorder_event_type type) {
    for (const auto &event : events) {
        if (event.type == type) return &event;
    }
    return nullptr;
}

static void test_a_take_from_begin_to_finished() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(1.5s, 0.5s);
    voicenote::recorder recorder(options);
    EXPECT(recorder.context().state == recorder_state::stopped && recorder.context().duration == 0s &&
               recorder.path().empty(),
           "a new recorder is stopped with no path");
    event_log log;
    auto subscription = recorder.subscribe(log.callback());
    recorder.begin();
    REQUIRE(log.wait_ended(), "the take did not end");
    auto events = log.snapshot();

    const auto *finished = first(events, recorder_event_type::finished);
    REQUIRE(finished != nullptr, "no finished event");
    EXPECT(fs::exists(finished->path) && fs::path(finished->path).extension() == ".ogg" &&
               fs::path(finished->path).parent_path() == r.takes,
           finished->path);
    EXPECT(std::abs(finished->duration.count() - 1.5) < tolerance_s, finished->duration.count());
    EXPECT(finished->size_bytes > 0 &&
               static_cast<std::uintmax_t>(finished->size_bytes) == fs::file_size(finished->path),
           finished->size_bytes);
    EXPECT(finished->format == voicenote::recording_format::opus, static_cast<int>(finished->format));
    EXPECT(finished->waveform.size() == VN_WAVEFORM_DEFAULT_SAMPLES, finished->waveform.size());
    float loudest = 0;
    for (float value : finished->waveform) {
        EXPECT(value >= 0 && value <= 1, value);
        loudest = std::max(loudest, value);
    }
    EXPECT(loudest > 0.1f, "the tone is not silence: " << loudest);
    EXPECT(r.files() == std::vector<std::string>{fs::path(finished->path).filename()}, "no .part is left");

    // Warning, reached, finished, in that order; the warning up to one capture chunk (8192 frames) late.
    std::vector<recorder_event_type> others;
    for (const auto &event : events)
        if (event.type != recorder_event_type::context) others.push_back(event.type);
    EXPECT((others == std::vector<recorder_event_type>{recorder_event_type::max_duration_warning,
                                                       recorder_event_type::max_duration_reached,
                                                       recorder_event_type::finished}),
           others.size() << " other events");
    if (const auto *warning = first(events, recorder_event_type::max_duration_warning)) {
        EXPECT(warning->remaining <= 0.5s && warning->remaining.count() >= 0.5 - 8192.0 / 48000,
               warning->remaining.count());
    }

    // Contexts: begin's own first (recording, 0 s, the .part), steps in order, the stopped one last with the file.
    const auto *begun = first(events, recorder_event_type::context);
    EXPECT(begun && begun->context.state == recorder_state::recording && begun->context.duration == 0s &&
               begun->context.path == finished->path + ".part",
           (begun ? begun->context.path : "no context"));
    double previous = 0;
    for (const auto &event : events) {
        if (event.type != recorder_event_type::context || event.context.state != recorder_state::recording) continue;
        EXPECT(event.context.duration.count() >= previous, event.context.duration.count());
        previous = event.context.duration.count();
        EXPECT(0 <= event.context.average_power && event.context.average_power <= event.context.peak_power &&
                   event.context.peak_power <= 1,
               event.context.average_power << " " << event.context.peak_power);
        // A file microphone outruns a slowed encoder (sanitizers): overruns are counted, never fatal.
        EXPECT(event.context.overruns >= 0, event.context.overruns);
    }
    const auto &last = events.back();
    EXPECT(last.type == recorder_event_type::context && last.context.state == recorder_state::stopped &&
               std::abs(last.context.duration.count() - 1.5) < tolerance_s && last.context.path == finished->path,
           "the last event is the stopped context");

    auto now = recorder.context();
    EXPECT(now.state == recorder_state::stopped && now.duration == last.context.duration && now.path == finished->path,
           now.path);
    EXPECT(recorder.path() == finished->path, recorder.path());

    // One level per 0.1 s meter step of captured audio, kept for the whole take.
    auto levels = recorder.levels(1000);
    EXPECT(!levels.empty() && levels.size() <= 15, levels.size());
    for (float value : levels) EXPECT(value >= 0 && value <= 1, value);
    auto tail = recorder.levels(5);
    EXPECT(levels.size() >= 5 && tail == std::vector<float>(levels.end() - 5, levels.end()), tail.size());
    EXPECT(recorder.levels(0).empty(), "no levels asked");
    EXPECT(recorder.levels(std::numeric_limits<std::ptrdiff_t>::max()) == levels,
           "a huge count allocates only what there is");

    // The take ended by itself: stop and cancel are misuse now.
    EXPECT(error_of([&] { recorder.stop(); }) == voicenote::errc::misuse, "stop after the end");
    EXPECT(error_of([&] { recorder.cancel(); }) == voicenote::errc::misuse, "cancel after the end");
}

static void test_voice_cleanup_on_off_and_between_takes() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(1.5s, 0.5s);
    EXPECT(!voicenote::recorder(options).voice_cleanup(), "off by default");
    options.voice_cleanup = true;
    voicenote::recorder recorder(options);
    EXPECT(recorder.voice_cleanup(), "the options turned it on");
    std::vector<double> durations;
    for (bool on : {true, false, true}) {
        recorder.set_voice_cleanup(on);
        EXPECT(recorder.voice_cleanup() == on, on);
        event_log log;
        auto subscription = recorder.subscribe(log.callback());
        recorder.begin();
        REQUIRE(log.wait_ended(), "the take did not end");
        auto events = log.snapshot();
        const auto *finished = first(events, recorder_event_type::finished);
        REQUIRE(finished != nullptr, "no finished event");
        durations.push_back(finished->duration.count());
    }
    for (double duration : durations) EXPECT(std::abs(duration - 1.5) < tolerance_s, duration);
}

static void test_pause_resume_and_stop() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(600s);  // the microphone runs far faster than real time; this bounds a runaway take
    voicenote::recorder recorder(options);
    event_log log;
    auto subscription = recorder.subscribe(log.callback());
    EXPECT(error_of([&] { recorder.pause(); }) == voicenote::errc::misuse, "pause while stopped");
    recorder.begin();
    EXPECT(error_of([&] { recorder.resume(); }) == voicenote::errc::misuse, "resume while recording");
    REQUIRE(log.wait_recorded(0.2s), "no step of 0.2 s");
    recorder.pause();
    auto paused = recorder.context();
    EXPECT(paused.state == recorder_state::paused && paused.duration >= 0.2s, static_cast<int>(paused.state));
    EXPECT(fs::path(paused.path).extension() == ".part" && fs::exists(paused.path), paused.path);
    EXPECT(recorder.context().duration == paused.duration, "paused time is not counted");
    EXPECT(error_of([&] { recorder.pause(); }) == voicenote::errc::misuse, "pause while paused");
    EXPECT(error_of([&] { recorder.begin(); }) == voicenote::errc::misuse, "begin while paused");
    recorder.resume();
    REQUIRE(log.wait_recorded(paused.duration + 0.2s), "no step after resuming");
    recorder.stop();
    REQUIRE(log.wait_ended(), "the take did not end");
    auto events = log.snapshot();
    const auto *finished = first(events, recorder_event_type::finished);
    REQUIRE(finished != nullptr, "no finished event");
    EXPECT(fs::exists(finished->path) && finished->path + ".part" == paused.path, finished->path);
    EXPECT(finished->duration >= paused.duration + 0.2s, finished->duration.count());
    EXPECT(std::abs((finished->duration - events.back().context.duration).count()) < 1e-9,
           "the stopped context has the file's duration");
    bool saw_paused = false;
    for (const auto &event : events)
        saw_paused = saw_paused || (event.type == recorder_event_type::context &&
                                    event.context.state == recorder_state::paused);
    EXPECT(saw_paused, "no paused context");
    EXPECT(!recorder.levels(10).empty(), "levels");
    EXPECT(error_of([&] { recorder.stop(); }) == voicenote::errc::misuse, "stop twice");
}

static void test_cancel_removes_the_file() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(600s);
    voicenote::recorder recorder(options);
    event_log log;
    auto subscription = recorder.subscribe(log.callback());
    recorder.begin();
    REQUIRE(log.wait_recorded(0.2s), "no step of 0.2 s");
    std::string part = recorder.path();
    EXPECT(fs::path(part).extension() == ".part" && fs::exists(part), part);
    recorder.cancel();
    REQUIRE(log.wait_ended(), "the take did not end");
    EXPECT(!fs::exists(part), part << " is left");
    EXPECT(r.files().empty(), r.files().size() << " files left");
    EXPECT(first(log.snapshot(), recorder_event_type::finished) == nullptr, "a cancelled take finished");
    EXPECT(recorder.context().state == recorder_state::stopped, "stopped");
    EXPECT(error_of([&] { recorder.cancel(); }) == voicenote::errc::misuse, "cancel twice");
}

static void test_events_come_through_the_loop_on_this_thread() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    voicenote::event_loop loop;
    voicenote::focus_group group;
    auto options = r.options(0.5s);
    options.loop = &loop;
    options.focus = &group;
    voicenote::recorder recorder(options);
    std::vector<voicenote::recorder_event> events;  // touched on this thread only
    bool elsewhere = false;
    std::thread::id host = std::this_thread::get_id();
    auto subscription = recorder.subscribe([&](const voicenote::recorder_event &event) {
        events.push_back(event);
        elsewhere = elsewhere || std::this_thread::get_id() != host;
    });
    recorder.begin();
    auto ended = [&] {
        return !events.empty() && events.back().type == recorder_event_type::context &&
               events.back().context.state == recorder_state::stopped;
    };
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!ended() && std::chrono::steady_clock::now() < deadline) {
        if (loop.wait(1000ms)) loop.dispatch();
    }
    REQUIRE(ended(), events.size() << " events");
    EXPECT(!elsewhere, "a callback ran off the dispatching thread");
    const auto *finished = first(events, recorder_event_type::finished);
    EXPECT(finished && std::abs(finished->duration.count() - 0.5) < tolerance_s && fs::exists(finished->path),
           "finished");
}

static void test_an_aac_take() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options();
    options.format = voicenote::recording_format::aac;
    options.encoder = voicenote::encoder_settings{64000, 10, 20ms};
    options.intervals = voicenote::recorder_intervals{0.05s, 0.25s};
    options.limits = limits(1s);
    voicenote::recorder recorder(options);
    event_log log;
    auto subscription = recorder.subscribe(log.callback());
    try {
        recorder.begin();
    } catch (const voicenote::error &e) {
        REQUIRE(e.code() == voicenote::errc::unsupported, e.what());
        std::cout << "      (no FFmpeg: AAC is unsupported here)" << std::endl;
        return;
    }
    REQUIRE(log.wait_ended(), "the take did not end");
    auto events = log.snapshot();
    const auto *finished = first(events, recorder_event_type::finished);
    REQUIRE(finished != nullptr, "no finished event");
    EXPECT(finished->format == voicenote::recording_format::aac && fs::path(finished->path).extension() == ".aac",
           finished->path);
    EXPECT(std::abs(finished->duration.count() - 1.0) < tolerance_s, finished->duration.count());
    // Meter steps every 0.05 s: 20 levels for 1 s.
    auto levels = recorder.levels(100);
    EXPECT(levels.size() > 10 && levels.size() <= 20, levels.size());
}

static void test_session_hooks() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    struct calls {
        harness::waiter waiter;
        std::vector<voicenote::session_kind> activated, deactivated;
        bool allow = true;
        int failure = 0;  // 1: throw a voicenote::error; 2: throw another exception
    };
    auto seen = std::make_shared<calls>();
    std::optional<voicenote::recorder> made;
    {
        // The options (and their copies of the hooks) are gone before the recorder calls them.
        auto options = r.options(0.3s);
        options.activate = [seen](voicenote::session_kind kind) {
            std::lock_guard<std::mutex> lock(seen->waiter.mutex());
            seen->activated.push_back(kind);
            if (seen->failure == 1) throw voicenote::error(VN_E_PERMISSION, "the host is in a call");
            if (seen->failure == 2) throw std::runtime_error("the host's hook broke");
            return seen->allow;
        };
        options.deactivate = [seen](voicenote::session_kind kind) {
            {
                std::lock_guard<std::mutex> lock(seen->waiter.mutex());
                seen->deactivated.push_back(kind);
            }
            seen->waiter.notify();
        };
        made.emplace(options);
    }
    voicenote::recorder recorder = std::move(*made);  // the hooks move with it
    made.reset();
    event_log log;
    auto subscription = recorder.subscribe(log.callback());
    recorder.begin();
    REQUIRE(log.wait_ended(), "the take did not end");
    EXPECT(seen->waiter.wait_until([&] { return seen->deactivated.size() == 1; }), "deactivate was not called");
    {
        std::lock_guard<std::mutex> lock(seen->waiter.mutex());
        EXPECT(seen->activated == std::vector<voicenote::session_kind>{voicenote::session_kind::recording}, "activate");
        EXPECT(seen->deactivated == std::vector<voicenote::session_kind>{voicenote::session_kind::recording},
               "deactivate");
        seen->allow = false;
    }
    std::size_t kept = r.files().size();
    std::string message;
    EXPECT(error_of([&] { recorder.begin(); }, &message) == voicenote::errc::busy, message);
    {
        std::lock_guard<std::mutex> lock(seen->waiter.mutex());
        seen->failure = 1;
    }
    EXPECT(error_of([&] { recorder.begin(); }, &message) == voicenote::errc::permission, message);
    EXPECT(message.find("the host is in a call") != std::string::npos, message);
    {
        std::lock_guard<std::mutex> lock(seen->waiter.mutex());
        seen->failure = 2;
    }
    EXPECT(error_of([&] { recorder.begin(); }, &message) == voicenote::errc::busy, message);
    EXPECT(message.find("the host's hook broke") != std::string::npos, message);
    std::lock_guard<std::mutex> lock(seen->waiter.mutex());
    EXPECT(seen->activated.size() == 4 && seen->deactivated.size() == 1, "a refused begin opens and closes nothing");
    EXPECT(r.files().size() == kept && recorder.context().state == recorder_state::stopped, "no file was made");
}

static void test_errors() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    // A device the configuration does not define.
    auto options = r.options();
    options.device = "vn_no_such_mic";
    voicenote::recorder missing(options);
    std::string message;
    EXPECT(error_of([&] { missing.begin(); }, &message) == voicenote::errc::device, message);
    EXPECT(missing.context().state == recorder_state::stopped && r.files().empty(), "nothing is left");

    // Misuse: stop, pause, resume, cancel before begin; begin twice.
    voicenote::recorder recorder(r.options());
    EXPECT(error_of([&] { recorder.stop(); }) == voicenote::errc::misuse, "stop before begin");
    EXPECT(error_of([&] { recorder.resume(); }) == voicenote::errc::misuse, "resume before begin");
    EXPECT(error_of([&] { recorder.cancel(); }) == voicenote::errc::misuse, "cancel before begin");
    recorder.begin();
    EXPECT(error_of([&] { recorder.begin(); }, &message) == voicenote::errc::misuse, message);
    recorder.cancel();

    // Numbers out of range are refused when the recorder is made (NaN, infinities, negative, too large).
    auto refused = [&](auto change) {
        auto bad = r.options();
        change(bad);
        return error_of([&] { voicenote::recorder made(bad); }) == voicenote::errc::invalid_argument;
    };
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double value : {-1.0, 1e6 + 1, 2e14, nan, inf, -inf}) {
        voicenote::seconds bad(value);
        EXPECT(refused([&](auto &o) { o.limits = limits(bad); }), "maximum " << value);
        EXPECT(refused([&](auto &o) { o.limits = limits(10s, bad); }), "warning " << value);
        EXPECT(refused([&](auto &o) {
                   o.limits = voicenote::recorder_limits{};
                   o.limits->minimum = bad;
               }),
               "minimum " << value);
        EXPECT(refused([&](auto &o) { o.intervals = voicenote::recorder_intervals{bad, 0.5s}; }), "meter " << value);
        EXPECT(refused([&](auto &o) { o.intervals = voicenote::recorder_intervals{0.1s, bad}; }), "duration " << value);
        EXPECT(refused([&](auto &o) { o.encoder = voicenote::encoder_settings{32000, 10, bad}; }), "frame " << value);
    }
    EXPECT(refused([&](auto &o) { o.intervals = voicenote::recorder_intervals{0s, 0.5s}; }), "meter 0");
    EXPECT(refused([&](auto &o) { o.encoder = voicenote::encoder_settings{5999, 10, 20ms}; }), "bitrate 5999");
    EXPECT(refused([&](auto &o) { o.encoder = voicenote::encoder_settings{32000, 11, 20ms}; }), "complexity 11");
    EXPECT(refused([&](auto &o) { o.encoder = voicenote::encoder_settings{32000, 10, 3ms}; }), "frame 3 ms");
    EXPECT(refused([&](auto &o) { o.format = static_cast<voicenote::recording_format>(7); }), "format 7");
    EXPECT(refused([&](auto &o) { o.directory = ""; }), "an empty directory");
    EXPECT(refused([&](auto &o) { o.device = ""; }), "an empty device");
    EXPECT(refused([&](auto &o) { o.device.reset(); }), "a configuration without a device");
    // Accepted at the edges: 2.5 ms frames given in seconds, the largest limits, the smallest intervals.
    EXPECT(!refused([&](auto &o) {
               o.encoder = voicenote::encoder_settings{6000, 0, voicenote::seconds(0.0025)};
               o.limits = limits(1000000s, 1000000s);
               o.intervals = voicenote::recorder_intervals{0.01s, 60s};
           }),
           "values at the edges");
    // A count the C side cannot take (it is signed there) is refused before it is narrowed or allocated.
    EXPECT(error_of([&] { (void)recorder.levels(std::numeric_limits<std::size_t>::max()); }) ==
               voicenote::errc::invalid_argument,
           "levels(SIZE_MAX)");
    EXPECT(error_of([&] { (void)recorder.subscribe(nullptr); }) == voicenote::errc::invalid_argument, "empty callback");
}

static void test_ownership() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(0.2s);
    voicenote::recorder first_recorder(options);
    vn_recorder *c = first_recorder.get();
    voicenote::recorder second = std::move(first_recorder);
    EXPECT(second.get() == c && first_recorder.get() == nullptr, "the move takes the handle");  // NOLINT
    EXPECT(error_of([&] { first_recorder.begin(); }) == voicenote::errc::misuse, "a moved-from recorder");  // NOLINT
    EXPECT(error_of([&] { (void)first_recorder.context(); }) == voicenote::errc::misuse, "context of moved-from");
    voicenote::recorder third(options);
    third = std::move(second);  // destroys third's recorder, takes second's
    EXPECT(third.get() == c, "assigned");
    event_log log;
    auto subscription = third.subscribe(log.callback());
    third.begin();
    EXPECT(log.wait_ended(), "the moved recorder records");
}

static void test_destroying_the_recorder_ends_its_subscriptions() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(600s);
    bool released = false;
    auto witness = harness::release_witness(released);
    voicenote::subscription kept;
    std::string part;
    {
        voicenote::recorder recorder(options);
        event_log log;
        auto steps = recorder.subscribe(log.callback());
        kept = recorder.subscribe([witness](const voicenote::recorder_event &) {});
        witness.reset();
        recorder.begin();
        REQUIRE(log.wait_recorded(0.2s), "no step");
        part = recorder.path();
        EXPECT(!released, "the callback is held while subscribed");
    }  // destroyed while recording: the take is finished and kept, synchronously
    EXPECT(released, "destroying the recorder released the callback");
    kept.reset();  // already ended: nothing happens
    EXPECT(!fs::exists(part), part);
    std::string kept_file = part.substr(0, part.size() - 5);
    EXPECT(fs::exists(kept_file) && r.files().size() == 1, kept_file);
}

static void test_a_subscription_destroyed_inside_its_own_callback() {
    rig r;
    REQUIRE(r.ready, "cannot write the tone");
    auto options = r.options(0.5s);
    voicenote::recorder recorder(options);
    harness::self_ending_subscriber self;
    self.subscribe(recorder);
    // A second subscriber sees the whole take; its last event comes after every event the first could have had.
    event_log log;
    auto other = recorder.subscribe(log.callback());
    recorder.begin();
    EXPECT(log.wait_ended(), "the take did not end");
    EXPECT(self.wait_called_and_released(), "calls " << self.calls << ", released " << self.released);
    std::lock_guard<std::mutex> lock(self.waiter.mutex());
    EXPECT(self.calls == 1, "the callback ran " << self.calls << " times of " << log.snapshot().size() << " events");
}

int main() {
    harness::name() = "recorder";
    TEST(test_a_take_from_begin_to_finished);
    TEST(test_voice_cleanup_on_off_and_between_takes);
    TEST(test_pause_resume_and_stop);
    TEST(test_cancel_removes_the_file);
    TEST(test_events_come_through_the_loop_on_this_thread);
    TEST(test_an_aac_take);
    TEST(test_session_hooks);
    TEST(test_errors);
    TEST(test_ownership);
    TEST(test_destroying_the_recorder_ends_its_subscriptions);
    TEST(test_a_subscription_destroyed_inside_its_own_callback);
    return harness::finish();
}
