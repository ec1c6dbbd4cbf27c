/*
 * analysis.cpp: the free functions of voicenote/analysis.hpp and the media cache's settings, checked against the
 * C calls they wrap — audio facts and waveforms of an opusenc note and a WAV (file, memory, host PCM) equal the C
 * results; a waveform_batch hands results back in input order with a missing file as its own result, tells a
 * timeout from the end, and refuses misuse; encode/decode round trips for Matrix, Telegram and Signal; resample and
 * bars; converting at 2x halves the duration (and at 0.5x doubles it, from a source); recover() finishes the takes
 * in a directory and rethrows its callback's exception; the cache's directory, limit, size and clear against a
 * temporary directory (set back after); a position a player remembered is read back and cleared; devices, MIME
 * types, recording names and the version. Numbers out of range are refused before any buffer is sized.
 *
 * $XDG_CACHE_HOME is the test's temporary directory, so the remembered positions cleared here are the test's own.
 * Needs opusenc on PATH. Waits are bounded (harness::waiter, the batch's timeouts).
 */
#include "harness.hpp"

#include <voicenote/analysis.hpp>
#include <voicenote/sources.hpp>

#include <climits>
#include <cmath>
#include <cstring>
#include <iterator>
#include <optional>
#include <type_traits>

using namespace std::chrono_literals;

static_assert(!std::is_copy_constructible_v<voicenote::waveform_batch>, "batches are move-only");
static_assert(!std::is_copy_assignable_v<voicenote::waveform_batch>, "batches are move-only");
static_assert(std::is_nothrow_move_constructible_v<voicenote::waveform_batch>, "moves never throw");
static_assert(std::is_nothrow_move_assignable_v<voicenote::waveform_batch>, "moves never throw");
static_assert(static_cast<int>(voicenote::waveform_encoding::telegram) == VN_WAVEFORM_TELEGRAM, "C values");
static_assert(static_cast<int>(voicenote::recording_format::aac) == VN_FORMAT_AAC, "C values");

namespace {

using harness::error_of;
using harness::name_of;
using harness::read_file;

bool write_file(const std::string &path, const std::uint8_t *bytes, std::size_t size) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes), static_cast<std::streamsize>(size));
    return static_cast<bool>(out);
}

bool exists(const std::string &path) { return access(path.c_str(), F_OK) == 0; }

/** vn_waveform_file's values, through the C API alone. */
std::vector<float> c_waveform(const std::string &path, std::size_t samples) {
    std::vector<float> values(samples);
    std::size_t count = 0;
    if (vn_waveform_file(path.c_str(), samples, values.data(), values.size(), &count) != VN_OK) return {};
    values.resize(count);
    return values;
}

bool near(const std::vector<float> &a, const std::vector<float> &b, float tolerance) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); i++)
        if (std::abs(a[i] - b[i]) > tolerance) return false;
    return true;
}

harness::temp_directory *directory = nullptr;
std::string note;  // 3 s of opusenc's Opus
std::string wav;   // 1.5 s of the tone as a WAV

}  // namespace

static void test_info_and_waveforms_equal_the_c_calls() {
    for (const std::string &path : {note, wav}) {
        vn_audio_info c{};
        c.size = sizeof c;
        REQUIRE(vn_audio_info_file(path.c_str(), &c) == VN_OK, vn_last_error_message());
        auto info = voicenote::audio_info_file(path);
        EXPECT(info.duration.count() == c.duration_s && info.duration_is_estimate == (c.duration_is_estimate != 0) &&
                   info.sample_rate == c.sample_rate && info.channels == c.channels && info.bitrate == c.bitrate &&
                   info.codec == c.codec,
               path << ": " << info.codec << " " << info.duration.count() << " s");
        for (std::size_t samples : {std::size_t{1}, std::size_t{37}, voicenote::waveform_default_samples}) {
            auto values = voicenote::waveform_file(path, samples);
            EXPECT(values.size() == samples && values == c_waveform(path, samples), path << ", " << samples);
            auto bytes = read_file(path);
            EXPECT(voicenote::waveform_memory(bytes, samples) == values, path << ": memory, " << samples);
            EXPECT(voicenote::waveform_memory(bytes.data(), bytes.size(), samples) == values, path);
        }
    }
    auto opus = voicenote::audio_info_file(note);
    EXPECT(opus.codec == "opus" && opus.sample_rate == 48000 && opus.channels == 1, opus.codec);
    EXPECT(std::abs(opus.duration.count() - 3.0) < 0.05, opus.duration.count());
    auto pcm = voicenote::audio_info_file(wav);
    EXPECT(pcm.codec.rfind("pcm_s16", 0) == 0 && pcm.sample_rate == 48000, pcm.codec);
    EXPECT(std::abs(pcm.duration.count() - 1.5) < 0.001, pcm.duration.count());
    auto missing = error_of([] { voicenote::audio_info_file(*directory / "missing.ogg"); });
    EXPECT(missing == voicenote::errc::not_found, name_of(missing));
    missing = error_of([] { voicenote::waveform_file(*directory / "missing.ogg"); });
    EXPECT(missing == voicenote::errc::not_found, name_of(missing));
}

