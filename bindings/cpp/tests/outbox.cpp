/*
 * outbox.cpp: the durable outbox through the C++ layer (voicenote/outbox.hpp), against Tests/Servers/http_server.py
 * (started and stopped by the test): a note added is uploaded and offered until acknowledged, offered again by the
 * next outbox on the directory when it was not, and gone once acknowledged; a transient failure (HTTP 500 twice)
 * waits with its back-off and succeeds; a permanent one (400) stays failed, is retried and cancelled; one outbox per
 * directory; refusals. Every wait is bounded and waits for a condition (harness::waiter).
 */
#include "harness.hpp"

#include <voicenote/outbox.hpp>

#include <type_traits>

using harness::expect_error;
using voicenote::errc;
using voicenote::outbox;
using voicenote::outbox_event;
using voicenote::outbox_event_kind;

static_assert(!std::is_copy_constructible_v<outbox>, "outboxes are move-only");
static_assert(std::is_nothrow_move_constructible_v<outbox>, "moves never throw");

namespace {

const auto wait_limit = std::chrono::milliseconds(20000);

struct fixture {
    harness::temp_directory directory{"outbox"};
    std::string note = directory / "note.ogg";
    bool files = mkdir((directory / "served").c_str(), 0700) == 0 && harness::write_note(directory, 1.0, note);
    harness::http_server server{directory / "served"};
    bool ready = files && server.ready();
    std::string url(const std::string &path) const { return server.base_url() + path; }
};

fixture &the_fixture() {
    static fixture instance;
    return instance;
}

struct event_record {
    harness::waiter waiter;
    std::vector<outbox_event> events;
    std::function<void(const outbox_event &)> callback() {
        return [this](const outbox_event &event) {
            {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                events.push_back(event);
            }
            waiter.notify();
        };
    }
    int count(outbox_event_kind kind) const {
        int n = 0;
        for (const auto &event : events) n += event.kind == kind;
        return n;
    }
    bool wait_for(outbox_event_kind kind, int n) { return waiter.wait_until([&] { return count(kind) >= n; }, wait_limit); }
    outbox_event first(outbox_event_kind kind) {
        std::lock_guard<std::mutex> lock(waiter.mutex());
        for (const auto &event : events)
            if (event.kind == kind) return event;
        return {};
    }
};

voicenote::upload_options raw() {
    voicenote::upload_options options;
    options.mode = voicenote::upload_mode::raw;
    return options;
}

}  // namespace

static void test_uploaded_offered_until_acknowledged() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready (opusenc, python3, http_server.py)");
    std::string folder = f.directory / "box1";
    std::int64_t id = 0;
    std::string payload;
    {
        outbox box(folder, f.url("/_matrix/media/v3/upload"), raw());
        event_record record;
        auto subscription = box.subscribe(record.callback());
        box.start();
        id = box.add(f.note);
        REQUIRE(record.wait_for(outbox_event_kind::uploaded, 1), "no upload within " << wait_limit.count() << " ms");
        auto uploaded = record.first(outbox_event_kind::uploaded);
        EXPECT(uploaded.id == id && uploaded.payload_json.find("mxc://localhost/") != std::string::npos,
               "the hand-off: " << uploaded.payload_json);
        payload = uploaded.payload_json;
        EXPECT(box.items_json().find("\"uploaded\"") != std::string::npos, box.items_json());
        expect_error(errc::busy, [&] { outbox(folder, f.url("/x"), raw()); }, "a second outbox on the directory");
    }
    outbox again(folder, f.url("/_matrix/media/v3/upload"), raw());
    event_record record;
    auto subscription = again.subscribe(record.callback());
    again.start();
    REQUIRE(record.wait_for(outbox_event_kind::uploaded, 1), "not offered again");
    EXPECT(record.first(outbox_event_kind::uploaded).payload_json == payload, "the same payload offered again");
    again.acknowledge(id);
    EXPECT(record.wait_for(outbox_event_kind::removed, 1), "no removed event");
    EXPECT(again.items_json() == "[]", again.items_json());
    expect_error(errc::not_found, [&] { again.acknowledge(id); }, "acknowledged twice");
}

static void test_transient_then_permanent_failures() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    outbox box(f.directory / "box2", f.url("/uploadmode/failfirst-2/_matrix/media/v3/upload"), raw());
    box.set_retry(0.02, 0.1);
    expect_error(errc::invalid_argument, [&] { box.set_retry(0, 1); }, "a zero back-off");
    event_record record;
    auto subscription = box.subscribe(record.callback());
    box.start();
    expect_error(errc::misuse, [&] { box.start(); }, "started twice");
    auto id = box.add(f.note);
    REQUIRE(record.wait_for(outbox_event_kind::uploaded, 1), "no upload after the transient failures");
    EXPECT(record.count(outbox_event_kind::waiting) == 2, "two waits");
    auto waiting = record.first(outbox_event_kind::waiting);
    EXPECT(waiting.http_code == 500 && waiting.code() == errc::network && waiting.retry_in > 0, waiting.message);
    box.acknowledge(id);

    outbox refused(f.directory / "box3", f.url("/uploadmode/status-400/_matrix/media/v3/upload"), raw());
    event_record refusals;
    auto second = refused.subscribe(refusals.callback());
    refused.start();
    auto bad = refused.add(f.note);
    REQUIRE(refusals.wait_for(outbox_event_kind::failed, 1), "no permanent failure");
    EXPECT(refusals.first(outbox_event_kind::failed).http_code == 400, "HTTP 400 named");
    refused.retry(bad);
    REQUIRE(refusals.wait_for(outbox_event_kind::failed, 2), "the retry did not run");
    refused.cancel(bad);
    EXPECT(refused.items_json() == "[]", refused.items_json());
    expect_error(errc::not_found, [&] { refused.cancel(bad); }, "cancelled twice");
    expect_error(errc::not_found, [&] { refused.add(f.directory / "missing.ogg"); }, "a missing note");
}

static void test_moves_and_refusals() {
    auto &f = the_fixture();
    outbox box(f.directory / "box4", "http://127.0.0.1:9/");
    outbox moved(std::move(box));
    expect_error(errc::misuse, [&] { (void)box.items_json(); }, "a moved-from outbox");  // NOLINT(bugprone-use-after-move)
    EXPECT(moved.items_json() == "[]", "the moved-to outbox works");
    expect_error(errc::invalid_argument, [&] { outbox(f.directory / "box5", "ftp://example.com/"); }, "an ftp endpoint");
}

int main() {
    harness::name() = "outbox";
    TEST(test_uploaded_offered_until_acknowledged);
    TEST(test_transient_then_permanent_failures);
    TEST(test_moves_and_refusals);
    harness::run("stop the server", [] {
        EXPECT(the_fixture().server.stop() == 0, "http_server.py did not exit cleanly on SIGTERM");
    });
    return harness::finish();
}
