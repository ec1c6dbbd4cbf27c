/*
 * voicenote/attachments.hpp: attachment payloads (part of voicenote.hpp; include that). Stream's `voiceRecording`
 * payload as an object that reads and writes its JSON exactly, the Matrix voice message built from one and read
 * back, attachment types, and the voice message that follows another in a channel's messages.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_ATTACHMENTS_HPP
#define VOICENOTE_ATTACHMENTS_HPP

#include "core.hpp"
#include "queue.hpp"

#include <optional>

namespace voicenote {

namespace detail {

/**
 * A NUL-terminated copy of optional text for the C calls that take NULL for "none": `get()` is NULL for
 * `std::nullopt`, else the copy.
 */
class payload_nullable_string {
public:
    /** Copies `text` (when it holds one). */
    explicit payload_nullable_string(std::optional<std::string_view> text)
        : present_(text.has_value()), text_(text ? *text : std::string_view()) {}
    /** The copy, NUL-terminated, or NULL for none. */
    const char *get() const noexcept { return present_ ? text_.c_str() : nullptr; }

private:
    bool present_;
    std::string text_;
};

/** A view's bytes for the C calls that take a pointer and a length: never NULL, so empty text is "" (not NULL). */
inline const char *payload_bytes(std::string_view text) noexcept { return text.data() ? text.data() : ""; }

}  // namespace detail

/** The text fields of a payload (vn_payload_field). */
enum class payload_field : int {
    type = VN_PAYLOAD_TYPE,           /**< `type`, normally "voiceRecording". */
    title = VN_PAYLOAD_TITLE,         /**< `title`. */
    asset_url = VN_PAYLOAD_ASSET_URL, /**< `asset_url` (always present, an absolute URL). */
    mime_type = VN_PAYLOAD_MIME_TYPE  /**< `mime_type`. */
};

class payload;

/** A received Matrix `m.audio` content read into a payload (payload::from_matrix_content()). */
struct matrix_audio;

/**
 * Stream's `voiceRecording` attachment payload (vn_payload_*): `type`, `title`, `asset_url`, `file_size` (bytes),
 * `mime_type`, `duration` (seconds), `waveform_data` (levels 0…1), and any other key as extra data. Read and written
 * back, a payload keeps every key in its place and every value exact; `file_size` is read as Stream reads it. Payload
 * JSON is at most 1 MiB (errc::too_large) and nests at most 64 levels; invalid JSON or UTF-8, duplicate keys and
 * numbers beyond int64 or double are errc::format.
 *
 * Move-only. Not thread-safe: one thread uses a payload at a time (distinct payloads on any threads).
 */
class payload {
public:
    /**
     * A payload with `type` "voiceRecording" and `asset_url` (vn_payload_create()). Throws `error`
     * (errc::invalid_argument) for a relative URL (it must be `scheme:…`, e.g. https://… or mxc://…).
     */
    explicit payload(std::string_view asset_url)
        : payload_(detail::make_handle<vn_payload, vn_payload_destroy>(vn_payload_create,
                                                                        detail::c_string(asset_url).get())) {}

    /**
     * Reads a payload from JSON text (vn_payload_parse()); only `asset_url` is required. Throws `error`:
     * errc::too_large over 1 MiB; errc::format for invalid JSON, nesting deeper than 64, a value that is not an
     * object, a missing or relative `asset_url`, or a known key of the wrong type.
     */
    static payload parse(std::string_view json) {
        vn_payload *object = nullptr;
        detail::check(vn_payload_parse(detail::payload_bytes(json), json.size(), &object));
        return payload(object);
    }

    /**
     * The payload of a finished recording before upload (vn_payload_from_recording()): `title` the file name,
     * `asset_url` its `file://` URL, `file_size` from disk, `mime_type` from the extension, and the duration and
     * waveform. `duration`: the recorder's (its finished event has it), or std::nullopt (or a negative value) to
     * read it from the file; `waveform`: the recorder's levels, or empty to compute 100 from the file. Throws
     * `error`: errc::not_found, errc::permission or errc::invalid_argument (a directory) for the file; errc::format
     * when it must be read and is not audio; errc::invalid_argument for NaN or infinite values. Computing the
     * waveform decodes the file on the calling thread.
     */
    static payload from_recording(std::string_view path, std::optional<seconds> duration = std::nullopt,
                                  const std::vector<float> &waveform = {}) {
        vn_payload *object = nullptr;
        detail::check(vn_payload_from_recording(detail::c_string(path).get(), duration ? duration->count() : -1.0,
                                                waveform.empty() ? nullptr : waveform.data(), waveform.size(),
                                                &object));
        return payload(object);
    }