/* analyse_file/_source give waveform_file's values, the C call's length and loudness; the batch's results carry the
 * loudness unless told not to; a payload round-trips it. */
static void test_the_analysis_and_its_loudness_equal_the_c_calls() {
    for (const std::string &path : {note, wav}) {
        auto analysis = voicenote::analyse_file(path);
        float values[100];
        double duration = 0;
        vn_loudness c{};
        REQUIRE(vn_waveform_analyse_file(path.c_str(), 100, values, 100, nullptr, &duration, &c) == VN_OK,
                vn_last_error_message());
        EXPECT(analysis.values == voicenote::waveform_file(path) && analysis.duration.count() == duration, path);
        EXPECT(analysis.loudness && c.known == 1 && analysis.loudness->integrated_lufs == c.integrated_lufs &&
                   analysis.loudness->range_lu == c.range_lu && analysis.loudness->true_peak_dbtp == c.true_peak_dbtp &&
                   !analysis.loudness->silent(),
               path);
        voicenote::source source = voicenote::source::file(path);
        auto again = voicenote::analyse_source(source);
        EXPECT(again.loudness == analysis.loudness && again.values == analysis.values, path);
    }
    voicenote::waveform_batch batch(voicenote::waveform_default_samples, 1);
    batch.add(note);
    auto measured = batch.next(30s);
    EXPECT(measured && measured->loudness == voicenote::analyse_file(note).loudness, "the batch's loudness");
    batch.set_loudness(false);
    batch.add(note);
    auto plain = batch.next(30s);
    EXPECT(plain && plain->ok() && !plain->loudness, "a batch told not to measure");
}

static void test_pcm_waveforms_equal_the_c_calls() {
    std::vector<std::int16_t> s16;
    std::vector<float> f32;
    for (int i = 0; i < 48000; i++) {  // one second of stereo: a ramp up on the left, silence on the right
        s16.push_back(static_cast<std::int16_t>((i % 480) * 60));
        s16.push_back(0);
        f32.push_back(static_cast<float>(i % 480) / 480.0f);
        f32.push_back(0.0f);
    }
    std::vector<float> c(50);
    std::size_t count = 0;
    REQUIRE(vn_waveform_from_pcm_s16(s16.data(), 24000, 2, 50, c.data(), c.size(), &count) == VN_OK, "C s16");
    EXPECT(voicenote::waveform_from_pcm_s16(s16, 2, 50) == c, "s16 stereo");
    EXPECT(voicenote::waveform_from_pcm_s16(s16.data(), 24000, 2, 50) == c, "s16 stereo, pointer");
    REQUIRE(vn_waveform_from_pcm_f32(f32.data(), 48000, 1, 50, c.data(), c.size(), &count) == VN_OK, "C f32");
    EXPECT(voicenote::waveform_from_pcm_f32(f32, 1, 50) == c, "f32 as mono");
    EXPECT(voicenote::waveform_from_pcm_f32(std::vector<float>(), 1, 10) == std::vector<float>(10, 0.0f), "no PCM");

    auto code = error_of([&] { voicenote::waveform_from_pcm_s16(std::vector<std::int16_t>(3), 2); });
    EXPECT(code == voicenote::errc::invalid_argument, "a partial frame: " << name_of(code));
    code = error_of([&] { voicenote::waveform_from_pcm_s16(s16, 0); });
    EXPECT(code == voicenote::errc::invalid_argument, "0 channels: " << name_of(code));
    code = error_of([&] { voicenote::waveform_from_pcm_f32(f32, 256); });
    EXPECT(code == voicenote::errc::invalid_argument, "256 channels: " << name_of(code));
    code = error_of([&] { voicenote::waveform_from_pcm_f32(f32.data(), 10, 300); });
    EXPECT(code == voicenote::errc::invalid_argument, "300 channels, pointer: " << name_of(code));
}

