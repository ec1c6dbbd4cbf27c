/*
 * upload.cpp: the uploader through the C++ layer (voicenote/upload.hpp), against Tests/Servers/http_server.py,
 * which this test starts and stops itself (as bindings/c/tests/child.h does: python3 with --exit-with-stdin, its
 * "PORT <n>" line read with a deadline, SIGTERM and a bounded wait at the end).
 *
 * - Multipart with HTTP headers (the server's expect-<token> mode refuses a request without them) and a query
 *   parameter (in the server's request log): events pending -> uploading (0, steps of at least 0.05, 1) ->
 *   uploaded, off the caller's thread; the uploaded payload equals result(); the server stored the exact bytes.
 * - Raw (Matrix) uploads: the note with its payload from payload::from_recording, read back as a Matrix voice
 *   message with its authenticated-media URL; a memory source; a voiceRecording without a payload reads the note.
 * - Events through an event_loop run only inside dispatch() on the calling thread.
 * - A cancelled upload (a slow reader) ends failed with errc::cancelled; a second upload meanwhile is errc::busy.
 * - HTTP 401/404/413/500, a missing Authorization header and a response that is not JSON: the event's status and result()'s error.
 * - The post-processor (a std::function the uploader holds) rewrites the result on "vn-upload"; its exceptions fail
 *   the upload with their status; replaced, removed and destroyed hooks are released once.
 * - Destroying the uploader ends its subscriptions; a subscription destroyed inside its own callback; moves.
 *
 * Needs python3 and opusenc on PATH. Every wait is bounded and waits for a condition: harness::waiter for events
 * and hooks, event_loop::wait, and inotify for the server's request log (written by the server's process).
 */
#include "harness.hpp"

#include <voicenote/attachments.hpp>
#include <voicenote/recorder.hpp>
#include <voicenote/sources.hpp>
#include <voicenote/upload.hpp>

#include <cmath>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;
using harness::expect_error;
using voicenote::errc;
using voicenote::upload_event;
using voicenote::upload_state;
using voicenote::uploader;

static_assert(!std::is_copy_constructible_v<uploader>, "uploaders are move-only");
static_assert(!std::is_copy_assignable_v<uploader>, "uploaders are move-only");
static_assert(std::is_nothrow_move_constructible_v<uploader>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<uploader>, "moves never throw");
static_assert(std::is_copy_constructible_v<voicenote::upload_options>, "options are plain values");

namespace {

const double tone_seconds = 1.5;
const std::size_t medium_size = 3000000;   // several progress steps
const std::size_t large_size = 12000000;   // more than loopback's socket buffers take from a slow reader
const auto wait_limit = std::chrono::milliseconds(20000);
const std::string channel = "/channels/messaging/";

/* ------------------------------------------------------------------------------------------------------------ */
/* Files and the server */

std::vector<std::uint8_t> random_bytes(std::size_t size, std::uint64_t seed) {
    std::vector<std::uint8_t> bytes(size);
    std::uint64_t x = seed;
    for (auto &byte : bytes) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        byte = static_cast<std::uint8_t>(x >> 24);
    }
    return bytes;
}

bool write_bytes(const std::string &path, const std::vector<std::uint8_t> &bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(out);
}

