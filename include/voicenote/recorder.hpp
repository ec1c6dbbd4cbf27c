/*
 * voicenote/recorder.hpp: the recorder (part of voicenote.hpp). Records from an ALSA device into Ogg Opus (or
 * AAC-LC in ADTS) files that survive crashes (vn_recorder_*; docs/recorder.md): begin, pause, resume, stop, cancel,
 * events with the context, the finished file and its waveform, live levels, and the host's session hooks.
 */
#ifndef VOICENOTE_RECORDER_HPP
#define VOICENOTE_RECORDER_HPP

#include "core.hpp"

#include <exception>
#include <limits>
#include <optional>
#include <utility>

namespace voicenote {

/** Recorder states (vn_recorder_state). */
enum class recorder_state : int {
    stopped = VN_RECORDER_STOPPED,     /**< Not recording (the first state). */
    recording = VN_RECORDER_RECORDING, /**< Capturing. */
    paused = VN_RECORDER_PAUSED        /**< Paused; the take is whole on disk. */
};

/** How often context events report levels and duration, in captured audio (vn_recorder_options_set_intervals). */
struct recorder_intervals {
    /** Time between meter steps, 0.01…10 s (default 0.1 s). */
    seconds meter = seconds(0.1);
    /** Time between duration steps, 0.01…60 s (default 0.5 s). */
    seconds duration = seconds(0.5);
};

/**
 * The length limits of a take (vn_recorder_options_set_limits), each 0…1000000 s; a take is counted in frames.
 * The members' defaults are the library's.
 */
struct recorder_limits {
    /** The longest take: it stops and is finished at exactly this many frames (at least one); 0 = no limit. */
    seconds maximum = seconds(3600);
    /** How long before the maximum the `max_duration_warning` event comes (default 10 s). */
    seconds warning = seconds(10);
    /**
     * Shorter takes are deleted with a `too_short` event; 0 (the default) keeps every take that captured at least
     * one frame. A take that captured no frame always ends with `too_short`, whatever the minimum.
     */
    seconds minimum = seconds(0);
};

/**
 * Options of a `recorder`: only the members that are set are applied, so the library's defaults stand for the
 * others (directory `$XDG_CACHE_HOME/voicenote/recordings`, device "default", Opus at 32 kbit/s, complexity 10,
 * 20 ms frames, meter steps every 0.1 s, duration steps every 0.5 s, at most 3600 s with a warning 10 s before, no
 * minimum, events on the library's event thread, the process's default focus group, no session hooks).
 */
struct recorder_options {
    /** The directory takes are written to (created when missing); not empty. */
    std::optional<std::string> directory;
    /** The capture device's ALSA name ("default", "pulse", "hw:0", or a name `device_configuration` defines). */
    std::optional<std::string> device;
    /**
     * ALSA configuration text defining `device` (opened with `snd_pcm_open_lconf`: a virtual microphone without
     * touching the environment); unset: the system configuration. Needs `device`.
     */
    std::optional<std::string> device_configuration;
    /** The file format (default Opus). */
    std::optional<recording_format> format;
    /** The encoder settings (default: encoder_settings' defaults, the library's). */
    std::optional<encoder_settings> encoder;
    /** How often context events report levels and duration. */
    std::optional<recorder_intervals> intervals;
    /** The length limits of a take. */
    std::optional<recorder_limits> limits;
    /**
     * Voice cleanup (vn_recorder_options_set_voice_cleanup): a high-pass, noise suppression and automatic gain
     * before the encoder, by speexdsp (loaded on first use; `errc::unsupported` from the constructor without it).
     * Unset or false: off, the take is the captured audio bit for bit.
     */
    std::optional<bool> voice_cleanup;
    /** Pauses the desktop's other media players (MPRIS) that are playing while a take is recorded, and resumes
     *  exactly those after (vn_recorder_options_set_pause_other_players); off by default. */
    std::optional<bool> pause_other_players;
    /** The capture stream's role on a PulseAudio or pipewire-pulse server, its `media.role` ("phone")
     *  (vn_recorder_options_set_stream_role, which says when a host should set one); unset: none. */
    std::optional<std::string> stream_role;
    /** Where a take goes on when its source is lost mid-take (vn_recorder_options_set_fallback_device): an ALSA name
     *  with its configuration text (empty for the system's); an empty name: none (a loss finishes the take). Unset:
     *  the default device when `device` is the default too, else none. */
    std::optional<std::pair<std::string, std::string>> fallback_device;
    /** Delivers events through this loop (callbacks run in its `dispatch()`); null: the library's event thread. */
    voicenote::event_loop *loop = nullptr;
    /** The focus group the recorder joins; null: the process's default group. */
    voicenote::focus_group *focus = nullptr;
    /**
     * Asked before the device opens, on the thread calling `recorder::begin()`: true allows, false refuses (begin
     * then throws `errc::busy` and opens no device). An exception it throws refuses too, and `begin()` throws it
     * again: a `voicenote::error` as it is (its status), any other as `errc::busy`. When a flow begins the take
     * (on a library thread), a refusal shows as the flow's failed event (errc::busy) and a thrown exception is
     * dropped. Empty: always allowed. Held by the recorder for its whole life.
     */
    std::function<bool(session_kind)> activate;
    /**
     * Told after the device closed, on the thread that closed it: the caller of stop, cancel or the destructor, or
     * the library thread that ended a take by itself. Must not throw (an escaping exception ends the program).
     */
    std::function<void(session_kind)> deactivate;
};

/** A recorder's context (vn_recorder_context). */
struct recorder_context {
    /** The state. */
    recorder_state state = recorder_state::stopped;
    /** Time captured in this take, paused time excluded. */
    seconds duration = seconds(0);
    /** RMS level of the last meter window, 0…1. */
    float average_power = 0;
    /** Peak level of the last meter window, 0…1. */
    float peak_power = 0;
    /** ALSA overruns in this take (recovered; they never end a take). */
    std::int64_t overruns = 0;
    /** The file being written (`<UUID>.ogg.part` while recording) or last kept; "" when none. */
    std::string path;
};

/** Kinds of recorder events (vn_recorder_event_type). */
enum class recorder_event_type : int {
    context = VN_RECORDER_EVENT_CONTEXT,                           /**< A state change or a meter/duration step. */
    finished = VN_RECORDER_EVENT_FINISHED,                         /**< A take was kept. */
    failed = VN_RECORDER_EVENT_FAILED,                             /**< A failure (after `finished` when kept). */
    max_duration_warning = VN_RECORDER_EVENT_MAX_DURATION_WARNING, /**< `remaining` left before the maximum. */
    max_duration_reached = VN_RECORDER_EVENT_MAX_DURATION_REACHED, /**< The maximum was reached; `finished` follows. */
    /** The take was under the minimum, or captured no frame at all, and was deleted. */
    too_short = VN_RECORDER_EVENT_TOO_SHORT,
    /** The capture source was lost mid-take and the take goes on from the fallback `device` (`status`, `message`:
     *  the loss). */
    source_changed = VN_RECORDER_EVENT_SOURCE_CHANGED
};

/** One recorder event (vn_recorder_event), copied: it may be kept after the callback. */
struct recorder_event {
    /** The kind; says which members are set. */
    recorder_event_type type = recorder_event_type::context;
    /** `context`: the new context (steps coalesce for a slow subscriber: the latest wins). */
    recorder_context context;
    /** `finished`: the kept file. */
    std::string path;
    /**
     * `finished`, `too_short`: the take's length (`finished`: what the file holds, less than was captured when a
     * write failed; a `failed` event then follows).
     */
    seconds duration = seconds(0);
    /** `finished`: bytes on disk. */
    std::int64_t size_bytes = 0;
    /** `finished`: the waveform, VN_WAVEFORM_DEFAULT_SAMPLES values in 0…1. */
    std::vector<float> waveform;
    /** `finished`: the file's format. */
    recording_format format = recording_format::opus;
    /** `finished`: the take's loudness, measured as it was encoded. */
    std::optional<voicenote::loudness> loudness;
    /** `failed`, `source_changed`: the negative `VN_E_*` status (of the loss); 0 otherwise. */
    int status = 0;
    /** `failed`, `source_changed`: the detail. */
    std::string message;
    /** `max_duration_warning`: time left before the maximum. */
    seconds remaining = seconds(0);
    /** `source_changed`: the device the take goes on from. */
    std::string device;

