/*
 * attachments.cpp: payloads (Stream's voiceRecording and Matrix's m.audio), attachment types, and the
 * next voice message through the C++ layer (voicenote/attachments.hpp).
 *
 * - A payload built from an opusenc note has its title, file:// URL, size, MIME type, duration and 100 levels, and
 *   round-trips through JSON exactly (compact and indented, extra data kept in place).
 * - Every accessor: absent values as std::nullopt, removal, refusals before and in the C call (negative, NaN).
 * - The Matrix content of the same note reads back with the duration, MIME type, size and the waveform within the
 *   Matrix quantisation (1/1024); the authenticated-media URL and its header.
 * - find_next_item on the repository's fixture and on messages of its own; hostile JSON is errc::format or
 *   errc::too_large, with the library's message; a moved-from payload is errc::misuse.
 *
 * Needs opusenc on PATH.
 */
#include "harness.hpp"

#include <voicenote/attachments.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;
using harness::expect_error;
using voicenote::errc;
using voicenote::payload;
using voicenote::payload_field;

static_assert(!std::is_copy_constructible_v<payload>, "payloads are move-only");
static_assert(!std::is_copy_assignable_v<payload>, "payloads are move-only");
static_assert(std::is_nothrow_move_constructible_v<payload>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<payload>, "moves never throw");
static_assert(std::is_nothrow_move_constructible_v<voicenote::matrix_audio>, "moves never throw");

namespace {

const double tone_seconds = 1.5;

/** The test's directory and its note, made once. */
struct fixture {
    harness::temp_directory directory{"attachments"};
    std::string note = directory / "note.ogg";
    bool ready = harness::write_note(directory, tone_seconds, note);
};

fixture &the_fixture() {
    static fixture instance;
    return instance;
}

std::string read_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

/* ------------------------------------------------------------------------------------------------------------ */

static void test_payload_from_a_recorded_note() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "opusenc failed");
    payload note = payload::from_recording(f.note);
    EXPECT(note.field(payload_field::type) == std::optional<std::string>("voiceRecording"), "type");
    EXPECT(note.field(payload_field::title) == std::optional<std::string>("note.ogg"), note.field(payload_field::title).value_or("none"));
    EXPECT(note.field(payload_field::mime_type) == std::optional<std::string>("audio/ogg"), "mime type");
    auto url = note.field(payload_field::asset_url);
    EXPECT(url && url->rfind("file://", 0) == 0 && url->find("note.ogg") != std::string::npos, url.value_or("none"));
    struct stat info {};
    REQUIRE(stat(f.note.c_str(), &info) == 0, "no note");
    EXPECT(note.file_size() == std::optional<std::int64_t>(info.st_size), note.file_size().value_or(-1));
    auto duration = note.duration();
    EXPECT(duration && std::abs(duration->count() - tone_seconds) < 0.05, (duration ? duration->count() : -1.0));
    auto loudness = note.loudness();  // read with the waveform, in the extra data
    EXPECT(loudness && !loudness->silent() && loudness->integrated_lufs < -10 && loudness->integrated_lufs > -30,
           (loudness ? loudness->integrated_lufs : 0.0));
    note.set_loudness(std::nullopt);
    EXPECT(!note.loudness(), "the loudness was not removed");
    note.set_loudness(voicenote::loudness{-23.5, 2.25, -3.5});
    EXPECT(note.loudness() == std::optional<voicenote::loudness>(voicenote::loudness{-23.5, 2.25, -3.5}), "set");
    auto refused = harness::error_of([&] { note.set_loudness(voicenote::loudness{NAN, 0, 0}); });
    EXPECT(refused == voicenote::errc::invalid_argument, harness::name_of(refused));
    auto levels = note.waveform();
    std::size_t in_range = 0, above_zero = 0;
    for (double level : levels) {
        in_range += level >= 0 && level <= 1;
        above_zero += level > 0;
    }
    EXPECT(levels.size() == 100 && in_range == 100, levels.size() << " levels, " << in_range << " in 0…1");
    EXPECT(above_zero > 50, above_zero << " levels above 0");

    // JSON out and back: compact and indented read back to the same text; every value exact.
    std::string json = note.to_json();
    payload again = payload::parse(json);
    EXPECT(again.to_json() == json, again.to_json() << "\n  vs " << json);
    std::string pretty = note.to_json(2);
    EXPECT(pretty.find("\n  \"type\": \"voiceRecording\"") != std::string::npos, pretty);
    EXPECT(payload::parse(pretty).to_json() == json, "the indented form reads back differently");
    EXPECT(again.waveform() == levels && again.duration() == duration, "values changed through JSON");

    // The recorder's values instead of the file's: used as given (nothing decoded).
    payload given = payload::from_recording(f.note, voicenote::seconds(2.5), {0.25f, 0.5f, 1.0f});
    EXPECT(given.duration() == std::optional<voicenote::seconds>(2.5), "duration not as given");
    EXPECT((given.waveform() == std::vector<double>{0.25, 0.5, 1.0}), given.to_json());
    expect_error(errc::invalid_argument, [&] { payload::from_recording(f.note, voicenote::seconds(NAN)); }, "NaN");
    expect_error(errc::not_found, [&] { payload::from_recording(f.directory / "missing.ogg"); }, "missing file");
    expect_error(errc::invalid_argument, [&] { payload::from_recording(f.directory.path()); }, "a directory");
    std::string text = f.directory / "text.ogg";
    std::ofstream(text) << "not audio at all";
    expect_error(errc::format, [&] { payload::from_recording(text); }, "not audio");
}