    /**
     * Reads a received Matrix `m.audio` content (vn_payload_from_matrix_content()): `asset_url` its `url` (an
     * `mxc://` URI), `title` its `body`, `mime_type` and `file_size` from `info`, `duration` in seconds, and
     * `waveform_data` decoded to 0…1 from the Matrix integers 0…1024; other keys are not kept. Throws `error`:
     * errc::format for JSON that is not an `m.audio` content with an `mxc://` url as matrix_download_url() takes
     * it, whose fields have the wrong types, or whose `body` or `info.mimetype` holds a NUL; errc::too_large over
     * 1 MiB.
     */
    static matrix_audio from_matrix_content(std::string_view content_json);

    /**
     * Writes the payload as JSON (vn_payload_to_json()): its keys in their order (a new payload: `type`, `title`,
     * `asset_url`, `file_size`, `mime_type`, `duration`, `waveform_data`, then the extra data); absent values are
     * left out. `indent`: 0 for compact text, else spaces per level, at most 16 (else errc::invalid_argument).
     */
    std::string to_json(int indent = 0) const {
        char *json = nullptr;
        detail::check(vn_payload_to_json(payload_.get(), indent, &json));
        return detail::take_string(json);
    }

    /**
     * The content of a Matrix voice message (`m.room.message`) for this payload, as Element sends one, as compact
     * JSON (vn_payload_to_matrix_content()): `msgtype` `m.audio`, `body`, `url` (`asset_url`, which must be an
     * `mxc://<server>/<media id>` URI: upload with upload_mode::raw first), `info` (`duration` in milliseconds,
     * `mimetype`, `size`), `org.matrix.msc1767.audio` (`duration`, and the waveform as 100 integers 0…1024) and
     * `org.matrix.msc3245.voice`. `body`: what clients without voice messages show (std::nullopt: "Voice
     * message"). Throws `error` (errc::invalid_argument) when `asset_url` is not an mxc:// URI, the duration is
     * missing or `body` is not UTF-8.
     */
    std::string to_matrix_content(std::optional<std::string_view> body = std::nullopt) const {
        char *json = nullptr;
        detail::check(vn_payload_to_matrix_content(payload_.get(), detail::payload_nullable_string(body).get(), &json));
        return detail::take_string(json);
    }

    /** A text field (vn_payload_copy_field()); std::nullopt when the payload has none. */
    std::optional<std::string> field(payload_field which) const {
        char *text = nullptr;
        detail::check(vn_payload_copy_field(payload_.get(), static_cast<int>(which), &text));
        if (!text) return std::nullopt;
        return detail::take_string(text);
    }

    /**
     * Sets a text field, or removes it with std::nullopt (vn_payload_set_field()). An existing key keeps its place;
     * a new one goes to its place among the known keys. Throws `error` (errc::invalid_argument) for invalid UTF-8,
     * and for an `asset_url` that is relative or removed; the payload is then unchanged.
     */
    void set_field(payload_field which, std::optional<std::string_view> text) {
        detail::check(vn_payload_set_field(payload_.get(), static_cast<int>(which),
                                           detail::payload_nullable_string(text).get()));
    }

    /** `file_size` in bytes (vn_payload_get_file_size()); std::nullopt when the payload has none. */
    std::optional<std::int64_t> file_size() const {
        std::int64_t bytes = -1;
        detail::check(vn_payload_get_file_size(payload_.get(), &bytes));
        if (bytes < 0) return std::nullopt;
        return bytes;
    }

    /**
     * Sets `file_size` in bytes, or removes it with std::nullopt (vn_payload_set_file_size()). Throws `error`
     * (errc::invalid_argument) for a negative size.
     */
    void set_file_size(std::optional<std::int64_t> bytes) {
        if (bytes && *bytes < 0) throw error(VN_E_INVALID_ARG, "file_size must be 0 or more bytes");
        detail::check(vn_payload_set_file_size(payload_.get(), bytes ? *bytes : -1));
    }

    /** The note's loudness from the extra data (vn_payload_get_loudness()); std::nullopt when the payload has none
     *  or one that is not a plausible loudness. */
    std::optional<voicenote::loudness> loudness() const {
        vn_loudness value{};
        detail::check(vn_payload_get_loudness(payload_.get(), &value));
        return detail::to_loudness(value);
    }

