/*
 * voicenote/core.hpp: the C++ layer's foundations (part of voicenote.hpp; include that). Errors as exceptions,
 * handles that own a C object, subscriptions that end when they are destroyed, the event loop for a host's own
 * thread, the log hook, and the conversions every object uses.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_CORE_HPP
#define VOICENOTE_CORE_HPP

#include <voicenote.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace voicenote {

/** Seconds as a `double`, the unit of every time at the boundary. */
using seconds = std::chrono::duration<double>;

/** The library's failure statuses (`VN_E_*`) as a scoped enum, for `std::error_code`. */
enum class errc : int {
    invalid_argument = VN_E_INVALID_ARG, /**< A bad argument. */
    misuse = VN_E_MISUSE,                /**< Wrong call order, a destroyed handle, an unknown subscription. */
    no_memory = VN_E_NOMEM,              /**< Out of memory. */
    io = VN_E_IO,                        /**< A read or write failed. */
    no_space = VN_E_NO_SPACE,            /**< The disk or a file-size limit is full. */
    format = VN_E_FORMAT,                /**< Corrupt, truncated, not audio, invalid UTF-8 or JSON. */
    device = VN_E_DEVICE,                /**< No such audio device, it will not start, or it was lost. */
    permission = VN_E_PERMISSION,        /**< Access refused: a device or file permission, HTTP 401/403. */
    network = VN_E_NETWORK,              /**< DNS, connect, TLS, a dropped connection, HTTP 5xx and other 4xx. */
    not_found = VN_E_NOT_FOUND,          /**< A missing file, HTTP 404/410. */
    too_large = VN_E_TOO_LARGE,          /**< Over a size limit, HTTP 413. */
    unsupported = VN_E_UNSUPPORTED,      /**< Not supported (format, attachment type, operation). */
    busy = VN_E_BUSY,                    /**< A session hook refused, or the resource is in use. */
    cancelled = VN_E_CANCELLED,          /**< The operation was cancelled. */
    internal = VN_E_INTERNAL             /**< A bug in voicenote; the message says where. */
};

/** The category of voicenote's statuses: name "voicenote", messages from vn_strerror(). */
class error_category final : public std::error_category {
public:
    /** "voicenote". */
    const char *name() const noexcept override { return "voicenote"; }
    /** vn_strerror()'s description of `status`. */
    std::string message(int status) const override { return vn_strerror(status); }
};

/** The one `error_category` object of voicenote's statuses. */
inline const std::error_category &category() noexcept {
    static const error_category instance;
    return instance;
}

/** A voicenote status as a `std::error_code`. */
inline std::error_code make_error_code(errc status) noexcept {
    return {static_cast<int>(status), category()};
}

/**
 * A failed call: the library's status and its detail message (vn_last_error_message() of the failing call).
 * `code()` is the status in voicenote's category, comparable with `errc`; `what()` holds the detail and the
 * status's description.
 */
class error : public std::system_error {
public:
    /** An error of `status` (a `VN_E_*` value) with the library's `detail` message. */
    error(int status, std::string detail)
        : std::system_error(status, category(), detail.empty() ? std::string(vn_status_name(status)) : detail),
          detail_(std::move(detail)) {}

    /** The `VN_E_*` status. */
    int status() const noexcept { return code().value(); }
    /** The status's symbolic name, e.g. "VN_E_FORMAT". */
    const char *name() const noexcept { return vn_status_name(status()); }
    /** The library's detail message ("" when it gave none). */
    const std::string &detail() const noexcept { return detail_; }

private:
    std::string detail_;
};

/** The library's version, e.g. "0.1.0" (vn_version_string()). */
inline std::string version() { return vn_version_string(); }

/** The version of the library loaded at run time as major * 1000000 + minor * 1000 + patch (vn_version_number());
 *  compare with VN_VERSION_NUMBER, the header's. */
inline int version_number() noexcept { return vn_version_number(); }