/** The name of the calling thread (/proc/thread-self/comm). */
std::string thread_name() {
    std::ifstream in("/proc/thread-self/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

/** The test's files and server, made once. */
struct fixture {
    harness::temp_directory directory{"upload"};
    std::string note = directory / "note.ogg";
    std::string medium = directory / "memo.m4a";  // random bytes named as audio
    std::string large = directory / "large.bin";
    std::vector<std::uint8_t> medium_bytes = random_bytes(medium_size, 1);
    std::vector<std::uint8_t> large_bytes = random_bytes(large_size, 3);
    bool files = mkdir((directory / "served").c_str(), 0700) == 0 && harness::write_note(directory, tone_seconds, note) &&
                 write_bytes(medium, medium_bytes) && write_bytes(large, large_bytes);
    harness::http_server server{directory / "served"};
    bool ready = files && server.ready();

    std::string url(const std::string &path) const { return server.base_url() + path; }
    /** Whether the server stored exactly `bytes` as the upload an asset_url or mxc:// URI names. */
    bool stored(const std::string &asset_url, const std::vector<std::uint8_t> &bytes) const {
        auto slash = asset_url.rfind('/');
        std::string leaf = asset_url.substr(slash + 1);
        if (leaf.find(".bin") == std::string::npos) leaf += ".bin";
        return harness::read_file(server.root() + "/uploads/" + leaf) == bytes;
    }
};

fixture &the_fixture() {
    static fixture instance;
    return instance;
}

/** An uploader's events, recorded under the waiter's mutex. */
struct event_record {
    harness::waiter waiter;
    std::vector<upload_event> events;
    int on_caller = 0;
    std::thread::id caller = std::this_thread::get_id();

    std::function<void(const upload_event &)> callback() {
        return [this](const upload_event &event) {
            {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                events.push_back(event);
                on_caller += std::this_thread::get_id() == caller;
            }
            waiter.notify();
        };
    }
    /** Events that ended an upload (failed or uploaded); call under the mutex. */
    int ends() const {
        int count = 0;
        for (const auto &event : events)
            count += event.state == upload_state::failed || event.state == upload_state::uploaded;
        return count;
    }
    bool wait_ends(int count) { return waiter.wait_until([&] { return ends() >= count; }, wait_limit); }
    upload_event last() {
        std::lock_guard<std::mutex> lock(waiter.mutex());
        return events.empty() ? upload_event{} : events.back();
    }
};

/** A payload for random-bytes files, so that nothing reads them as audio. */
voicenote::payload placeholder() { return voicenote::payload("https://placeholder.example/file"); }

}  // namespace

/* ------------------------------------------------------------------------------------------------------------ */

/* Multipart with headers and a query parameter: events, result, the stored bytes, what the server received. */
static void test_multipart_upload_with_progress() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready (opusenc, python3, http_server.py)");
    voicenote::upload_options options;
    options.mode = voicenote::upload_mode::multipart;
    options.http = voicenote::http_options{};
    options.http->headers = {{"Authorization", "Bearer tok"}, {"Stream-Auth-Type", "jwt"}};
    options.query = {{"api_key", "k e&y/\xc3\xbc"}};
    uploader up(f.url("/uploadmode/expect-tok" + channel + "multipart/file"), options);
    event_record record;
    auto subscription = up.subscribe(record.callback());
    EXPECT(up.wait(0ms) == upload_state::pending, "not pending before any upload");
    expect_error(errc::invalid_argument, [&] { (void)up.wait(-1ms); }, "a negative timeout");
    expect_error(errc::misuse, [&] { (void)up.result(); }, "result before any upload");
    up.upload_file(f.medium, placeholder());
    REQUIRE(record.wait_ends(1), "no end within " << wait_limit.count() << " ms");
    EXPECT(up.wait(wait_limit) == upload_state::uploaded, "not uploaded");
    std::string result = up.result();

    std::lock_guard<std::mutex> lock(record.waiter.mutex());
    const auto &events = record.events;
    bool in_order = events.size() >= 3, steps = true;
    double last = -1;
    int uploading = 0;
    for (std::size_t i = 0; i < events.size(); i++) {
        upload_state want = i == 0 ? upload_state::pending
                            : i + 1 == events.size() ? upload_state::uploaded
                                                     : upload_state::uploading;
        in_order = in_order && events[i].state == want;
        if (events[i].state != upload_state::uploading) continue;
        double p = events[i].progress;
        steps = steps && (uploading == 0 ? p == 0 : p >= last && (p == 1 || p - last >= 0.05 - 1e-9));
        last = p;
        uploading++;
    }
    EXPECT(in_order, events.size() << " events, not pending, uploading…, uploaded");
    EXPECT(steps && last == 1 && uploading >= 3, uploading << " progress events, the last " << last);
    EXPECT(record.on_caller == 0, record.on_caller << " callbacks on the caller's thread");
    const upload_event &end = events.back();
    EXPECT(end.payload_json == result && end.status == VN_OK && !end.code() && end.message.empty(),
           end.payload_json << "\n  vs " << result);

    auto uploaded = voicenote::payload::parse(result);
    auto asset = uploaded.field(voicenote::payload_field::asset_url).value_or("");
    EXPECT(asset.rfind(f.server.base_url() + "/range/uploads/", 0) == 0, asset);
    EXPECT(uploaded.field(voicenote::payload_field::title) == std::optional<std::string>("memo.m4a"), result);
    EXPECT(uploaded.field(voicenote::payload_field::mime_type) == std::optional<std::string>("audio/mp4"), result);
    EXPECT(uploaded.file_size() == std::optional<std::int64_t>(medium_size), result);
    EXPECT(uploaded.extra_data().find("\"thumb_url\"") != std::string::npos, uploaded.extra_data());
    EXPECT(f.stored(asset, f.medium_bytes), "the stored upload differs from the file");
    EXPECT(harness::read_file(f.medium) == f.medium_bytes, "the local file changed");
    std::string line = f.server.logged({"\"path\": \"/uploadmode/expect-tok" + channel + "multipart/file?", "\"status\": 200"});
    EXPECT(line.find("\"query\": {\"api_key\": \"k e&y/\\u00fc\"}") != std::string::npos, "query: " << line);
    EXPECT(line.find("\"stream-auth-type\": \"jwt\"") != std::string::npos, "headers: " << line);
}