static void test_numbers_out_of_range_are_refused_before_sizing_a_buffer() {
    // SIZE_MAX values would be a std::bad_alloc (or length_error) if a vector were sized first.
    for (std::size_t samples : {std::size_t{0}, voicenote::waveform_max_samples + 1, SIZE_MAX}) {
        auto code = error_of([&] { voicenote::waveform_file(note, samples); });
        EXPECT(code == voicenote::errc::invalid_argument, "waveform_file, " << samples << ": " << name_of(code));
        code = error_of([&] { voicenote::waveform_from_pcm_f32(std::vector<float>(8), 1, samples); });
        EXPECT(code == voicenote::errc::invalid_argument, "from_pcm, " << samples << ": " << name_of(code));
        code = error_of([&] { voicenote::waveform_resample({0.5f}, samples); });
        EXPECT(code == voicenote::errc::invalid_argument, "resample, " << samples << ": " << name_of(code));
        code = error_of([&] { voicenote::waveform_batch batch(samples); });
        EXPECT(code == voicenote::errc::invalid_argument, "batch, " << samples << ": " << name_of(code));
    }
    EXPECT(voicenote::waveform_file(note, voicenote::waveform_max_samples).size() == voicenote::waveform_max_samples,
           "the largest waveform");
    for (int jobs : {-1, 257, INT_MIN}) {
        auto code = error_of([&] { voicenote::waveform_batch batch(10, jobs); });
        EXPECT(code == voicenote::errc::invalid_argument, "jobs " << jobs << ": " << name_of(code));
    }
    auto code = error_of([] { voicenote::waveform_bars({0.5f}, -1, 10); });
    EXPECT(code == voicenote::errc::invalid_argument, "a negative width: " << name_of(code));
    code = error_of([] { voicenote::waveform_bars({0.5f}, std::nan(""), 10); });
    EXPECT(code == voicenote::errc::invalid_argument, "a NaN width: " << name_of(code));
    code = error_of([] { voicenote::waveform_bars({0.5f}, HUGE_VAL, 10); });
    EXPECT(code == voicenote::errc::invalid_argument, "an infinite width: " << name_of(code));
    code = error_of([] { voicenote::recording_display_name(-1); });
    EXPECT(code == voicenote::errc::invalid_argument, "a negative index: " << name_of(code));
}

static void test_resample_and_bars_equal_the_c_calls() {
    auto values = voicenote::waveform_file(note);
    for (std::size_t target : {std::size_t{20}, std::size_t{100}, std::size_t{333}}) {
        std::vector<float> c(target);
        std::size_t count = 0;
        REQUIRE(vn_waveform_resample(values.data(), values.size(), target, c.data(), c.size(), &count) == VN_OK, "C");
        EXPECT(voicenote::waveform_resample(values, target) == c, "resample to " << target);
    }
    EXPECT(voicenote::waveform_resample(values, values.size()) == values, "equal counts copy");
    for (double width : {0.0, 3.4, 350.0, 1000.5}) {
        auto bars = voicenote::waveform_bars(values, width, 40);
        EXPECT(bars.size() == static_cast<std::size_t>(width / 3.5), width << ": " << bars.size() << " bars");
        std::vector<float> c(bars.size() + 1);
        std::size_t count = 0;
        REQUIRE(vn_waveform_bars(values.data(), values.size(), width, 40, c.data(), c.size(), &count) == VN_OK, "C");
        c.resize(count);
        EXPECT(bars == c, "bars for " << width);
        for (float height : bars) EXPECT(height >= 1.0f && height <= 20.0f, height);
    }
    EXPECT(voicenote::waveform_bars(values, 1e9, 40).size() == 100000, "widths beyond 350000 give 100000 bars");
    EXPECT(voicenote::waveform_bars({}, 35, 40) == std::vector<float>(10, 1.0f), "no values: the smallest bars");
}