namespace detail {

/** Throws `error` for a failed status (negative), with the calling thread's last error message; returns others. */
inline int check(int status) {
    if (status < 0) throw error(status, vn_last_error_message());
    return status;
}

/**
 * A status carried by an event or a result (`VN_OK` or a `VN_E_*` value) as a `std::error_code` in voicenote's
 * category, comparable with `errc`: empty (false) for `VN_OK`. Every struct with an `int status` gives it as `code()`.
 */
inline std::error_code status_code(int status) noexcept {
    return status == VN_OK ? std::error_code() : std::error_code(status, category());
}

/**
 * A timeout as the C calls take it, in whole milliseconds: -1 (no limit) for std::nullopt; otherwise rounded to the
 * microsecond, then up to the millisecond (a wait is never shorter than asked), and clamped to INT_MAX ms (about
 * 24.8 days; infinity included). Throws `error` (#VN_E_INVALID_ARG) for a negative or NaN timeout.
 */
inline int timeout_ms(const std::optional<seconds> &timeout) {
    if (!timeout) return -1;
    double value = timeout->count();
    if (std::isnan(value) || value < 0) {
        throw error(VN_E_INVALID_ARG, "a timeout must be 0 s or more (std::nullopt for no limit)");
    }
    double milliseconds = std::ceil(std::round(value * 1e6) / 1e3);
    return milliseconds >= static_cast<double>(INT_MAX) ? INT_MAX : static_cast<int>(milliseconds);
}

/**
 * A NUL-terminated copy of a `string_view` for the C calls (a view need not end in NUL). Text holding a NUL byte is
 * refused (errc::invalid_argument): the C call would read only what comes before it — another path, another name.
 */
class c_string {
public:
    /** Copies `text`; throws `error` (errc::invalid_argument) when it holds a NUL byte. */
    explicit c_string(std::string_view text) : text_(text) {
        if (text_.find('\0') != std::string::npos) throw error(VN_E_INVALID_ARG, "the text holds a NUL byte");
    }
    /** The copy, NUL-terminated. */
    const char *get() const noexcept { return text_.c_str(); }

private:
    std::string text_;
};

/** Like `c_string`, for text that may be absent: `get()` is NULL when it is. */
class c_string_or_null {
public:
    /** Copies `text` when present; throws like `c_string`. */
    explicit c_string_or_null(const std::optional<std::string_view> &text) {
        if (text) text_.emplace(*text);
    }
    /** Copies `text` when present (a std::string held by options); throws like `c_string`. */
    explicit c_string_or_null(const std::optional<std::string> &text) {
        if (text) text_.emplace(*text);
    }
    /** The copy, NUL-terminated, or NULL when absent. */
    const char *get() const noexcept { return text_ ? text_->get() : nullptr; }

private:
    std::optional<c_string> text_;
};

/** A lent float array copied into a vector (empty for NULL). */
inline std::vector<float> copy_floats(const float *values, std::size_t count) {
    return values && count ? std::vector<float>(values, values + count) : std::vector<float>();
}

/**
 * The C handle of an object given in options (an event loop, a focus group, a clock): NULL when none was given;
 * `error` (errc::misuse) for a moved-from one, which would otherwise read as "none" and silently change where
 * callbacks run.
 */
template <class Object>
auto live_handle(const Object *object) -> decltype(object->get()) {
    if (object == nullptr) return nullptr;
    auto handle = object->get();
    if (handle == nullptr) throw error(VN_E_MISUSE, "a moved-from object was given in the options");
    return handle;
}

/** A string the library returned and the caller owns (freed with vn_free()) as a `std::string`. */
inline std::string take_string(char *owned) {
    std::unique_ptr<char, void (*)(void *)> guard(owned, vn_free);
    return owned ? std::string(owned) : std::string();
}

/** A C string the library lends (may be NULL) as a `std::string`. */
inline std::string copy_string(const char *lent) { return lent ? std::string(lent) : std::string(); }

/**
 * Owns one C object: destroys it with `Destroy` (which accepts NULL) when destroyed or assigned over. Move-only,
 * so no object is ever destroyed twice.
 */
template <class T, void (*Destroy)(T *)>
class handle {
public:
    handle() noexcept = default;
    /** Takes ownership of `object` (may be NULL). */
    explicit handle(T *object) noexcept : object_(object) {}
    ~handle() { reset(); }
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;
    /** Takes the other's object; the other is left empty. */
    handle(handle &&other) noexcept : object_(std::exchange(other.object_, nullptr)) {}
    /** Destroys the object held, then takes the other's. */
    handle &operator=(handle &&other) noexcept {
        if (this != &other) reset(std::exchange(other.object_, nullptr));
        return *this;
    }
    /** Destroys the object held (if any) and holds `object`. */
    void reset(T *object = nullptr) noexcept {
        T *old = std::exchange(object_, object);
        if (old) Destroy(old);
    }
    /** The object, still owned; NULL when empty. */
    T *get() const noexcept { return object_; }
    /** Whether an object is held. */
    explicit operator bool() const noexcept { return object_ != nullptr; }

private:
    T *object_ = nullptr;
};

/** Makes a C object with a `create(..., T **out)` call and takes ownership of it; throws `error` on failure. */
template <class T, void (*Destroy)(T *), class Create, class... Arguments>
handle<T, Destroy> make_handle(Create create, Arguments &&...arguments) {
    T *object = nullptr;
    check(create(std::forward<Arguments>(arguments)..., &object));
    return handle<T, Destroy>(object);
}

/**
 * A callback with its conversion from the C event, owned by the library as a subscriber's `user_data`: `call` is
 * the C callback, `release` the C release function, which deletes it exactly once after its last call. An
 * exception escaping the callback cannot cross the C library: `call` is noexcept, so it ends the program
 * (std::terminate), as one escaping a std::thread does. An event that cannot be copied out for lack of memory is
 * dropped.
 */
template <class CEvent, class Event>
struct callback_box {
    std::function<void(const Event &)> callback;
    Event (*convert)(const CEvent &);