/* Matrix: the note uploaded raw with its recorded payload becomes an mxc:// voice message, read back; a memory
 * source uploads its exact bytes; a voiceRecording without a payload reads the note. */
static void test_raw_uploads_for_matrix() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    voicenote::upload_options options;
    options.mode = voicenote::upload_mode::raw;
    uploader up(f.url("/_matrix/media/v3/upload"), options);
    event_record record;
    auto subscription = up.subscribe(record.callback());
    auto recorded = voicenote::payload::from_recording(f.note);
    up.upload_file(f.note, recorded);
    REQUIRE(record.wait_ends(1), "no end");
    auto uploaded = voicenote::payload::parse(up.result());
    auto mxc = uploaded.field(voicenote::payload_field::asset_url).value_or("");
    EXPECT(mxc.rfind("mxc://localhost/", 0) == 0, mxc);
    EXPECT(f.stored(mxc, harness::read_file(f.note)), "the stored upload differs from the note");
    EXPECT(uploaded.duration() == recorded.duration() && uploaded.waveform() == recorded.waveform(),
           "the payload's duration or waveform changed: " << uploaded.to_json());
    auto audio = voicenote::payload::from_matrix_content(uploaded.to_matrix_content());
    EXPECT(audio.is_voice && audio.payload.field(voicenote::payload_field::asset_url) == mxc, "the Matrix content");
    EXPECT(voicenote::matrix_download_url(mxc, f.server.base_url()).find("/_matrix/client/v1/media/download/localhost/") !=
               std::string::npos,
           voicenote::matrix_download_url(mxc, f.server.base_url()));

    // A memory source under a name: the body is its bytes, the MIME type the name's.
    auto bytes = random_bytes(200000, 2);
    {
        auto source = voicenote::source::memory(bytes);
        up.upload_source(source, "voice.ogg");
    }  // the uploader keeps what it needs
    REQUIRE(record.wait_ends(2), "no end of the source's upload");
    auto from_source = voicenote::payload::parse(up.result());
    EXPECT(f.stored(from_source.field(voicenote::payload_field::asset_url).value_or(""), bytes), "source bytes differ");
    EXPECT(from_source.field(voicenote::payload_field::title) == std::optional<std::string>("voice.ogg"), "title");
    EXPECT(from_source.field(voicenote::payload_field::mime_type) == std::optional<std::string>("audio/ogg"), "mime");
    std::string line = f.server.logged({"\"path\": \"/_matrix/media/v3/upload?filename=voice.ogg\"", "\"status\": 200"});
    EXPECT(line.find("\"content_type\": \"audio/ogg\"") != std::string::npos, line);

    // A voiceRecording without a payload: its duration and waveform are read from the note.
    up.upload_file(f.note);
    REQUIRE(record.wait_ends(3), "no end of the third upload");
    auto read = voicenote::payload::parse(up.result());
    auto duration = read.duration();
    EXPECT(duration && std::abs(duration->count() - tone_seconds) < 0.05 && read.waveform().size() == 100,
           read.to_json());
}

