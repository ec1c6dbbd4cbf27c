/*
 * transcript.cpp: transcripts through the C++ layer (voicenote/transcript.hpp): PocketSphinx on espeak-ng speech
 * (transcribe() with the recogniser's identity, a second call a cache read), a host recogniser written here as a
 * recognition_session (its words, its exceptions failing the transcription with their status), events as words
 * come, seeking a player to a word, a payload carrying the transcript, refusals.
 */
#include "harness.hpp"

#include <voicenote/transcript.hpp>

#include <cmath>
#include <type_traits>

using harness::expect_error;
using voicenote::errc;
using voicenote::recogniser;
using voicenote::transcript_word;
using voicenote::transcription;
using voicenote::transcription_event;
using voicenote::transcription_event_kind;

static_assert(!std::is_copy_constructible_v<transcription>, "transcriptions are move-only");
static_assert(!std::is_copy_constructible_v<recogniser>, "recognisers are move-only");

namespace {

struct fixture {
    harness::temp_directory directory{"transcript"};
    std::string raw = directory / "raw.wav", wav = directory / "speech.wav", note = directory / "speech.ogg";
    bool ready =
        harness::temp_directory::run_tool({"espeak-ng", "-m", "-v", "en-us+f2", "-s", "160", "-w", raw,
                                           "<speak>Open the door please.<break time='1200ms'/>Call me tomorrow "
                                           "morning.<break time='1200ms'/>The weather is nice today.</speak>"}) == 0 &&
        harness::temp_directory::run_tool({"sox", "-R", raw, "-r", "48000", "-c", "1", "-b", "16", wav, "pad", "0.3", "0.5"}) == 0 &&
        harness::temp_directory::run_tool({"opusenc", "--quiet", wav, note}) == 0 &&
        vn_cache_set_directory((directory / "cache").c_str()) == VN_OK;
};

fixture &the_fixture() {
    static fixture instance;
    return instance;
}

void test_pocketsphinx_through_transcribe() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "espeak-ng, sox and opusenc made no note");
    auto sphinx = recogniser::pocketsphinx();
    auto heard = voicenote::transcribe(f.note, sphinx, voicenote::seconds(60));
    EXPECT(heard.recogniser == "pocketsphinx/en-us", heard.recogniser);
    EXPECT(heard.text.find("tomorrow morning") != std::string::npos, heard.text);
    EXPECT(!heard.words.empty() && heard.words.front().start >= 0 && heard.words.back().end < 9, "word times");
    auto started = std::chrono::steady_clock::now();
    auto again = voicenote::transcribe(f.note, sphinx);
    EXPECT(again.text == heard.text && std::chrono::steady_clock::now() - started < std::chrono::seconds(1),
           "the second transcript came from the cache");
}

/* One word per second fed; "end" at the finish; throws `failure` on the first feed when set. */
struct counting_session : voicenote::recognition_session {
    std::size_t fed = 0;
    std::optional<voicenote::error> failure;
    std::vector<transcript_word> feed(const std::int16_t *, std::size_t count) override {
        if (failure) throw *failure;
        std::vector<transcript_word> found;
        for (std::size_t second = fed / 16000; second < (fed + count) / 16000; second++) {
            found.push_back({"w" + std::to_string(second), double(second), second + 0.5, 0.5});
        }
        fed += count;
        return found;
    }
    std::vector<transcript_word> finish() override { return {{"end", fed / 16000.0, fed / 16000.0, 1}}; }
};