/* Stream's payload with extra data keeps every key in its place (a new known key goes after the known key before
 * it); every accessor reads, sets and removes. */
static void test_payload_fields_and_extra_data() {
    const std::string stream = "{\"title\":\"audio\",\"asset_url\":\"https://example.com/audio.aac\",\"file_size\":"
                               "10485760,\"mime_type\":\"audio/aac\",\"comment\":\"Some comment\"}";
    // A view into a longer buffer: parse reads only its bytes (no NUL needed).
    std::string buffer = stream + "trailing garbage";
    payload p = payload::parse(std::string_view(buffer).substr(0, stream.size()));
    EXPECT(p.to_json() == stream, p.to_json());
    EXPECT(p.extra_data() == "{\"comment\":\"Some comment\"}", p.extra_data());
    EXPECT(!p.field(payload_field::type) && !p.duration() && p.waveform().empty(), "absent values");
    EXPECT(p.file_size() == std::optional<std::int64_t>(10485760), "file_size");

    p.set_field(payload_field::type, "voiceRecording");
    p.set_field(payload_field::title, std::string("R\xc3\xa9union"));
    p.set_duration(voicenote::seconds(0.1));
    p.set_waveform(std::vector<double>{0.1, 0.30000000000000004, 1.0});
    p.set_file_size(std::numeric_limits<std::int64_t>::max());
    p.set_extra_data("{\"comment\":\"kept\",\"new\":[1,{\"deep\":null}]}");
    EXPECT(p.to_json() == "{\"type\":\"voiceRecording\",\"title\":\"R\xc3\xa9union\",\"asset_url\":"
                          "\"https://example.com/audio.aac\",\"file_size\":9223372036854775807,\"mime_type\":"
                          "\"audio/aac\",\"duration\":0.1,\"waveform_data\":[0.1,0.30000000000000004,1.0],"
                          "\"comment\":\"kept\",\"new\":[1,{\"deep\":null}]}",
           p.to_json());
    EXPECT(p.duration() == std::optional<voicenote::seconds>(0.1), "duration");
    EXPECT(p.waveform()[1] == 0.30000000000000004, "waveform not exact");

    // Refusals change nothing: before the C call (negative numbers) and in it (NaN, UTF-8, a relative URL).
    expect_error(errc::invalid_argument, [&] { p.set_duration(voicenote::seconds(-1)); }, "negative duration");
    expect_error(errc::invalid_argument, [&] { p.set_duration(voicenote::seconds(INFINITY)); }, "infinite duration");
    expect_error(errc::invalid_argument, [&] { p.set_file_size(-5); }, "negative size");
    expect_error(errc::invalid_argument, [&] { p.set_waveform(std::vector<double>{0.5, NAN}); }, "NaN level");
    expect_error(errc::invalid_argument, [&] { p.set_field(payload_field::title, "bad \xff"); }, "invalid UTF-8");
    expect_error(errc::invalid_argument, [&] { p.set_field(payload_field::asset_url, "relative.ogg"); }, "relative");
    expect_error(errc::invalid_argument, [&] { p.set_field(payload_field::asset_url, std::nullopt); }, "no URL");
    expect_error(errc::invalid_argument, [&] { p.set_extra_data("{\"title\":\"x\"}"); }, "a known key");
    expect_error(errc::format, [&] { p.set_extra_data("[1]"); }, "extra data not an object");
    expect_error(errc::invalid_argument, [&] { (void)p.to_json(17); }, "indent 17");
    EXPECT(p.duration() == std::optional<voicenote::seconds>(0.1) && p.extra_data().find("kept") != std::string::npos,
           "a refused call changed the payload: " << p.to_json());

    // Removal, and an empty waveform that is an empty array rather than no key.
    p.set_duration(std::nullopt);
    p.set_file_size(std::nullopt);
    p.set_field(payload_field::type, std::nullopt);
    p.set_extra_data(std::nullopt);
    p.set_waveform(std::vector<double>{});
    EXPECT(p.to_json() == "{\"title\":\"R\xc3\xa9union\",\"asset_url\":\"https://example.com/audio.aac\","
                          "\"mime_type\":\"audio/aac\",\"waveform_data\":[]}",
           p.to_json());
    p.set_waveform(std::nullopt);
    EXPECT(p.to_json().find("waveform_data") == std::string::npos, p.to_json());

    payload made("mxc://example.org/abc");
    EXPECT(made.to_json() == "{\"type\":\"voiceRecording\",\"asset_url\":\"mxc://example.org/abc\"}", made.to_json());
    expect_error(errc::invalid_argument, [] { payload("relative/a.ogg"); }, "a relative asset_url");
}

