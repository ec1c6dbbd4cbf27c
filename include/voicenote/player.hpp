/*
 * voicenote/player.hpp: the player (part of voicenote.hpp; include that). Plays voice messages — local files,
 * http(s) URLs through the media cache, byte sources — at 0.5–2.5x with the pitch kept, with a software volume,
 * skip silence, seeking, resume positions and audio focus; with a data source (voicenote/queue.hpp) it is a queue
 * player that plays item after item.
 *
 * Loading never blocks and never throws for the file itself: the player's own thread opens and decodes, and a
 * missing, unreadable or corrupt item arrives as a `player_event_type::failed` event. Calls throw
 * voicenote::error only when refused (a bad argument, nothing loaded, a session hook's refusal).
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_PLAYER_HPP
#define VOICENOTE_PLAYER_HPP

#include "core.hpp"
#include "queue.hpp"
#include "sources.hpp"

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace voicenote {

/** A player's state (vn_player_state). */
enum class player_state : int {
    not_loaded = VN_PLAYER_NOT_LOADED, /**< Nothing loaded, or the last load failed (its location is kept). */
    loading = VN_PLAYER_LOADING,       /**< Opening the location and reading its duration. */
    paused = VN_PLAYER_PAUSED,         /**< Loaded, not sounding. */
    playing = VN_PLAYER_PLAYING,       /**< Sounding. */
    stopped = VN_PLAYER_STOPPED        /**< Loaded, at 0: after `stop()` or the end of the item. */
};

/** A player's context (vn_player_context): its state, times and settings. Times are in the file's time. */
struct player_context {
    /** The state. */
    player_state state = player_state::not_loaded;
    /** The item's duration; the hint until it is known; 0 when nothing is loaded. */
    seconds duration{0};
    /** What the listener hears now (the device's delay and the time-stretcher's backlog taken off). */
    seconds current_time{0};
    /** The chosen rate, 0.5…2.5 (kept while paused). */
    double rate = 1;
    /** From a seek until audio at the new position is ready. */
    bool is_seeking = false;
    /** How much of the item is available, 0…1 (1 for local items once loaded). */
    double buffered_fraction = 0;
    /** While the duration is a hint or an estimate. */
    bool duration_is_estimate = false;
    /** The software volume, 0…1. */
    double volume = 1;
    /** Whether skip silence is on. */
    bool skip_silence = false;
    /** The last failure's status (a negative `VN_E_*`), 0 when none since the last load. */
    int last_status = 0;
    /** The location as given to the load, in events; empty from `player::context()` (use `player::location()`). */
    std::string location;
    /** Whether levelled playback is on (player::set_leveling()). */
    bool leveling = false;
    /** Its target, LUFS. */
    double leveling_target_lufs = VN_LEVELING_DEFAULT_TARGET_LUFS;
    /** Its offset, dB. */
    double leveling_offset_db = 0;
    /** The gain levelling gives the loaded note, dB; 0 when it is not levelled. */
    double leveling_gain_db = 0;

    /** `last_status` as an error code in voicenote's category (empty for 0), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(last_status); }
};

/** Kinds of player events (vn_player_event_type). */
enum class player_event_type : int {
    /** A state change, a seek, a setting, or a progress step (steps coalesce): `context` holds the new context. */
    context = VN_PLAYER_EVENT_CONTEXT,
    /** The item played to its end (`location`); the state is stopped at 0, or a queue player's next item follows. */
    finished = VN_PLAYER_EVENT_FINISHED,
    /** A load, decode or device failure: `status` and `message`; a `context` event follows. */
    failed = VN_PLAYER_EVENT_FAILED,
    /** A queue player moved to another item: `location` (as given) and `key`; before the new item's context. */
    item_changed = VN_PLAYER_EVENT_ITEM_CHANGED,
    /** The note (`location`, `key`) was heard to 90 % or to its end: listened now, remembered across processes
     *  (voicenote::listened()); once per note, before its `finished`: the moment for a read receipt. */
    listened = VN_PLAYER_EVENT_LISTENED
};

/** One player event (vn_player_event), copied: it outlives the callback. */
struct player_event {
    /** What happened. */
    player_event_type type = player_event_type::context;
    /** `context`: the new context (its `location` is the location as given). */
    player_context context;
    /** `finished`, `item_changed`, `listened`: the item's location. */
    std::string location;
    /** `failed`: the status (a negative `VN_E_*`). */
    int status = 0;
    /** `failed`: the library's detail message. */
    std::string message;
    /** `item_changed`: the new item's key (a URL's key or the URL, the absolute path, or a source's name);
     *  `listened`: the note's key. */
    std::string key;

