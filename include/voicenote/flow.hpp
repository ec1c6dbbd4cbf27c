/*
 * voicenote/flow.hpp: the hold-to-record button (part of voicenote.hpp; include that). A `flow` over a recorder
 * and a player takes the host's pointer and key inputs and tells, by its events, what to draw; a `manual_clock`
 * moves its timers only when told to (tests, scripted demos). See docs/flow.md.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_FLOW_HPP
#define VOICENOTE_FLOW_HPP

#include "core.hpp"

#include <exception>
#include <optional>

namespace voicenote {

/**
 * A clock that moves only when told to (vn_manual_clock_*): a flow made with it fires its timers (the minimum press,
 * the tip's hiding) inside `advance()`, in order, on the calling thread. Move-only. A flow using the clock keeps
 * the C clock alive until the flow is destroyed, so the two may be destroyed in either order.
 */
class manual_clock {
public:
    /** A clock at time 0; throws `error` on failure. */
    manual_clock() : clock_(detail::make_handle<vn_manual_clock, vn_manual_clock_destroy>(vn_manual_clock_create)) {}

    /**
     * Moves the clock forward by `amount` (finite, ≥ 0), firing every timer that falls due, in order, on this
     * thread. One thread at a time; not inside a callback of a flow on this clock. Throws `error`
     * (errc::invalid_argument for a negative or non-finite amount; errc::misuse for a moved-from clock).
     */
    void advance(seconds amount) { detail::check(vn_manual_clock_advance(clock_.get(), amount.count())); }

    /** The C clock, still owned, for the options of the flows that use it. */
    vn_manual_clock *get() const noexcept { return clock_.get(); }

private:
    detail::handle<vn_manual_clock, vn_manual_clock_destroy> clock_;
};

/** The states of a flow (vn_flow_state). */
enum class flow_state : int {
    idle = VN_FLOW_IDLE,               /**< Nothing happens; the record button waits. */
    showing_tip = VN_FLOW_SHOWING_TIP, /**< The button was tapped, not held: the tip shows for a while. */
    recording = VN_FLOW_RECORDING,     /**< A take runs while the button is held (toggle mode: until the next press). */
    locked = VN_FLOW_LOCKED,           /**< A take runs with no finger on the button: discard, stop or send. */
    preview = VN_FLOW_PREVIEW          /**< The finished take waits: play, trim, discard or send. */
};

/** The keys a flow understands when its key inputs are on (vn_flow_key). */
enum class flow_key : int {
    record = VN_FLOW_KEY_RECORD, /**< Held like the record button. */
    escape = VN_FLOW_KEY_ESCAPE, /**< Cancels a take or discards a preview. */
    enter = VN_FLOW_KEY_ENTER    /**< Sends. */
};

/** The gesture distances, in the host's pixels from the press point (vn_flow_options_set_distances()). */
struct flow_distances {
    /** How far left cancels a take; finite, > 0 (default 75). */
    double slide_to_cancel = 75;
    /** How far up locks it; finite, > 0 (default 50). */
    double lock = 50;
};

/** The flow's times (vn_flow_options_set_times()). */
struct flow_times {
    /** How long the button is held before a take begins; finite, > 0 (default 0.5 s). */
    seconds minimum_press = seconds(0.5);
    /** How long the tip stays shown; finite, ≥ 0 (default 2 s). */
    seconds hide_tip = seconds(2.0);
};

/**
 * A flow's settings, read when the flow is made. Only the fields set are applied; the others keep the library's
 * defaults. Values out of range make the flow's constructor throw `error` (errc::invalid_argument).
 */
