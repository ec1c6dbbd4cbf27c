/*
 * voicenote/queue.hpp: queue players' data sources (part of voicenote.hpp; include that). A player with a data
 * source asks it which location follows the current one; `player::set_data_source`, `player::use_messages` and
 * `player::next` (voicenote/player.hpp) are the calls that use these types.
 *
 * Header-only C++17 over the C API of voicenote.h and nothing else.
 */
#ifndef VOICENOTE_QUEUE_HPP
#define VOICENOTE_QUEUE_HPP

#include "core.hpp"
#include "sources.hpp"

#include <functional>
#include <optional>
#include <string_view>

namespace voicenote {

/** Which voice message follows the current one in a channel's messages (vn_next_scope). */
enum class next_scope : int {
    /** The next voice recording of the same message only. */
    same_message = VN_NEXT_SAME_MESSAGE,
    /** The same message's next one; else the first of the message right after it, when the same author sent it. */
    subsequent_from_user = VN_NEXT_SUBSEQUENT_FROM_USER,
    /** The next voice recording in time from anyone but the current user, up to a message with none. */
    consecutive = VN_NEXT_CONSECUTIVE
};

/**
 * A data source's answer (vn_queue_answer): which location plays after the current one. A data source receives
 * one by reference and may set it during its call only (the library copies what the setters are given); setting
 * nothing ends the queue, and a later setter replaces an earlier one. Not copyable or movable: it is a view of the
 * C answer, valid only during the data source's call.
 */
class queue_answer {
public:
    /** Wraps the C answer given to a data source (not owned). */
    explicit queue_answer(vn_queue_answer *answer) noexcept : answer_(answer) {}
    queue_answer(const queue_answer &) = delete;
    queue_answer &operator=(const queue_answer &) = delete;

    /**
     * Answers with a local path, a `file://` URL or an http(s) URL fetched without extra HTTP options, as
     * `player::load` takes it (vn_queue_answer_set_location()). Throws `error`: #VN_E_INVALID_ARG for an empty
     * location; #VN_E_MISUSE outside the data source's call.
     */
    void set_location(std::string_view location) {
        detail::check(vn_queue_answer_set_location(answer_, detail::c_string(location).get()));
    }

    /**
     * Answers with an http(s) URL, as `player::load_url` takes it (vn_queue_answer_set_url()): `options` are the
     * request headers, CA file and timeouts (copied); `key` names the media instead of the URL (its resume
     * position and cache entry), none for the URL itself. Throws `error`: #VN_E_INVALID_ARG for a URL that is not
     * http(s) or an empty key; #VN_E_MISUSE outside the data source's call.
     */
    void set_url(std::string_view url, const http_options &options = {}, std::optional<std::string_view> key = {}) {
        auto http = detail::c_http_options(options);
        std::optional<detail::c_string> c_key;
        if (key) c_key.emplace(*key);
        detail::check(vn_queue_answer_set_url(answer_, detail::c_string(url).get(), http.get(),
                                              c_key ? c_key->get() : nullptr));
    }

    /** The C answer (valid during the data source's call only). */
    vn_queue_answer *get() const noexcept { return answer_; }

private:
    vn_queue_answer *answer_;
};

/**
 * A queue player's data source: given the current item's location (as loaded, or as the data source answered it)
 * and its key (a URL's key or the URL, the absolute path, or a source's name), it answers with the location that
 * follows through `answer`, or sets nothing to end the queue. The views are valid during the call only.
 *
 * It runs on the player's decoder thread, with no library lock held, and may call any member of the player,
 * destroying it included (no call of it follows then). It may be asked more
 * than once per item (ahead of the end, when the audio is decoded, at the end): answer quickly, and the same way
 * each time. An exception escaping it (one of `queue_answer`'s setters refusing an answer, too) ends the queue
 * there, as setting nothing does.
 */
using queue_data_source =
    std::function<void(std::string_view current_location, std::string_view current_key, queue_answer &answer)>;

namespace detail {

/**
 * Whether this thread is inside a data source's call (on a player's decoder thread). A player destroyed there cannot
 * wait for its own decoder thread, which may still call the player's session hooks after the destroy returns: such a
 * player leaves its hooks allocated rather than free them under that thread.
 */
inline bool &inside_data_source() noexcept {
    static thread_local bool flag = false;
    return flag;
}

/**
 * A data source owned by the library as its `user_data`: `call` is the C hook, `release` deletes the box once
 * after the hook's last call (when the data source is replaced or unset, the player is destroyed, or setting it
 * failed).
 */
struct queue_data_source_box {
    queue_data_source next;

    static void call(void *user_data, const char *current_location, const char *current_key,
                     vn_queue_answer *answer) noexcept {
        auto *box = static_cast<queue_data_source_box *>(user_data);
        bool outer = std::exchange(inside_data_source(), true);
        try {
            queue_answer wrapped(answer);
            box->next(current_location ? std::string_view(current_location) : std::string_view(),
                      current_key ? std::string_view(current_key) : std::string_view(), wrapped);
        } catch (...) {
            // What was answered before the exception stands; nothing more: the queue ends here when nothing was.
        }
        inside_data_source() = outer;
    }
    static void release(void *user_data) noexcept { delete static_cast<queue_data_source_box *>(user_data); }
};

}  // namespace detail

}  // namespace voicenote

#endif /* VOICENOTE_QUEUE_HPP */