    /** `status` as an error code in voicenote's category (empty for 0), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

namespace detail {

/** A recorder's context as the C++ struct; `path` NULL gives "". */
inline recorder_context to_recorder_context(const vn_recorder_context &context) {
    recorder_context result;
    result.state = static_cast<recorder_state>(context.state);
    result.duration = seconds(context.duration_s);
    result.average_power = context.average_power;
    result.peak_power = context.peak_power;
    result.overruns = context.overruns;
    result.path = copy_string(context.path);
    return result;
}

/** A recorder event as the C++ struct: the members its type sets. */
inline recorder_event to_recorder_event(const vn_recorder_event &event) {
    recorder_event result;
    result.type = static_cast<recorder_event_type>(event.type);
    switch (result.type) {
    case recorder_event_type::context:
        result.context = to_recorder_context(event.context);
        break;
    case recorder_event_type::finished:
        result.path = copy_string(event.path);
        result.duration = seconds(event.duration_s);
        result.size_bytes = event.size_bytes;
        if (event.waveform) result.waveform.assign(event.waveform, event.waveform + event.waveform_count);
        result.format = static_cast<recording_format>(event.format);
        result.loudness = to_loudness(event.loudness);
        break;
    case recorder_event_type::failed:
        result.status = event.status;
        result.message = copy_string(event.message);
        break;
    case recorder_event_type::max_duration_warning:
        result.remaining = seconds(event.remaining_s);
        break;
    case recorder_event_type::too_short:
        result.duration = seconds(event.duration_s);
        break;
    case recorder_event_type::max_duration_reached:
        break;
    case recorder_event_type::source_changed:
        result.device = copy_string(event.device);
        result.status = event.status;
        result.message = copy_string(event.message);
        break;
    }
    return result;
}

}  // namespace detail

/**
 * A recorder (vn_recorder_*): one take at a time into the options' directory, written as `<UUID>.ogg.part` and
 * renamed on stop. No device is opened until `begin()`. Move-only; destroying it finishes and keeps a take in
 * progress (synchronously; allowed inside its own callbacks) and ends its subscriptions. Every method may be
 * called from any thread, including inside the recorder's callbacks; each throws `voicenote::error` on failure.
 */
class recorder {
public:
    /** A recorder with the library's defaults (the "default" device, the default directory). */
    recorder() : recorder(recorder_options{}) {}

