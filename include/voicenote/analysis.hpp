/*
 * voicenote/analysis.hpp: what is read from a note without playing it, and the other free functions (part of
 * voicenote.hpp; include that): audio facts, waveforms (one note, many on a pool of threads, from the host's own
 * PCM, resampled, as bars, encoded for a network), converting a note, recovering takes a crash left, the audio
 * devices, remembered positions, MIME types, recording names and the library's version number.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else. Every function may be called on any thread.
 */
#ifndef VOICENOTE_ANALYSIS_HPP
#define VOICENOTE_ANALYSIS_HPP

#include "core.hpp"
#include "sources.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <optional>

namespace voicenote {

/** The number of waveform values Stream and voicenote send with a voice message (100). */
inline constexpr std::size_t waveform_default_samples = VN_WAVEFORM_DEFAULT_SAMPLES;
/** The largest waveform length accepted (1048576). */
inline constexpr std::size_t waveform_max_samples = VN_WAVEFORM_MAX_SAMPLES;
/** The most values a received waveform may decode to (4096; more is errc::format). */
inline constexpr std::size_t waveform_max_decoded = VN_WAVEFORM_MAX_DECODED;

/** Facts about an audio stream (vn_audio_info), read without decoding it all where the format allows. */
struct audio_info {
    /** The duration, never more than the packets hold; 0 when unknown. */
    seconds duration{0};
    /** Whether the duration is estimated from the bitrate (an MP3 or ADTS file whose frames cannot all be
     *  counted, HE-AAC in ADTS). */
    bool duration_is_estimate = false;
    /** The stream's sample rate in Hz (48000 for Opus). */
    int sample_rate = 0;
    /** Channels in the stream. */
    int channels = 0;
    /** Average bitrate in bits per second; 0 when unknown. */
    std::int64_t bitrate = 0;
    /** The codec as FFmpeg names it ("opus", "aac", "mp3", "pcm_s16le", ...). */
    std::string codec;
};

/** Wire encodings of a waveform (vn_waveform_encoding; docs/waveform.md). */
enum class waveform_encoding : int {
    stream = VN_WAVEFORM_STREAM,     /**< Stream `waveform_data`: the 0…1 values themselves (no integer form). */
    matrix = VN_WAVEFORM_MATRIX,     /**< Matrix MSC3246: 100 integers 0…1024. */
    telegram = VN_WAVEFORM_TELEGRAM, /**< Telegram: 100 values of 5 bits packed LSB-first into 63 bytes. */
    signal = VN_WAVEFORM_SIGNAL      /**< Signal: up to 100 bytes 0…255. */
};

namespace detail {

/** A C audio_info as the C++ struct. */
inline audio_info to_audio_info(const vn_audio_info &info) {
    const char *end = std::find(info.codec, info.codec + sizeof info.codec, '\0');
    return {seconds(info.duration_s), info.duration_is_estimate != 0, info.sample_rate, info.channels, info.bitrate,
            std::string(info.codec, end)};
}

/** Throws `error` (#VN_E_INVALID_ARG) unless `samples` is 1…waveform_max_samples: before any buffer is sized. */
inline void check_waveform_samples(std::size_t samples, const char *what = "samples") {
    if (samples == 0 || samples > waveform_max_samples) {
        throw error(VN_E_INVALID_ARG, std::string(what) + " must be 1…" + std::to_string(waveform_max_samples));
    }
}

/** A waveform call `call(out, capacity, &count)` into a vector of `samples` values. */
template <class Call>
std::vector<float> waveform_into_vector(std::size_t samples, Call call) {
    check_waveform_samples(samples);
    std::vector<float> values(samples);
    std::size_t count = 0;
    check(call(values.data(), values.size(), &count));
    values.resize(count);
    return values;
}

/**
 * A call `call(out, capacity, &count)` that, given too little room, fails with #VN_E_INVALID_ARG and puts the
 * number it needs in `count`: tried with `guess` values of room, then once more with what it asked for.
 */
template <class T, class Call>
std::vector<T> grow_into_vector(std::size_t guess, Call call) {
    std::vector<T> out(std::max<std::size_t>(guess, 1));  // never a NULL buffer
    std::size_t count = 0;
    int status = call(out.data(), out.size(), &count);
    if (status == VN_E_INVALID_ARG && count > out.size()) {
        out.resize(count);
        count = 0;
        status = call(out.data(), out.size(), &count);
    }
    check(status);
    out.resize(count);
    return out;
}

/** Throws `error` (#VN_E_INVALID_ARG) unless `channels` is 1…255 and `samples_in` holds whole frames of it. */
inline std::size_t pcm_frames(std::size_t samples_in, int channels) {
    if (channels < 1 || channels > 255) throw error(VN_E_INVALID_ARG, "channels must be 1…255");
    if (samples_in % static_cast<std::size_t>(channels) != 0) {
        throw error(VN_E_INVALID_ARG, "the PCM does not hold whole frames of the channels given");
    }
    return samples_in / static_cast<std::size_t>(channels);
}

}  // namespace detail

/**
 * The facts of an audio file (vn_audio_info_file). Throws `error`: errc::not_found, errc::permission, errc::io;
 * errc::invalid_argument for a path that is not a regular file; errc::format when it is not audio, has no audio
 * packets or a damaged header; errc::unsupported when it is not Ogg Opus and FFmpeg cannot be loaded, or for a
 * container voice messages do not come in.
 */
inline audio_info audio_info_file(std::string_view path) {
    vn_audio_info info{};
    info.size = sizeof info;
    detail::check(vn_audio_info_file(detail::c_string(path).get(), &info));
    return detail::to_audio_info(info);
}

/**
 * The facts of the audio in `source`, read from its start (vn_audio_info_source). Throws `error` as
 * audio_info_file(); errc::misuse for a moved-from source or one a player holds (errc::busy); errc::io when a host
 * callback fails; a URL's network statuses; errc::cancelled after source::cancel().
 */
inline audio_info audio_info_source(source &source) {
    vn_audio_info info{};
    info.size = sizeof info;
    detail::check(vn_audio_info_source(source.get(), &info));
    return detail::to_audio_info(info);
}

/**
 * The waveform of an audio file (vn_waveform_file): `samples` values 0…1 (1…waveform_max_samples, usually
 * waveform_default_samples). Throws `error`: errc::invalid_argument for `samples` out of range (before anything is
 * allocated) or a path that is not a regular file; otherwise as audio_info_file().
 */
inline std::vector<float> waveform_file(std::string_view path, std::size_t samples = waveform_default_samples) {
    detail::c_string c_path(path);
    return detail::waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_file(c_path.get(), samples, out, capacity, count);
    });
}

