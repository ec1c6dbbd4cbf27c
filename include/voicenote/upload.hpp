/*
 * voicenote/upload.hpp: the uploader (part of voicenote.hpp; include that). One attachment at a time to an
 * http(s) endpoint: multipart/form-data as Stream's `POST /channels/{type}/{id}/file`, or the bare body as Matrix's
 * `/_matrix/media/v3/upload`; events report its state and progress, and a post-processor may rewrite the uploaded
 * payload.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_UPLOAD_HPP
#define VOICENOTE_UPLOAD_HPP

#include "attachments.hpp"
#include "core.hpp"
#include "recorder.hpp"
#include "sources.hpp"

#include <new>
#include <optional>

namespace voicenote {

/** How uploads are framed (vn_upload_mode). */
enum class upload_mode : int {
    multipart = VN_UPLOAD_MULTIPART, /**< multipart/form-data, Stream's file upload (the default). */
    raw = VN_UPLOAD_RAW,             /**< The bare body, Matrix's media upload. */
    matrix = VN_UPLOAD_MATRIX,       /**< Matrix's upload to a content URI created first (the endpoint is the
                                          homeserver's base URL; content_uri() is known before the bytes go). */
    tus = VN_UPLOAD_TUS              /**< tus 1.0.0, resumable (the endpoint is the creation URL; content_uri()
                                          is the upload's URL). */
};

/** Where an upload is (vn_upload_state, Stream's `LocalAttachmentState`). */
enum class upload_state : int {
    pending = VN_UPLOAD_PENDING,     /**< Accepted, not sending yet (a recording's waveform is being read). */
    uploading = VN_UPLOAD_UPLOADING, /**< Sending; `progress` says how much. */
    failed = VN_UPLOAD_FAILED,       /**< Failed or cancelled; `status` and `message` say why; the file is untouched. */
    uploaded = VN_UPLOAD_UPLOADED    /**< Done; `payload_json` is the uploaded payload. */
};

/**
 * An uploader's settings (vn_upload_options_*): only the fields set are applied, so the library's defaults stand
 * otherwise (multipart, the mode's response key, type "voiceRecording", a 100 MiB limit, no extra headers or query
 * parameters, the system's CAs, events on the library's event thread).
 */
struct upload_options {
    /** How uploads are framed. Default: upload_mode::multipart. */
    std::optional<upload_mode> mode;
    /** Request headers (Stream: `Authorization` and `Stream-Auth-Type: jwt`; Matrix: matrix_authorization()), a CA
     *  file, the connect, stall and transfer timeouts. Default: the HTTP defaults. */
    std::optional<http_options> http;
    /** Query parameters added to the endpoint after any it has, in order (Stream: `api_key`); both parts are
     *  percent-encoded. A name is UTF-8 and not empty, a value UTF-8. */
    std::vector<std::pair<std::string, std::string>> query;
    /** The key of the response's JSON object that holds the uploaded URL (UTF-8, not empty). Default: the mode's,
     *  `file` (multipart) or `content_uri` (raw). */
    std::optional<std::string> url_key;
    /** The attachment type uploaded (the payload's `type`): "voiceRecording" (the default), "audio", "image",
     *  "video" or "file"; another is errc::unsupported. */
    std::optional<std::string> attachment_type;
    /** The largest body sent, 1 byte or more; default 100 MiB. A larger file is refused with errc::too_large. */
    std::optional<std::int64_t> max_bytes;
    /** Delivers the events through this loop (its `dispatch()`) instead of the library's event thread; it must
     *  outlive the uploader. */
    event_loop *loop = nullptr;
};