static void test_encode_and_decode_round_trip() {
    auto values = voicenote::waveform_file(note);
    struct wire {
        voicenote::waveform_encoding encoding;
        std::size_t encoded;
        std::int32_t largest;
        float step;
    };
    for (const wire &w : {wire{voicenote::waveform_encoding::matrix, 100, 1024, 1.0f / 1024},
                          wire{voicenote::waveform_encoding::telegram, 63, 255, 1.0f / 31},
                          wire{voicenote::waveform_encoding::signal, 100, 255, 1.0f / 255}}) {
        int encoding = static_cast<int>(w.encoding);
        auto encoded = voicenote::waveform_encode(w.encoding, values);
        std::vector<std::int32_t> c(128);
        std::size_t count = 0;
        REQUIRE(vn_waveform_encode(encoding, values.data(), values.size(), c.data(), c.size(), &count) == VN_OK, "C");
        c.resize(count);
        EXPECT(encoded == c && encoded.size() == w.encoded, encoding << ": " << encoded.size() << " integers");
        for (auto integer : encoded) EXPECT(integer >= 0 && integer <= w.largest, encoding << ": " << integer);
        auto decoded = voicenote::waveform_decode(w.encoding, encoded);
        std::vector<float> c_decoded(256);
        REQUIRE(vn_waveform_decode(encoding, c.data(), c.size(), c_decoded.data(), c_decoded.size(), &count) == VN_OK,
                "C decode");
        c_decoded.resize(count);
        EXPECT(decoded == c_decoded && decoded.size() == values.size(), encoding << ": " << decoded.size());
        EXPECT(near(decoded, values, w.step / 2 + 1e-6f), encoding << ": off by more than half a step");
        // A second round trip changes nothing.
        EXPECT(voicenote::waveform_encode(w.encoding, decoded) == encoded, encoding << ": not stable");
    }
    EXPECT(voicenote::waveform_decode(voicenote::waveform_encoding::matrix, {2000, -5}) == std::vector<float>({1, 0}),
           "received values are clamped");
    EXPECT(voicenote::waveform_decode(voicenote::waveform_encoding::signal, {}).empty(), "nothing decodes to nothing");
    auto code = error_of([&] { voicenote::waveform_encode(voicenote::waveform_encoding::stream, values); });
    EXPECT(code == voicenote::errc::invalid_argument, "encode stream: " << name_of(code));
    code = error_of([] { voicenote::waveform_decode(voicenote::waveform_encoding::stream, {1, 2}); });
    EXPECT(code == voicenote::errc::invalid_argument, "decode stream: " << name_of(code));
    code = error_of([] { voicenote::waveform_decode(static_cast<voicenote::waveform_encoding>(9), {1, 2}); });
    EXPECT(code == voicenote::errc::invalid_argument, "an unknown encoding: " << name_of(code));
    code = error_of([] {
        voicenote::waveform_decode(voicenote::waveform_encoding::matrix,
                                   std::vector<std::int32_t>(voicenote::waveform_max_decoded + 1, 7));
    });
    EXPECT(code == voicenote::errc::format, "an absurd count: " << name_of(code));
}