/** What analyse_file() and analyse_source() give: the waveform, length and loudness of one decoding pass. */
struct analysis {
    /** The waveform's values 0…1. */
    std::vector<float> values;
    /** The decoded audio's length. */
    seconds duration{0};
    /** Its loudness. */
    std::optional<voicenote::loudness> loudness;
};

namespace detail {

/** One analysis call (`call(out, capacity, count, duration, loudness)`) into an `analysis`. */
template <typename Call>
inline analysis analyse_into(std::size_t samples, Call call) {
    analysis result;
    double duration = 0;
    vn_loudness measured{};
    result.values = waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return call(out, capacity, count, &duration, &measured);
    });
    result.duration = seconds(duration);
    result.loudness = to_loudness(measured);
    return result;
}

}  // namespace detail

/**
 * The waveform, length and EBU R128 loudness of an audio file in one decoding pass (vn_waveform_analyse_file()).
 * Throws as waveform_file().
 */
inline analysis analyse_file(std::string_view path, std::size_t samples = waveform_default_samples) {
    detail::c_string c_path(path);
    return detail::analyse_into(samples, [&](float *out, std::size_t capacity, std::size_t *count, double *duration,
                                             vn_loudness *measured) {
        return vn_waveform_analyse_file(c_path.get(), samples, out, capacity, count, duration, measured);
    });
}

/** analyse_file() of the audio in `source`, read from its start (vn_waveform_analyse_source()). Throws as
 *  waveform_source(). */
inline analysis analyse_source(source &source, std::size_t samples = waveform_default_samples) {
    return detail::analyse_into(samples, [&](float *out, std::size_t capacity, std::size_t *count, double *duration,
                                             vn_loudness *measured) {
        return vn_waveform_analyse_source(source.get(), samples, out, capacity, count, duration, measured);
    });
}

/** The waveform of `size` encoded bytes at `data`, read during the call only (vn_waveform_memory). Throws as
 *  waveform_file(). */