/* Hostile JSON: each refused with its status and the library's message; nothing half-made. */
static void test_hostile_json() {
    const char *const bad[] = {
        "{\"asset_url\":",
        "{\"asset_url\":\"https://a.example/b\",\"t\":\"\xff\xfe\"}",
        "{\"asset_url\":\"https://a.example/b\",\"n\":9223372036854775808}",
        "{\"asset_url\":\"https://a.example/b\",\"n\":1,\"n\":2}",
        "{\"title\":\"no url\"}",
        "[{\"asset_url\":\"https://a.example/b\"}]",
        "{\"asset_url\":\"https://a.example/b\",\"duration\":\"2\"}",
        "{\"asset_url\":\"https://a.example/b\",\"duration\":NaN}",
        "",
    };
    for (const char *json : bad) {
        std::string detail = expect_error(errc::format, [&] { payload::parse(json); }, json);
        EXPECT(!detail.empty(), json << ": no message");
    }
    std::string deep = "{\"asset_url\":\"https://a.example/b\",\"d\":" + std::string(10000, '[') +
                       std::string(10000, ']') + "}";
    expect_error(errc::format, [&] { payload::parse(deep); }, "10000 levels");
    std::string huge = "{\"asset_url\":\"https://a.example/b\",\"pad\":\"" + std::string(1u << 20, 'a') + "\"}";
    expect_error(errc::too_large, [&] { payload::parse(huge); }, "over 1 MiB");

    expect_error(errc::format, [] { payload::from_matrix_content("{\"msgtype\":\"m.text\",\"body\":\"hi\"}"); },
                 "m.text");
    expect_error(errc::format, [] { payload::from_matrix_content("{\"msgtype\":\"m.audio\",\"url\":\"https://x/y\"}"); },
                 "an https url");
    expect_error(errc::format, [] { voicenote::attachment_type_of_json("[]"); }, "an attachment array");
    expect_error(errc::format, [] { voicenote::attachment_type_of_json("{\"type\":"); }, "a cut attachment");
    const char *const messages[] = {"[{", "{}", "5", "[5]", "{\"messages\":{}}", "[{\"id\":\"m\",\"attachments\":{}}]"};
    for (const char *json : messages) {
        expect_error(errc::format,
                     [&] { voicenote::find_next_item(json, "https://cdn.example.com/vr1.ogg", "C",
                                                     voicenote::next_scope::same_message); },
                     json);
    }
    expect_error(errc::format,
                 [] { voicenote::find_next_item("{", std::nullopt, std::nullopt, voicenote::next_scope::consecutive); },
                 "checked while nothing plays");
}