/* An uploader made with a loop delivers its events only inside dispatch(), on the dispatching thread. */
static void test_events_through_an_event_loop() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    voicenote::event_loop loop;
    voicenote::upload_options options;
    options.loop = &loop;
    uploader up(f.url(channel + "loop/file"), options);
    std::vector<upload_state> states;
    bool in_dispatch = false;
    int outside = 0, elsewhere = 0;
    auto host = std::this_thread::get_id();
    auto subscription = up.subscribe([&](const upload_event &event) {
        states.push_back(event.state);
        outside += !in_dispatch;
        elsewhere += std::this_thread::get_id() != host;
    });
    up.upload_file(f.medium, placeholder());
    auto deadline = std::chrono::steady_clock::now() + wait_limit;
    while ((states.empty() || (states.back() != upload_state::uploaded && states.back() != upload_state::failed)) &&
           std::chrono::steady_clock::now() < deadline) {
        if (!loop.wait(1000ms)) continue;
        in_dispatch = true;
        loop.dispatch();
        in_dispatch = false;
    }
    EXPECT(!states.empty() && states.front() == upload_state::pending && states.back() == upload_state::uploaded,
           states.size() << " events");
    EXPECT(outside == 0 && elsewhere == 0, outside << " callbacks outside dispatch, " << elsewhere << " elsewhere");
}

/* cancel() while the body goes to a slow reader ends the upload failed with errc::cancelled; meanwhile a second
 * upload is errc::busy and retry() errc::misuse; after it, retry() sends it again (cancelled again here). */
static void test_cancelled_upload() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    uploader up(f.url("/uploadmode/slowread-100000" + channel + "cancel/file"));
    event_record record;
    auto subscription = up.subscribe(record.callback());
    up.upload_file(f.large, placeholder());
    bool sending = record.waiter.wait_until(
        [&] {
            for (const auto &event : record.events)
                if (event.state == upload_state::uploading) return true;
            return false;
        },
        wait_limit);
    REQUIRE(sending, "no uploading event");
    expect_error(errc::busy, [&] { up.upload_file(f.medium, placeholder()); }, "a second upload");
    expect_error(errc::misuse, [&] { up.retry(); }, "retry while one runs");
    auto start = std::chrono::steady_clock::now();
    up.cancel();
    REQUIRE(record.wait_ends(1), "no end after cancel()");
    EXPECT(std::chrono::steady_clock::now() - start < 2s, "the cancel took over 2 s");
    upload_event end = record.last();
    EXPECT(end.state == upload_state::failed && end.code() == errc::cancelled, end.status << ": " << end.message);
    expect_error(errc::cancelled, [&] { (void)up.result(); }, "the result of a cancelled upload");
    EXPECT(up.wait(0ms) == upload_state::failed, "not failed");
    up.cancel();  // nothing runs: a no-op
    EXPECT(harness::read_file(f.large) == f.large_bytes, "the cancel changed the local file");
    up.retry();
    bool again = record.waiter.wait_until([&] { return record.events.size() >= 2 &&
                                                       record.events.back().state == upload_state::uploading; },
                                          wait_limit);
    EXPECT(again, "the retry did not start");
    up.cancel();
    EXPECT(record.wait_ends(2), "the retry did not end after cancel()");
}