struct flow_options {
    /** The gesture distances (default 75 px to cancel, 50 px to lock). */
    std::optional<flow_distances> distances;
    /** The minimum press and how long the tip shows (default 0.5 s and 2 s). */
    std::optional<flow_times> times;
    /** How many values a take's waveform has in the events, 1…1048576 (default 100; the payload keeps
     *  VN_WAVEFORM_DEFAULT_SAMPLES). */
    std::optional<std::size_t> waveform_samples;
    /** Whether a sent take waits for `flow::confirm()` (true, the default) or is published at once. */
    std::optional<bool> confirmation_required;
    /** Toggle mode (default off), for people who cannot hold a button: a press released before the minimum press
     *  starts a locked take, and the next press stops it into preview; a longer press still records while held. */
    std::optional<bool> toggle_mode;
    /** Key inputs (default off: `key_down`/`key_up` are ignored): the record key is held like the button, Escape
     *  cancels, Enter sends. */
    std::optional<bool> key_inputs;
    /**
     * The draft key: the id of the conversation the flow records for, 1…100 bytes of UTF-8 (default none: no
     * drafts). A running take is recorded in the drafts directory so a crash loses at most half a second;
     * `flow::park()` keeps the take as the conversation's draft; the next flow made with this key, in this process
     * or another, starts in preview with it. Sending or discarding removes the draft; destroying a flow with a take
     * in preview keeps it, with a take running cancels it.
     */
    std::optional<std::string> draft_key;
    /** Where drafts are kept, not empty (default `$XDG_DATA_HOME/voicenote/drafts`). */
    std::optional<std::string> drafts_directory;
    /** Deliver the events through this loop (its `dispatch()`) instead of the event thread; it must outlive the
     *  flow. nullptr: the event thread. */
    event_loop *loop = nullptr;
    /** Run the flow's timers on this clock instead of the monotonic clock. nullptr: the monotonic clock. */
    manual_clock *clock = nullptr;
};

/** Everything a view draws for the flow, as of one event (vn_flow_view). */
struct flow_view {
    /** The state. */
    flow_state state = flow_state::idle;
    /** Time recorded (recording, locked) or the take's length (preview). */
    seconds duration{0};
    /** Recording, locked: the last live levels, oldest first, 0…1 (up to 40). */
    std::vector<float> levels;
    /** The "slide to cancel" label's alpha: 1 at the press point, 0 at the cancel distance. */
    double slide_to_cancel_alpha = 0;
    /** The lock's padding in pixels above its resting place. */
    double lock_padding = 0;
    /** The chevron's alpha above the lock. */
    double chevron_alpha = 0;
    /** Whether the tip shows. */
    bool tip_visible = false;
    /** Preview: where the player is in the take. */
    seconds preview_position{0};
    /** Preview: whether it plays. */
    bool preview_playing = false;
    /** Preview: the take's waveform, 0…1. */
    std::vector<float> waveform;
    /** Preview: the start of the part that will be sent (0 unless trimmed). */
    seconds trim_start{0};
    /** Preview: its end (the duration unless trimmed). */
    seconds trim_end{0};
    /** Whether the take was started in toggle mode (the next press stops it). */
    bool toggled = false;
    /** What a screen reader says for this view, e.g. "Recording, 0:07, slide left to cancel, slide up to lock". */
    std::string accessible_description;
};

/** Kinds of flow events (vn_flow_event_type); a newer library may send others, which keep their C value. */
enum class flow_event_type : int {
    view = VN_FLOW_EVENT_VIEW,                         /**< The view after a transition or a step. */
    attachment_ready = VN_FLOW_EVENT_ATTACHMENT_READY, /**< A take is ready for the composer. */
    publish = VN_FLOW_EVENT_PUBLISH,                   /**< The take is to be published (the same fields). */
    failed = VN_FLOW_EVENT_FAILED,                     /**< The recorder or the player failed: status, message. */
    parked = VN_FLOW_EVENT_PARKED,                     /**< The take was kept as the conversation's draft
                                                            (`flow::park()`); the flow is idle. */
    trimmed = VN_FLOW_EVENT_TRIMMED,                   /**< A trim (`flow::trim()`) ended: status 0 and the take
                                                            as cut, or a negative status and the take as it was. */
    too_short = VN_FLOW_EVENT_TOO_SHORT                /**< The take was dropped as too short (released before
                                                            any audio arrived, or under the recorder's minimum):
                                                            `duration` captured; idle. Show the tip. */
};

/** One flow event (vn_flow_event), a copy owned by the callback's argument. */
struct flow_event {
    /** The kind. */
    flow_event_type type = flow_event_type::view;
    /** view: the view. */
    flow_view view;
    /** attachment_ready, publish, parked, trimmed: the take's file. */
    std::string path;
    /** attachment_ready, publish, parked, trimmed: its length; too_short: the seconds captured. */
    seconds duration{0};
    /** attachment_ready, publish, parked, trimmed: its waveform, 0…1 (the options' `waveform_samples` values). */
    std::vector<float> waveform;
    /** attachment_ready, publish, parked, trimmed: Stream's `voiceRecording` payload of the file (`asset_url` its
     *  `file://` URL), "" when it could not be read back. */
    std::string payload_json;
    /** failed, and trimmed when the trim failed: the negative status (a `VN_E_*` value); 0 otherwise. */
    int status = 0;
    /** failed, and a failed trim: the detail. */
    std::string message;