inline std::vector<float> waveform_memory(const void *data, std::size_t size,
                                          std::size_t samples = waveform_default_samples) {
    return detail::waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_memory(data, size, samples, out, capacity, count);
    });
}

/** The waveform of encoded bytes (vn_waveform_memory). Throws as waveform_file(). */
inline std::vector<float> waveform_memory(const std::vector<std::uint8_t> &bytes,
                                          std::size_t samples = waveform_default_samples) {
    return waveform_memory(bytes.data(), bytes.size(), samples);
}

/** The waveform of the audio in `source`, read from its start (vn_waveform_source). Throws as waveform_file() and
 *  audio_info_source(). */
inline std::vector<float> waveform_source(source &source, std::size_t samples = waveform_default_samples) {
    return detail::waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_source(source.get(), samples, out, capacity, count);
    });
}

/** The waveform of interleaved 16-bit PCM the host decoded: `frames` frames of `channels` (1…255) samples
 *  (vn_waveform_from_pcm_s16). Throws `error` (errc::invalid_argument for a NULL `pcm` with frames, channels or
 *  samples out of range). */
inline std::vector<float> waveform_from_pcm_s16(const std::int16_t *pcm, std::size_t frames, int channels,
                                                std::size_t samples = waveform_default_samples) {
    return detail::waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_from_pcm_s16(pcm, frames, channels, samples, out, capacity, count);
    });
}

/** The waveform of interleaved 16-bit PCM: whole frames of `channels` (1…255) samples. Throws `error`
 *  (errc::invalid_argument for channels out of range, a partial frame, samples out of range). */
inline std::vector<float> waveform_from_pcm_s16(const std::vector<std::int16_t> &pcm, int channels,
                                                std::size_t samples = waveform_default_samples) {
    return waveform_from_pcm_s16(pcm.data(), detail::pcm_frames(pcm.size(), channels), channels, samples);
}

/** The waveform of interleaved float PCM (full scale ±1.0) the host decoded (vn_waveform_from_pcm_f32). Throws as
 *  waveform_from_pcm_s16(). */
inline std::vector<float> waveform_from_pcm_f32(const float *pcm, std::size_t frames, int channels,
                                                std::size_t samples = waveform_default_samples) {
    return detail::waveform_into_vector(samples, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_from_pcm_f32(pcm, frames, channels, samples, out, capacity, count);
    });
}

/** The waveform of interleaved float PCM: whole frames of `channels` (1…255) samples. Throws as
 *  waveform_from_pcm_s16(). */
inline std::vector<float> waveform_from_pcm_f32(const std::vector<float> &pcm, int channels,
                                                std::size_t samples = waveform_default_samples) {
    return waveform_from_pcm_f32(pcm.data(), detail::pcm_frames(pcm.size(), channels), channels, samples);
}

/**
 * Waveform values resampled to `target` values (1…waveform_max_samples) for display (vn_waveform_resample): down,
 * the mean of each bucket; up, linear interpolation; equal counts copy. Throws `error` (errc::invalid_argument for
 * `target` out of range, before anything is allocated, or more than waveform_max_samples values).
 */
inline std::vector<float> waveform_resample(const std::vector<float> &values, std::size_t target) {
    detail::check_waveform_samples(target, "target");
    std::vector<float> out(target);
    std::size_t count = 0;
    detail::check(vn_waveform_resample(values.data(), values.size(), target, out.data(), out.size(), &count));
    out.resize(count);
    return out;
}

/** The width of one bar `waveform_bars` lays out (Stream's `AudioVisualizationView`). */
constexpr double waveform_bar_width = 1.5;
/** The gap between two bars. */
constexpr double waveform_bar_gap = 2.0;
/** Where bar i starts: x = i · waveform_bar_pitch. */
constexpr double waveform_bar_pitch = waveform_bar_width + waveform_bar_gap;

/**
 * Bar heights for drawing a waveform in a view `width` × `height` (same unit, usually pixels; vn_waveform_bars):
 * ⌊width / 3.5⌋ bars 1.5 wide with gaps of 2 (bar i starts at x = i · 3.5), each max(1, level · height / 2) tall;
 * widths beyond 350000 give 100000 bars. Throws `error` (errc::invalid_argument for a negative or non-finite size,
 * or more than waveform_max_samples values).
 */
