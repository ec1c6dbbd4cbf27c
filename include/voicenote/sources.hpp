/*
 * voicenote/sources.hpp: byte sources, HTTP options and the media cache (part of voicenote.hpp; include that).
 * Where encoded audio comes from — a file, memory, host callbacks, an http(s) URL — for the waveform, info and
 * convert calls (voicenote/analysis.hpp), players and uploaders; and the process's cache of downloads.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_SOURCES_HPP
#define VOICENOTE_SOURCES_HPP

#include "core.hpp"

#include <optional>

namespace voicenote {

/**
 * How an HTTP(S) download is made (vn_http_options_*): only the fields set are applied, so the library's defaults
 * stand otherwise. Certificates and host names are always verified; proxies come from the environment. Request
 * headers go only to the URL's own origin, never to a redirect's other origin.
 */
struct http_options {
    /** Request headers sent with every request, in order (repeated names are all sent). A name is a token
     *  (printable ASCII without spaces or colons); a value is UTF-8 without line breaks. */
    std::vector<std::pair<std::string, std::string>> headers;
    /** A PEM file of CA certificates trusted instead of the system's (it must exist). Default: the system's. */
    std::optional<std::string> ca_file;
    /** How long connecting (DNS, TCP, TLS) may take: 0.1…600 s; default 15 s. */
    std::optional<seconds> connect_timeout;
    /** How long a transfer may go without a byte ("stalled"): 0.1…3600 s; default 30 s. */
    std::optional<seconds> stall_timeout;
    /** How long one whole transfer may take: 1…86400 s; default 600 s. */
    std::optional<seconds> transfer_timeout;
    /** The largest resource a download takes (larger fails with errc::too_large): 1…2^40 bytes; default 100 MiB. */
    std::optional<std::int64_t> max_bytes;
};

namespace detail {

/**
 * The C options for `options`: always a created object (never empty). Throws `error` (#VN_E_INVALID_ARG) for a
 * malformed header, an empty CA path or a value out of range, #VN_E_NOT_FOUND for a CA file that does not exist.
 */
inline handle<vn_http_options, vn_http_options_destroy> c_http_options(const http_options &options) {
    auto c = make_handle<vn_http_options, vn_http_options_destroy>(vn_http_options_create);
    for (const auto &header : options.headers) {
        check(vn_http_options_add_header(c.get(), c_string(header.first).get(), c_string(header.second).get()));
    }
    if (options.ca_file) check(vn_http_options_set_ca_file(c.get(), c_string(*options.ca_file).get()));
    if (options.connect_timeout) check(vn_http_options_set_connect_timeout(c.get(), options.connect_timeout->count()));
    if (options.stall_timeout) check(vn_http_options_set_stall_timeout(c.get(), options.stall_timeout->count()));
    if (options.transfer_timeout) {
        check(vn_http_options_set_transfer_timeout(c.get(), options.transfer_timeout->count()));
    }
    if (options.max_bytes) check(vn_http_options_set_max_bytes(c.get(), *options.max_bytes));
    return c;
}

}  // namespace detail

/**
 * A byte source (vn_source_*): the encoded audio a waveform, info or convert call, a player or an uploader reads,
 * from its start each time. The decoder is chosen by content, never by name. One call reads a source at a time
 * (`cancel()` is the one call another thread may make meanwhile). Move-only; a moved-from source holds nothing
 * (calls with it throw errc::misuse). A player that loaded the source keeps reading it after this object is
 * destroyed, until it loads another location.
 */
class source {
public:
    /** Reads up to `capacity` bytes into the buffer; returns how many (0 only at the end), or a negative value
     *  (or throws) on failure, which the reading call reports as errc::io. */
    using read_function = std::function<std::int64_t(void *buffer, std::size_t capacity)>;
    /** Moves to an absolute byte offset from the start; returns false (or throws) on failure (errc::io). */
    using seek_function = std::function<bool(std::int64_t offset)>;

    /**
     * A local file (vn_source_create_file). Throws `error`: errc::not_found, errc::permission, errc::io, and
     * errc::invalid_argument for a path that is not a regular file (a directory, FIFO, socket or device).
     */
    static source file(std::string_view path) {
        return source(detail::make_handle<vn_source, vn_source_destroy>(vn_source_create_file,
                                                                          detail::c_string(path).get()));
    }

    /** The bytes of a buffer, copied before this returns (vn_source_create_memory). Throws `error`
     *  (errc::no_memory). */
    static source memory(const std::vector<std::uint8_t> &bytes) { return memory_view(bytes.data(), bytes.size()); }

    /**
     * `size` bytes at `data`, copied before this returns (vn_source_create_memory copies them), so the caller's
     * buffer need only live during the call. Throws `error` (errc::invalid_argument for a NULL `data` with a
     * non-zero `size`, or a size above SIZE_MAX / 2; errc::no_memory).
     */
    static source memory_view(const void *data, std::size_t size) {
        return source(detail::make_handle<vn_source, vn_source_destroy>(vn_source_create_memory, data, size));
    }