/* The Matrix voice message of the note: the content Element sends, read back within the Matrix quantisation. */
static void test_matrix_content_round_trip() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "opusenc failed");
    payload note = payload::from_recording(f.note);
    expect_error(errc::invalid_argument, [&] { (void)note.to_matrix_content(); }, "a file:// asset_url");
    note.set_field(payload_field::asset_url, "mxc://example.org/abc");
    std::string content = note.to_matrix_content("Voice");
    for (const char *fragment : {"\"msgtype\":\"m.audio\"", "\"body\":\"Voice\"", "\"url\":\"mxc://example.org/abc\"",
                                 "\"mimetype\":\"audio/ogg\"", "\"org.matrix.msc3245.voice\":{}",
                                 "\"org.matrix.msc1767.audio\""}) {
        EXPECT(content.find(fragment) != std::string::npos, "no " << fragment << " in " << content);
    }
    EXPECT(note.to_matrix_content().find("\"body\":\"Voice message\"") != std::string::npos, "default body");

    voicenote::matrix_audio audio = payload::from_matrix_content(content);
    EXPECT(audio.is_voice, "not marked a voice message");
    payload &read = audio.payload;
    EXPECT(read.field(payload_field::asset_url) == std::optional<std::string>("mxc://example.org/abc"), "url");
    EXPECT(read.field(payload_field::title) == std::optional<std::string>("Voice"), "title");
    EXPECT(read.field(payload_field::mime_type) == std::optional<std::string>("audio/ogg"), "mime type");
    EXPECT(read.file_size() == note.file_size(), read.file_size().value_or(-1));
    auto sent = note.duration(), got = read.duration();
    EXPECT(sent && got && std::abs(got->count() - sent->count()) <= 0.001, "duration " << (got ? got->count() : -1.0));
    auto levels = note.waveform(), decoded = read.waveform();
    REQUIRE(decoded.size() == levels.size() && levels.size() == 100, decoded.size() << " levels");
    double worst = 0;
    for (std::size_t i = 0; i < levels.size(); i++) worst = std::max(worst, std::abs(decoded[i] - levels[i]));
    EXPECT(worst <= 1.0 / 1024 + 1e-12, "a decoded level is " << worst << " off");

    // Content without the voice mark or a waveform: read, not marked.
    auto plain = payload::from_matrix_content(
        "{\"msgtype\":\"m.audio\",\"body\":\"a.ogg\",\"url\":\"mxc://h/m\",\"info\":{\"duration\":2500}}");
    EXPECT(!plain.is_voice && plain.payload.duration() == std::optional<voicenote::seconds>(2.5) &&
               plain.payload.waveform().empty(),
           plain.payload.to_json());
}