inline std::vector<float> waveform_bars(const std::vector<float> &values, double width, double height) {
    // The room needed, for a size the library takes (it refuses the others before writing anything).
    std::size_t guess =
        std::isfinite(width) && width >= 0 ? static_cast<std::size_t>(std::min(width / 3.5, 100000.0)) : 0;
    return detail::grow_into_vector<float>(guess, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_bars(values.data(), values.size(), width, height, out, capacity, count);
    });
}

/**
 * A waveform encoded for a network (vn_waveform_encode): Matrix, 100 values 0…1024; Telegram, 63 packed bytes;
 * Signal, at most 100 bytes 0…255. Values out of 0…1 are clamped. Throws `error` (errc::invalid_argument for
 * waveform_encoding::stream, which sends the values themselves, or more than waveform_max_samples values).
 */
inline std::vector<std::int32_t> waveform_encode(waveform_encoding encoding, const std::vector<float> &values) {
    auto call = [&](std::int32_t *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_encode(static_cast<int>(encoding), values.data(), values.size(), out, capacity, count);
    };
    return detail::grow_into_vector<std::int32_t>(100, call);
}

/**
 * A waveform received from a network decoded back to values 0…1 (vn_waveform_decode); received values out of the
 * encoding's range are clamped into it first; Telegram gives ⌊bytes · 8 / 5⌋ values. Throws `error`
 * (errc::invalid_argument for waveform_encoding::stream; errc::format for more than waveform_max_decoded values).
 */
inline std::vector<float> waveform_decode(waveform_encoding encoding, const std::vector<std::int32_t> &encoded) {
    // Telegram's count, ⌊bytes · 8 / 5⌋, from a size bounded first, so that no input's size overflows it.
    std::size_t bytes = std::min(encoded.size(), waveform_max_decoded);
    std::size_t guess = std::min(bytes * 8 / 5 + 1, waveform_max_decoded);
    return detail::grow_into_vector<float>(guess, [&](float *out, std::size_t capacity, std::size_t *count) {
        return vn_waveform_decode(static_cast<int>(encoding), encoded.data(), encoded.size(), out, capacity, count);
    });
}

/** One note's result from waveform_batch::next(), copied out of the batch. */
struct waveform_result {
    /** The note's place in the input, from 0. */
    std::size_t index = 0;
    /** The location as it was added. */
    std::string location;
    /** VN_OK, or why this note has no waveform (a `VN_E_*` status: VN_E_NOT_FOUND, VN_E_FORMAT, a URL's network
     *  statuses, ...). */
    int status = VN_OK;
    /** The failure's detail ("" on success). */
    std::string message;
    /** The decoded audio's length; 0 on failure. */
    seconds duration{0};
    /** The batch's `samples` values 0…1; empty on failure. */
    std::vector<float> values;
    /** The note's loudness, measured in the same pass; std::nullopt on failure or when the batch does not measure
     *  it (waveform_batch::set_loudness()). */
    std::optional<voicenote::loudness> loudness;

    /** Whether the note has its waveform. */
    bool ok() const noexcept { return status == VN_OK; }
    /** `status` as an error code in voicenote's category (empty for VN_OK), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

namespace detail {

/** A batch's result as the C++ struct, copied out of the batch. */
inline waveform_result to_waveform_result(const vn_waveform_result &result) {
    waveform_result copy;
    copy.index = result.index;
    copy.location = copy_string(result.location);
    copy.status = result.status;
    copy.message = copy_string(result.message);
    copy.duration = seconds(result.duration_s);
    if (result.values && result.count > 0) copy.values.assign(result.values, result.values + result.count);
    copy.loudness = to_loudness(result.loudness);
    return copy;
}

}  // namespace detail

/**
 * Many waveforms on one pool of library threads, handed back in the order they were added (vn_waveform_batch_*):
 * a backend's alternative to a process per file. A note that fails is a result with its status; the batch goes
 * on. Workers run at most twice `jobs` notes ahead of the results taken. A long local note is split over idle
 * workers. Move-only; destroying it stops the workers (cancelling downloads) and drops results not taken.
 *
 * `add()` and `end_input()` may be called on one thread while another takes results with `next()` (one `next()`
 * at a time).
 */