    /** `status` as an error code in voicenote's category (empty for 0), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

/** One draft listed by `flow::drafts_list()`. */
struct flow_draft {
    /** The conversation's key. */
    std::string key;
    /** The take's file (a take that was running when its process ended: its `.part`, made whole when a flow with
     *  this key restores it). */
    std::string path;
    /** Its length (0 for a take that was running). */
    seconds duration{0};
};

namespace detail {

/** A flow's view as the C++ struct. */
inline flow_view to_flow_view(const vn_flow_view &view) {
    flow_view result;
    result.state = static_cast<flow_state>(view.state);
    result.duration = seconds(view.duration_s);
    result.levels = copy_floats(view.levels, view.level_count);
    result.slide_to_cancel_alpha = view.slide_to_cancel_alpha;
    result.lock_padding = view.lock_padding;
    result.chevron_alpha = view.chevron_alpha;
    result.tip_visible = view.tip_visible != 0;
    result.preview_position = seconds(view.preview_position_s);
    result.preview_playing = view.preview_playing != 0;
    result.waveform = copy_floats(view.waveform, view.waveform_count);
    result.trim_start = seconds(view.trim_start_s);
    result.trim_end = seconds(view.trim_end_s);
    result.toggled = view.toggled != 0;
    result.accessible_description = copy_string(view.accessible_description);
    return result;
}

/** A flow event as the C++ struct; `view` is set for view events only. */
inline flow_event to_flow_event(const vn_flow_event &event) {
    flow_event result;
    result.type = static_cast<flow_event_type>(event.type);
    if (event.type == VN_FLOW_EVENT_VIEW) result.view = to_flow_view(event.view);
    result.path = copy_string(event.path);
    result.duration = seconds(event.duration_s);
    result.waveform = copy_floats(event.waveform, event.waveform_count);
    result.payload_json = copy_string(event.payload_json);
    result.status = event.status;
    result.message = copy_string(event.message);
    return result;
}

/** Whether `Object` has a `get()` whose result converts to `Handle *`. */
template <class Object, class Handle, class = void>
struct flow_has_handle : std::false_type {};
template <class Object, class Handle>
struct flow_has_handle<Object, Handle, std::void_t<decltype(std::declval<Object &>().get())>>
    : std::is_convertible<decltype(std::declval<Object &>().get()), Handle *> {};

}  // namespace detail

/**
 * The hold-to-record button (vn_flow_*): a press held for the minimum press begins a take (a shorter one shows the
 * tip); sliding left by the cancel distance cancels it (its file deleted); sliding up by the lock distance locks
 * it; release sends it. `stop()` puts a take in preview, where it can be played, trimmed, discarded or sent.
 * Sending emits attachment_ready (the file, its duration, waveform and payload), then publish when confirmation is
 * not required or on `confirm()`. Gestures are measured from the press point, in the host's pixels.
 *
 * Inputs may come from any thread; pointer and key inputs that mean nothing in a state are ignored, commands that
 * mean nothing there throw `error` (errc::misuse) and change nothing. Events come on the library's event thread,
 * or in `event_loop::dispatch()` when the options name a loop. Move-only. Destroying it cancels a running take
 * (a take in preview stays on disk), stops the preview, ends its subscriptions and waits for a callback running
 * on another thread; no callback runs after.
 */
class flow {
public:
    /**
     * Makes a flow over `recorder` and `player` (a `voicenote::recorder` and `voicenote::player`, or anything whose
     * `get()` gives the C `vn_recorder *` and `vn_player *`). The flow begins, stops and cancels takes on the
     * recorder and plays previews on the player (a take's beginning stops the player); both stay the caller's and
     * must outlive the flow, as must the options' loop. Throws `error` (errc::invalid_argument for an option out of
     * range; errc::misuse for a moved-from recorder or player).
     */
    template <class Recorder, class Player,
              std::enable_if_t<detail::flow_has_handle<Recorder, vn_recorder>::value &&
                                   detail::flow_has_handle<Player, vn_player>::value,
                               int> = 0>
    flow(Recorder &recorder, Player &player, const flow_options &options = {})
        : flow_(create(recorder.get(), player.get(), options)) {}