    /** `status` as an error code in voicenote's category (empty for 0), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

/**
 * Options of a `player` (vn_player_options_*). Only the fields set are applied; the others keep the C defaults.
 * The options are read when the player is made; `loop` and `focus` must outlive the player.
 */
struct player_options {
    /** The ALSA PCM to play on (`default`, `pulse`, `plughw:1,0`, ...), or a `pcm.NAME` of `device_configuration`;
     *  default "default". */
    std::optional<std::string> device;
    /** ALSA configuration text in which `device` is looked up instead of the system's (needs `device`). */
    std::optional<std::string> device_configuration;
    /** Delivers the events through this loop (its `dispatch()`) instead of the library's event thread. */
    event_loop *loop = nullptr;
    /** The focus group to join instead of the process's default one. */
    focus_group *focus = nullptr;
    /**
     * Session hook asked (with session_kind::playback) before the player starts sounding, on the thread calling
     * `play()`, a load with autoplay or `next()`: true allows, false refuses, and that call throws `error`
     * (errc::busy) with nothing changed. An exception it throws refuses too, and the call throws it again: a
     * `voicenote::error` as it is, any other as errc::busy. When the library starts playback on its own thread (a
     * queue's next item, a flow's preview), a refusal shows as a failed event and a thrown exception is dropped.
     * Empty: always allowed. Held by the player for its life.
     */
    std::function<bool(session_kind)> activate;
    /**
     * Session hook told (with session_kind::playback) after the player stopped sounding and closed the device
     * (pause, stop, the end, a failure, destroy), on the player's thread or the destroying one. Must not throw (an
     * escaping exception ends the program).
     */
    std::function<void(session_kind)> deactivate;
    /** How often progress contexts come, in played (output) audio: 0.01…10 s; default 0.1 s. */
    std::optional<seconds> progress_interval;
    /** How many locations' resume positions the player keeps in memory: 0…100000 (0: none); default 256. */
    std::optional<std::size_t> resume_limit;
    /** Whether positions are remembered across players and processes (under the cache directory); default on. */
    std::optional<bool> remember_positions;
    /** Whether a queue player plays a note it interrupted again once the loaded one ends; default on. */
    std::optional<bool> return_to_interrupted;
    /** Shows the player to the desktop's media keys and controls (MPRIS) under this name ("Fractal") while a note
     *  is loading, playing or paused (vn_player_options_set_mpris()); unset: no MPRIS. */
    std::optional<std::string> mpris;
    /** With `mpris`: the host's desktop file name without `.desktop`, for its icon. */
    std::optional<std::string> mpris_desktop_entry;
    /** Pauses the desktop's other media players (MPRIS) while this player plays, and resumes exactly those after
     *  (vn_player_options_set_pause_other_players); off by default. */
    std::optional<bool> pause_other_players;
    /** The playback stream's role on a PulseAudio or pipewire-pulse server, its `media.role`: "phone" has the
     *  server's own policies cork or duck music while a note plays (vn_player_options_set_stream_role); unset:
     *  none. */
    std::optional<std::string> stream_role;
};

namespace detail {

/** A player's context as the C++ struct; `location` NULL gives "". */
inline player_context to_player_context(const vn_player_context &context) {
    player_context result;
    result.state = static_cast<player_state>(context.state);
    result.duration = seconds(context.duration_s);
    result.current_time = seconds(context.current_time_s);
    result.rate = context.rate;
    result.is_seeking = context.is_seeking != 0;
    result.buffered_fraction = context.buffered_fraction;
    result.duration_is_estimate = context.duration_is_estimate != 0;
    result.volume = context.volume;
    result.skip_silence = context.skip_silence != 0;
    result.last_status = context.last_status;
    result.location = copy_string(context.location);
    result.leveling = context.leveling != 0;
    result.leveling_target_lufs = context.leveling_target_lufs;
    result.leveling_offset_db = context.leveling_offset_db;
    result.leveling_gain_db = context.leveling_gain_db;
    return result;
}

/** A player event as the C++ struct. */
inline player_event to_player_event(const vn_player_event &event) {
    player_event result;
    result.type = static_cast<player_event_type>(event.type);
    result.context = to_player_context(event.context);
    result.location = copy_string(event.location);
    result.status = event.status;
    result.message = copy_string(event.message);
    result.key = copy_string(event.key);
    return result;
}

/** A duration hint in the C form: negative for none. */
inline double c_duration_hint(const std::optional<seconds> &hint) noexcept { return hint ? hint->count() : -1.0; }

}  // namespace detail

/**
 * A player (vn_player_*). Move-only; destroying it stops the sound, closes the device, ends its subscriptions and
 * drops its data source, and no callback of it runs after that. Its members may be called from any thread, also
 * inside its own callbacks and data source; a moved-from player throws `error` (#VN_E_MISUSE) from every call.
 */
class player {
public:
    /** A player with the default options: the `default` ALSA device, events on the library's event thread. */
    player() : player(player_options{}) {}