static void test_a_batch_gives_results_in_input_order() {
    const std::string missing = *directory / "missing.ogg";
    const std::vector<std::string> inputs = {note, wav, missing, note, wav};
    voicenote::waveform_batch batch(50, 2);
    // Nothing added yet: a timeout, not the end. A timeout is at least 0 s (std::nullopt: no limit).
    EXPECT(!batch.next(0ms) && !batch.ended(), "an empty, open batch timed out");
    EXPECT(!batch.next(voicenote::seconds(0.001)) && !batch.ended(), "a 1 ms timeout");
    auto refused_timeout = error_of([&] { batch.next(-1ms); });
    EXPECT(refused_timeout == voicenote::errc::invalid_argument, "a negative timeout: " << name_of(refused_timeout));
    refused_timeout = error_of([&] { batch.next(voicenote::seconds(std::nan(""))); });
    EXPECT(refused_timeout == voicenote::errc::invalid_argument, "a NaN timeout: " << name_of(refused_timeout));
    for (const auto &input : inputs) batch.add(input);
    batch.end_input();
    batch.end_input();  // idempotent
    auto code = error_of([&] { batch.add(note); });
    EXPECT(code == voicenote::errc::misuse, "add after end_input: " << name_of(code));

    voicenote::waveform_batch moved = std::move(batch);
    code = error_of([&] { batch.next(0ms); });  // NOLINT: moved from on purpose
    EXPECT(code == voicenote::errc::misuse, "next on a moved-from batch: " << name_of(code));
    std::vector<voicenote::waveform_result> results;
    // ended() may be read on another thread while next() takes the results.
    std::atomic<bool> taken{false};
    std::thread watcher([&] {
        while (!taken) {
            (void)moved.ended();
            std::this_thread::sleep_for(1ms);
        }
    });
    while (auto result = moved.next(30s)) results.push_back(std::move(*result));
    taken = true;
    watcher.join();
    EXPECT(moved.ended(), "the loop ended on a timeout, not the end");
    REQUIRE(results.size() == inputs.size(), results.size() << " results");
    for (std::size_t i = 0; i < results.size(); i++) {
        const auto &r = results[i];
        EXPECT(r.index == i && r.location == inputs[i], i << ": " << r.index << " " << r.location);
        if (inputs[i] == missing) {
            EXPECT(!r.ok() && r.code() == voicenote::errc::not_found, i << ": " << r.status);
            EXPECT(r.message.find("missing.ogg") != std::string::npos, i << ": " << r.message);
            EXPECT(r.values.empty() && r.duration.count() == 0, i << ": a failure has no values");
        } else {
            EXPECT(r.ok() && r.message.empty() && !r.code(), i << ": " << r.message);
            EXPECT(near(r.values, voicenote::waveform_file(inputs[i], 50), 0.001f), i << ": values differ");
            EXPECT(r.duration == voicenote::audio_info_file(inputs[i]).duration, i << ": " << r.duration.count());
        }
    }
    EXPECT(!moved.next(0ms) && moved.ended(), "after the end it stays ended");
}

static void test_convert_changes_the_speed() {
    const std::string fast = *directory / "fast.ogg";
    voicenote::convert_options options;
    options.rate = 2.0;
    options.format = voicenote::recording_format::opus;
    auto duration = voicenote::convert_file(note, fast, options);
    auto original = voicenote::audio_info_file(note).duration;
    EXPECT(std::abs(duration.count() - original.count() / 2) < 0.05, duration.count() << " s of " << original.count());
    auto info = voicenote::audio_info_file(fast);
    EXPECT(info.codec == "opus" && std::abs(info.duration.count() - duration.count()) < 0.03, info.duration.count());

    // From a source, slower, with the encoder's settings (the members not changed keep the library's defaults).
    const std::string slow = *directory / "slow.ogg";
    auto source = voicenote::source::memory(read_file(note));
    voicenote::convert_options slower;
    slower.rate = 0.5;
    slower.encoder = voicenote::encoder_settings{};
    slower.encoder->bitrate = 24000;
    slower.encoder->frame = voicenote::seconds(0.0025);
    duration = voicenote::convert_source(source, slow, slower);
    EXPECT(std::abs(duration.count() - original.count() * 2) < 0.1, duration.count());
    EXPECT(std::abs(voicenote::audio_info_file(slow).duration.count() - duration.count()) < 0.03, "slow's length");

    // Refusals: options out of range (checked before anything is written), files that are not notes.
    auto refused = [&](voicenote::convert_options bad) {
        return error_of([&] { voicenote::convert_file(note, fast, bad); });
    };
    voicenote::convert_options bad;
    bad.rate = 3.0;
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "rate 3");
    bad = {};
    bad.rate = std::nan("");
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "rate NaN");
    bad = {};
    bad.encoder = voicenote::encoder_settings{1000, 10, 20ms};
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "bitrate 1000");
    bad.encoder = voicenote::encoder_settings{32000, 11, 20ms};
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "complexity 11");
    bad.encoder = voicenote::encoder_settings{32000, 10, 3ms};
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "3 ms frames");
    bad.encoder = voicenote::encoder_settings{32000, 10, voicenote::seconds(std::nan(""))};
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "NaN frames");
    bad = {};
    bad.format = static_cast<voicenote::recording_format>(7);
    EXPECT(refused(bad) == voicenote::errc::invalid_argument, "an unknown format");
    EXPECT(voicenote::audio_info_file(fast).duration == info.duration, "a refused conversion left fast.ogg alone");
    auto code = error_of([&] { voicenote::convert_file(*directory / "missing.ogg", fast); });
    EXPECT(code == voicenote::errc::not_found, "a missing note: " << name_of(code));
    code = error_of([&] { voicenote::convert_file(note, ""); });
    EXPECT(code == voicenote::errc::invalid_argument, "an empty output path: " << name_of(code));
    voicenote::source moved_from = std::move(source);
    code = error_of([&] { voicenote::convert_source(source, slow); });  // NOLINT: moved from on purpose
    EXPECT(code == voicenote::errc::misuse, "a moved-from source: " << name_of(code));
}