class waveform_batch {
public:
    /**
     * Starts `jobs` worker threads (1…256; 0 for the CPUs this process may use) computing `samples` values
     * (1…waveform_max_samples) per note; `http` says how URLs are fetched (default: the library's defaults).
     * Throws `error` (errc::invalid_argument for a number out of range or bad `http` options; errc::no_memory when
     * a thread cannot start).
     */
    waveform_batch(std::size_t samples, int jobs = 0, const std::optional<http_options> &http = std::nullopt)
        : batch_(create(samples, jobs, http)) {}

    /** Adds a note: a local file's path, or an http(s) URL (through the media cache). Throws `error`
     *  (errc::invalid_argument for a location that is not UTF-8; errc::misuse after end_input()). */
    void add(std::string_view location) {
        detail::check(vn_waveform_batch_add(batch_.get(), detail::c_string(location).get()));
    }

    /** Whether each note's loudness is measured with its waveform (the default); off, a note costs only its
     *  waveform. Applies to the notes started after the call (vn_waveform_batch_set_loudness()). */
    void set_loudness(bool measure) { detail::check(vn_waveform_batch_set_loudness(batch_.get(), measure ? 1 : 0)); }

    /** Says no note will be added: once every result is taken, next() returns std::nullopt with ended() true.
     *  Idempotent. */
    void end_input() { detail::check(vn_waveform_batch_end_input(batch_.get())); }

    /** Takes the other's batch (and whether it ended); the other is left empty (its calls throw errc::misuse). */
    waveform_batch(waveform_batch &&other) noexcept : batch_(std::move(other.batch_)), ended_(other.ended_.load()) {}
    /** Destroys the batch held (stopping its workers), then takes the other's. */
    waveform_batch &operator=(waveform_batch &&other) noexcept {
        if (this != &other) {
            batch_ = std::move(other.batch_);
            ended_ = other.ended_.load();
        }
        return *this;
    }

    /**
     * Takes the next result in input order, waiting at most `timeout` (std::nullopt, the default: as long as it
     * takes; 0 polls; rounded up to the millisecond, at most INT_MAX ms). Returns std::nullopt when the timeout
     * passed first (nothing taken; call again) or when every result was taken after end_input(); ended() tells
     * which. With no timeout, `while (auto result = batch.next())` takes every result. Throws `error`
     * (errc::invalid_argument for a negative or NaN timeout; errc::misuse for a moved-from batch).
     */
    std::optional<waveform_result> next(std::optional<seconds> timeout = std::nullopt) {
        int milliseconds = detail::timeout_ms(timeout);
        vn_waveform_result result{};
        result.size = sizeof result;
        int taken = vn_waveform_batch_next(batch_.get(), milliseconds, &result);
        if (taken == VN_E_BUSY) return std::nullopt;
        if (detail::check(taken) == 0) {
            ended_ = true;
            return std::nullopt;
        }
        return detail::to_waveform_result(result);
    }

    /**
     * Whether next() found the input ended and every result taken (its std::nullopt was the end, not a timeout).
     * Any thread, also while another calls next().
     */
    bool ended() const noexcept { return ended_; }

    /** The C batch, still owned (NULL when moved from). */
    vn_waveform_batch *get() const noexcept { return batch_.get(); }

private:
    using batch_handle = detail::handle<vn_waveform_batch, vn_waveform_batch_destroy>;

    static batch_handle create(std::size_t samples, int jobs, const std::optional<http_options> &http) {
        // The C options live until the batch has copied them.
        std::optional<detail::handle<vn_http_options, vn_http_options_destroy>> c_http;
        if (http) c_http.emplace(detail::c_http_options(*http));
        const vn_http_options *c = c_http ? c_http->get() : nullptr;
        return detail::make_handle<vn_waveform_batch, vn_waveform_batch_destroy>(vn_waveform_batch_create, samples,
                                                                                 jobs, c);
    }

    batch_handle batch_;
    std::atomic<bool> ended_{false};  // set by next(), read by ended() on any thread
};

/**
 * How a note is converted (vn_convert_options_*): only the fields set are applied, so the defaults stand otherwise
 * (rate 1, Ogg Opus, encoder_settings' defaults).
 */
struct convert_options {
    /** The new note's speed, its pitch kept: it lasts the original's length divided by `rate`; 0.5…2.5. */
    std::optional<double> rate;
    /** The format written; default recording_format::opus. */
    std::optional<recording_format> format;
    /** The encoder settings (default: encoder_settings' defaults, the library's). */
    std::optional<encoder_settings> encoder;
};