    /** Sets the note's loudness in the extra data, or removes it with std::nullopt (vn_payload_set_loudness()).
     *  Throws `error` (#VN_E_INVALID_ARG) for figures that are not a plausible loudness. */
    void set_loudness(const std::optional<voicenote::loudness> &value) {
        vn_loudness c_value = detail::to_c_loudness(value);
        detail::check(vn_payload_set_loudness(payload_.get(), value ? &c_value : nullptr));
    }

    /** `duration` (vn_payload_get_duration_s()); std::nullopt when the payload has none. */
    std::optional<seconds> duration() const {
        double value = -1;
        detail::check(vn_payload_get_duration_s(payload_.get(), &value));
        if (value < 0) return std::nullopt;
        return seconds(value);
    }

    /**
     * Sets `duration`, or removes it with std::nullopt (vn_payload_set_duration_s()). Throws `error`
     * (errc::invalid_argument) for a negative, NaN or infinite duration.
     */
    void set_duration(std::optional<seconds> duration) {
        if (duration && duration->count() < 0) throw error(VN_E_INVALID_ARG, "the duration must be 0 s or more");
        detail::check(vn_payload_set_duration_s(payload_.get(), duration ? duration->count() : -1.0));
    }

    /** `waveform_data` as doubles, so values round-trip exactly (vn_payload_get_waveform()); empty when none. */
    std::vector<double> waveform() const {
        std::size_t count = 0;
        detail::check(vn_payload_get_waveform(payload_.get(), nullptr, 0, &count));
        std::vector<double> levels(count);
        if (count > 0) {
            detail::check(vn_payload_get_waveform(payload_.get(), levels.data(), levels.size(), &count));
            levels.resize(count < levels.size() ? count : levels.size());
        }
        return levels;
    }

    /**
     * Sets `waveform_data` (levels 0…1, at most 1048576 of them), or removes the key with std::nullopt
     * (vn_payload_set_waveform()). Throws `error` (errc::invalid_argument) for NaN or infinite values or too many.
     */
    void set_waveform(std::optional<std::vector<double>> levels) {
        static const double none = 0;  // a non-NULL pointer for an empty array: `[]`, not "no key"
        const double *values = levels ? (levels->empty() ? &none : levels->data()) : nullptr;
        detail::check(vn_payload_set_waveform(payload_.get(), values, levels ? levels->size() : 0));
    }

    /** The extra data: every member whose key is not a known one, in order, as a JSON object ("{}" when none). */
    std::string extra_data() const {
        char *json = nullptr;
        detail::check(vn_payload_copy_extra_data(payload_.get(), &json));
        return detail::take_string(json);
    }

    /**
     * Replaces the extra data with a JSON object, or removes it with std::nullopt (vn_payload_set_extra_data()): a
     * key kept stays in its place, a key dropped goes, a new key is added at the end. Throws `error`: errc::format
     * when `json` is not a JSON object (or as parse()); errc::invalid_argument when it holds a known key.
     */
    void set_extra_data(std::optional<std::string_view> json) {
        detail::check(vn_payload_set_extra_data(payload_.get(), detail::payload_nullable_string(json).get()));
    }

    /** The C payload, still owned (e.g. for vn_uploader_upload_file()). */
    vn_payload *get() const noexcept { return payload_.get(); }

private:
    explicit payload(vn_payload *object) noexcept : payload_(object) {}
    detail::handle<vn_payload, vn_payload_destroy> payload_;
};

/** A received Matrix `m.audio` content read into a payload (payload::from_matrix_content()). */
struct matrix_audio {
    /** The payload: `asset_url` (mxc://), `title`, `mime_type`, `file_size`, `duration`, `waveform_data`. */
    voicenote::payload payload;
    /** Whether the content is marked a voice message (`org.matrix.msc3245.voice`). */
    bool is_voice = false;
};

inline matrix_audio payload::from_matrix_content(std::string_view content_json) {
    vn_payload *object = nullptr;
    int voice = 0;
    detail::check(
        vn_payload_from_matrix_content(detail::payload_bytes(content_json), content_json.size(), &object, &voice));
    return matrix_audio{payload(object), voice != 0};
}