    /**
     * A recorder with `options` (copied; the loop and focus group must outlive the recorder). Throws `error`:
     * `errc::invalid_argument` for a value out of range (the options' documented ranges, NaN and infinities
     * included), an empty directory or device name, or a configuration without a device.
     */
    explicit recorder(const recorder_options &options)
        : hooks_(detail::make_session_hooks(options.activate, options.deactivate)),
          recorder_(create(options, hooks_.get())) {}

    ~recorder() = default;
    recorder(const recorder &) = delete;
    recorder &operator=(const recorder &) = delete;
    /** Takes the other's recorder; the other is left empty (its calls then throw `errc::misuse`). */
    recorder(recorder &&other) noexcept = default;
    /** Destroys the recorder held (finishing its take), then takes the other's. */
    recorder &operator=(recorder &&other) noexcept {
        if (this != &other) {
            recorder_.reset();  // first: the C recorder may still call the hooks until it is destroyed
            hooks_ = std::move(other.hooks_);
            recorder_ = std::move(other.recorder_);
        }
        return *this;
    }

    /**
     * Opens the device, creates the take's file and starts capturing; returns when capture runs. While the previous
     * take is still finishing (its `finished` event can arrive before its last step), first waits for it, at most
     * 5 s. Throws `errc::misuse` when recording or paused; `errc::busy` when the previous take was still finishing
     * after that, or when the activate hook refused (or what it threw, see `recorder_options::activate`);
     * `errc::device` when the device is missing or will not start;
     * `errc::permission`; `errc::io` (or `no_space`, `permission`) when the file cannot be created;
     * `errc::unsupported` for AAC without FFmpeg's libraries.
     */
    void begin() {
        detail::session_hooks::checked([&] { return vn_recorder_begin(recorder_.get()); });
    }
    /** Pauses: capture stops and every encoded packet reaches the disk. Throws `errc::misuse` unless recording. */
    void pause() { detail::check(vn_recorder_pause(recorder_.get())); }
    /**
     * Resumes a paused take. Throws `errc::misuse` unless paused; `errc::device` when the device will not restart
     * (the take stays paused).
     */
    void resume() { detail::check(vn_recorder_resume(recorder_.get())); }
    /**
     * Stops and finishes the take: a `finished` event follows (or `too_short`), then the `stopped` context.
     * Throws `errc::misuse` when stopped.
     */
    void stop() { detail::check(vn_recorder_stop(recorder_.get())); }
    /** Stops and deletes the take; no `finished` event. Throws `errc::misuse` when stopped. */
    void cancel() { detail::check(vn_recorder_cancel(recorder_.get())); }

    /**
     * Calls `callback` for each event from now on, on the library's event thread (or in the options' loop's
     * `dispatch()`); the subscription ends when the returned object is destroyed, or with the recorder.
     * Throws `errc::invalid_argument` for an empty callback.
     */
    subscription subscribe(std::function<void(const recorder_event &)> callback) {
        return detail::subscribe(vn_recorder_subscribe, recorder_.get(), std::move(callback),
                                 &detail::to_recorder_event);
    }

    /** The current context; its `path` is read right after the rest (as `path()` does). */
    recorder_context context() const {
        vn_recorder_context context{};
        context.size = sizeof context;
        detail::check(vn_recorder_get_context(recorder_.get(), &context));
        recorder_context result = detail::to_recorder_context(context);
        result.path = path();
        return result;
    }

