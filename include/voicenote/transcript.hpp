/*
 * voicenote/transcript.hpp: transcripts (vn_transcriber, vn_transcription): a note's words with their times,
 * recognised on this machine by PocketSphinx or by a recogniser the host writes (recogniser::host); seeking a
 * player to a word; the transcript a payload carries. Part of voicenote.hpp.
 */
#ifndef VOICENOTE_TRANSCRIPT_HPP
#define VOICENOTE_TRANSCRIPT_HPP

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attachments.hpp"
#include "core.hpp"
#include "player.hpp"
#include "sources.hpp"

namespace voicenote {

/** A recognised word (vn_transcript_word), copied. */
struct transcript_word {
    /** The word. */
    std::string text;
    /** Where it begins, in seconds from the note's start. */
    double start = 0;
    /** Where it ends. */
    double end = 0;
    /** How sure the recogniser is, 0…1. */
    double confidence = 0;
};

/** A note's words and the recogniser that heard them. */
struct transcript {
    /** The recogniser's identity ("pocketsphinx/en-us", or a host's). */
    std::string recogniser;
    /** The words, by start time. */
    std::vector<transcript_word> words;
    /** The words joined by spaces. */
    std::string text;
};

/** What a transcription event tells (vn_transcription_event_kind). */
enum class transcription_event_kind : int {
    words = VN_TRANSCRIPTION_EVENT_WORDS,       /**< words recognised since the last event */
    finished = VN_TRANSCRIPTION_EVENT_FINISHED, /**< the whole transcript; the last event */
    failed = VN_TRANSCRIPTION_EVENT_FAILED      /**< the transcription failed (errc::cancelled after cancel()) */
};

/** A transcription's event (vn_transcription_event), copied out of the library. */
struct transcription_event {
    /** What happened. */
    transcription_event_kind kind = transcription_event_kind::words;
    /** words: the new words; finished: every word. */
    std::vector<transcript_word> words;
    /** finished: the words joined by spaces. */
    std::string text;
    /** finished: read from the media cache (no audio decoded). */
    bool cached = false;
    /** failed: the `VN_E_*` status; else VN_OK. */
    int status = VN_OK;
    /** failed: the detail. */
    std::string message;
    /** finished: the identity of the recogniser that made it. */
    std::string recogniser;

    /** `status` as an error code in voicenote's category (empty for VN_OK). */
    std::error_code code() const noexcept { return detail::status_code(status); }
};

namespace detail {

inline transcription_event to_transcription_event(const vn_transcription_event &event) {
    transcription_event result;
    result.kind = static_cast<transcription_event_kind>(event.kind);
    for (std::size_t i = 0; event.words && i < event.word_count; i++) {
        const vn_transcript_word &word = event.words[i];
        result.words.push_back({copy_string(word.text), word.start_s, word.end_s, word.confidence});
    }
    result.text = copy_string(event.text);
    result.cached = event.cached != 0;
    result.status = event.status;
    result.message = copy_string(event.message);
    result.recogniser = copy_string(event.recogniser);
    return result;
}

}  // namespace detail

/**
 * One note's recognition in a host's recogniser: feed() gets mono 16-bit samples at the recogniser's rate and
 * returns the words found since its last answer; finish() the last words. An exception thrown by either fails the
 * transcription: a voicenote::error with its status, anything else as errc::internal.
 */
class recognition_session {
public:
    virtual ~recognition_session() = default;
    /** The next samples (valid during the call); the words found since the last answer. */
    virtual std::vector<transcript_word> feed(const std::int16_t *samples, std::size_t count) = 0;
    /** The note has ended; its last words. */
    virtual std::vector<transcript_word> finish() = 0;
};

/**
 * A speech recogniser (vn_transcriber): PocketSphinx, or the host's own. Move-only; transcriptions made with it keep
 * it alive to their end.
 */
class recogniser {
public:
    /** PocketSphinx with the model in `model_dir` (empty: Debian's) for `language` (empty: en-us). Loaded when the
     *  first transcription begins; where it is missing transcriptions fail with errc::unsupported. */
    static recogniser pocketsphinx(std::string_view model_dir = {}, std::string_view language = {}) {
        detail::c_string_or_null directory(model_dir.empty() ? std::nullopt : std::optional<std::string_view>(model_dir));
        detail::c_string_or_null name(language.empty() ? std::nullopt : std::optional<std::string_view>(language));
        return recogniser(detail::make_handle<vn_transcriber, vn_transcriber_destroy>(
            vn_transcriber_create_pocketsphinx, directory.get(), name.get()));
    }