namespace detail {

/** The C options for `options` (a created object). Throws `error` for a value the setters refuse. */
inline handle<vn_upload_options, vn_upload_options_destroy> c_upload_options(const upload_options &options) {
    auto c = make_handle<vn_upload_options, vn_upload_options_destroy>(vn_upload_options_create);
    if (options.mode) check(vn_upload_options_set_mode(c.get(), static_cast<int>(*options.mode)));
    if (options.http) {
        auto http = c_http_options(*options.http);
        check(vn_upload_options_set_http(c.get(), http.get()));
    }
    for (const auto &parameter : options.query) {
        check(vn_upload_options_add_query(c.get(), c_string(parameter.first).get(), c_string(parameter.second).get()));
    }
    if (options.url_key) check(vn_upload_options_set_url_key(c.get(), c_string(*options.url_key).get()));
    if (options.attachment_type) {
        check(vn_upload_options_set_attachment_type(c.get(), c_string(*options.attachment_type).get()));
    }
    if (options.max_bytes) check(vn_upload_options_set_max_bytes(c.get(), *options.max_bytes));
    if (options.loop) check(vn_upload_options_set_event_loop(c.get(), live_handle(options.loop)));
    return c;
}

}  // namespace detail

/** An uploader's event (vn_upload_event): a change of state, or a progress step. */
struct upload_event {
    /** The state now. */
    upload_state state = upload_state::pending;
    /** uploading: 0 first, then steps of at least 0.05, then 1 once the server answered; uploaded: 1; else 0. */
    double progress = 0;
    /** failed: the `VN_E_*` status (VN_E_CANCELLED after a cancel); else VN_OK. */
    int status = VN_OK;
    /** failed: the detail (naming `HTTP nnn` where there is one); else empty. */
    std::string message;
    /** uploaded: the payload's JSON with the uploaded `asset_url` (payload::parse() reads it); else empty. */
    std::string payload_json;

    /** `status` as an error code in voicenote's category (empty for VN_OK), comparable with `errc`. */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

namespace detail {

/** An uploader's event as the C++ struct. */
inline upload_event to_upload_event(const vn_upload_event &event) {
    upload_event result;
    result.state = static_cast<upload_state>(event.state);
    result.progress = event.progress;
    result.status = event.status;
    result.message = copy_string(event.message);
    result.payload_json = copy_string(event.payload_json);
    return result;
}

}  // namespace detail

/**
 * Rewrites the uploaded payload before it is reported (Stream's `UploadedAttachmentPostProcessor`): given the
 * payload's JSON with the uploaded `asset_url` (valid during the call), it returns a new payload JSON, or
 * std::nullopt to keep it. Throwing `voicenote::error` fails the upload with its status; another exception fails it
 * with errc::internal (std::bad_alloc: errc::no_memory); an answer that is not a payload fails it with errc::format.
 * It runs synchronously on the upload's own thread (`vn-upload`), after the server answered and before the uploaded
 * event, with no library lock held; it may call any member of the uploader, destroying it included.
 */
using upload_post_processor = std::function<std::optional<std::string>(std::string_view payload_json)>;

namespace detail {

/** A post-processor owned by the library as the hook's `user_data`: `release` deletes it once it is no longer in
 *  use (replaced, removed, or the uploader destroyed). */
struct upload_post_processor_box {
    upload_post_processor hook;

    static int call(void *user_data, const char *payload_json, char **out_payload_json) noexcept {
        try {
            auto answer = static_cast<upload_post_processor_box *>(user_data)->hook(payload_json ? payload_json : "");
            if (answer) {
                char *copy = vn_strdup(answer->c_str());
                if (!copy) return VN_E_NOMEM;
                *out_payload_json = copy;
            }
            return VN_OK;
        } catch (const error &e) {
            return e.status() < 0 ? e.status() : VN_E_INTERNAL;
        } catch (const std::bad_alloc &) {
            return VN_E_NOMEM;
        } catch (...) {
            return VN_E_INTERNAL;
        }
    }
    static void release(void *user_data) noexcept { delete static_cast<upload_post_processor_box *>(user_data); }
};

}  // namespace detail

/**
 * An uploader (vn_uploader_*): sends one attachment at a time to an http(s) endpoint, on a library thread
 * (`vn-upload`), reporting pending, uploading (with progress), then uploaded or failed as events. HTTP statuses
 * map as everywhere: 401/403 errc::permission, 404/410 errc::not_found, 413 errc::too_large, others errc::network
 * (the message naming `HTTP nnn`); a response that is not a JSON object with the URL is errc::format. A failure or
 * a cancel never deletes or changes the local file.
 *
 * Move-only; destroying it cancels a running upload and ends its subscriptions and post-processor (when it
 * returns, none of them runs again; from inside one of them it does not wait for itself). Its members may be
 * called from any thread.
 */
class uploader {
public:
    /**
     * An uploader for `endpoint`, an http(s) URL (vn_uploader_create()). Throws `error`: errc::invalid_argument for
     * an endpoint that is not http(s) or an option the setters refuse; errc::unsupported for an attachment type
     * uploads do not take; errc::not_found for a CA file that does not exist.
     */
    explicit uploader(std::string_view endpoint, const upload_options &options = {})
        : uploader_(create(endpoint, options)) {}

