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
#include <voicenote/sources.hpp>
#include <voicenote/upload.hpp>

#include <cmath>
#include <csignal>
#include <cstring>
#include <optional>
#include <type_traits>

#include <poll.h>
#include <sys/inotify.h>

using namespace std::chrono_literals;
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

std::vector<std::uint8_t> read_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string repo_root() {
    const char *from_environment = std::getenv("VOICENOTE_REPO");
    if (from_environment && *from_environment) return from_environment;
    std::string here = __FILE__;
    auto tail = here.find("bindings/cpp/tests/upload.cpp");
    return tail == std::string::npos || tail == 0 ? "." : here.substr(0, tail);
}

/** The name of the calling thread (/proc/thread-self/comm). */
std::string thread_name() {
    std::ifstream in("/proc/thread-self/comm");
    std::string name;
    std::getline(in, name);
    return name;
}

/**
 * Tests/Servers/http_server.py in a child process: started with its stdin and stdout on pipes and
 * --exit-with-stdin (it also ends when this process dies), its "PORT <n>" line read with a deadline; stopped with
 * SIGTERM, its stdout read to its end with a deadline, then SIGKILL if it has not exited.
 */
class test_server {
public:
    explicit test_server(std::string root) : root_(std::move(root)), log_(root_ + "/requests.jsonl") {
        std::string script = repo_root() + "/Tests/Servers/http_server.py";
        std::vector<std::string> arguments = {"python3", script, "--root", root_, "--log", log_, "--port", "0",
                                              "--exit-with-stdin"};
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0) return;
        if (pipe2(out, O_CLOEXEC) != 0) {
            close(in[0]);
            close(in[1]);
            return;
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        std::vector<char *> argv;
        for (auto &argument : arguments) argv.push_back(const_cast<char *>(argument.c_str()));
        argv.push_back(nullptr);
        int spawned = posix_spawnp(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(in[0]);
        close(out[1]);
        to_child_ = in[1];
        from_child_ = out[0];
        if (spawned != 0) {
            pid_ = -1;
            return;
        }
        std::string line;
        int port = 0;
        if (read_line(line, std::chrono::steady_clock::now() + 10s) && std::sscanf(line.c_str(), "PORT %d", &port) == 1 &&
            port > 0) {
            base_url_ = "http://127.0.0.1:" + std::to_string(port);
        }
    }
    ~test_server() { stop(); }
    test_server(const test_server &) = delete;
    test_server &operator=(const test_server &) = delete;

    /** Whether it is listening. */
    bool ready() const { return !base_url_.empty(); }
    /** http://127.0.0.1:<port> */
    const std::string &base_url() const { return base_url_; }
    /** The directory it serves (uploads land in <root>/uploads/<n>.bin). */
    const std::string &root() const { return root_; }

    /** SIGTERM and a bounded wait; its exit status (0 expected), or -1. */
    int stop() {
        if (pid_ <= 0) return 0;
        kill(pid_, SIGTERM);
        bool exited = read_to_end(std::chrono::steady_clock::now() + 5s);
        if (!exited) kill(pid_, SIGKILL);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        close(to_child_);
        close(from_child_);
        return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    /**
     * The first complete line of the request log holding every fragment, waiting up to `timeout` for the server to
     * write it: an inotify watch on the directory wakes the wait at each change, so nothing sleeps. "" when none.
     */
    std::string logged(const std::vector<std::string> &fragments, std::chrono::milliseconds timeout = 5000ms) {
        int watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
        if (watch < 0) return "";
        inotify_add_watch(watch, root_.c_str(), IN_MODIFY | IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO);
        auto deadline = std::chrono::steady_clock::now() + timeout;
        std::string found;
        for (;;) {
            found = find_line(fragments);  // after the watch exists: no change can slip between
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (!found.empty() || left.count() <= 0) break;
            pollfd p{watch, POLLIN, 0};
            if (poll(&p, 1, static_cast<int>(left.count())) > 0) {
                char events[4096];
                while (read(watch, events, sizeof events) > 0) {
                }
            }
        }
        close(watch);
        return found;
    }

private:
    std::string find_line(const std::vector<std::string> &fragments) const {
        std::ifstream in(log_);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t start = 0;
        for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
            std::string line = text.substr(start, end - start);
            bool all = true;
            for (const auto &fragment : fragments) all = all && line.find(fragment) != std::string::npos;
            if (all) return line;
        }
        return "";
    }

    bool read_line(std::string &line, std::chrono::steady_clock::time_point deadline) {
        char c = 0;
        while (poll_readable(deadline)) {
            ssize_t got = read(from_child_, &c, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return false;
            if (c == '\n') return true;
            line.push_back(c);
        }
        return false;
    }

    bool read_to_end(std::chrono::steady_clock::time_point deadline) {
        char buffer[512];
        while (poll_readable(deadline)) {
            ssize_t got = read(from_child_, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return true;
        }
        return false;
    }

    bool poll_readable(std::chrono::steady_clock::time_point deadline) {
        for (;;) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return false;
            pollfd p{from_child_, POLLIN, 0};
            int ready = poll(&p, 1, static_cast<int>(left.count()));
            if (ready < 0 && errno == EINTR) continue;
            return ready > 0;
        }
    }

    std::string root_, log_, base_url_;
    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
};

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
    test_server server{directory / "served"};
    bool ready = files && server.ready();

    std::string url(const std::string &path) const { return server.base_url() + path; }
    /** Whether the server stored exactly `bytes` as the upload an asset_url or mxc:// URI names. */
    bool stored(const std::string &asset_url, const std::vector<std::uint8_t> &bytes) const {
        auto slash = asset_url.rfind('/');
        std::string leaf = asset_url.substr(slash + 1);
        if (leaf.find(".bin") == std::string::npos) leaf += ".bin";
        return read_bytes(server.root() + "/uploads/" + leaf) == bytes;
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

/** Runs `action`, expecting it to throw voicenote::error with `want`; returns the error's detail ("" if none). */
template <class Action>
std::string expect_error(errc want, Action action, const std::string &what) {
    try {
        action();
        harness::fail(__FILE__, __LINE__, what + ": did not throw");
    } catch (const voicenote::error &e) {
        if (e.code() != want) {
            harness::fail(__FILE__, __LINE__,
                          what + ": threw " + e.name() + " (" + e.detail() + "), want " +
                              vn_status_name(static_cast<int>(want)));
        }
        return e.detail();
    }
    return "";
}

/** A payload for random-bytes files, so that nothing reads them as audio. */
voicenote::payload placeholder() { return voicenote::payload("https://placeholder.example/file"); }

/** Calls `action` when destroyed: a witness of when a callback's captures are destroyed. */
struct on_destroy {
    std::function<void()> action;
    ~on_destroy() {
        if (action) action();
    }
};

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
    EXPECT(read_bytes(f.medium) == f.medium_bytes, "the local file changed");
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
    EXPECT(f.stored(mxc, read_bytes(f.note)), "the stored upload differs from the note");
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
    EXPECT(read_bytes(f.large) == f.large_bytes, "the cancel changed the local file");
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
    EXPECT(read_bytes(f.medium) == f.medium_bytes, "a failure changed the local file");
}

/* The post-processor: a rewrite is the result, on "vn-upload"; exceptions fail the upload with their status;
 * replaced, removed and in-place hooks are destroyed once each, the last with the uploader. */
static void test_post_processor() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    event_record record;
    std::atomic<int> calls{0}, on_upload_thread{0}, destroyed{0};
    auto witness = [&] {
        auto w = std::make_shared<on_destroy>();
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
    EXPECT(read_bytes(f.medium) == f.medium_bytes, "a hook changed the local file");
}

/* Destroying the uploader (mid-upload) cancels it and ends its subscriptions: the callback is destroyed, none runs
 * after, and the subscription's reset() then does nothing. */
static void test_destroying_the_uploader_ends_subscriptions() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "the fixture is not ready");
    std::atomic<bool> released{false}, destroyed{false};
    std::atomic<int> late{0};
    harness::waiter waiter;
    auto witness = std::make_shared<on_destroy>();
    witness->action = [&] { released = true; };
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
    harness::waiter waiter;
    int calls = 0;
    bool released = false;
    auto witness = std::make_shared<on_destroy>();
    witness->action = [&] {
        { std::lock_guard<std::mutex> lock(waiter.mutex()); released = true; }
        waiter.notify();
    };
    std::optional<voicenote::subscription> self;
    self = up.subscribe([&, witness](const upload_event &) {
        { std::lock_guard<std::mutex> lock(waiter.mutex()); calls++; }
        self.reset();  // ends it from inside its own callback
    });
    witness.reset();
    event_record record;
    auto other = up.subscribe(record.callback());
    up.upload_file(f.medium, placeholder());
    EXPECT(record.wait_ends(1), "no end");
    EXPECT(waiter.wait_until([&] { return released; }), "the callback was not released");
    std::lock_guard<std::mutex> lock(waiter.mutex());
    EXPECT(calls == 1, "the callback ran " << calls << " times");
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
