/*
 * core.cpp: the C++ layer's foundations — every status maps to voicenote::error (code, name, detail, errc), a real
 * failing call carries the library's message, handles and subscriptions are move-only and end once, a subscription
 * may be destroyed inside its own callback, destroying the object ends its subscriptions, events reach the host's
 * thread through an event_loop, timeouts are std::optional<voicenote::seconds> converted and refused in one place
 * (and a test source's interval is seconds too), every struct carrying an `int status` gives it as code(), and the
 * log hook's handler is replaced safely.
 */
#include "harness.hpp"

#include <climits>
#include <limits>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;

static_assert(!std::is_copy_constructible_v<voicenote::event_loop>, "handles are move-only");
static_assert(!std::is_copy_assignable_v<voicenote::test_source>, "handles are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::event_loop>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::subscription>, "moves never throw");
static_assert(!std::is_copy_constructible_v<voicenote::subscription>, "subscriptions are move-only");
static_assert(std::is_base_of_v<std::system_error, voicenote::error>, "errors are system_errors");

static void test_every_status_maps_to_an_error() {
    for (int status = VN_E_INVALID_ARG; status >= VN_E_INTERNAL; status--) {
        try {
            voicenote::detail::check(status);
            EXPECT(false, "status " << status << " did not throw");
        } catch (const voicenote::error &e) {
            EXPECT(e.status() == status, e.status());
            EXPECT(e.code() == static_cast<voicenote::errc>(status), e.code().message());
            EXPECT(e.code().category() == voicenote::category(), e.code().category().name());
            EXPECT(std::string(e.name()) == vn_status_name(status), e.name());
            EXPECT(e.code().message() == vn_strerror(status), e.code().message());
        }
    }
    EXPECT(voicenote::detail::check(VN_OK) == VN_OK, "VN_OK is not a failure");
    std::error_code code = voicenote::errc::not_found;
    EXPECT(code.value() == VN_E_NOT_FOUND && std::string(code.category().name()) == "voicenote", code.value());
}

static void test_a_failing_call_carries_the_library_message() {
    voicenote::event_loop loop;
    voicenote::event_loop moved = std::move(loop);
    try {
        (void)loop.fd();  // NOLINT: the moved-from loop holds nothing: the C call gets NULL
        EXPECT(false, "fd() of a moved-from loop did not throw");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::misuse, e.name());
        EXPECT(!e.detail().empty() && std::string(e.what()).find(e.detail()) != std::string::npos, e.what());
    }
    EXPECT(moved.fd() >= 0, "the moved-to loop works");
    try {
        voicenote::test_source source(moved);
        source.fire(16777217);  // one past the limit
        EXPECT(false, "emit beyond the limit did not throw");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
    }
}

static void test_text_with_a_nul_and_moved_from_objects_in_options_are_refused() {
    try {
        (void)voicenote::audio_info_file(std::string_view("/tmp/note.ogg\0/other.ogg", 25));
        EXPECT(false, "a path with a NUL byte was taken");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
    }
    voicenote::event_loop loop;
    voicenote::event_loop moved = std::move(loop);
    try {
        voicenote::test_source source(loop);  // the moved-from loop: not "no loop"
        EXPECT(false, "a moved-from loop was taken for none");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::misuse, e.what());
    }
    voicenote::player_options options;
    options.loop = &loop;
    try {
        voicenote::player player(options);
        EXPECT(false, "a player took a moved-from loop for none");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::misuse, e.what());
    }
    EXPECT(voicenote::version_number() == VN_VERSION_NUMBER, voicenote::version_number());
}

static void test_events_reach_the_host_thread_through_the_loop() {
    voicenote::event_loop loop;
    voicenote::test_source source(loop);
    std::vector<std::uint64_t> sequences;
    std::thread::id host = std::this_thread::get_id();
    bool elsewhere = false;
    auto subscription = source.subscribe([&](const voicenote::test_event &event) {
        sequences.push_back(event.sequence);
        elsewhere = elsewhere || std::this_thread::get_id() != host;
    });
    source.start(20, 100us);
    auto deadline = std::chrono::steady_clock::now() + 30s;
    while (sequences.size() < 20 && std::chrono::steady_clock::now() < deadline) {
        if (loop.wait(1000ms)) loop.dispatch();
    }
    EXPECT(sequences.size() == 20, sequences.size());
    for (std::size_t i = 0; i < sequences.size(); i++) EXPECT(sequences[i] == i + 1, sequences[i]);
    EXPECT(!elsewhere, "a callback ran off the dispatching thread");
    EXPECT(source.fired() == 20, source.fired());
}

