/*
 * voicenote/outbox.hpp: the durable outbox (vn_outbox_*) as a move-only RAII class. Part of the C++ layer
 * (voicenote.hpp includes it); header-only, C++17, over the C API.
 */
#ifndef VOICENOTE_OUTBOX_HPP
#define VOICENOTE_OUTBOX_HPP

#include "core.hpp"
#include "upload.hpp"

#include <cstdint>

namespace voicenote {

/** Where an outbox item is (vn_outbox_state). */
enum class outbox_state : int {
    queued = VN_OUTBOX_QUEUED,     /**< waiting for its turn */
    sending = VN_OUTBOX_SENDING,   /**< being sent now */
    waiting = VN_OUTBOX_WAITING,   /**< failed in a way that may pass; tried again after a back-off */
    failed = VN_OUTBOX_FAILED,     /**< refused for good; kept until retried or cancelled */
    uploaded = VN_OUTBOX_UPLOADED, /**< uploaded; offered until acknowledged */
    held = VN_OUTBOX_HELD          /**< sent by a flow's uploader while recorded; sent by the outbox only if that fails */
};

/** What an outbox event tells (vn_outbox_event_kind). */
enum class outbox_event_kind : int {
    added = VN_OUTBOX_EVENT_ADDED,       /**< an item was added (durable) */
    sending = VN_OUTBOX_EVENT_SENDING,   /**< an attempt is under way; `progress` */
    waiting = VN_OUTBOX_EVENT_WAITING,   /**< an attempt failed; again in `retry_in` seconds */
    failed = VN_OUTBOX_EVENT_FAILED,     /**< refused for good */
    uploaded = VN_OUTBOX_EVENT_UPLOADED, /**< send the message with `payload_json`, then acknowledge(id) */
    removed = VN_OUTBOX_EVENT_REMOVED    /**< the item is gone */
};

/** An outbox's event (vn_outbox_event), copied out of the library. */
struct outbox_event {
    /** What happened. */
    outbox_event_kind kind = outbox_event_kind::added;
    /** The item's id. */
    std::int64_t id = 0;
    /** sending: 0 … 1. */
    double progress = 0;
    /** waiting: seconds until the next attempt. */
    double retry_in = 0;
    /** waiting, failed: the `VN_E_*` status; else VN_OK. */
    int status = VN_OK;
    /** waiting, failed: the HTTP status of the answer that failed it, or 0. */
    int http_code = 0;
    /** waiting, failed: the detail; else empty. */
    std::string message;
    /** uploaded: the uploaded payload's JSON (payload::parse() reads it); else empty. */
    std::string payload_json;

    /** `status` as an error code in voicenote's category (empty for VN_OK), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

namespace detail {

/** An outbox's event as the C++ struct. */
inline outbox_event to_outbox_event(const vn_outbox_event &event) {
    outbox_event result;
    result.kind = static_cast<outbox_event_kind>(event.kind);
    result.id = event.id;
    result.progress = event.progress;
    result.retry_in = event.retry_in;
    result.status = event.status;
    result.http_code = event.http_code;
    result.message = copy_string(event.message);
    result.payload_json = copy_string(event.payload_json);
    return result;
}

}  // namespace detail

/**
 * A durable outbox in a directory (vn_outbox_create()): notes added are copied and recorded (SQLite, synced) before
 * add() returns, sent by a library thread to the endpoint with the upload options' mode and headers, resumed and
 * retried across crashes, and each uploaded payload offered (outbox_event_kind::uploaded, again at every start)
 * until acknowledge(). Move-only; destroying it stops sending (an item being sent goes on at the next start).
 */
class outbox {
public:
    /**
     * Opens (creating it when missing) the outbox in `directory` for uploads to `endpoint`. Throws `error`:
     * errc::busy while another outbox has the directory; errc::format for a damaged database (left as it is);
     * errc::unsupported without SQLite; errc::permission for a directory that cannot be trusted; the uploader's.
     */
    outbox(std::string_view directory, std::string_view endpoint, const upload_options &options = {})
        : outbox_(create(directory, endpoint, options)) {}

    /** Sets the back-off: `base` seconds first, doubling up to `cap`, times a random 0.5 … 1. Throws `error`. */
    void set_retry(double base, double cap) { detail::check(vn_outbox_set_retry(outbox_.get(), base, cap)); }

    /** Calls `callback` for each event from now on (subscribe before start()); ends with the returned object. */
    subscription subscribe(std::function<void(const outbox_event &)> callback) {
        return detail::subscribe(vn_outbox_subscribe, outbox_.get(), std::move(callback), &detail::to_outbox_event);
    }

    /** Starts sending (first offering every unacknowledged upload). Throws errc::misuse when started already. */
    void start() { detail::check(vn_outbox_start(outbox_.get())); }

    /** Adds a note (copied; durable on return) and returns its id. Throws errc::not_found, errc::no_space… */
    std::int64_t add(std::string_view path) { return add_with(path, nullptr); }

    /** Adds a note with the payload its upload completes (copied). */
    std::int64_t add(std::string_view path, const payload &completing) { return add_with(path, completing.get()); }

    /** The host sent item `id`'s message: the item goes. Throws errc::not_found unless it is uploaded. */
    void acknowledge(std::int64_t id) { detail::check(vn_outbox_acknowledge(outbox_.get(), id)); }

    /** Sends a failed or waiting item again now. Throws errc::not_found otherwise. */
    void retry(std::int64_t id) { detail::check(vn_outbox_retry(outbox_.get(), id)); }

    /** Removes an item whatever its state. Throws errc::not_found for no such item. */
    void cancel(std::int64_t id) { detail::check(vn_outbox_cancel(outbox_.get(), id)); }

    /** The items as a JSON array (vn_outbox_copy_items()). */
    std::string items_json() const {
        char *json = nullptr;
        detail::check(vn_outbox_copy_items(outbox_.get(), &json));
        return detail::take_string(json);
    }

    /** The C outbox, still owned (NULL when moved from; calls then throw errc::misuse). */
    vn_outbox *get() const noexcept { return outbox_.get(); }

private:
    static detail::handle<vn_outbox, vn_outbox_destroy> create(std::string_view directory, std::string_view endpoint,
                                                               const upload_options &options) {
        auto c_options = detail::c_upload_options(options);
        return detail::make_handle<vn_outbox, vn_outbox_destroy>(vn_outbox_create, detail::c_string(directory).get(),
                                                                  detail::c_string(endpoint).get(), c_options.get());
    }

    std::int64_t add_with(std::string_view path, const vn_payload *completing) {
        std::int64_t id = 0;
        detail::check(vn_outbox_add(outbox_.get(), detail::c_string(path).get(), completing, &id));
        return id;
    }

    detail::handle<vn_outbox, vn_outbox_destroy> outbox_;
};

}  // namespace voicenote

#endif /* VOICENOTE_OUTBOX_HPP */