    /** A player made with `options`; throws `error` when an option is refused (naming the range) or it cannot be
     *  made. No device is opened until it first plays. */
    explicit player(const player_options &options)
        : hooks_(detail::make_session_hooks(options.activate, options.deactivate)),
          player_(create(options, hooks_.get())) {}

    /** Destroys the player (see the class); inside a data source, its session hooks are left allocated. */
    ~player() { release_hooks_if_inside_data_source(); }

    player(const player &) = delete;
    player &operator=(const player &) = delete;
    /** Takes the other's player; the other is left empty. */
    player(player &&) noexcept = default;
    /** Destroys the player held (before its session hooks), then takes the other's. */
    player &operator=(player &&other) noexcept {
        if (this != &other) {
            release_hooks_if_inside_data_source();
            player_ = std::move(other.player_);  // the old C player is gone before the hooks it calls
            hooks_ = std::move(other.hooks_);
        }
        return *this;
    }

    /**
     * Loads a location (vn_player_load()): a path, a `file://` URL, or an http(s) URL fetched with the default HTTP
     * options through the media cache. The same location already loaded plays (when paused or stopped); another
     * location loads, then plays (`autoplay`) or ends paused at its resume position. Returns at once: a missing,
     * unreadable or corrupt item arrives as a `failed` event (errc::not_found, permission, io, format,
     * unsupported). `duration_hint` is the duration to show until the real one is known (0…1000000 s).
     * Throws `error`: #VN_E_INVALID_ARG for an empty location, a `file://` URL of another host or a bad hint;
     * #VN_E_UNSUPPORTED for other URL schemes; #VN_E_BUSY when `autoplay` asked the activate hook and it refused
     * (or what it threw, see `player_options::activate`).
     */
    void load(std::string_view location, bool autoplay = false, std::optional<seconds> duration_hint = std::nullopt) {
        detail::c_string c_location(location);
        detail::session_hooks::checked([&] {
            return vn_player_load(player_.get(), c_location.get(), autoplay ? 1 : 0,
                                  detail::c_duration_hint(duration_hint));
        });
    }

    /**
     * Loads a location as `load`, with the note's loudness as the host knows it (a payload's: payload::loudness()),
     * so a levelled note needs no pre-pass (vn_player_load_with_loudness()). Throws as `load`, and
     * #VN_E_INVALID_ARG for figures that are not a plausible loudness.
     */
    void load(std::string_view location, bool autoplay, std::optional<seconds> duration_hint,
              const std::optional<voicenote::loudness> &note_loudness) {
        detail::c_string c_location(location);
        vn_loudness c_loudness = detail::to_c_loudness(note_loudness);
        detail::session_hooks::checked([&] {
            return vn_player_load_with_loudness(player_.get(), c_location.get(), autoplay ? 1 : 0,
                                                detail::c_duration_hint(duration_hint), &c_loudness);
        });
    }