/**
 * Where a Matrix client downloads an `mxc://<server>/<media id>` URI with authenticated media (Matrix 1.11):
 * `<homeserver>/_matrix/client/v1/media/download/<server>/<media id>` (vn_matrix_download_url()). Send
 * matrix_authorization(access token) with it (in http_options::headers). `homeserver`: the
 * client-server API's base URL, e.g. `https://matrix.example.org`. Throws `error` (errc::invalid_argument) for a
 * URI outside the Matrix grammar (vn_matrix_download_url()) or a homeserver that is not an http(s) base URL.
 */
inline std::string matrix_download_url(std::string_view mxc_uri, std::string_view homeserver) {
    char *url = nullptr;
    detail::check(vn_matrix_download_url(detail::c_string(mxc_uri).get(), detail::c_string(homeserver).get(), &url));
    return detail::take_string(url);
}

/**
 * The header a Matrix client sends with an authenticated-media download (matrix_download_url()):
 * `Authorization: Bearer <access_token>`, as a name and a value, the form of http_options::headers.
 */
inline std::pair<std::string, std::string> matrix_authorization(std::string_view access_token) {
    return {"Authorization", "Bearer " + std::string(access_token)};
}

/**
 * The attachment type of a file by its extension (vn_attachment_type_for_file()): "image", "video" or "audio" when
 * its MIME type's major type is that, else "file". `file_name`: a file name or path (UTF-8).
 */
inline std::string attachment_type_for_file(std::string_view file_name) {
    return detail::copy_string(vn_attachment_type_for_file(detail::c_string(file_name).get()));
}

/**
 * The type of an attachment object as received (vn_attachment_type_of_json()): its `type` (Stream's raw values, or
 * a custom string); "linkPreview" for an object with an `og_scrape_url`; "unknown" without a `type` string. Throws
 * `error`: errc::format when `json` is not a JSON object; errc::too_large over 1 MiB.
 */
inline std::string attachment_type_of_json(std::string_view json) {
    char *type = nullptr;
    detail::check(vn_attachment_type_of_json(detail::payload_bytes(json), json.size(), &type));
    return detail::take_string(type);
}

/**
 * Checks a local file before upload, as Stream does (vn_attachment_check_local()). `location`: a path or a
 * `file://` URL; `type`: the attachment type it would be uploaded as (e.g. "voiceRecording"); `max_bytes`: the size
 * limit, 1 byte or more, or std::nullopt for the default (100 MiB, as upload_options::max_bytes). Returns when it may
 * be uploaded; else throws `error`: errc::unsupported for a type uploads do not take; errc::invalid_argument for a URL
 * of another scheme, a directory or a `max_bytes` under 1; errc::not_found; errc::permission; errc::too_large over
 * the limit.
 */
inline void attachment_check_local(std::string_view location, std::string_view type,
                                   std::optional<std::int64_t> max_bytes = std::nullopt) {
    // The C call reads 0 as "the default": a limit given here is never 0.
    if (max_bytes && *max_bytes < 1) throw error(VN_E_INVALID_ARG, "max_bytes must be 1 byte or more");
    detail::check(vn_attachment_check_local(detail::c_string(location).get(), detail::c_string(type).get(),
                                            max_bytes ? *max_bytes : 0));
}

/**
 * Finds the voice message to play after `current_url` (vn_find_next_item(), Stream's next-item provider) in a
 * channel's messages as JSON, oldest first (an array of `{"id", "user": {"id"}, "attachments": [...]}`, or an
 * object with such a `messages` array; at most 64 MiB). The current one is found in the newest message having it as
 * a `voiceRecording` attachment's `asset_url`. Returns the next `asset_url`, or std::nullopt when nothing follows:
 * when `current_url` is not found or std::nullopt (nothing plays), or the current user (`current_user_id`, or
 * std::nullopt for none) sent it. Throws `error`: errc::format for invalid JSON, or a message or attachment list that
 * is not of its JSON type (also when nothing plays); errc::too_large over 64 MiB; errc::invalid_argument for an
 * unknown scope.
 */
inline std::optional<std::string> find_next_item(std::string_view messages_json,
                                                 std::optional<std::string_view> current_url,
                                                 std::optional<std::string_view> current_user_id, next_scope scope) {
    char *url = nullptr;
    detail::check(vn_find_next_item(detail::payload_bytes(messages_json), messages_json.size(),
                                    detail::payload_nullable_string(current_url).get(),
                                    detail::payload_nullable_string(current_user_id).get(), static_cast<int>(scope),
                                    &url));
    if (!url) return std::nullopt;
    return detail::take_string(url);
}

}  // namespace voicenote

#endif /* VOICENOTE_ATTACHMENTS_HPP */