static void test_timeouts_are_seconds_checked_once() {
    using voicenote::detail::timeout_ms;
    EXPECT(timeout_ms(std::nullopt) == -1, "std::nullopt is no limit");
    EXPECT(timeout_ms(0s) == 0 && timeout_ms(30ms) == 30 && timeout_ms(voicenote::seconds(0.03)) == 30, "exact ms");
    EXPECT(timeout_ms(voicenote::seconds(0.0001)) == 1 && timeout_ms(1500us) == 2, "rounded up to the millisecond");
    EXPECT(timeout_ms(std::chrono::hours(24 * 365)) == INT_MAX, "a year is clamped");
    EXPECT(timeout_ms(voicenote::seconds(std::numeric_limits<double>::infinity())) == INT_MAX, "infinity is clamped");
    for (double bad : {-0.001, -1.0, std::numeric_limits<double>::quiet_NaN(),
                       -std::numeric_limits<double>::infinity()}) {
        try {
            (void)timeout_ms(voicenote::seconds(bad));
            EXPECT(false, "a timeout of " << bad << " s was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
        }
    }
    voicenote::event_loop loop;
    EXPECT(!loop.wait(0s), "an empty loop polled");
    try {
        (void)loop.wait(-1s);
        EXPECT(false, "a negative timeout was taken");
    } catch (const voicenote::error &e) {
        EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
    }
    // A test source's interval is a pace in seconds too, within the C call's microseconds.
    voicenote::test_source source;
    for (double bad : {-0.000001, 4294.967296, std::numeric_limits<double>::quiet_NaN()}) {
        try {
            source.start(1, voicenote::seconds(bad));
            EXPECT(false, "an interval of " << bad << " s was taken");
        } catch (const voicenote::error &e) {
            EXPECT(e.code() == voicenote::errc::invalid_argument, e.what());
        }
    }
}

/** A default `T` has no code; with its status field set to VN_E_NOT_FOUND, code() is errc::not_found. */
template <class T>
static void check_status_code(int T::*status, const char *what) {
    T value;
    EXPECT(!value.code(), what << ": a code without a status");
    value.*status = VN_E_NOT_FOUND;
    EXPECT(value.code() == voicenote::errc::not_found && value.code().category() == voicenote::category(), what);
}

static void test_every_status_carrying_struct_gives_its_code() {
    EXPECT(voicenote::detail::status_code(VN_OK) == std::error_code(), "VN_OK is an empty code");
    EXPECT(voicenote::detail::status_code(VN_E_FORMAT) == voicenote::errc::format, "VN_E_FORMAT");
    check_status_code(&voicenote::recorder_event::status, "recorder_event");
    check_status_code(&voicenote::player_event::status, "player_event");
    check_status_code(&voicenote::player_context::last_status, "player_context");
    check_status_code(&voicenote::flow_event::status, "flow_event");
    check_status_code(&voicenote::upload_event::status, "upload_event");
    check_status_code(&voicenote::waveform_result::status, "waveform_result");
    check_status_code(&voicenote::recovered_file::status, "recovered_file");
}

static void test_a_subscription_destroyed_inside_its_own_callback() {
    voicenote::test_source source;
    harness::self_ending_subscriber self;
    self.subscribe(source);
    source.fire(5);
    EXPECT(self.wait_called_and_released(), "calls " << self.calls << ", released " << self.released);
    // Later events go nowhere: a second subscriber's event, delivered after them in order, shows they were handled.
    source.fire(5);
    bool marker = false;
    voicenote::subscription other = source.subscribe([&](const voicenote::test_event &) {
        { std::lock_guard<std::mutex> lock(self.waiter.mutex()); marker = true; }
        self.waiter.notify();
    });
    source.fire(1);
    EXPECT(self.waiter.wait_until([&] { return marker; }), "the second subscriber's event did not come");
    std::lock_guard<std::mutex> lock(self.waiter.mutex());
    EXPECT(self.calls == 1, "the callback ran " << self.calls << " times");
}

static void test_destroying_the_object_ends_its_subscriptions() {
    bool released = false;
    auto witness = harness::release_witness(released);
    voicenote::subscription kept;
    {
        voicenote::test_source source;
        kept = source.subscribe([witness](const voicenote::test_event &) {});
        witness.reset();
        EXPECT(!released, "the callback is held while subscribed");
    }
    EXPECT(released, "destroying the source released the callback");
    kept.reset();  // already ended by the destroy: nothing happens
    EXPECT(!kept, "reset empties it");
    voicenote::test_source source;
    harness::expect_error(
        voicenote::errc::invalid_argument, [&] { (void)source.subscribe(nullptr); }, "an empty callback");
}

static void test_the_log_handler_is_replaced_safely() {
    std::atomic<int> lines{0};
    std::atomic<int> refused{0};
    voicenote::set_log_handler([&](voicenote::log_level, std::string_view line) {
        if (!line.empty()) lines++;
        try {
            voicenote::set_log_handler(nullptr);
        } catch (const voicenote::error &e) {
            if (e.code() == voicenote::errc::misuse) refused++;
        }
    }, voicenote::log_level::debug);
    // A batch of one long note splits it over its idle workers and says so at debug level.
    harness::temp_directory directory("log");
    std::string note = directory / "long.ogg";
    REQUIRE(harness::write_note(directory, 25.0, note), "opusenc failed");
    auto split = [&] {
        vn_waveform_batch *batch = nullptr;
        voicenote::detail::check(vn_waveform_batch_create(10, 2, nullptr, &batch));
        vn_waveform_batch_add(batch, note.c_str());
        vn_waveform_batch_end_input(batch);
        vn_waveform_result result{};
        result.size = sizeof result;
        int taken = vn_waveform_batch_next(batch, 30000, &result);
        vn_waveform_batch_destroy(batch);
        return taken;
    };
    EXPECT(split() == 1, "no result");
    voicenote::set_log_handler(nullptr);
    EXPECT(lines > 0, "no line was logged");
    EXPECT(refused == lines, refused << " of " << lines << " calls refused set_log_handler inside the handler");
    int after = lines;
    EXPECT(split() == 1, "no result");
    EXPECT(lines == after, "the removed handler ran");
}

int main() {
    harness::name() = "core";
    TEST(test_every_status_maps_to_an_error);
    TEST(test_a_failing_call_carries_the_library_message);
    TEST(test_text_with_a_nul_and_moved_from_objects_in_options_are_refused);
    TEST(test_events_reach_the_host_thread_through_the_loop);
    TEST(test_timeouts_are_seconds_checked_once);
    TEST(test_every_status_carrying_struct_gives_its_code);
    TEST(test_a_subscription_destroyed_inside_its_own_callback);
    TEST(test_destroying_the_object_ends_its_subscriptions);
    TEST(test_the_log_handler_is_replaced_safely);
    return harness::finish();
}