static void test_recover_finishes_the_takes_in_a_directory() {
    const std::string takes = *directory / "takes";
    REQUIRE(mkdir(takes.c_str(), 0700) == 0, "mkdir " << takes);
    auto bytes = read_file(note);
    REQUIRE(write_file(takes + "/cut.ogg.part", bytes.data(), bytes.size() * 2 / 3), "write the cut take");
    const std::uint8_t garbage[] = "this is not a recording, and never was one";
    REQUIRE(write_file(takes + "/bad.ogg.part", garbage, sizeof garbage), "write the bad take");

    std::vector<voicenote::recovered_file> handled;
    auto recovered = voicenote::recover(takes, [&](const voicenote::recovered_file &file) { handled.push_back(file); });
    EXPECT(recovered == 1, recovered << " recovered");
    REQUIRE(handled.size() == 2, handled.size() << " files handled");
    for (const auto &file : handled) {
        if (file.path.find("cut") != std::string::npos) {
            EXPECT(file.ok() && !file.code() && file.path == takes + "/cut.ogg", file.path << " " << file.status);
            EXPECT(file.duration.count() > 0.5 && file.duration.count() < 3.0, file.duration.count());
            EXPECT(file.size_bytes > 0 && file.size_bytes <= static_cast<std::int64_t>(bytes.size()), file.size_bytes);
            EXPECT(std::abs(voicenote::audio_info_file(file.path).duration.count() - file.duration.count()) < 0.03,
                   "the recovered take's length");
        } else {
            EXPECT(!file.ok() && file.status == VN_E_FORMAT && file.code() == voicenote::errc::format,
                   file.path << " " << file.status);
            EXPECT(file.path == takes + "/bad.ogg.part" && file.duration.count() == 0 && file.size_bytes == 0,
                   file.path);
        }
    }
    EXPECT(exists(takes + "/cut.ogg") && !exists(takes + "/cut.ogg.part"), "cut.ogg.part was renamed");

    // No callback: just the count. Then an exception from the callback comes out of recover(), the take recovered.
    REQUIRE(write_file(takes + "/again.ogg.part", bytes.data(), bytes.size() / 2), "write another take");
    EXPECT(voicenote::recover(takes) == 1, "without a callback");
    REQUIRE(write_file(takes + "/third.ogg.part", bytes.data(), bytes.size() / 2), "write a third take");
    int calls = 0;
    try {
        voicenote::recover(takes, [&](const voicenote::recovered_file &) {
            calls++;
            throw std::runtime_error("the host failed");
        });
        EXPECT(false, "the callback's exception was lost");
    } catch (const std::runtime_error &e) {
        EXPECT(std::string(e.what()) == "the host failed", e.what());
    }
    EXPECT(calls == 1 && exists(takes + "/third.ogg"), "calls " << calls);
    auto code = error_of([&] { voicenote::recover(takes + "/missing"); });
    EXPECT(code == voicenote::errc::not_found, "a missing directory: " << name_of(code));
}