    /** A host's recogniser named `identity` taking `sample_rate` Hz: `begin` makes a session per note (on the
     *  transcription's thread). */
    static recogniser host(std::string_view identity, int sample_rate,
                           std::function<std::unique_ptr<recognition_session>()> begin) {
        if (!begin) throw error(VN_E_INVALID_ARG, "begin is empty");
        auto owned = std::make_unique<host_hooks>(host_hooks{std::move(begin)});
        vn_transcriber *made = nullptr;
        detail::check(vn_transcriber_create_callbacks(detail::c_string(identity).get(), sample_rate, &host_hooks::begin_hook,
                                                      &host_hooks::feed_hook, &host_hooks::finish_hook,
                                                      &host_hooks::end_hook, owned.get(), &host_hooks::release, &made));
        owned.release();  // the library owns it now and calls release once
        return recogniser(detail::handle<vn_transcriber, vn_transcriber_destroy>(made));
    }

    /** The C recogniser, still owned. */
    vn_transcriber *get() const noexcept { return transcriber_.get(); }

private:
    struct host_hooks {
        std::function<std::unique_ptr<recognition_session>()> begin;

        static int failure() noexcept {
            try {
                throw;
            } catch (const error &e) {
                return e.status() < 0 ? e.status() : VN_E_INTERNAL;
            } catch (...) {
                return VN_E_INTERNAL;
            }
        }
        static int add(vn_transcript_words *words, const std::vector<transcript_word> &found) {
            for (const auto &word : found) {
                detail::check(vn_transcript_words_add(words, detail::c_string(word.text).get(), word.start, word.end,
                                                      word.confidence));
            }
            return VN_OK;
        }
        static int begin_hook(void *user_data, void **out_session) noexcept {
            try {
                *out_session = static_cast<host_hooks *>(user_data)->begin().release();
                return *out_session ? VN_OK : VN_E_INTERNAL;
            } catch (...) {
                return failure();
            }
        }
        static int feed_hook(void *, void *session, const std::int16_t *samples, std::size_t count,
                             vn_transcript_words *words) noexcept {
            try {
                return add(words, static_cast<recognition_session *>(session)->feed(samples, count));
            } catch (...) {
                return failure();
            }
        }
        static int finish_hook(void *, void *session, vn_transcript_words *words) noexcept {
            try {
                return add(words, static_cast<recognition_session *>(session)->finish());
            } catch (...) {
                return failure();
            }
        }
        static void end_hook(void *, void *session) noexcept { delete static_cast<recognition_session *>(session); }
        static void release(void *user_data) noexcept { delete static_cast<host_hooks *>(user_data); }
    };

    explicit recogniser(detail::handle<vn_transcriber, vn_transcriber_destroy> made) : transcriber_(std::move(made)) {}

    detail::handle<vn_transcriber, vn_transcriber_destroy> transcriber_;
};

/**
 * One note's transcription (vn_transcription): subscribe, start(), then words arrive as each utterance is
 * recognised, and one finished (or failed) event ends it. Kept in the media cache: asking again is a cache read.
 * Move-only; destroying it cancels it (without waiting for a host session that blocks).
 */
class transcription {
public:
    /** A transcription of `location` (a path, file:// or http(s) URL) by `by`. */
    transcription(std::string_view location, const recogniser &by, const http_options &options = {})
        : transcription_(create(location, by, options, nullptr)) {}

    /** The same, its events delivered through `loop`. */
    transcription(std::string_view location, const recogniser &by, const http_options &options, const event_loop &loop)
        : transcription_(create(location, by, options, loop.get())) {}