    static void call(void *user_data, const CEvent *event) noexcept {
        auto *box = static_cast<callback_box *>(user_data);
        if (!event) return;
        std::optional<Event> converted;
        try {
            converted.emplace(box->convert(*event));
        } catch (const std::bad_alloc &) {
            return;  // no memory to copy the event out: it is dropped (the callback itself is not guarded)
        }
        box->callback(*converted);
    }
    static void release(void *user_data) noexcept { delete static_cast<callback_box *>(user_data); }
};

}  // namespace detail

/**
 * One subscription to an object's events: destroying it (or `reset()`) ends it with vn_unsubscribe(), which waits
 * for a callback running on another thread to return, and from inside the subscription's own callback marks it
 * ended without waiting — so a subscription may be destroyed inside its own callback. After it ends, no callback of
 * it runs again, and the std::function and what it captured are destroyed. Move-only.
 */
class subscription {
public:
    subscription() noexcept = default;
    /** Owns the subscription `id` (0: none). */
    explicit subscription(vn_subscription_id id) noexcept : id_(id) {}
    ~subscription() { reset(); }
    subscription(const subscription &) = delete;
    subscription &operator=(const subscription &) = delete;
    /** Takes the other's subscription; the other is left empty. */
    subscription(subscription &&other) noexcept : id_(std::exchange(other.id_, 0)) {}
    /** Ends the subscription held, then takes the other's. */
    subscription &operator=(subscription &&other) noexcept {
        if (this != &other) {
            reset();
            id_ = std::exchange(other.id_, 0);
        }
        return *this;
    }
    /** Ends the subscription (nothing when empty, or when its object was destroyed first, which ended it). */
    void reset() noexcept {
        if (vn_subscription_id id = std::exchange(id_, 0)) (void)vn_unsubscribe(id);
    }
    /** Gives up ownership without ending it: it lasts until its object is destroyed. Returns its id. */
    vn_subscription_id release() noexcept { return std::exchange(id_, 0); }
    /** The id (0 when empty). */
    vn_subscription_id id() const noexcept { return id_; }
    /** Whether a subscription is held. */
    explicit operator bool() const noexcept { return id_ != 0; }

private:
    vn_subscription_id id_ = 0;
};

namespace detail {

/**
 * Subscribes `callback` to `object` through a C subscribe function `(object, fn, user_data, release, &id)`, the
 * C event converted by `convert` before each call.
 */
template <class Object, class CEvent, class Event, class Subscribe>
subscription subscribe(Subscribe subscribe_fn, Object *object, std::function<void(const Event &)> callback,
                       Event (*convert)(const CEvent &)) {
    if (!callback) throw error(VN_E_INVALID_ARG, "the callback is empty");
    using box = callback_box<CEvent, Event>;
    auto owned = std::make_unique<box>(box{std::move(callback), convert});
    vn_subscription_id id = 0;
    // On success the library owns the box (and calls release once); on failure it never calls release.
    check(subscribe_fn(object, &box::call, owned.get(), &box::release, &id));
    owned.release();
    return subscription(id);
}

}  // namespace detail