    /**
     * Calls `callback` for each event from now on; the subscription ends when the returned object is destroyed.
     * Callbacks run on the library's event thread, or inside `dispatch()` of the options' loop; never on the upload
     * thread. Throws `error` (errc::invalid_argument for an empty callback).
     */
    subscription subscribe(std::function<void(const upload_event &)> callback) {
        return detail::subscribe(vn_uploader_subscribe, uploader_.get(), std::move(callback), &detail::to_upload_event);
    }

    /**
     * Sets the post-processor (vn_uploader_set_post_processor()), replacing any earlier one, or removes it with an
     * empty function. The uploader keeps it; a replaced one is destroyed once no call of it runs (an upload in
     * progress keeps the one it started with).
     */
    void set_post_processor(upload_post_processor hook) {
        if (!hook) {
            detail::check(vn_uploader_set_post_processor(uploader_.get(), nullptr, nullptr, nullptr));
            return;
        }
        using box = detail::upload_post_processor_box;
        auto owned = std::make_unique<box>(box{std::move(hook)});
        // On success the library owns the box (and calls release once); on failure it never calls release.
        detail::check(vn_uploader_set_post_processor(uploader_.get(), &box::call, owned.get(), &box::release));
        owned.release();
    }

    /**
     * Starts uploading a local file (a path or a `file://` URL); returns at once (pending, then events). For a
     * voiceRecording, the payload (duration, waveform) is read from the file (vn_uploader_upload_file() without a
     * payload). Throws `error`: errc::busy while an upload runs; errc::not_found, errc::permission,
     * errc::invalid_argument (a directory, a URL of another scheme), errc::unsupported (the type) or errc::too_large
     * (the limit) for the file.
     */
    void upload_file(std::string_view location) {
        detail::check(vn_uploader_upload_file(uploader_.get(), detail::c_string(location).get(), nullptr));
    }

    /**
     * Starts uploading a local file, completing `completing` (copied; e.g. payload::from_recording() with the
     * recorder's duration and waveform); returns at once. Throws as upload_file(location).
     */
    void upload_file(std::string_view location, const payload &completing) {
        detail::check(vn_uploader_upload_file(uploader_.get(), detail::c_string(location).get(), completing.get()));
    }

    /**
     * Starts uploading the bytes of a source from its start (vn_uploader_upload_source()): a memory buffer, or the
     * host's callbacks (a Matrix encrypted room's ciphertext); returns at once, with a payload of the name, size and
     * MIME type. The uploader holds the source's bytes until another upload replaces it or the uploader is
     * destroyed, so a retry sends them again; `bytes` itself may be destroyed at once. `file_name`: the name it is
     * sent under (not empty); `mime_type`: its MIME type, or std::nullopt for the one of the name's extension.
     * Throws `error`: errc::busy while an upload runs or when a player holds the source; errc::too_large over the
     * limit; errc::invalid_argument for an empty name or MIME type; errc::misuse for a moved-from source.
     */
    void upload_source(source &bytes, std::string_view file_name,
                       std::optional<std::string_view> mime_type = std::nullopt) {
        upload_source_with(bytes, file_name, mime_type, nullptr);
    }

    /** Starts uploading the bytes of a source, completing `completing` (copied); as upload_source() otherwise. */
    void upload_source(source &bytes, std::string_view file_name, std::optional<std::string_view> mime_type,
                       const payload &completing) {
        upload_source_with(bytes, file_name, mime_type, completing.get());
    }

