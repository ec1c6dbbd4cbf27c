/*
 * sources.cpp: voicenote::source and voicenote::http_options (voicenote/sources.hpp) end to end — a file, memory
 * (copied: the caller's buffer may go at once), host callbacks over a vector (their functions released with the
 * source; a failing or throwing callback is errc::io) and http(s) URLs against Tests/Servers/http_server.py, which
 * this test starts and stops itself (by its pid), give the same waveform and facts as the file; HTTP statuses and
 * bad options map to their errc; cancel() ends a read waiting on a stalled download at once; a batch fetches with
 * its http_options; moves leave nothing behind; a missing file is errc::not_found and garbage errc::format.
 *
 * The media cache is pointed at the test's temporary directory while URLs are read, then set back to the default.
 * Needs python3 and opusenc on PATH. Waits are bounded: the server's pipe through poll() with a deadline, its
 * request log through inotify with a deadline, a worker thread through harness::waiter.
 */
#include "harness.hpp"

#include <voicenote/analysis.hpp>
#include <voicenote/sources.hpp>

#include <cmath>
#include <cstring>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;

static_assert(!std::is_copy_constructible_v<voicenote::source>, "sources are move-only");
static_assert(!std::is_copy_assignable_v<voicenote::source>, "sources are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::source>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::source>, "moves never throw");

namespace {

using harness::error_of;
using harness::name_of;
using harness::read_file;

bool same_info(const voicenote::audio_info &a, const voicenote::audio_info &b) {
    return a.duration == b.duration && a.duration_is_estimate == b.duration_is_estimate &&
           a.sample_rate == b.sample_rate && a.channels == b.channels && a.bitrate == b.bitrate && a.codec == b.codec;
}

// The fixture: a temporary directory (the server's root) with a note, and the server.
harness::temp_directory *directory = nullptr;
harness::http_server *server = nullptr;
std::string note;                  // <directory>/note.ogg, 2 s of opusenc's Opus
std::vector<float> note_waveform;  // waveform_file(note)
voicenote::audio_info note_info;   // audio_info_file(note)

}  // namespace

static void test_a_file_source_reads_as_the_file() {
    auto source = voicenote::source::file(note);
    REQUIRE(source.get() != nullptr, "no C source");
    EXPECT(voicenote::waveform_source(source) == note_waveform, "the source's waveform differs from the file's");
    // Each call reads the source from its start.
    EXPECT(voicenote::waveform_source(source) == note_waveform, "a second read differs");
    EXPECT(same_info(voicenote::audio_info_source(source), note_info), "the source's facts differ from the file's");
    EXPECT(note_info.codec == "opus" && note_info.sample_rate == 48000 && note_info.channels == 1, note_info.codec);
    EXPECT(std::abs(note_info.duration.count() - 2.0) < 0.05, note_info.duration.count());

    // Moves: the moved-from source holds nothing, and a call with it is a misuse, not a crash.
    vn_source *c_source = source.get();
    voicenote::source moved = std::move(source);
    EXPECT(moved.get() == c_source && source.get() == nullptr, "the move did not transfer the handle");  // NOLINT
    auto misuse = error_of([&] { voicenote::waveform_source(source); });  // NOLINT: moved from on purpose
    EXPECT(misuse == voicenote::errc::misuse, name_of(misuse));
    EXPECT(error_of([&] { source.cancel(); }) == voicenote::errc::misuse, "cancel of a moved-from source");
    // Assigned over: the old source is destroyed, the new one works.
    moved = voicenote::source::file(note);
    EXPECT(voicenote::waveform_source(moved, 10).size() == 10, "the assigned source does not read");
    moved.cancel();  // a file's reads never wait: the next read fails instead, once
    EXPECT(error_of([&] { voicenote::waveform_source(moved); }) == voicenote::errc::cancelled,
           "a cancelled file source read on");
    EXPECT(voicenote::waveform_source(moved) == note_waveform, "cancel changed a file source for good");
}

static void test_memory_sources_copy_the_bytes() {
    auto bytes = read_file(note);
    REQUIRE(bytes.size() > 1000, bytes.size());
    auto source = voicenote::source::memory(bytes);
    std::fill(bytes.begin(), bytes.end(), std::uint8_t{0});  // the source made its own copy
    EXPECT(voicenote::waveform_source(source) == note_waveform, "the memory source's waveform differs");
    EXPECT(same_info(voicenote::audio_info_source(source), note_info), "the memory source's facts differ");

    std::optional<voicenote::source> view;
    {
        auto buffer = std::make_unique<std::vector<std::uint8_t>>(read_file(note));
        view.emplace(voicenote::source::memory_view(buffer->data(), buffer->size()));
    }  // the buffer is gone: memory_view copied it too
    EXPECT(voicenote::waveform_source(*view) == note_waveform, "the memory view's waveform differs");
    auto null_data = error_of([] { voicenote::source::memory_view(nullptr, 10); });
    EXPECT(null_data == voicenote::errc::invalid_argument, name_of(null_data));
    auto empty = voicenote::source::memory(std::vector<std::uint8_t>());
    auto nothing = error_of([&] { voicenote::waveform_source(empty); });
    EXPECT(nothing == voicenote::errc::format, name_of(nothing));
}

/** A host's bytes behind read and seek functions, counting the calls. */
struct host_bytes {
    std::vector<std::uint8_t> bytes;
    std::size_t position = 0;
    int reads = 0;
    int seeks = 0;

    std::int64_t read(void *buffer, std::size_t capacity) {
        reads++;
        std::size_t n = std::min(capacity, bytes.size() - position);
        std::memcpy(buffer, bytes.data() + position, n);
        position += n;
        return static_cast<std::int64_t>(n);
    }
    bool seek(std::int64_t offset) {
        seeks++;
        if (offset < 0 || static_cast<std::uint64_t>(offset) > bytes.size()) return false;
        position = static_cast<std::size_t>(offset);
        return true;
    }
};

static void test_a_callbacks_source_reads_through_the_host() {
    for (bool sized : {true, false}) {
        auto host = std::make_shared<host_bytes>();
        host->bytes = read_file(note);
        bool released = false;
        auto witness = harness::release_witness(released);
        std::optional<std::int64_t> size;
        if (sized) size = static_cast<std::int64_t>(host->bytes.size());
        {
            auto source = voicenote::source::callbacks(
                [host, witness](void *buffer, std::size_t capacity) { return host->read(buffer, capacity); },
                [host](std::int64_t offset) { return host->seek(offset); }, size);
            witness.reset();
            EXPECT(voicenote::waveform_source(source) == note_waveform, "sized " << sized << ": the waveform differs");
            // Without a size the average bitrate is unknown (0); the rest is the file's.
            auto info = voicenote::audio_info_source(source);
            auto expected = note_info;
            if (!sized) expected.bitrate = 0;
            EXPECT(same_info(info, expected), "sized " << sized << ": the facts differ: " << info.duration.count()
                   << " s " << info.bitrate << " bit/s " << info.codec << " " << info.sample_rate << " Hz " << info.channels);
            EXPECT(host->reads > 0 && host->seeks > 0, "reads " << host->reads << ", seeks " << host->seeks);
            voicenote::source moved = std::move(source);
            EXPECT(!released, "the functions are held while the source lives");
            EXPECT(voicenote::waveform_source(moved, 10).size() == 10, "the moved source does not read");
        }
        EXPECT(released, "destroying the source released its functions");
        EXPECT(host.use_count() == 1, "the functions' captures are gone: " << host.use_count());
    }
}

static void test_a_failing_host_callback_is_an_io_error() {
    auto bytes = std::make_shared<host_bytes>();
    bytes->bytes = read_file(note);
    auto seek = [bytes](std::int64_t offset) { return bytes->seek(offset); };
    auto read = [bytes](void *buffer, std::size_t capacity) { return bytes->read(buffer, capacity); };
    long held = 0;  // the captures of the functions the sources below hold

    auto throwing = voicenote::source::callbacks(
        [](void *, std::size_t) -> std::int64_t { throw std::runtime_error("the host's storage failed"); }, seek);
    auto code = error_of([&] { voicenote::waveform_source(throwing); });
    EXPECT(code == voicenote::errc::io, "a throwing read: " << name_of(code));

    auto negative = voicenote::source::callbacks([](void *, std::size_t) -> std::int64_t { return -1; }, seek);
    code = error_of([&] { voicenote::audio_info_source(negative); });
    EXPECT(code == voicenote::errc::io, "a read returning -1: " << name_of(code));

    auto overlong = voicenote::source::callbacks(
        [](void *, std::size_t capacity) { return static_cast<std::int64_t>(capacity) + 1; }, seek);
    code = error_of([&] { voicenote::waveform_source(overlong); });
    EXPECT(code == voicenote::errc::io, "a read claiming more than it was given room for: " << name_of(code));

    auto failing_seek = voicenote::source::callbacks(read, [](std::int64_t) -> bool {
        throw std::runtime_error("cannot seek");
    });
    code = error_of([&] { voicenote::waveform_source(failing_seek); });
    EXPECT(code == voicenote::errc::io, "a throwing seek: " << name_of(code));

    held = bytes.use_count();
    code = error_of([&] { voicenote::source::callbacks(nullptr, seek); });
    EXPECT(code == voicenote::errc::invalid_argument, "no read: " << name_of(code));
    code = error_of([&] { voicenote::source::callbacks(read, nullptr); });
    EXPECT(code == voicenote::errc::invalid_argument, "no seek: " << name_of(code));
    code = error_of([&] { voicenote::source::callbacks(read, seek, -1); });
    EXPECT(code == voicenote::errc::invalid_argument, "a negative size: " << name_of(code));
    EXPECT(bytes.use_count() == held, "a refused source kept its functions: " << bytes.use_count() << ", not " << held);
}

static void test_file_errors_map_to_their_errc() {
    auto missing = error_of([] { voicenote::source::file(*directory / "missing.ogg"); });
    EXPECT(missing == voicenote::errc::not_found, name_of(missing));
    try {
        voicenote::source::file(*directory / "missing.ogg");
    } catch (const voicenote::error &e) {
        EXPECT(e.detail().find("missing.ogg") != std::string::npos, "the detail names the file: " << e.detail());
    }
    auto a_directory = error_of([] { voicenote::source::file(directory->path()); });
    EXPECT(a_directory == voicenote::errc::invalid_argument, name_of(a_directory));

    std::string garbage = *directory / "garbage.ogg";
    {
        std::ofstream out(garbage, std::ios::binary);
        for (int i = 0; i < 4096; i++) out.put(static_cast<char>((i * 7919) & 0xff));
    }
    auto source = voicenote::source::file(garbage);  // opening it is fine: its content is read later
    auto format = error_of([&] { voicenote::waveform_source(source); });
    EXPECT(format == voicenote::errc::format, "waveform: " << name_of(format));
    format = error_of([&] { voicenote::audio_info_source(source); });
    EXPECT(format == voicenote::errc::format, "info: " << name_of(format));
    format = error_of([&] { voicenote::waveform_file(garbage); });
    EXPECT(format == voicenote::errc::format, "waveform_file: " << name_of(format));
}

static void test_a_url_source_reads_as_the_file() {
    const std::string url = server->base_url() + "/range/note.ogg";
    auto source = voicenote::source::url(url);
    EXPECT(voicenote::waveform_source(source) == note_waveform, "the URL's waveform differs from the file's");
    EXPECT(same_info(voicenote::audio_info_source(source), note_info), "the URL's facts differ from the file's");
    // The complete download is kept in the cache (written by the network thread after the reads), until cleared.
    const std::string cache = *directory / "cache";
    bool kept =
        harness::wait_for_files({directory->path(), cache}, [] { return voicenote::cache::get_size() > 0; }, 10s);
    EXPECT(kept, "the download was not kept in the cache");
    voicenote::cache::clear();
    EXPECT(voicenote::cache::get_size() == 0, "after clear the cache holds " << voicenote::cache::get_size());

    // Headers reach the origin: a bearer route without the header is refused, with it served.
    const std::string guarded = server->base_url() + "/auth/tok/range/note.ogg";
    auto refused = voicenote::source::url(guarded);
    auto code = error_of([&] { voicenote::waveform_source(refused); });
    EXPECT(code == voicenote::errc::permission, "without the header: " << name_of(code));
    voicenote::http_options options;
    options.headers.emplace_back("Authorization", "Bearer tok");
    options.connect_timeout = 5s;
    options.stall_timeout = 10s;
    options.transfer_timeout = 60s;
    options.max_bytes = 10 * 1024 * 1024;
    auto allowed = voicenote::source::url(guarded, options);
    EXPECT(voicenote::waveform_source(allowed) == note_waveform, "with the header: the waveform differs");

    // HTTP statuses, through the reads.
    const std::pair<const char *, voicenote::errc> statuses[] = {
        {"/status/404", voicenote::errc::not_found},  {"/status/410", voicenote::errc::not_found},
        {"/status/403", voicenote::errc::permission}, {"/status/413", voicenote::errc::too_large},
        {"/status/500", voicenote::errc::network}};
    for (const auto &status : statuses) {
        auto failing = voicenote::source::url(server->base_url() + status.first);
        code = error_of([&] { voicenote::waveform_source(failing); });
        EXPECT(code == status.second, status.first << ": " << name_of(code));
    }
    // A download over max_bytes.
    voicenote::http_options small;
    small.max_bytes = 100;
    auto too_large = voicenote::source::url(server->base_url() + "/range/note.ogg?small", small);
    code = error_of([&] { voicenote::waveform_source(too_large); });
    EXPECT(code == voicenote::errc::too_large, "over max_bytes: " << name_of(code));
}

static void test_bad_urls_and_http_options_are_refused() {
    const std::string url = server->base_url() + "/range/note.ogg";
    auto code = error_of([] { voicenote::source::url("ftp://example.org/a.ogg"); });
    EXPECT(code == voicenote::errc::invalid_argument, "ftp: " << name_of(code));
    code = error_of([] { voicenote::source::url("not a url"); });
    EXPECT(code == voicenote::errc::invalid_argument, "no URL: " << name_of(code));

    auto refused = [&](voicenote::http_options options) {
        return error_of([&] { voicenote::source::url(url, options); });
    };
    voicenote::http_options options;
    options.headers.emplace_back("Bad Name", "x");
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "a header name with a space");
    options = {};
    options.headers.emplace_back("X-Test", "a\r\nInjected: yes");
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "a header value with a line break");
    options = {};
    options.connect_timeout = 0s;
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "a connect timeout of 0");
    options = {};
    options.stall_timeout = voicenote::seconds(std::nan(""));
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "a NaN stall timeout");
    options = {};
    options.transfer_timeout = 86401s;
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "a transfer timeout over a day");
    options = {};
    options.max_bytes = 0;
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "max_bytes 0");
    options = {};
    options.ca_file = *directory / "missing.pem";
    EXPECT(refused(options) == voicenote::errc::not_found, "a CA file that does not exist");
    options = {};
    options.ca_file = "";
    EXPECT(refused(options) == voicenote::errc::invalid_argument, "an empty CA path");
    // c_http_options always gives a created object.
    EXPECT(voicenote::detail::c_http_options({}).get() != nullptr, "no C options");
}