    /**
     * Loads an http(s) URL with HTTP options and a stable key, as `load` (vn_player_load_url()). `options` (copied)
     * are the request headers, CA file and timeouts; `key` names the media in the media cache and the resume
     * positions instead of the URL (a signed CDN URL changes, the key does not); none: the URL. Network failures
     * arrive as `failed` events. Throws `error` as `load`, and #VN_E_INVALID_ARG for a URL that is not http(s) with
     * a host, or an empty key.
     */
    void load_url(std::string_view url, const http_options &options = {}, std::optional<std::string_view> key = {},
                  bool autoplay = false, std::optional<seconds> duration_hint = std::nullopt) {
        auto http = detail::c_http_options(options);
        std::optional<detail::c_string> c_key;
        if (key) c_key.emplace(*key);
        detail::c_string c_url(url);
        detail::session_hooks::checked([&] {
            return vn_player_load_url(player_.get(), c_url.get(), http.get(), c_key ? c_key->get() : nullptr,
                                      autoplay ? 1 : 0, detail::c_duration_hint(duration_hint));
        });
    }

    /**
     * Loads the audio of a byte source, as `load` (vn_player_load_source()); the location is the source's name.
     * The player keeps what it reads until it loads another location or is destroyed: `from` may be destroyed at
     * once, and other uses of it meanwhile throw #VN_E_BUSY. Throws `error`: #VN_E_BUSY when another player holds
     * the source, #VN_E_MISUSE for a moved-from source, or as `load`.
     */
    void load_source(source &from, bool autoplay = false, std::optional<seconds> duration_hint = std::nullopt) {
        detail::session_hooks::checked([&] {
            return vn_player_load_source(player_.get(), from.get(), autoplay ? 1 : 0,
                                         detail::c_duration_hint(duration_hint));
        });
    }

    /**
     * Plays or resumes the loaded item; during loading, it plays once loaded (vn_player_play()). Pauses the other
     * members of the focus group. A device that cannot be opened arrives as a `failed` event. Throws `error`:
     * #VN_E_MISUSE when nothing is loaded (or the load failed); #VN_E_BUSY when the activate hook refused (or
     * what it threw).
     */
    void play() {
        detail::session_hooks::checked([&] { return vn_player_play(player_.get()); });
    }

    /** Pauses at what the listener hears now; nothing happens unless playing or loading (vn_player_pause()). */
    void pause() { detail::check(vn_player_pause(player_.get())); }

    /** Stops: position 0, state stopped, the item kept, its resume position forgotten (vn_player_stop()). */
    void stop() { detail::check(vn_player_stop(player_.get())); }

    /**
     * Moves to `time`, clamped to 0…duration, keeping the play/pause state (a stopped item becomes paused there);
     * fast seeks coalesce, so a slider may call it on every motion (vn_player_seek()). Throws `error`:
     * #VN_E_INVALID_ARG for a time that is not finite; #VN_E_MISUSE when nothing is loaded.
     */
    void seek(seconds time) { detail::check(vn_player_seek(player_.get(), time.count())); }

    /** Sets the rate, pitch kept: 0.5…2.5, in every state, never starting playback (vn_player_set_rate()). Throws
     *  `error` (#VN_E_INVALID_ARG) outside the range, NaN included. */
    void set_rate(double rate) { detail::check(vn_player_set_rate(player_.get(), rate)); }

    /** Sets the software volume, 0…1, ramped over 10 ms (vn_player_set_volume()). Throws `error`
     *  (#VN_E_INVALID_ARG) outside the range, NaN included. */
    void set_volume(double volume) { detail::check(vn_player_set_volume(player_.get(), volume)); }

    /**
     * Levelled playback (vn_player_set_leveling(), docs/loudness.md): every note at `target_lufs` (−30…−10) plus
     * `offset_db` (−12…12), its peaks under −1 dBTP; on or off from the next note loaded, a new target or offset
     * moving the note playing over 50 ms. Throws `error` (#VN_E_INVALID_ARG) out of range, NaN included.
     */
    void set_leveling(bool enabled, double target_lufs = VN_LEVELING_DEFAULT_TARGET_LUFS, double offset_db = 0) {
        detail::check(vn_player_set_leveling(player_.get(), enabled ? 1 : 0, target_lufs, offset_db));
    }