namespace detail {

/** The C options for `options`; throws `error` (#VN_E_INVALID_ARG, naming the allowed values) for one out of range. */
inline handle<vn_convert_options, vn_convert_options_destroy> c_convert_options(const convert_options &options) {
    auto c = make_handle<vn_convert_options, vn_convert_options_destroy>(vn_convert_options_create);
    if (options.rate) check(vn_convert_options_set_rate(c.get(), *options.rate));
    if (options.format) check(vn_convert_options_set_format(c.get(), static_cast<int>(*options.format)));
    if (options.encoder) set_encoder(vn_convert_options_set_encoder, c.get(), *options.encoder);
    return c;
}

}  // namespace detail

/**
 * Writes the note at `path` again as `out_path` (replaced when it exists; its directory must exist; may be `path`
 * itself), decoding and encoding on the calling thread (vn_convert_file); the output is written aside and renamed
 * once complete, so a failure leaves `out_path` as it was. Returns the new note's length. Throws `error`
 * (errc::invalid_argument for empty paths or options out of range; errc::not_found, errc::permission for either
 * file; errc::format for a file that is not audio; errc::unsupported without FFmpeg for its format;
 * errc::no_space; errc::io).
 */
inline seconds convert_file(std::string_view path, std::string_view out_path, const convert_options &options = {}) {
    auto c_options = detail::c_convert_options(options);
    double duration = 0;
    detail::check(vn_convert_file(detail::c_string(path).get(), detail::c_string(out_path).get(), c_options.get(),
                                  &duration));
    return seconds(duration);
}

/**
 * Converts the note `source` reads, from its start, into `out_path` (vn_convert_source); returns the new length.
 * Throws as convert_file(), and errc::misuse for a moved-from source, a URL's network statuses, errc::cancelled
 * after source::cancel().
 */
inline seconds convert_source(source &source, std::string_view out_path, const convert_options &options = {}) {
    auto c_options = detail::c_convert_options(options);
    double duration = 0;
    detail::check(vn_convert_source(source.get(), detail::c_string(out_path).get(), c_options.get(), &duration));
    return seconds(duration);
}

/** One file recover() handled. */
struct recovered_file {
    /** The finished file, or the `.part` left in place when it failed. */
    std::string path;
    /** Its length (0 on failure). */
    seconds duration{0};
    /** Its size in bytes (0 on failure). */
    std::int64_t size_bytes = 0;
    /** VN_OK, or why it could not be recovered (VN_E_FORMAT when it held no audio). */
    int status = VN_OK;