/* Authenticated media: the download URL and the header to send with it. */
static void test_matrix_authenticated_media() {
    EXPECT(voicenote::matrix_download_url("mxc://example.org/abc", "https://m.example.org") ==
               "https://m.example.org/_matrix/client/v1/media/download/example.org/abc",
           voicenote::matrix_download_url("mxc://example.org/abc", "https://m.example.org"));
    auto header = voicenote::matrix_authorization("syt_token");
    EXPECT(header.first == "Authorization" && header.second == "Bearer syt_token", header.first << ": " << header.second);
    voicenote::http_options http;
    http.headers.push_back(voicenote::matrix_authorization("syt_token"));
    EXPECT(http.headers.size() == 1, "the header goes into http_options");
    expect_error(errc::invalid_argument, [] { voicenote::matrix_download_url("https://h/x", "https://m.example.org"); },
                 "not an mxc URI");
    expect_error(errc::invalid_argument, [] { voicenote::matrix_download_url("mxc://h/x", "ftp://m.example.org"); },
                 "not an http(s) homeserver");
}

/* Types by name and by received object, the local check. */
static void test_types_and_checks() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "opusenc failed");
    EXPECT(voicenote::attachment_type_for_file("dir/NOTE.OGG") == "audio", "ogg");
    EXPECT(voicenote::attachment_type_for_file("a.png") == "image", "png");
    EXPECT(voicenote::attachment_type_for_file("a.pdf") == "file", "pdf");
    EXPECT(voicenote::attachment_type_of_json("{\"og_scrape_url\":\"https://a.example\"}") == "linkPreview", "link");
    EXPECT(voicenote::attachment_type_of_json("{\"type\":\"x-poll\"}") == "x-poll", "custom");
    EXPECT(voicenote::attachment_type_of_json("{\"type\":5}") == "unknown", "no type string");

    voicenote::attachment_check_local(f.note, "voiceRecording");
    voicenote::attachment_check_local(f.note, "voiceRecording", std::nullopt);  // the default limit
    voicenote::attachment_check_local("file://" + f.note, "voiceRecording", 1 << 20);
    expect_error(errc::too_large, [&] { voicenote::attachment_check_local(f.note, "audio", 10); }, "over the limit");
    expect_error(errc::unsupported, [&] { voicenote::attachment_check_local(f.note, "giphy"); }, "giphy");
    expect_error(errc::not_found, [&] { voicenote::attachment_check_local(f.directory / "gone.ogg", "file"); },
                 "missing");
    expect_error(errc::invalid_argument, [&] { voicenote::attachment_check_local("https://a/b.ogg", "file"); },
                 "https");
    expect_error(errc::invalid_argument, [&] { voicenote::attachment_check_local(f.note, "file", -1); }, "-1 bytes");
    // A limit given is 1 byte or more: 0 is not a way to say "the default" (std::nullopt is).
    expect_error(errc::invalid_argument, [&] { voicenote::attachment_check_local(f.note, "file", 0); }, "0 bytes");
}