void test_a_host_recogniser_and_its_events() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "no note");
    auto host = recogniser::host("test/cpp", 16000, [] { return std::make_unique<counting_session>(); });
    transcription job(f.note, host);
    harness::waiter waiter;
    std::vector<transcription_event> events;
    auto subscription = job.subscribe([&](const transcription_event &event) {
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            events.push_back(event);
        }
        waiter.notify();
    });
    job.start();
    std::string json = job.wait_json(voicenote::seconds(60));
    EXPECT(json.find("\"recogniser\":\"test/cpp\"") != std::string::npos, json);
    bool ended = waiter.wait_until([&] { return !events.empty() && events.back().kind != transcription_event_kind::words; },
                                   std::chrono::seconds(20));
    REQUIRE(ended, "no finished event");
    std::lock_guard<std::mutex> lock(waiter.mutex());
    EXPECT(events.back().kind == transcription_event_kind::finished && events.back().recogniser == "test/cpp", "finished");
    EXPECT(events.size() >= 3 && events.back().words.back().text == "end", "words told as they came, then finished");

    auto failing = recogniser::host("test/failing", 16000, [] {
        auto session = std::make_unique<counting_session>();
        session->failure = voicenote::error(VN_E_IO, "scripted");
        return session;
    });
    expect_error(errc::io, [&] { voicenote::transcribe(f.note, failing, voicenote::seconds(60)); }, "a failing session");
    auto refusing = recogniser::host("test/refusing", 16000, []() -> std::unique_ptr<voicenote::recognition_session> {
        throw std::runtime_error("no model");
    });
    expect_error(errc::internal, [&] { voicenote::transcribe(f.note, refusing, voicenote::seconds(60)); }, "a begin that throws");
}

void test_seek_to_a_word_and_a_payload_carrying_the_transcript() {
    auto &f = the_fixture();
    REQUIRE(f.ready, "no note");
    voicenote::player player(harness::speaker(f.directory / "out.raw"));
    harness::waiter waiter;
    bool there = false;
    auto watching = player.subscribe([&](const voicenote::player_event &event) {
        if (event.type != voicenote::player_event_type::context) return;
        {
            std::lock_guard<std::mutex> lock(waiter.mutex());
            there = !event.context.is_seeking && std::abs(event.context.current_time.count() - 3.06) < 1e-6;
        }
        waiter.notify();
    });
    player.load(f.note, false);
    voicenote::seek_to_word(player, {"tomorrow", 3.11, 3.55, 0.9});
    EXPECT(waiter.wait_until([&] { return there; }, std::chrono::milliseconds(10000)), "not 50 ms before the word");

    voicenote::payload made("mxc://example.org/abc");
    EXPECT(!voicenote::transcript_json(made), "no transcript yet");
    std::string given = R"({"recogniser":"x","text":"call me","words":[{"text":"call","start":0.25,"end":0.5,"confidence":0.9},{"text":"me","start":0.52,"end":0.7,"confidence":0.5}]})";
    voicenote::set_transcript_json(made, given);
    EXPECT(voicenote::transcript_json(made) == given, "the transcript carried");
    expect_error(errc::format, [&] { voicenote::set_transcript_json(made, std::string(R"({"recogniser":"x","words":[1]})")); },
                 "not a transcript");
    voicenote::set_transcript_json(made, std::nullopt);
    EXPECT(!voicenote::transcript_json(made), "removed");
}

void test_refusals() {
    expect_error(errc::invalid_argument, [] { recogniser::pocketsphinx("", "../x"); }, "a language with a slash");
    expect_error(errc::invalid_argument, [] { recogniser::host("x", 100, [] { return std::make_unique<counting_session>(); }); },
                 "a rate out of range");
    expect_error(errc::invalid_argument, [] { recogniser::host("x", 16000, nullptr); }, "no begin");
    auto sphinx = recogniser::pocketsphinx();
    expect_error(errc::unsupported, [&] { transcription("ftp://example.org/a.ogg", sphinx); }, "an ftp location");
}

}  // namespace

int main() {
    harness::name() = "transcript";
    TEST(test_pocketsphinx_through_transcribe);
    TEST(test_a_host_recogniser_and_its_events);
    TEST(test_seek_to_a_word_and_a_payload_carrying_the_transcript);
    TEST(test_refusals);
    return harness::finish();
}