/**
 * Manual delivery for a host's main loop (vn_event_loop_*): objects made with the loop queue their events, and
 * `dispatch()` runs their callbacks on the calling thread. Watch `fd()` for readability (Qt: a QSocketNotifier;
 * GLib: a GSource; poll()) and call `dispatch()` when it is readable. Move-only. Destroy the objects made with a
 * loop before the loop to be sure every subscription has been released.
 */
class event_loop {
public:
    /** Creates a loop; throws `error` when no eventfd can be made. */
    event_loop() : loop_(detail::make_handle<vn_event_loop, vn_event_loop_destroy>(vn_event_loop_create)) {}

    /** The pollable descriptor: readable while events are pending. Do not read, write or close it. */
    int fd() const { return detail::check(vn_event_loop_fd(loop_.get())); }

    /** Runs the pending events' callbacks on this thread, in order; returns how many ran. Not from inside them. */
    std::size_t dispatch() {
        std::size_t dispatched = 0;
        detail::check(vn_event_loop_dispatch(loop_.get(), &dispatched));
        return dispatched;
    }

    /**
     * Waits until events are pending or `timeout` passes (std::nullopt, the default: no limit; 0 polls; rounded up
     * to the millisecond, at most INT_MAX ms); returns whether any are. Throws `error` (errc::invalid_argument for a
     * negative or NaN timeout).
     */
    bool wait(std::optional<seconds> timeout = std::nullopt) {
        int milliseconds = detail::timeout_ms(timeout);
        int pending = 0;
        detail::check(vn_event_loop_wait(loop_.get(), milliseconds, &pending));
        return pending != 0;
    }

    /** The C loop, still owned, for the options of the objects that deliver through it. */
    vn_event_loop *get() const noexcept { return loop_.get(); }

private:
    detail::handle<vn_event_loop, vn_event_loop_destroy> loop_;
};

/**
 * An audio focus group (vn_focus_group_*): playing or recording in one of its members pauses the others. Every
 * player and recorder joins the process's default group unless its options name another. Move-only; destroying it
 * leaves its members in the group until they are destroyed.
 */
class focus_group {
public:
    /** A new, empty group. */
    focus_group() : group_(detail::make_handle<vn_focus_group, vn_focus_group_destroy>(vn_focus_group_create)) {}
    /** The C group, still owned, for the options of its members. */
    vn_focus_group *get() const noexcept { return group_.get(); }

private:
    detail::handle<vn_focus_group, vn_focus_group_destroy> group_;
};

/** What a session hook is asked about (vn_session_kind). */
enum class session_kind : int {
    playback = VN_SESSION_PLAYBACK,  /**< Playback (a player). */
    recording = VN_SESSION_RECORDING /**< Recording (a recorder). */
};

/** The format a recording or a converted note is written in (vn_recording_format). */
enum class recording_format : int {
    opus = VN_FORMAT_OPUS, /**< Ogg Opus, `.ogg`, `audio/ogg` (the default). */
    aac = VN_FORMAT_AAC    /**< AAC-LC in ADTS, `.aac`, `audio/aac` (what Stream's iOS and Android apps send). */
};

/**
 * A take's or a converted note's encoder settings (vn_recorder_options_set_encoder(),
 * vn_convert_options_set_encoder()), set all together: the members' defaults are the library's, so a struct
 * changing one member keeps the others as the library would.
 */
struct encoder_settings {
    /** Bits per second, 6000…256000 (default 32000). */
    int bitrate = 32000;
    /** Opus complexity 0…10 (default 10; ignored for AAC). */
    int complexity = 10;
    /**
     * Opus frame duration: 2.5, 5, 10, 20, 40 or 60 ms (default 20 ms; ignored for AAC). Rounded to the
     * microsecond before it is passed on, so `std::chrono::milliseconds(20)` or `seconds(0.0025)` are exact.
     */
    seconds frame = std::chrono::milliseconds(20);
};