static void test_the_cache_settings() {
    const std::string cache = *directory / "cache";
    auto limit = voicenote::cache::get_limit();
    EXPECT(limit > 0, limit);
    voicenote::cache::set_directory(cache);
    EXPECT(voicenote::cache::get_directory() == cache, voicenote::cache::get_directory());
    EXPECT(voicenote::cache::get_size() == 0, "a cache not made yet is empty");
    voicenote::cache::clear();
    voicenote::cache::set_limit(12345);
    EXPECT(voicenote::cache::get_limit() == 12345, voicenote::cache::get_limit());
    voicenote::cache::set_limit(1000000000000LL);
    EXPECT(voicenote::cache::get_limit() == 1000000000000LL, voicenote::cache::get_limit());
    for (std::int64_t bad : {std::int64_t{-1}, std::int64_t{1000000000001LL}, std::int64_t{INT64_MIN}}) {
        auto code = error_of([&] { voicenote::cache::set_limit(bad); });
        EXPECT(code == voicenote::errc::invalid_argument, bad << ": " << name_of(code));
    }
    auto code = error_of([] { voicenote::cache::set_directory(""); });
    EXPECT(code == voicenote::errc::invalid_argument, "an empty directory: " << name_of(code));
    code = error_of([] { voicenote::cache::set_directory(std::string_view("\xc3\x28", 2)); });
    EXPECT(code == voicenote::errc::invalid_argument, "not UTF-8: " << name_of(code));
    EXPECT(voicenote::cache::get_directory() == cache, "a refused directory changed nothing");
    // A cache path that is a file cannot be read as a directory.
    const std::string file = *directory / "not-a-directory";
    REQUIRE(write_file(file, reinterpret_cast<const std::uint8_t *>("x"), 1), "write " << file);
    voicenote::cache::set_directory(file);
    code = error_of([] { voicenote::cache::get_size(); });
    EXPECT(code == voicenote::errc::io, "a file as the cache: " << name_of(code));
    // Set back: the default directory (under the test's $XDG_CACHE_HOME) and the limit.
    voicenote::cache::set_directory(std::nullopt);
    voicenote::cache::set_limit(limit);
    EXPECT(voicenote::cache::get_directory() == *directory / "xdg/voicenote/media", voicenote::cache::get_directory());
    EXPECT(voicenote::cache::get_limit() == limit, voicenote::cache::get_limit());
}

namespace {

/** A C player's state, for the resume test (the C++ player is another header's). */
struct player_watch {
    harness::waiter waiter;
    int state = -1;

    static void on_event(void *user_data, const vn_player_event *event) {
        auto *self = static_cast<player_watch *>(user_data);
        if (event->type == VN_PLAYER_EVENT_CONTEXT) {
            std::lock_guard<std::mutex> lock(self->waiter.mutex());
            self->state = event->context.state;
        }
        self->waiter.notify();
    }
};

}  // namespace