static void test_cancel_ends_a_read_waiting_on_the_network() {
    // 1000 bytes, then silence: the waveform call waits for the rest until cancelled (or the stall timeout).
    voicenote::http_options options;
    options.stall_timeout = 30s;
    const std::string path = "/stall/1000/note.ogg";
    auto source = voicenote::source::url(server->base_url() + path, options);
    harness::waiter waiter;
    bool done = false;
    std::optional<voicenote::errc> code;
    std::thread reader([&] {
        auto result = error_of([&] { voicenote::waveform_source(source); });
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            code = result;
            done = true;
        }
        waiter.notify();
    });
    // The server says when it has sent its bytes and holds the connection silent.
    bool stalling =
        harness::wait_for_file_containing(server->log_path() + ".receiving", {path, "\"stalling\": true"}, 10s);
    EXPECT(stalling, "the server never stalled the response");
    auto cancelled_at = std::chrono::steady_clock::now();
    source.cancel();
    bool finished = waiter.wait_until([&] { return done; }, 20s);
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - cancelled_at);
    reader.join();  // it ends with the stall timeout at the latest
    EXPECT(finished, "the read did not end after cancel()");
    EXPECT(took < 2000ms, "cancel() took " << took.count() << " ms");
    EXPECT(code == voicenote::errc::cancelled, name_of(code));
}