namespace detail {

/**
 * Applies `settings` with a C encoder setter `(options, bitrate, complexity, frame_ms)`, the frame rounded to the
 * microsecond (0.0025 s is exactly 2.5 ms); NaN and infinities stay what they are and the library refuses them.
 * Throws `error` (#VN_E_INVALID_ARG, naming the allowed values) for a value out of range.
 */
template <class COptions>
void set_encoder(int (*setter)(COptions *, int, int, double), COptions *options, const encoder_settings &settings) {
    double frame_ms = std::round(settings.frame.count() * 1e6) / 1e3;
    check(setter(options, settings.bitrate, settings.complexity, frame_ms));
}

/**
 * Applies a device name and the ALSA configuration text defining it with a C setter `(options, name,
 * configuration)`; nothing when neither is set. Throws `error` (#VN_E_INVALID_ARG) for a configuration without a
 * device name, or a name or text holding a NUL byte.
 */
template <class COptions>
void set_device(int (*setter)(COptions *, const char *, const char *), COptions *options,
                const std::optional<std::string> &device, const std::optional<std::string> &configuration) {
    if (configuration && !device) throw error(VN_E_INVALID_ARG, "device_configuration is set without a device name");
    if (!device) return;
    c_string name(*device);
    c_string_or_null text(configuration);
    check(setter(options, name.get(), text.get()));
}

/**
 * A player's or recorder's session hooks, owned by the C++ object (the C options' `user_data`) for the C object's
 * life. The activate trampoline turns an exception into a refusal and keeps it for the call that asked (activate
 * runs synchronously inside it, on the same thread), which `checked` rethrows.
 */
struct session_hooks {
    std::function<bool(session_kind)> activate;
    std::function<void(session_kind)> deactivate;

    /** The exception the last activate hook on this thread threw while a `checked` call was waiting for it. */
    static std::exception_ptr &failure() noexcept {
        static thread_local std::exception_ptr thrown;
        return thrown;
    }
    /** Whether a `checked` call on this thread is asking (activate may also run on a library thread: a flow). */
    static bool &armed() noexcept {
        static thread_local bool flag = false;
        return flag;
    }
    static int call_activate(void *user_data, int kind) noexcept {
        try {
            return static_cast<session_hooks *>(user_data)->activate(static_cast<session_kind>(kind)) ? 1 : 0;
        } catch (...) {
            if (armed()) failure() = std::current_exception();
            return 0;  // refused: the call that asked fails with VN_E_BUSY
        }
    }
    static void call_deactivate(void *user_data, int kind) noexcept {
        static_cast<session_hooks *>(user_data)->deactivate(static_cast<session_kind>(kind));
    }

    /**
     * Runs `call` (a C call that may ask the activate hook) and checks its status: a failure after the hook threw
     * throws the hook's exception (a `voicenote::error` as it is, any other as #VN_E_BUSY with its what()).
     */
    template <class Call>
    static int checked(Call call) {
        auto &thrown = failure();
        thrown = nullptr;
        bool outer = std::exchange(armed(), true);
        int status = call();
        armed() = outer;
        std::exception_ptr hook = std::exchange(thrown, nullptr);
        if (status < 0 && hook) {
            try {
                std::rethrow_exception(hook);
            } catch (const error &) {
                throw;
            } catch (const std::exception &e) {
                throw error(VN_E_BUSY, std::string("the activate hook threw: ") + e.what());
            } catch (...) {
                throw error(VN_E_BUSY, "the activate hook threw");
            }
        }
        return check(status);
    }
};

/** The session hooks object for `activate` and `deactivate` (copied); null when both are empty (no hooks). */
inline std::unique_ptr<session_hooks> make_session_hooks(const std::function<bool(session_kind)> &activate,
                                                         const std::function<void(session_kind)> &deactivate) {
    if (!activate && !deactivate) return nullptr;
    return std::make_unique<session_hooks>(session_hooks{activate, deactivate});
}

/**
 * Installs `hooks` (owned by the caller for the C object's life; nothing when null) with a C setter `(options,
 * activate, deactivate, user_data)`: an empty function installs no trampoline for its hook.
 */
template <class COptions>
void set_session_hooks(int (*setter)(COptions *, vn_session_activate_fn, vn_session_deactivate_fn, void *),
                       COptions *options, session_hooks *hooks) {
    if (!hooks) return;
    check(setter(options, hooks->activate ? &session_hooks::call_activate : nullptr,
                 hooks->deactivate ? &session_hooks::call_deactivate : nullptr, hooks));
}

}  // namespace detail