    /**
     * Starts uploading the recorder's running take while it is recorded (vn_uploader_upload_recording()): its
     * written pages at once, the rest as they are written (chunked), so at the stop only the last pages remain. It
     * completes with the finished take's payload when the take stops, and fails with errc::cancelled when it is
     * cancelled or dropped as too short (errc::io when its file was repaired after a failed write: upload the file
     * then). It cannot be retried. Throws `error`: errc::busy while an upload runs or when the take is already being
     * sent; errc::misuse when no take runs; errc::unsupported for another attachment type than voiceRecording or
     * audio.
     */
    void upload_recording(recorder &take) {
        detail::check(vn_uploader_upload_recording(uploader_.get(), take.get()));
    }

    /** Cancels the running upload: it ends failed with errc::cancelled (unless it already ended). No-op when none runs. */
    void cancel() { detail::check(vn_uploader_cancel(uploader_.get())); }

    /**
     * Sends the last upload again, after it failed or was cancelled. Throws `error`: errc::misuse when the last
     * upload did not fail (or none was made); errc::busy when a player holds its source now.
     */
    void retry() { detail::check(vn_uploader_retry(uploader_.get())); }

    /**
     * Waits until the upload ends (uploaded or failed) or `timeout` passes (std::nullopt, the default: no limit;
     * rounded up to the millisecond, at most INT_MAX ms), for hosts that do not use the events; returns the state
     * then (pending before any upload). It returns as soon as the state is final: subscribers may still be receiving
     * the last events. Not from inside the uploader's own callbacks or post-processor. Throws `error`
     * (errc::invalid_argument for a negative or NaN timeout).
     */
    upload_state wait(std::optional<seconds> timeout = std::nullopt) {
        int milliseconds = detail::timeout_ms(timeout);
        int state = VN_UPLOAD_PENDING;
        detail::check(vn_uploader_wait(uploader_.get(), milliseconds, &state));
        return static_cast<upload_state>(state);
    }

    /**
     * The outcome of the last upload (vn_uploader_copy_result()): the uploaded payload's JSON. Throws `error`: the
     * failure's status and detail when it failed (errc::cancelled after a cancel); errc::misuse while no upload has
     * ended.
     */
    std::string result() const {
        char *json = nullptr;
        detail::check(vn_uploader_copy_result(uploader_.get(), &json));
        return detail::take_string(json);
    }

    /**
     * upload_mode::matrix: the `mxc://` URI the last upload reserved (vn_uploader_copy_content_uri()); upload_mode::tus:
     * the upload's URL; from its first uploading event on; std::nullopt while none is (and in the other modes).
     */
    std::optional<std::string> content_uri() const {
        char *uri = nullptr;
        int status = vn_uploader_copy_content_uri(uploader_.get(), &uri);
        if (status == VN_E_NOT_FOUND) return std::nullopt;
        detail::check(status);
        return detail::take_string(uri);
    }

    /** The C uploader, still owned (NULL when moved from; calls then throw errc::misuse). */
    vn_uploader *get() const noexcept { return uploader_.get(); }

private:
    static detail::handle<vn_uploader, vn_uploader_destroy> create(std::string_view endpoint,
                                                                   const upload_options &options) {
        auto c_options = detail::c_upload_options(options);
        return detail::make_handle<vn_uploader, vn_uploader_destroy>(vn_uploader_create,
                                                                      detail::c_string(endpoint).get(), c_options.get());
    }

    void upload_source_with(source &bytes, std::string_view file_name,
                            std::optional<std::string_view> mime_type, const vn_payload *completing) {
        detail::check(vn_uploader_upload_source(uploader_.get(), bytes.get(), detail::c_string(file_name).get(),
                                                detail::payload_nullable_string(mime_type).get(), completing));
    }

    detail::handle<vn_uploader, vn_uploader_destroy> uploader_;
};

}  // namespace voicenote

#endif /* VOICENOTE_UPLOAD_HPP */