    /**
     * Calls `callback` for each event from now on, the current view first; the subscription ends when the returned
     * object is destroyed or the flow is. The callback runs on the event thread or in the loop's `dispatch()`.
     * Throws `error` (errc::invalid_argument for an empty callback; errc::misuse for a moved-from flow).
     */
    subscription subscribe(std::function<void(const flow_event &)> callback) {
        return detail::subscribe(vn_flow_subscribe, flow_.get(), std::move(callback), &detail::to_flow_event);
    }

    /** The button was pressed at (`x`, `y`) (finite), in the button's coordinates; gestures are measured from
     *  here. Ignored where it means nothing. Throws `error` (errc::invalid_argument for a non-finite coordinate). */
    void press(double x, double y) { detail::check(vn_flow_press(flow_.get(), x, y)); }
    /** The button was released: a held take is sent, a press shorter than the minimum shows the tip (toggle mode:
     *  starts a locked take). Ignored where it means nothing. */
    void release() { detail::check(vn_flow_release(flow_.get())); }
    /** The pointer moved to (`x`, `y`) (finite) while the button is held: slide left to cancel, up to lock.
     *  Ignored where it means nothing. Throws `error` (errc::invalid_argument for a non-finite coordinate). */
    void move(double x, double y) { detail::check(vn_flow_move(flow_.get(), x, y)); }
    /** A key went down (with key inputs on; ignored otherwise). Throws `error` (errc::invalid_argument for a value
     *  that is no `flow_key`). */
    void key_down(flow_key key) { detail::check(vn_flow_key_down(flow_.get(), static_cast<int>(key))); }
    /** A key went up (with key inputs on; ignored otherwise). Throws `error` (errc::invalid_argument for a value
     *  that is no `flow_key`). */
    void key_up(flow_key key) { detail::check(vn_flow_key_up(flow_.get(), static_cast<int>(key))); }

    /** Locks a held take. Throws `error` (errc::misuse outside flow_state::recording). */
    void lock() { detail::check(vn_flow_lock(flow_.get())); }
    /** Cancels a take (its file deleted) or discards a preview; does nothing otherwise. The flow is idle on return;
     *  the file is deleted on the flow's worker just after, and no event says when. */
    void cancel() { detail::check(vn_flow_cancel(flow_.get())); }
    /** Stops a take into preview. Throws `error` (errc::misuse when no take runs). */
    void stop() { detail::check(vn_flow_stop(flow_.get())); }
    /** Deletes the take or the preview and goes idle. Throws `error` (errc::misuse when there is no take). */
    void discard() { detail::check(vn_flow_discard(flow_.get())); }
    /** Hands the take to the composer (a running take is stopped first): attachment_ready follows, then publish
     *  when confirmation is not required. Throws `error` (errc::misuse when there is no take). */
    void send() { detail::check(vn_flow_send(flow_.get())); }
    /** As `send()`, always followed by publish. Throws `error` (errc::misuse when there is no take). */
    void confirm() { detail::check(vn_flow_confirm(flow_.get())); }

    /** Plays the preview (a player failure arrives as a failed event; the state stays). Throws `error`
     *  (errc::misuse outside flow_state::preview). */
    void play() { detail::check(vn_flow_play(flow_.get())); }
    /** Pauses the preview. Throws `error` (errc::misuse outside flow_state::preview). */
    void pause() { detail::check(vn_flow_pause(flow_.get())); }
    /** Moves the preview to `position` (finite; clamped to the take). Throws `error` (errc::misuse outside
     *  flow_state::preview; errc::invalid_argument for a non-finite position). */
    void seek(seconds position) { detail::check(vn_flow_seek(flow_.get(), position.count())); }
    /**
     * Starts cutting the previewed take to `start` … `end` (0 ≤ start < end ≤ the take's duration) and returns at
     * once: the cut runs on the flow's worker, and a `flow_event_type::trimmed` event says when it ended (status 0:
     * the take as cut, previewed again; a negative status: the take as it was). Ogg Opus is cut sample-exactly, AAC
     * re-encoded; the file is replaced only once the new one is whole. While it runs, trim, play, pause and seek
     * throw errc::misuse; send, confirm and park act once it ended; discard and cancel abandon it (the take
     * deleted); destroying the flow abandons it (the take as it was). Throws `error` (errc::misuse outside
     * flow_state::preview or while a trim runs; errc::invalid_argument for a range outside the take).
     */
    void trim(seconds start, seconds end) { detail::check(vn_flow_trim(flow_.get(), start.count(), end.count())); }