    /** The path of the file being written (`.part`) or last kept; "" when none. */
    std::string path() const {
        char *owned = nullptr;
        detail::check(vn_recorder_copy_path(recorder_.get(), &owned));
        return detail::take_string(owned);
    }

    /**
     * The last `count` live levels of the take (one average power 0…1 per meter step, oldest first), fewer early
     * in a take; for live bars. Memory grows with what there is, not with `count`. Throws `errc::invalid_argument`
     * for a `count` over PTRDIFF_MAX (the C side's limit).
     */
    std::vector<float> levels(std::size_t count) const {
        if (count > static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max())) {
            throw error(VN_E_INVALID_ARG, "the level count must be at most PTRDIFF_MAX");
        }
        // Asks for a window that doubles until it holds every level there is (or `count`): the result is the last
        // levels of one call, as consistent as the C call's.
        std::size_t window = count < 1024 ? count : 1024;
        std::vector<float> levels(window);
        for (;;) {
            std::size_t written = 0;
            detail::check(vn_recorder_levels(recorder_.get(), window, levels.data(), levels.size(), &written));
            if (written < window || window == count) {
                levels.resize(written);
                return levels;
            }
            window = count - window < window ? count : window * 2;
            levels.resize(window);
        }
    }

    /**
     * Turns voice cleanup on or off from the next take on (a take being recorded keeps what it began with). Throws
     * `errc::unsupported`, naming what to install, when turning it on without speexdsp.
     */
    void set_voice_cleanup(bool enabled) { detail::check(vn_recorder_set_voice_cleanup(recorder_.get(), enabled ? 1 : 0)); }

    /** Whether the next take is cleaned. */
    bool voice_cleanup() const {
        int enabled = 0;
        detail::check(vn_recorder_get_voice_cleanup(recorder_.get(), &enabled));
        return enabled == 1;
    }

    /** The C recorder, still owned. */
    vn_recorder *get() const noexcept { return recorder_.get(); }

private:
    using options_handle = detail::handle<vn_recorder_options, vn_recorder_options_destroy>;
    using recorder_handle = detail::handle<vn_recorder, vn_recorder_destroy>;

    static recorder_handle create(const recorder_options &options, detail::session_hooks *hooks) {
        options_handle c =
            detail::make_handle<vn_recorder_options, vn_recorder_options_destroy>(vn_recorder_options_create);
        vn_recorder_options *o = c.get();
        if (options.directory) {
            detail::check(vn_recorder_options_set_directory(o, detail::c_string(*options.directory).get()));
        }
        detail::set_device(vn_recorder_options_set_device, o, options.device, options.device_configuration);
        if (options.format) detail::check(vn_recorder_options_set_format(o, static_cast<int>(*options.format)));
        if (options.encoder) detail::set_encoder(vn_recorder_options_set_encoder, o, *options.encoder);
        if (options.intervals) {
            detail::check(vn_recorder_options_set_intervals(o, options.intervals->meter.count(),
                                                            options.intervals->duration.count()));
        }
        if (options.limits) {
            detail::check(vn_recorder_options_set_limits(o, options.limits->maximum.count(),
                                                         options.limits->warning.count(),
                                                         options.limits->minimum.count()));
        }
        if (options.voice_cleanup) detail::check(vn_recorder_options_set_voice_cleanup(o, *options.voice_cleanup ? 1 : 0));
        if (options.pause_other_players)
            detail::check(vn_recorder_options_set_pause_other_players(o, *options.pause_other_players ? 1 : 0));
        if (options.stream_role)
            detail::check(vn_recorder_options_set_stream_role(o, detail::c_string(*options.stream_role).get()));
        if (options.fallback_device) {
            const auto &[name, text] = *options.fallback_device;
            std::optional<detail::c_string> c_name, c_text;
            if (!name.empty()) c_name.emplace(name);
            if (!text.empty()) c_text.emplace(text);
            detail::check(vn_recorder_options_set_fallback_device(o, c_name ? c_name->get() : nullptr,
                                                                  c_text ? c_text->get() : nullptr));
        }
        if (options.loop) detail::check(vn_recorder_options_set_event_loop(o, detail::live_handle(options.loop)));
        if (options.focus) detail::check(vn_recorder_options_set_focus_group(o, detail::live_handle(options.focus)));
        detail::set_session_hooks(vn_recorder_options_set_session_hooks, o, hooks);
        return detail::make_handle<vn_recorder, vn_recorder_destroy>(vn_recorder_create, o);
    }

    std::unique_ptr<detail::session_hooks> hooks_;  // before the handle: outlives the C recorder
    recorder_handle recorder_;
};

}  // namespace voicenote

#endif /* VOICENOTE_RECORDER_HPP */