    /** Whether it was recovered. */
    bool ok() const noexcept { return status == VN_OK; }
    /** `status` as an error code in voicenote's category (empty for VN_OK), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

/**
 * Finishes the takes a crash left in `directory` (std::nullopt: the default recordings directory): every
 * `*.ogg.part` and `*.aac.part` keeps its whole pages or frames and is renamed to `.ogg` / `.aac` (vn_recover).
 * `callback`, if any, runs on this thread for each `.part` file, during the call; an exception it throws is
 * rethrown from here after the C call returns (the later files are still recovered, without calling it). Returns
 * how many files were recovered. Not while a recorder writes into the same directory. Throws `error`
 * (errc::not_found when the directory does not exist, errc::permission, errc::io).
 */
inline std::size_t recover(std::optional<std::string_view> directory,
                           const std::function<void(const recovered_file &)> &callback = {}) {
    struct context {
        const std::function<void(const recovered_file &)> *callback;
        std::exception_ptr failure;

        static void call(void *user_data, const char *path, double duration_s, std::int64_t size_bytes,
                         int status) noexcept {
            auto *self = static_cast<context *>(user_data);
            if (self->failure) return;
            try {
                (*self->callback)(recovered_file{detail::copy_string(path), seconds(duration_s), size_bytes, status});
            } catch (...) {
                self->failure = std::current_exception();
            }
        }
    } state{&callback, nullptr};
    std::optional<detail::c_string> c_directory;
    if (directory) c_directory.emplace(*directory);
    std::size_t recovered = 0;
    int status = vn_recover(c_directory ? c_directory->get() : nullptr, callback ? &context::call : nullptr, &state,
                            &recovered);
    if (state.failure) std::rethrow_exception(state.failure);
    detail::check(status);
    return recovered;
}

/** One ALSA PCM device from devices_enumerate(). */
struct audio_device {
    /** The ALSA name to open ("default", "pulse", "hw:CARD=...", ...). */
    std::string name;
    /** ALSA's one-line description. */
    std::string description;
    /** Whether it can record. */
    bool can_capture = false;
    /** Whether it can play. */
    bool can_play = false;
};

/** The ALSA PCM devices, capture and playback, with their descriptions (vn_devices_enumerate). Throws `error`
 *  (errc::no_memory when the list cannot grow). */
inline std::vector<audio_device> devices_enumerate() {
    struct context {
        std::vector<audio_device> devices;
        std::exception_ptr failure;

        static void call(void *user_data, const char *name, const char *description, int can_capture,
                         int can_play) noexcept {
            auto *self = static_cast<context *>(user_data);
            if (self->failure) return;
            try {
                self->devices.push_back(
                    {detail::copy_string(name), detail::copy_string(description), can_capture != 0, can_play != 0});
            } catch (...) {
                self->failure = std::current_exception();
            }
        }
    } state;
    int status = vn_devices_enumerate(&context::call, &state);
    if (state.failure) std::rethrow_exception(state.failure);
    detail::check(status);
    return std::move(state.devices);
}

/**
 * The position a player remembered for `location` (a path, a `file://` URL or an http(s) URL), loaded with `key`
 * (the key of player::load_url, if any); 0 when none is remembered (vn_resume_position). The store is
 * `$XDG_CACHE_HOME/voicenote/positions`. Throws `error` (errc::invalid_argument for an empty location or key;
 * errc::unsupported for another URL scheme).
 */
inline seconds resume_position(std::string_view location, std::optional<std::string_view> key = std::nullopt) {
    std::optional<detail::c_string> c_key;
    if (key) c_key.emplace(*key);
    double position = 0;
    detail::check(vn_resume_position(detail::c_string(location).get(), c_key ? c_key->get() : nullptr, &position));
    return seconds(position);
}

/** Forgets every remembered position (players keep those in their own memory) (vn_resume_positions_clear). Throws
 *  `error` (errc::permission, errc::io when the store cannot be removed). */
inline void resume_positions_clear() { detail::check(vn_resume_positions_clear()); }

/**
 * Whether the note at `location` (loaded with `key`, if any) was heard to 90 % or to its end by a player of any
 * process (vn_listened; player_event_type::listened). Throws `error` (errc::invalid_argument for an empty location
 * or key; errc::unsupported for another URL scheme).
 */
inline bool listened(std::string_view location, std::optional<std::string_view> key = std::nullopt) {
    std::optional<detail::c_string> c_key;
    if (key) c_key.emplace(*key);
    int out = 0;
    detail::check(vn_listened(detail::c_string(location).get(), c_key ? c_key->get() : nullptr, &out));
    return out != 0;
}

/** Marks a note listened, or with false unlistened again ("mark as unplayed") (vn_listened_set). Throws as
 *  listened(). */
inline void set_listened(std::string_view location, bool value, std::optional<std::string_view> key = std::nullopt) {
    std::optional<detail::c_string> c_key;
    if (key) c_key.emplace(*key);
    detail::check(vn_listened_set(detail::c_string(location).get(), c_key ? c_key->get() : nullptr, value ? 1 : 0));
}

/** Forgets every listened mark (vn_listened_clear). Throws `error` (errc::permission, errc::io). */
inline void listened_clear() { detail::check(vn_listened_clear()); }

/**
 * The MIME type voicenote sends a file as, by its extension, case-insensitive (vn_mime_type_for_file): ogg/opus
 * `audio/ogg`, aac `audio/aac`, m4a `audio/mp4`, mp3 `audio/mpeg`, wav `audio/wav`, flac `audio/flac`, common
 * image and video types, else `application/octet-stream`.
 */
inline std::string mime_type_for_file(std::string_view file_name) {
    return detail::copy_string(vn_mime_type_for_file(detail::c_string(file_name).get()));
}

/** The display name of the `index`-th recording of a message being composed (vn_recording_display_name): 0 is
 *  "Recording", n ≥ 1 is "Recording(n)". Throws `error` (errc::invalid_argument for a negative index). */
inline std::string recording_display_name(int index) {
    char *name = nullptr;
    detail::check(vn_recording_display_name(index, &name));
    return detail::take_string(name);
}

}  // namespace voicenote

#endif /* VOICENOTE_ANALYSIS_HPP */