    /** Turns skip silence on or off: pauses over 0.6 s are shortened to 0.25 s; times stay in the file's time
     *  (vn_player_set_skip_silence()). */
    void set_skip_silence(bool enabled) { detail::check(vn_player_set_skip_silence(player_.get(), enabled ? 1 : 0)); }

    /**
     * Calls `callback` for each event: the current context first, then every event in order, on the library's
     * event thread (or in `dispatch()` of the options' loop). The subscription ends when the returned object is
     * destroyed, or when the player is. Throws `error` (#VN_E_INVALID_ARG) for an empty callback.
     */
    subscription subscribe(std::function<void(const player_event &)> callback) {
        return detail::subscribe(vn_player_subscribe, player_.get(), std::move(callback), &detail::to_player_event);
    }

    /** The current context (vn_player_get_context()); its `location` is empty: see `location()`. */
    player_context context() const {
        vn_player_context context{};
        context.size = sizeof context;
        detail::check(vn_player_get_context(player_.get(), &context));
        return detail::to_player_context(context);
    }

    /** The current location as given to the load, "" when none (vn_player_copy_location()). */
    std::string location() const {
        char *location = nullptr;
        detail::check(vn_player_copy_location(player_.get(), &location));
        return detail::take_string(location);
    }

    /**
     * What the desktop's media controls show for the note under `key` (its item_changed key, or its location as
     * loaded): the title (unset: the file's name), the sender, the sender's picture (vn_player_set_metadata()).
     * Shown at once when it is the current note; nothing without MPRIS. Throws `error` (errc::invalid_argument for
     * an empty key).
     */
    void set_metadata(std::string_view key, std::optional<std::string_view> title,
                      std::optional<std::string_view> artist = std::nullopt,
                      std::optional<std::string_view> art_url = std::nullopt) {
        std::optional<detail::c_string> t, a, u;
        if (title) t.emplace(*title);
        if (artist) a.emplace(*artist);
        if (art_url) u.emplace(*art_url);
        detail::check(vn_player_set_metadata(player_.get(), detail::c_string(key).get(), t ? t->get() : nullptr,
                                             a ? a->get() : nullptr, u ? u->get() : nullptr));
    }

    /** The player's MPRIS bus name, or std::nullopt for a player made without `mpris` (vn_player_copy_mpris_name()). */
    std::optional<std::string> mpris_name() const {
        char *name = nullptr;
        int status = vn_player_copy_mpris_name(player_.get(), &name, nullptr);
        std::string text = detail::take_string(name);
        if (status == VN_E_MISUSE && player_) return std::nullopt;
        detail::check(status);
        return text;
    }

    /** Whether the player's MPRIS name is on the session bus now (false without `mpris`). */
    bool mpris_exported() const {
        char *name = nullptr;
        int exported = 0;
        int status = vn_player_copy_mpris_name(player_.get(), &name, &exported);
        detail::take_string(name);
        return status == VN_OK && exported != 0;
    }

    /**
     * Makes this a queue player asking `next` which location follows the current item (vn_player_set_data_source());
     * an empty function makes it a plain player again. Replaces the data source set before (or messages); the old
     * function is destroyed once no call of it runs any more. The library keeps `next` until it is replaced or the
     * player is destroyed; see `queue_data_source` for where it runs.
     */
    void set_data_source(queue_data_source next) {
        if (!next) {
            detail::check(vn_player_set_data_source(player_.get(), nullptr, nullptr, nullptr));
            return;
        }
        using box = detail::queue_data_source_box;
        // Ownership passes to the library even when the call fails: it then releases the box at once.
        detail::check(vn_player_set_data_source(player_.get(), &box::call, new box{std::move(next)}, &box::release));
    }