/* find_next_item on the repository's fixture (its cases) and across authors. */
static void test_find_next_item() {
    using voicenote::find_next_item;
    using voicenote::next_scope;
    const std::string cdn = "https://cdn.example.com/";
    std::string fixture = read_text(harness::repo_root() + "/Tests/Fixtures/messages/stream-next-item.json");
    REQUIRE(!fixture.empty(), "cannot read the fixture from " << harness::repo_root());
    auto next = [&](const std::string &json, const std::string &current, std::optional<std::string_view> user,
                    next_scope scope) { return find_next_item(json, current, user, scope); };
    using maybe = std::optional<std::string>;
    EXPECT(next("[]", cdn + "vr1.ogg", "C", next_scope::same_message) == std::nullopt, "no messages");
    EXPECT(next(fixture, cdn + "unknown.ogg", "C", next_scope::same_message) == std::nullopt, "unknown URL");
    EXPECT(next(fixture, cdn + "vr1.ogg", "C", next_scope::same_message) == maybe(cdn + "vr2.ogg"), "same message");
    EXPECT(next(fixture, cdn + "vr2.ogg", "C", next_scope::same_message) == std::nullopt, "same message, last");
    EXPECT(next(fixture, cdn + "vr2.ogg", "C", next_scope::subsequent_from_user) == maybe(cdn + "vr3.ogg"), "from user");
    EXPECT(next(fixture, cdn + "vr3.ogg", "C", next_scope::subsequent_from_user) == std::nullopt, "from user, last");
    EXPECT(next(fixture, cdn + "vr1.ogg", "B", next_scope::subsequent_from_user) == std::nullopt, "B sent it");
    EXPECT(find_next_item(fixture, std::nullopt, "C", next_scope::same_message) == std::nullopt, "nothing plays");

    const std::string voice = "{\"type\":\"voiceRecording\",\"asset_url\":\"" + cdn;
    const std::string messages =
        "{\"messages\":[{\"id\":\"m1\",\"user\":{\"id\":\"A\"},\"attachments\":[" + voice + "c1.ogg\"}]},"
        "{\"id\":\"m2\",\"user\":{\"id\":\"B\"},\"attachments\":[{\"type\":\"image\",\"image_url\":\"" + cdn +
        "i.png\"}," + voice + "c2.ogg\"}]},"
        "{\"id\":\"m3\",\"user\":{\"id\":\"C\"},\"attachments\":[" + voice + "mine.ogg\"}]},"
        "{\"id\":\"m4\",\"user\":{\"id\":\"A\"},\"attachments\":[" + voice + "c3.ogg\"}]},"
        "{\"id\":\"m5\",\"user\":{\"id\":\"B\"},\"text\":\"no voice here\"}]}";
    EXPECT(next(messages, cdn + "c1.ogg", "C", next_scope::consecutive) == maybe(cdn + "c2.ogg"), "past an image");
    EXPECT(next(messages, cdn + "c2.ogg", "C", next_scope::consecutive) == maybe(cdn + "c3.ogg"), "past C's own");
    EXPECT(next(messages, cdn + "c3.ogg", "C", next_scope::consecutive) == std::nullopt, "m5 has none");
    EXPECT(next(messages, cdn + "c1.ogg", std::nullopt, next_scope::consecutive) == maybe(cdn + "c2.ogg"), "no user");
    expect_error(errc::invalid_argument,
                 [&] { find_next_item("[]", cdn + "c1.ogg", "C", static_cast<next_scope>(7)); }, "scope 7");
}

/* Moves: the payload goes with its handle; the moved-from one holds nothing and its calls are errc::misuse. */
static void test_ownership() {
    payload first("https://a.example/b");
    vn_payload *raw = first.get();
    payload second = std::move(first);
    EXPECT(second.get() == raw && first.get() == nullptr, "the handle did not move");
    expect_error(errc::misuse, [&] { (void)first.to_json(); }, "a moved-from payload");  // NOLINT: moved from
    payload third("https://c.example/d");
    third = std::move(second);  // destroys third's own payload once
    EXPECT(third.get() == raw && third.to_json().find("a.example") != std::string::npos, third.to_json());
    std::vector<payload> many;
    for (int i = 0; i < 20; i++) many.push_back(payload("https://a.example/" + std::to_string(i)));
    EXPECT(many[19].field(payload_field::asset_url) == std::optional<std::string>("https://a.example/19"),
           "a payload moved by the vector lost its value");
}

int main() {
    harness::name() = "attachments";
    TEST(test_payload_from_a_recorded_note);
    TEST(test_payload_fields_and_extra_data);
    TEST(test_hostile_json);
    TEST(test_matrix_content_round_trip);
    TEST(test_matrix_authenticated_media);
    TEST(test_types_and_checks);
    TEST(test_find_next_item);
    TEST(test_ownership);
    return harness::finish();
}