static void test_a_remembered_position_is_read_back_and_cleared() {
    EXPECT(voicenote::resume_position(note) == voicenote::seconds(0), "nothing is remembered yet");
    // A player paused at 1.25 s and destroyed leaves its position in the store.
    const std::string output = *directory / "speaker.raw";
    std::string configuration = harness::speaker_configuration(output);
    vn_player_options *options = nullptr;
    REQUIRE(vn_player_options_create(&options) == VN_OK, vn_last_error_message());
    vn_player_options_set_device(options, "vn_spk", configuration.c_str());
    vn_player *player = nullptr;
    int created = vn_player_create(options, &player);
    vn_player_options_destroy(options);
    REQUIRE(created == VN_OK, vn_last_error_message());
    player_watch watch;
    vn_player_subscribe(player, &player_watch::on_event, &watch, nullptr, nullptr);
    EXPECT(vn_player_load(player, note.c_str(), 0, -1) == VN_OK, vn_last_error_message());
    EXPECT(watch.waiter.wait_until([&] { return watch.state == VN_PLAYER_PAUSED; }), "not paused: " << watch.state);
    EXPECT(vn_player_seek(player, 1.25) == VN_OK, vn_last_error_message());
    vn_player_destroy(player);

    EXPECT(voicenote::resume_position(note) == voicenote::seconds(1.25), voicenote::resume_position(note).count());
    EXPECT(voicenote::resume_position("file://" + note) == voicenote::seconds(1.25), "a file:// URL names the path");
    EXPECT(voicenote::resume_position("https://example.org/a.ogg", "message-1/0") == voicenote::seconds(0), "a key");
    voicenote::resume_positions_clear();
    EXPECT(voicenote::resume_position(note) == voicenote::seconds(0), "after clear");

    auto code = error_of([] { voicenote::resume_position(""); });
    EXPECT(code == voicenote::errc::invalid_argument, "an empty location: " << name_of(code));
    code = error_of([] { voicenote::resume_position("https://example.org/a.ogg", ""); });
    EXPECT(code == voicenote::errc::invalid_argument, "an empty key: " << name_of(code));
    code = error_of([] { voicenote::resume_position("ftp://example.org/a.ogg"); });
    EXPECT(code == voicenote::errc::unsupported, "ftp: " << name_of(code));
}

static void test_devices_names_and_the_version() {
    auto devices = voicenote::devices_enumerate();
    for (const auto &device : devices) EXPECT(!device.name.empty(), "a device without a name");
    std::cout << "      " << devices.size() << " ALSA devices" << std::endl;

    EXPECT(voicenote::mime_type_for_file("note.ogg") == "audio/ogg", voicenote::mime_type_for_file("note.ogg"));
    EXPECT(voicenote::mime_type_for_file("/x/VOICE.MP3") == "audio/mpeg", voicenote::mime_type_for_file("VOICE.MP3"));
    EXPECT(voicenote::mime_type_for_file("a.m4a") == "audio/mp4", voicenote::mime_type_for_file("a.m4a"));
    EXPECT(voicenote::mime_type_for_file("") == "application/octet-stream", voicenote::mime_type_for_file(""));
    EXPECT(voicenote::mime_type_for_file("data.bin") == "application/octet-stream", "unknown extension");

    EXPECT(voicenote::recording_display_name(0) == "Recording", voicenote::recording_display_name(0));
    EXPECT(voicenote::recording_display_name(3) == "Recording(3)", voicenote::recording_display_name(3));

    int number = voicenote::version_number();
    EXPECT(number == vn_version_number() && number >= VN_VERSION_NUMBER, number);
    std::string text = std::to_string(number / 1000000) + "." + std::to_string(number / 1000 % 1000) + "." +
                       std::to_string(number % 1000);
    EXPECT(voicenote::version() == text, voicenote::version() << " vs " << text);
}

int main() {
    harness::name() = "analysis";
    int status = 1;
    try {
        harness::temp_directory temp("analysis");
        directory = &temp;
        // Remembered positions and the default cache directory: the test's own.
        setenv("XDG_CACHE_HOME", (temp / "xdg").c_str(), 1);
        note = temp / "note.ogg";
        wav = temp / "note.wav";
        if (!harness::write_note(temp, 3.0, note) || !harness::write_tone(wav, 1.5))
            throw std::runtime_error("cannot write the notes (opusenc?)");
        TEST(test_info_and_waveforms_equal_the_c_calls);
        TEST(test_the_analysis_and_its_loudness_equal_the_c_calls);
        TEST(test_pcm_waveforms_equal_the_c_calls);
        TEST(test_numbers_out_of_range_are_refused_before_sizing_a_buffer);
        TEST(test_resample_and_bars_equal_the_c_calls);
        TEST(test_encode_and_decode_round_trip);
        TEST(test_a_batch_gives_results_in_input_order);
        TEST(test_convert_changes_the_speed);
        TEST(test_recover_finishes_the_takes_in_a_directory);
        TEST(test_the_cache_settings);
        TEST(test_a_remembered_position_is_read_back_and_cleared);
        TEST(test_devices_names_and_the_version);
        status = harness::finish();
    } catch (const std::exception &e) {
        std::cerr << "  FATAL: " << e.what() << std::endl;
    }
    return status;
}