static void test_a_batch_fetches_urls_with_its_http_options() {
    voicenote::http_options options;
    options.headers.emplace_back("Authorization", "Bearer tok");
    voicenote::waveform_batch batch(voicenote::waveform_default_samples, 2, options);
    batch.add(server->base_url() + "/auth/tok/range/note.ogg?batch");
    batch.add(server->base_url() + "/status/404");
    batch.end_input();
    std::vector<voicenote::waveform_result> results;
    while (auto result = batch.next(30s)) results.push_back(std::move(*result));
    EXPECT(batch.ended(), "the batch did not end");
    REQUIRE(results.size() == 2, results.size());
    EXPECT(results[0].ok() && results[0].values.size() == note_waveform.size(), results[0].message);
    for (std::size_t i = 0; i < results[0].values.size() && i < note_waveform.size(); i++)
        EXPECT(std::abs(results[0].values[i] - note_waveform[i]) <= 0.001f, i << ": " << results[0].values[i]);
    EXPECT(results[1].code() == voicenote::errc::not_found, results[1].status << " " << results[1].message);
    EXPECT(results[1].values.empty() && results[1].duration.count() == 0, "a failed note has no values");
}

int main() {
    harness::name() = "sources";
    int status = 1;
    try {
        harness::temp_directory temp("sources");
        directory = &temp;
        note = temp / "note.ogg";
        if (!harness::write_note(temp, 2.0, note)) throw std::runtime_error("opusenc failed");
        note_waveform = voicenote::waveform_file(note);
        note_info = voicenote::audio_info_file(note);
        // Downloads are cached in the test's own directory, never the user's.
        voicenote::cache::set_directory(temp / "cache");
        TEST(test_a_file_source_reads_as_the_file);
        TEST(test_memory_sources_copy_the_bytes);
        TEST(test_a_callbacks_source_reads_through_the_host);
        TEST(test_a_failing_host_callback_is_an_io_error);
        TEST(test_file_errors_map_to_their_errc);
        {
            harness::http_server http(temp.path());
            if (!http.ready()) throw std::runtime_error(http.error());
            server = &http;
            TEST(test_a_url_source_reads_as_the_file);
            TEST(test_bad_urls_and_http_options_are_refused);
            TEST(test_cancel_ends_a_read_waiting_on_the_network);
            TEST(test_a_batch_fetches_urls_with_its_http_options);
            int stopped = http.stop();
            if (stopped != 0) std::cerr << "  http_server.py exited with " << stopped << std::endl;
            server = nullptr;
        }
        voicenote::cache::set_directory(std::nullopt);
        status = harness::finish();
    } catch (const std::exception &e) {
        std::cerr << "  FATAL: " << e.what() << std::endl;
    }
    return status;
}