/** Severity of a log line (vn_log_level). */
enum class log_level : int {
    error = VN_LOG_ERROR,     /**< Something failed. */
    warning = VN_LOG_WARNING, /**< Something unexpected that voicenote handled. */
    info = VN_LOG_INFO,       /**< A notable step. */
    debug = VN_LOG_DEBUG      /**< Detail for debugging. */
};

/** A log handler: the level and the line (valid during the call). */
using log_handler = std::function<void(log_level, std::string_view)>;

namespace detail {

/** The handler the C hook calls, kept until the next `set_log_handler` has replaced it. */
struct log_slot {
    std::mutex mutex;
    std::unique_ptr<log_handler> current;

    /** Never destroyed: a library thread may still log while the process exits. */
    static log_slot &instance() {
        static log_slot &slot = *new log_slot;
        return slot;
    }
    /** Whether this thread is inside a log handler (where replacing the handler would wait for itself). */
    static bool &inside() noexcept {
        static thread_local bool flag = false;
        return flag;
    }
    static void call(void *user_data, int level, const char *message) noexcept {
        bool outer = std::exchange(inside(), true);  // restored, not cleared: handlers may nest on one thread
        (*static_cast<log_handler *>(user_data))(static_cast<log_level>(level), message ? message : "");
        inside() = outer;
    }
};

}  // namespace detail

/**
 * Sets the process-wide log handler (vn_log_set_handler()); an empty one makes the library quiet. It runs on the
 * thread that logs (yours or a library thread), never under a library lock. When this returns, the previous handler
 * is no longer running anywhere and has been destroyed. Throws `error` (#VN_E_MISUSE) from inside a handler.
 */
inline void set_log_handler(log_handler handler, log_level max_level = log_level::warning) {
    if (detail::log_slot::inside()) throw error(VN_E_MISUSE, "set_log_handler was called from inside a log handler");
    auto &slot = detail::log_slot::instance();
    std::lock_guard<std::mutex> lock(slot.mutex);
    std::unique_ptr<log_handler> next = handler ? std::make_unique<log_handler>(std::move(handler)) : nullptr;
    detail::check(vn_log_set_handler(next ? &detail::log_slot::call : nullptr, next.get(), static_cast<int>(max_level)));
    slot.current = std::move(next);  // the old one: no call of it is running any more
}

/** A note's loudness by EBU R128 (vn_loudness): integrated, range, true peak; measured in the waveform's pass. */
struct loudness {
    /** Integrated loudness, LUFS; -infinity for a silent note (nothing above -70 LUFS). */
    double integrated_lufs = -HUGE_VAL;
    /** Loudness range, LU. */
    double range_lu = 0;
    /** True peak, dBTP; -infinity for digital silence. */
    double true_peak_dbtp = -HUGE_VAL;

    /** Whether nothing of the note is above the -70 LUFS gate. */
    bool silent() const noexcept { return !std::isfinite(integrated_lufs); }
    /** Equal figures. */
    bool operator==(const loudness &other) const noexcept {
        return integrated_lufs == other.integrated_lufs && range_lu == other.range_lu &&
               true_peak_dbtp == other.true_peak_dbtp;
    }
    /** Different figures. */
    bool operator!=(const loudness &other) const noexcept { return !(*this == other); }
};

namespace detail {

/** The C loudness as the C++ one; std::nullopt when not known. */
inline std::optional<loudness> to_loudness(const vn_loudness &value) {
    if (!value.known) return std::nullopt;
    return loudness{value.integrated_lufs, value.range_lu, value.true_peak_dbtp};
}

/** The C form of an optional loudness (`known` 0 for none). */
inline vn_loudness to_c_loudness(const std::optional<loudness> &value) noexcept {
    vn_loudness result{};
    if (value) result = vn_loudness{1, value->integrated_lufs, value->range_lu, value->true_peak_dbtp};
    return result;
}

}  // namespace detail

}  // namespace voicenote

namespace std {
/** `voicenote::errc` converts to `std::error_code`. */
template <>
struct is_error_code_enum<voicenote::errc> : true_type {};
}  // namespace std

#endif /* VOICENOTE_CORE_HPP */