    /**
     * Bytes from the host (vn_source_create_callbacks): a Matrix client decrypting an attachment, a client with its
     * own HTTP stack. `read` and `seek` are required (Ogg Opus lengths are read from the end of the stream); `size`
     * is the total in bytes when known. They run synchronously on the thread of the call reading the source (a
     * player's thread while a player plays it), one at a time. A read returning more than it was asked for counts
     * as a failure. The functions live until the library releases the source: when this object is destroyed, or
     * later when a player that loaded it moves on. Throws `error` (errc::invalid_argument for an empty function or
     * a negative size).
     */
    static source callbacks(read_function read, seek_function seek, std::optional<std::int64_t> size = std::nullopt) {
        if (!read || !seek) throw error(VN_E_INVALID_ARG, "a callbacks source needs both a read and a seek function");
        if (size && *size < 0) throw error(VN_E_INVALID_ARG, "the size of a callbacks source must be 0 or more bytes");
        auto box = std::make_unique<callback_box>(callback_box{std::move(read), std::move(seek)});
        vn_source *created = nullptr;
        // On success the library owns the box and calls release once; on failure it never calls it.
        detail::check(vn_source_create_callbacks(&callback_box::read_trampoline, &callback_box::seek_trampoline,
                                                 size ? *size : -1, box.get(), &callback_box::release, &created));
        box.release();
        return source(detail::handle<vn_source, vn_source_destroy>(created));
    }

    /**
     * An http:// or https:// URL (vn_source_create_url), through the media cache: the download starts at once on
     * the library's network thread, and reads wait for the bytes they need. Network failures arrive from the reads:
     * HTTP 401/403 errc::permission, 404/410 errc::not_found, 413 errc::too_large, other statuses, DNS, TLS, a
     * dropped or stalled connection errc::network. Throws `error` here for a URL that is not http(s) with a host or
     * bad `options` (errc::invalid_argument), errc::unsupported when libcurl cannot be loaded, errc::io or
     * errc::no_space when the temporary file cannot be made.
     */
    static source url(std::string_view address, const http_options &options = {}) {
        auto c_options = detail::c_http_options(options);
        return source(detail::make_handle<vn_source, vn_source_destroy>(
            vn_source_create_url, detail::c_string(address).get(), c_options.get()));
    }

    /**
     * Cancels the call reading this source on another thread (vn_source_cancel): a read of a URL waiting for the
     * network ends at once, so that call throws errc::cancelled within 100 ms. When no read waits (always so for
     * file, memory and callbacks sources) the next read fails instead, once: a long decode of a local note ends
     * there. Cancel only while the call to cancel runs. Any thread. Throws `error` (errc::misuse for a moved-from
     * source).
     */
    void cancel() const { detail::check(vn_source_cancel(source_.get())); }

    /** The C source, still owned (NULL when moved from). */
    vn_source *get() const noexcept { return source_.get(); }

private:
    /** A callbacks source's functions, owned by the library from creation until its release. */
    struct callback_box {
        read_function read;
        seek_function seek;

        static std::int64_t read_trampoline(void *user_data, void *buffer, std::size_t capacity) noexcept {
            try {
                std::int64_t got = static_cast<callback_box *>(user_data)->read(buffer, capacity);
                if (got < 0 || static_cast<std::uint64_t>(got) > capacity) return -1;
                return got;
            } catch (...) {
                return -1;
            }
        }
        static int seek_trampoline(void *user_data, std::int64_t offset) noexcept {
            try {
                return static_cast<callback_box *>(user_data)->seek(offset) ? 0 : -1;
            } catch (...) {
                return -1;
            }
        }
        static void release(void *user_data) noexcept { delete static_cast<callback_box *>(user_data); }
    };

    explicit source(detail::handle<vn_source, vn_source_destroy> handle) noexcept : source_(std::move(handle)) {}

    detail::handle<vn_source, vn_source_destroy> source_;
};

/**
 * The media cache (vn_cache_*): downloads kept on disk so a replay costs no network. Every URL source, player and
 * batch URL looks in it first. The settings are the process's, for every player and source made after the call.
 * Any thread.
 */
namespace cache {

/**
 * Sets the cache directory (made when first needed, with its parents, mode 0700); std::nullopt for the default,
 * `$XDG_CACHE_HOME/voicenote/media`, else `$HOME/.cache/voicenote/media`. Throws `error` (errc::invalid_argument
 * for an empty path or one that is not UTF-8).
 */
inline void set_directory(std::optional<std::string_view> path) {
    if (path) {
        detail::check(vn_cache_set_directory(detail::c_string(*path).get()));
    } else {
        detail::check(vn_cache_set_directory(nullptr));
    }
}

/** The cache directory in use. Throws `error` (errc::no_memory). */
inline std::string get_directory() {
    char *path = nullptr;
    detail::check(vn_cache_get_directory(&path));
    return detail::take_string(path);
}

/**
 * Sets the size limit in bytes, 0…10^12 (default 100 MB); entries over it are deleted now, the least recently
 * used first. 0 turns the cache off. Throws `error` (errc::invalid_argument outside the range; errc::io or
 * errc::permission when an entry cannot be deleted).
 */
inline void set_limit(std::int64_t bytes) { detail::check(vn_cache_set_limit(bytes)); }

/** The size limit in bytes. */
inline std::int64_t get_limit() {
    std::int64_t bytes = 0;
    detail::check(vn_cache_get_limit(&bytes));
    return bytes;
}

/**
 * The bytes the cache's entries (and files being written there) take on disk now; 0 before the directory exists.
 * Throws `error` (errc::io or errc::permission when the directory cannot be read).
 */
inline std::int64_t get_size() {
    std::int64_t bytes = 0;
    detail::check(vn_cache_get_size(&bytes));
    return bytes;
}

/** Deletes every entry (sources reading one keep reading it). Throws `error` (errc::io, errc::permission). */
inline void clear() { detail::check(vn_cache_clear()); }

}  // namespace cache

}  // namespace voicenote

#endif /* VOICENOTE_SOURCES_HPP */