/* HTTP failures and a response that is not JSON: the event's status and result()'s error, "HTTP nnn" in both. */
static void test_http_failures() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    const struct {
        const char *mode;
        errc status;
        const char *text;
    } cases[] = {
        {"status-404", errc::not_found, "HTTP 404"},   {"status-500", errc::network, "HTTP 500"},
        {"status-401", errc::permission, "HTTP 401"},  {"status-413", errc::too_large, "HTTP 413"},
        {"notjson", errc::format, ""},           {"expect-tok", errc::permission, "HTTP 401"},  // no header
    };
    auto completing = placeholder();
    for (const auto &c : cases) {
        uploader up(f.url(std::string("/uploadmode/") + c.mode + channel + "failures/file"));
        event_record record;
        auto subscription = up.subscribe(record.callback());
        up.upload_file(f.medium, completing);
        if (!EXPECT(record.wait_ends(1), c.mode << ": no end")) continue;
        upload_event end = record.last();
        EXPECT(end.state == upload_state::failed && end.code() == c.status && end.payload_json.empty(),
               c.mode << ": " << end.status << " " << end.message);
        EXPECT(end.message.find(c.text) != std::string::npos, c.mode << ": " << end.message);
        std::string detail = expect_error(c.status, [&] { (void)up.result(); }, c.mode);
        EXPECT(detail.find(c.text) != std::string::npos, c.mode << ": " << detail);
    }
    EXPECT(harness::read_file(f.medium) == f.medium_bytes, "a failure changed the local file");
}

/* The post-processor: a rewrite is the result, on "vn-upload"; exceptions fail the upload with their status;
 * replaced, removed and in-place hooks are destroyed once each, the last with the uploader. */
static void test_post_processor() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    event_record record;
    std::atomic<int> calls{0}, on_upload_thread{0}, destroyed{0};
    auto witness = [&] {
        auto w = std::make_shared<harness::on_destroy>();
        w->action = [&] {
            destroyed++;
            record.waiter.notify();
        };
        return w;
    };
    {
        uploader up(f.url(channel + "hook/file"));
        auto subscription = up.subscribe(record.callback());
        up.set_post_processor([&, w = witness()](std::string_view json) -> std::optional<std::string> {
            calls++;
            on_upload_thread += thread_name() == "vn-upload";
            auto rewritten = voicenote::payload::parse(json);
            rewritten.set_field(voicenote::payload_field::title, "Rewritten");
            rewritten.set_extra_data("{\"post_processed\":true}");
            return rewritten.to_json();
        });
        up.upload_file(f.medium, placeholder());
        REQUIRE(record.wait_ends(1), "no end");
        std::string result = up.result();
        EXPECT(result.find("\"title\":\"Rewritten\"") != std::string::npos &&
                   result.find("\"post_processed\":true") != std::string::npos &&
                   result.find("/range/uploads/") != std::string::npos,
               result);
        EXPECT(record.last().payload_json == result, record.last().payload_json);
        EXPECT(calls == 1 && on_upload_thread == 1, calls << " calls, " << on_upload_thread << " on vn-upload");

        // Failures: a voicenote::error's status, errc::internal for another exception, errc::format for garbage.
        using hook = voicenote::upload_post_processor;
        const std::pair<hook, errc> failing[] = {
            {[](std::string_view) -> std::optional<std::string> {
                 throw voicenote::error(VN_E_PERMISSION, "refused by the host");
             },
             errc::permission},
            {[](std::string_view) -> std::optional<std::string> { throw std::runtime_error("a bug"); }, errc::internal},
            {[](std::string_view) { return std::optional<std::string>("not a payload"); }, errc::format},
        };
        int ends = 1;
        for (const auto &c : failing) {
            up.set_post_processor(c.first);  // replaces the one before
            if (ends == 1) {
                EXPECT(record.waiter.wait_until([&] { return destroyed == 1; }, wait_limit),
                       "the replaced hook was not destroyed");
            }
            up.upload_file(f.medium, placeholder());
            if (!EXPECT(record.wait_ends(++ends), "no end")) break;
            EXPECT(record.last().code() == c.second, record.last().status << ": " << record.last().message);
            expect_error(c.second, [&] { (void)up.result(); }, "a failing hook");
        }
        // Removed with an empty function: destroyed.
        up.set_post_processor([w = witness()](std::string_view) { return std::optional<std::string>(); });
        up.set_post_processor(nullptr);
        EXPECT(record.waiter.wait_until([&] { return destroyed == 2; }, wait_limit), destroyed << " destroyed");
        // One that keeps the payload (std::nullopt), in place when the uploader is destroyed.
        up.set_post_processor([w = witness()](std::string_view) { return std::optional<std::string>(); });
        up.upload_file(f.medium, placeholder());
        EXPECT(record.wait_ends(ends + 1), "no end with a hook that keeps the payload");
        EXPECT(up.result().find("\"title\":\"memo.m4a\"") != std::string::npos, up.result());
        EXPECT(destroyed == 2, "the hook in place was destroyed");
    }
    EXPECT(destroyed == 3, destroyed << " of 3 hooks destroyed");
    EXPECT(harness::read_file(f.medium) == f.medium_bytes, "a hook changed the local file");
}