    /** The view was hidden (the window lost focus, the conversation closed): a take stops into preview, a playing
     *  preview pauses. */
    void deactivate() { detail::check(vn_flow_deactivate(flow_.get())); }
    /** The user left the conversation: a running take is stopped and the take kept as the conversation's draft;
     *  parked follows and the flow is idle; destroying the flow at once afterwards keeps the take too. Nothing
     *  happens while idle. Throws `error` (errc::misuse for a flow made without a draft key; errc::busy when the
     *  take is not the conversation's draft because another flow held the key when it began: it stays here). */
    void park() { detail::check(vn_flow_park(flow_.get())); }

    /** The flow's state now (vn_flow_get_state()). */
    flow_state state() const {
        int value = 0;
        detail::check(vn_flow_get_state(flow_.get(), &value));
        return static_cast<flow_state>(value);
    }

    /**
     * The drafts in a drafts directory (nullopt: the default one), by key; records that cannot be read are left
     * out, and a directory that does not exist has none.
     */
    static std::vector<flow_draft> drafts_list(std::optional<std::string_view> directory = std::nullopt) {
        struct listing {
            std::vector<flow_draft> drafts;
            std::exception_ptr failure;
            static void add(void *user_data, const char *key, const char *path, double duration_s) noexcept {
                auto *self = static_cast<listing *>(user_data);
                if (self->failure) return;
                try {
                    self->drafts.push_back({detail::copy_string(key), detail::copy_string(path), seconds(duration_s)});
                } catch (...) {
                    self->failure = std::current_exception();
                }
            }
        } result;
        std::optional<detail::c_string> path;
        if (directory) path.emplace(*directory);
        detail::check(vn_flow_drafts_list(path ? path->get() : nullptr, &listing::add, &result, nullptr));
        if (result.failure) std::rethrow_exception(result.failure);
        return std::move(result.drafts);
    }

    /**
     * Deletes drafts, their records and their audio: `key`'s (nullopt: every draft) in `directory` (nullopt: the
     * default one); a record that cannot be read is deleted too, and nothing outside the directory is touched. Not
     * for a key whose flow exists. Throws `error` (errc::invalid_argument for a bad key; errc::permission or errc::io
     * when a record cannot be deleted).
     */
    static void drafts_clear(std::optional<std::string_view> directory = std::nullopt,
                             std::optional<std::string_view> key = std::nullopt) {
        std::optional<detail::c_string> path, name;
        if (directory) path.emplace(*directory);
        if (key) name.emplace(*key);
        detail::check(vn_flow_drafts_clear(path ? path->get() : nullptr, name ? name->get() : nullptr));
    }

    /** The C flow, still owned. */
    vn_flow *get() const noexcept { return flow_.get(); }

private:
    static detail::handle<vn_flow, vn_flow_destroy> create(vn_recorder *recorder, vn_player *player,
                                                           const flow_options &options) {
        auto c_options = detail::make_handle<vn_flow_options, vn_flow_options_destroy>(vn_flow_options_create);
        vn_flow_options *o = c_options.get();
        if (const auto &d = options.distances)
            detail::check(vn_flow_options_set_distances(o, d->slide_to_cancel, d->lock));
        if (const auto &t = options.times)
            detail::check(vn_flow_options_set_times(o, t->minimum_press.count(), t->hide_tip.count()));
        if (options.waveform_samples) detail::check(vn_flow_options_set_waveform_samples(o, *options.waveform_samples));
        if (options.confirmation_required)
            detail::check(vn_flow_options_set_confirmation_required(o, *options.confirmation_required ? 1 : 0));
        if (options.toggle_mode) detail::check(vn_flow_options_set_toggle_mode(o, *options.toggle_mode ? 1 : 0));
        if (options.key_inputs) detail::check(vn_flow_options_set_key_inputs(o, *options.key_inputs ? 1 : 0));
        if (options.draft_key || options.drafts_directory) {
            detail::c_string_or_null key(options.draft_key), directory(options.drafts_directory);
            detail::check(vn_flow_options_set_draft(o, key.get(), directory.get()));
        }
        if (options.loop) detail::check(vn_flow_options_set_event_loop(o, detail::live_handle(options.loop)));
        if (options.clock) detail::check(vn_flow_options_set_clock(o, detail::live_handle(options.clock)));
        return detail::make_handle<vn_flow, vn_flow_destroy>(vn_flow_create, recorder, player, o);
    }

    detail::handle<vn_flow, vn_flow_destroy> flow_;
};

}  // namespace voicenote

#endif /* VOICENOTE_FLOW_HPP */