    /** Calls `callback` for each event from now on (subscribe before start()). */
    subscription subscribe(std::function<void(const transcription_event &)> callback) {
        return detail::subscribe(vn_transcription_subscribe, transcription_.get(), std::move(callback),
                                 &detail::to_transcription_event);
    }

    /** Starts it on its own thread. Throws errc::misuse when started before. */
    void start() { detail::check(vn_transcription_start(transcription_.get())); }

    /** Ends it at its next piece of audio with a failed event (errc::cancelled). */
    void cancel() { detail::check(vn_transcription_cancel(transcription_.get())); }

    /** Waits for the end (std::nullopt: as long as it takes) and returns the transcript as JSON. Throws errc::busy
     *  when the timeout passed first, the failure's error when it failed. */
    std::string wait_json(std::optional<seconds> timeout = std::nullopt) {
        char *json = nullptr;
        detail::check(vn_transcription_wait(transcription_.get(), detail::timeout_ms(timeout), &json));
        return detail::take_string(json);
    }

    /** The C transcription, still owned. */
    vn_transcription *get() const noexcept { return transcription_.get(); }

private:
    static detail::handle<vn_transcription, vn_transcription_destroy> create(std::string_view location,
                                                                             const recogniser &by,
                                                                             const http_options &options,
                                                                             vn_event_loop *loop) {
        auto http = detail::c_http_options(options);
        return detail::make_handle<vn_transcription, vn_transcription_destroy>(
            vn_transcription_create, detail::c_string(location).get(), by.get(), http.get(), loop);
    }

    detail::handle<vn_transcription, vn_transcription_destroy> transcription_;
};

/**
 * The transcript of one note, waited for (std::nullopt: as long as it takes) on the calling thread: the
 * transcription's events go to a loop of this call's own, dispatched here, so it needs no other thread to deliver
 * them (it may be called from inside any voicenote callback). Throws the failure's error, or errc::busy when
 * `timeout` passed first (the transcription is then cancelled).
 */
inline transcript transcribe(std::string_view location, const recogniser &by, std::optional<seconds> timeout = std::nullopt,
                             const http_options &options = {}) {
    event_loop loop;
    transcription job(location, by, options, loop);
    std::optional<transcription_event> last;
    subscription events = job.subscribe([&last](const transcription_event &event) {
        if (event.kind != transcription_event_kind::words) last = event;
    });
    job.start();
    const auto deadline = timeout ? std::optional(std::chrono::steady_clock::now() +
                                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(*timeout))
                                  : std::nullopt;
    while (!last) {
        std::optional<seconds> left;
        if (deadline) {
            left = std::chrono::duration_cast<seconds>(*deadline - std::chrono::steady_clock::now());
            if (left->count() <= 0) {
                job.cancel();
                throw error(VN_E_BUSY, "the transcription did not end within the timeout (it was cancelled)");
            }
        }
        if (loop.wait(left)) loop.dispatch();
    }
    if (last->kind == transcription_event_kind::failed) throw error(last->status, last->message);
    return transcript{last->recogniser, last->words, last->text};
}

/** Seeks `to` to `word`, 50 ms before its start (vn_player_seek_to_word()). */
inline void seek_to_word(player &to, const transcript_word &word) {
    vn_transcript_word c_word{word.text.c_str(), word.start, word.end, word.confidence};
    detail::check(vn_player_seek_to_word(to.get(), &c_word));
}

/** The transcript `from` carries as JSON (vn_payload_copy_transcript()), or std::nullopt. */
inline std::optional<std::string> transcript_json(const payload &from) {
    char *json = nullptr;
    int status = vn_payload_copy_transcript(from.get(), &json);
    if (status == VN_E_NOT_FOUND) return std::nullopt;
    detail::check(status);
    return detail::take_string(json);
}

/** Sets the transcript `to` carries from the JSON of transcription::wait_json() (std::nullopt removes it). */
inline void set_transcript_json(payload &to, const std::optional<std::string> &json) {
    detail::check(vn_payload_set_transcript(to.get(), json ? json->c_str() : nullptr));
}

}  // namespace voicenote

#endif /* VOICENOTE_TRANSCRIPT_HPP */