    /**
     * Makes this a queue player over a channel's messages (JSON, oldest first) with the built-in provider
     * (vn_player_use_messages()): after an item that is a message's voice recording, the one `scope` names plays.
     * Calling it again replaces the messages, also while an item plays. Throws `error`: #VN_E_INVALID_ARG for an
     * unknown scope; #VN_E_FORMAT for invalid JSON or messages; #VN_E_TOO_LARGE over 64 MiB; the data source set
     * before stays then.
     */
    void use_messages(std::string_view messages_json, std::optional<std::string_view> current_user_id,
                      next_scope scope) {
        std::optional<detail::c_string> user;
        if (current_user_id) user.emplace(*current_user_id);
        detail::check(vn_player_use_messages(player_.get(), messages_json.data() ? messages_json.data() : "",
                                             messages_json.size(), user ? user->get() : nullptr,
                                             static_cast<int>(scope)));
    }

    /**
     * Skips to the next item now: the data source is asked about the current item on the decoder thread and its
     * answer plays; no answer stops the player. Returns at once (vn_player_next()). Throws `error`: #VN_E_MISUSE
     * without a data source or with nothing loaded; #VN_E_BUSY when the activate hook refused (or what
     * it threw).
     */
    void next() {
        detail::session_hooks::checked([&] { return vn_player_next(player_.get()); });
    }

    /**
     * "Play unplayed": with true the queue passes over the notes that are listened (voicenote::listened()): its data
     * source is asked again after each such answer, so the unlistened notes play in order and the queue ends after
     * the last. A load by the host plays what it names. Off by default (vn_player_set_skip_listened()).
     */
    void set_skip_listened(bool skip) { detail::check(vn_player_set_skip_listened(player_.get(), skip ? 1 : 0)); }

    /** The C player, still owned (NULL when moved from). */
    vn_player *get() const noexcept { return player_.get(); }

private:
    static detail::handle<vn_player, vn_player_destroy> create(const player_options &options,
                                                                detail::session_hooks *hooks) {
        auto c_options = detail::make_handle<vn_player_options, vn_player_options_destroy>(vn_player_options_create);
        vn_player_options *o = c_options.get();
        detail::set_device(vn_player_options_set_device, o, options.device, options.device_configuration);
        if (options.loop) detail::check(vn_player_options_set_event_loop(o, detail::live_handle(options.loop)));
        if (options.focus) detail::check(vn_player_options_set_focus_group(o, detail::live_handle(options.focus)));
        detail::set_session_hooks(vn_player_options_set_session_hooks, o, hooks);
        if (options.progress_interval)
            detail::check(vn_player_options_set_progress_interval(o, options.progress_interval->count()));
        if (options.resume_limit) detail::check(vn_player_options_set_resume_limit(o, *options.resume_limit));
        if (options.remember_positions)
            detail::check(vn_player_options_set_remember_positions(o, *options.remember_positions ? 1 : 0));
        if (options.return_to_interrupted)
            detail::check(vn_player_options_set_return_to_interrupted(o, *options.return_to_interrupted ? 1 : 0));
        if (options.pause_other_players)
            detail::check(vn_player_options_set_pause_other_players(o, *options.pause_other_players ? 1 : 0));
        if (options.stream_role)
            detail::check(vn_player_options_set_stream_role(o, detail::c_string(*options.stream_role).get()));
        if (options.mpris) {
            std::optional<detail::c_string> entry;
            if (options.mpris_desktop_entry) entry.emplace(*options.mpris_desktop_entry);
            detail::check(vn_player_options_set_mpris(o, detail::c_string(*options.mpris).get(),
                                                      entry ? entry->get() : nullptr));
        }
        return detail::make_handle<vn_player, vn_player_destroy>(vn_player_create, o);
    }

    /**
     * Called before the C player is destroyed: on a data source's thread (the player's own decoder thread) the destroy
     * cannot wait for that thread, whose last session hook call may come after it returns, so the hooks are left
     * allocated (a few bytes, once) instead of freed under it.
     */
    void release_hooks_if_inside_data_source() noexcept {
        if (detail::inside_data_source() && player_) (void)hooks_.release();
    }

    // Declared before the handle: the C player calls the hooks until it is destroyed, so they are destroyed after.
    std::unique_ptr<detail::session_hooks> hooks_;
    detail::handle<vn_player, vn_player_destroy> player_;
};

}  // namespace voicenote

#endif /* VOICENOTE_PLAYER_HPP */