/* Destroying the uploader (mid-upload) cancels it and ends its subscriptions: the callback is destroyed, none runs
 * after, and the subscription's reset() then does nothing. */
static void test_destroying_the_uploader_ends_subscriptions() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    std::atomic<bool> released{false}, destroyed{false};
    std::atomic<int> late{0};
    harness::waiter waiter;
    auto witness = harness::release_witness(released);
    voicenote::subscription kept;
    {
        bool uploading = false;
        uploader up(f.url("/uploadmode/slowread-100000" + channel + "destroy/file"));
        kept = up.subscribe([&, witness](const upload_event &event) {
            late += destroyed.load();
            {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                uploading = uploading || event.state == upload_state::uploading;
            }
            waiter.notify();
        });
        witness.reset();
        up.upload_file(f.large, placeholder());
        EXPECT(waiter.wait_until([&] { return uploading; }, wait_limit), "no uploading event");
        EXPECT(!released, "the callback was released while subscribed");
    }
    destroyed = true;
    EXPECT(released, "destroying the uploader did not release the callback");
    EXPECT(late == 0, late << " callbacks after the destroy");
    kept.reset();  // already ended by the destroy: nothing happens
    EXPECT(!kept, "reset empties it");
}

/* A subscription destroyed inside its own callback: no wait, no later call; another subscriber sees the end. */
static void test_a_subscription_destroyed_inside_its_own_callback() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    uploader up(f.url(channel + "self/file"));
    harness::self_ending_subscriber self;
    self.subscribe(up);
    event_record record;
    auto other = up.subscribe(record.callback());
    up.upload_file(f.medium, placeholder());
    EXPECT(record.wait_ends(1), "no end");
    EXPECT(self.waiter.wait_until([&] { return self.released; }), "the callback was not released");
    std::lock_guard<std::mutex> lock(self.waiter.mutex());
    EXPECT(self.calls == 1, "the callback ran " << self.calls << " times");
    std::lock_guard<std::mutex> events(record.waiter.mutex());
    EXPECT(record.events.size() >= 3, record.events.size() << " events for the other subscriber");
}

