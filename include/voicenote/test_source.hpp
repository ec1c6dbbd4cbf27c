/*
 * voicenote/test_source.hpp: the test event source (part of voicenote.hpp). Not for applications: it fires
 * numbered events from a library thread so a host can test its integration with the subscription contract and
 * its event loop before any audio is involved.
 */
#ifndef VOICENOTE_TEST_SOURCE_HPP
#define VOICENOTE_TEST_SOURCE_HPP

#include "core.hpp"

#include <cmath>

namespace voicenote {

/** One event of a `test_source`. */
struct test_event {
    /** 1 for the source's first event, then 2, 3, ... with no gaps. */
    std::uint64_t sequence = 0;
    /** Whether the source's own thread fired it (else `fire`). */
    bool from_library_thread = false;
};

namespace detail {

/** A test event as the C++ struct. */
inline test_event to_test_event(const vn_test_event &event) { return {event.sequence, event.from_library_thread != 0}; }

}  // namespace detail

/** A test event source (vn_test_source_*). Move-only; destroying it ends its subscriptions. */
class test_source {
public:
    /** A source delivering on the library's event thread. */
    test_source() : source_(detail::make_handle<vn_test_source, vn_test_source_destroy>(vn_test_source_create, nullptr)) {}
    /** A source delivering through `loop` (its callbacks run in `loop.dispatch()`). */
    explicit test_source(event_loop &loop)
        : source_(detail::make_handle<vn_test_source, vn_test_source_destroy>(vn_test_source_create,
                                                                               detail::live_handle(&loop))) {}

    /** Calls `callback` for each event from now on; the subscription ends when the returned object is destroyed. */
    subscription subscribe(std::function<void(const test_event &)> callback) {
        return detail::subscribe(vn_test_source_subscribe, source_.get(), std::move(callback), &detail::to_test_event);
    }
    /**
     * Starts the source's thread: `count` events (0: until stopped), one every `interval` (rounded to the
     * microsecond; 0 fires as fast as it can). Throws `error` (errc::invalid_argument for an interval that is NaN or
     * outside 0…4294.967295 s, the C call's microseconds; errc::misuse while it is still firing).
     */
    void start(std::uint64_t count, seconds interval) {
        double micros = std::round(interval.count() * 1e6);
        if (!(micros >= 0 && micros <= 4294967295.0)) {
            throw error(VN_E_INVALID_ARG, "the interval must be 0…4294.967295 s");
        }
        detail::check(vn_test_source_start(source_.get(), count, static_cast<std::uint32_t>(micros)));
    }
    /** Stops the source's thread and waits for it. */
    void stop() { detail::check(vn_test_source_stop(source_.get())); }
    /**
     * Fires `count` events, 0…2^24, from the calling thread (queued, never run here): vn_test_source_emit(), named
     * `fire` because Qt defines `emit` as a macro.
     */
    void fire(std::uint64_t count) { detail::check(vn_test_source_emit(source_.get(), count)); }
    /** How many events the source has fired. */
    std::uint64_t fired() const {
        std::uint64_t count = 0;
        detail::check(vn_test_source_fired(source_.get(), &count));
        return count;
    }
    /** The C source, still owned. */
    vn_test_source *get() const noexcept { return source_.get(); }

private:
    detail::handle<vn_test_source, vn_test_source_destroy> source_;
};

}  // namespace voicenote

#endif /* VOICENOTE_TEST_SOURCE_HPP */