/* Moves carry the upload and its subscriptions; a moved-from uploader is errc::misuse. Refusals: options the
 * setters refuse, an endpoint that is not http(s), a file over the limit or missing, an empty callback. */
static void test_ownership_and_refusals() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    uploader first(f.url(channel + "moved/file"));
    event_record record;
    auto subscription = first.subscribe(record.callback());
    vn_uploader *raw = first.get();
    first.upload_file(f.medium, placeholder());
    uploader second = std::move(first);
    EXPECT(second.get() == raw && first.get() == nullptr, "the handle did not move");
    expect_error(errc::misuse, [&] { first.cancel(); }, "cancel() of a moved-from uploader");  // NOLINT: moved from
    expect_error(errc::misuse, [&] { (void)first.subscribe([](const upload_event &) {}); }, "subscribe, moved from");
    EXPECT(record.wait_ends(1), "the moved uploader's upload did not end");
    EXPECT(record.last().state == upload_state::uploaded, record.last().message);
    uploader third(f.url(channel + "other/file"));
    third = std::move(second);  // destroys third's own uploader once
    EXPECT(third.get() == raw && third.result().find("/range/uploads/") != std::string::npos, "the moved result");

    expect_error(errc::invalid_argument, [&] { uploader("ftp://example.org/up"); }, "an ftp endpoint");
    voicenote::upload_options options;
    options.max_bytes = 0;
    expect_error(errc::invalid_argument, [&] { uploader(f.url("/x"), options); }, "max_bytes 0");
    options = {};
    options.attachment_type = "giphy";
    expect_error(errc::unsupported, [&] { uploader(f.url("/x"), options); }, "a giphy upload");
    options = {};
    options.query = {{"", "v"}};
    expect_error(errc::invalid_argument, [&] { uploader(f.url("/x"), options); }, "an empty query name");
    options = {};
    options.url_key = "";
    expect_error(errc::invalid_argument, [&] { uploader(f.url("/x"), options); }, "an empty url key");
    options = {};
    options.http = voicenote::http_options{};
    options.http->headers = {{"Bad Name", "v"}};
    expect_error(errc::invalid_argument, [&] { uploader(f.url("/x"), options); }, "a malformed header");
    options = {};
    options.max_bytes = 1000;
    uploader limited(f.url(channel + "refusals/file"), options);
    expect_error(errc::too_large, [&] { limited.upload_file(f.medium, placeholder()); }, "over the limit");
    expect_error(errc::not_found, [&] { limited.upload_file(f.directory / "gone.bin"); }, "a missing file");
    expect_error(errc::invalid_argument, [&] { limited.upload_file("https://cdn.example.com/a.ogg"); }, "https");
    expect_error(errc::invalid_argument, [&] { (void)limited.subscribe(nullptr); }, "an empty callback");
    expect_error(errc::misuse, [&] { limited.retry(); }, "retry before any upload");
    voicenote::recorder idle;  // no take runs: nothing to send while it records
    expect_error(errc::misuse, [&] { limited.upload_recording(idle); }, "a recorder with no take");
    EXPECT(!limited.content_uri(), "a content URI outside the matrix mode");
    EXPECT(limited.wait(0ms) == upload_state::pending, "a refused upload started");
}

int main() {
    harness::name() = "upload";
    TEST(test_multipart_upload_with_progress);
    TEST(test_raw_uploads_for_matrix);
    TEST(test_events_through_an_event_loop);
    TEST(test_cancelled_upload);
    TEST(test_http_failures);
    TEST(test_post_processor);
    TEST(test_destroying_the_uploader_ends_subscriptions);
    TEST(test_a_subscription_destroyed_inside_its_own_callback);
    TEST(test_ownership_and_refusals);
    harness::run("stop the server", [] {
        EXPECT(the_fixture().server.stop() == 0, "http_server.py did not exit cleanly on SIGTERM");
    });
    return harness::finish();
}
