/*
 * attachment.cpp: the attachment of a voice message, as a chat client sends it: its payload, then its upload. The
 * C++ layer's version of bindings/c/attachment.c.
 *
 * Usage:  attachment                          writes a short recording (a WAV tone) to a temporary directory and
 *                                             prints its payload (no network; what `make run` does)
 *         attachment FILE [--title T]         prints the voiceRecording payload of FILE
 *         attachment FILE --upload ENDPOINT [--header "Name: value"]... [--query NAME=VALUE]... [--raw] [--title T]
 *                                             uploads FILE and prints the uploaded payload
 *
 * What it shows:
 * - voicenote::payload::from_recording(): Stream's `voiceRecording` payload of a finished recording: title (the
 *   file name), asset_url (its file:// URL), file_size, mime_type, duration and 100 waveform levels. A client that
 *   has the recorder's finished event passes its duration and waveform, and nothing is decoded. set_field() changes
 *   a field (--title; the default run uses voicenote::recording_display_name(0), "Recording", as Stream names a
 *   message's first recording); to_json(2) prints it.
 * - voicenote::uploader: multipart/form-data to Stream's POST /channels/{type}/{id}/file, or with --raw the bare
 *   body to Matrix's /_matrix/media/v3/upload. Stream needs its `api_key` as a query parameter (--query
 *   api_key=KEY, upload_options::query) and `Authorization` and `Stream-Auth-Type: jwt` headers (--header, through
 *   upload_options::http); Matrix needs `Authorization: Bearer TOKEN` (voicenote::matrix_authorization()).
 * - Upload events (uploader::subscribe, on the library's event thread): pending, uploading with progress (printed
 *   on stderr), then uploaded with the payload whose asset_url is the server's (an https URL, or an mxc:// URI for
 *   Matrix), or failed with a status and a message naming the HTTP status. The local file is never changed or
 *   deleted, whatever happens.
 * - Errors: a failing call throws voicenote::error; its name(), code().message() and detail() say why.
 *
 * Build:  c++ -std=c++17 attachment.cpp $(pkg-config --cflags --libs voicenote) -pthread -o attachment
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(attachment PRIVATE voicenote::voicenote)
 * Exit status: 0 on success; 1 when a call or the upload fails (status and messages on stderr); 2 for a usage
 * error.
 */
#include <voicenote.hpp>
#include <voicenote/analysis.hpp>
#include <voicenote/attachments.hpp>
#include <voicenote/upload.hpp>

#include "sample_support.hpp"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

const auto stall_limit = std::chrono::seconds(60);  // how long the upload may go without an event before giving up

int usage(const char *problem) {
    if (problem) std::cerr << "attachment: " << problem << "\n";
    std::cerr << "usage: attachment [FILE [--title T]]\n"
                 "       attachment FILE --upload ENDPOINT [--header \"Name: value\"]... [--query NAME=VALUE]... "
                 "[--raw] [--title T]\n";
    return 2;
}

/** Reports a failed call with everything the library says about it; returns the exit status 1. */
int fail(const char *what, const voicenote::error &e) {
    std::cerr << "attachment: " << what << " failed: " << e.name() << " (" << e.code().message() << "): " << e.detail()
              << "\n";
    return 1;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The default run's recording: one second of a 440 Hz tone as 48 kHz mono 16-bit WAV */

bool write_tone(const std::string &path) {
    const std::uint32_t rate = 48000, frames = 48000;
    std::ofstream file(path, std::ios::binary);
    auto put = [&file](std::uint32_t value, int bytes) {
        for (int i = 0; i < bytes; i++) file.put(static_cast<char>((value >> (8 * i)) & 0xff));
    };
    file << "RIFF";
    put(36 + frames * 2, 4);
    file << "WAVEfmt ";
    put(16, 4);
    put(1, 2);         // PCM
    put(1, 2);         // mono
    put(rate, 4);
    put(rate * 2, 4);  // bytes per second
    put(2, 2);         // block align
    put(16, 2);        // bits
    file << "data";
    put(frames * 2, 4);
    for (std::uint32_t i = 0; i < frames; i++) {  // a triangle wave
        auto phase = static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 440 * 65536 / rate) & 0xffff);
        std::int32_t value = phase < 32768 ? phase - 16384 : 49152 - phase;
        put(static_cast<std::uint16_t>(static_cast<std::int16_t>(value / 2)), 2);
    }
    file.close();
    return static_cast<bool>(file);
}

/** Writes a tone to a temporary directory and prints its payload, titled as Stream titles a first recording. */
int default_run() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/vn-attachment-XXXXXX";
    std::vector<char> directory(pattern.begin(), pattern.end());
    directory.push_back('\0');
    if (!mkdtemp(directory.data())) {
        std::perror("attachment: mkdtemp");
        return 1;
    }
    std::string path = std::string(directory.data()) + "/voice.wav";
    int result = 1;
    if (!write_tone(path)) {
        std::perror("attachment: writing the tone");
    } else {
        try {
            auto payload = voicenote::payload::from_recording(path);  // no duration or waveform: read from the file
            payload.set_field(voicenote::payload_field::title, voicenote::recording_display_name(0));
            std::cout << payload.to_json(2) << "\n";
            result = 0;
        } catch (const voicenote::error &e) {
            result = fail("making the payload", e);
        }
    }
    unlink(path.c_str());
    rmdir(directory.data());
    return result;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Uploading */

/** What the upload's events say so far; written on the library's event thread, read here. */
struct progress_state {
    std::mutex mutex;
    std::condition_variable changed;
    unsigned long events = 0;  // every event, to tell a stall from progress
    bool ended = false;        // uploaded or failed arrived
    int last_percent = -1;     // the progress printed last
};

/** Uploads `path` with `payload` to `endpoint` and prints the uploaded payload; returns the exit status. */
int upload(const std::string &path, const voicenote::payload &payload, const std::string &endpoint,
           const voicenote::upload_options &options) {
    voicenote::uploader uploader(endpoint, options);
    progress_state state;
    // Runs on the library's event thread; prints progress and the end on stderr (the result goes to stdout).
    auto subscription = uploader.subscribe([&state](const voicenote::upload_event &event) {
        std::lock_guard<std::mutex> lock(state.mutex);
        state.events++;
        switch (event.state) {
        case voicenote::upload_state::pending:
            std::cerr << "upload: pending\n";
            break;
        case voicenote::upload_state::uploading: {
            int percent = static_cast<int>(std::lround(event.progress * 100.0));
            if (percent != state.last_percent) std::fprintf(stderr, "upload: %3d%%\n", percent);
            state.last_percent = percent;
            break;
        }
        case voicenote::upload_state::failed:
            std::cerr << "upload: failed: " << vn_status_name(event.status) << ": " << event.message << "\n";
            state.ended = true;
            break;
        case voicenote::upload_state::uploaded:
            std::cerr << "upload: done\n";
            state.ended = true;
            break;
        }
        state.changed.notify_all();
    });
    // Returns at once; what the file or the server says arrives as events.
    uploader.upload_file(path, payload);

    // Wait for the end; bounded: give up when no event at all came for stall_limit.
    std::unique_lock<std::mutex> lock(state.mutex);
    for (;;) {
        unsigned long seen = state.events;
        bool moved = state.changed.wait_for(lock, stall_limit, [&] { return state.ended || state.events != seen; });
        if (state.ended || !moved) break;
    }
    bool ended = state.ended;
    lock.unlock();
    if (!ended) {
        std::cerr << "attachment: no progress for " << stall_limit.count() << " s; giving up\n";
        return 1;  // destroying the uploader cancels the upload
    }

    // The outcome: the uploaded payload, or the failure's status and detail as a voicenote::error.
    try {
        std::cout << voicenote::payload::parse(uploader.result()).to_json(2) << "\n";
        return 0;
    } catch (const voicenote::error &e) {
        return fail("the upload", e);
    }
}

}  // namespace

int main(int argc, char **argv) {
    std::optional<std::string> file, title, endpoint;
    voicenote::upload_options options;
    options.http = voicenote::http_options{};
    bool raw = false;

    if (argc == 1) return default_run();
    for (int i = 1; i < argc; i++) {
        std::string argument = argv[i];
        if (argument == "--raw") {
            raw = true;
        } else if (argument == "--title" || argument == "--upload" || argument == "--header" || argument == "--query") {
            if (i + 1 >= argc) return usage("an option lacks its value");
            std::string value = argv[++i];
            if (argument == "--title") {
                title = value;
            } else if (argument == "--upload") {
                endpoint = value;
            } else if (argument == "--header") {
                auto header = sample::parse_header(value);
                if (!header) return usage("--header takes \"Name: value\"");
                options.http->headers.push_back(*header);
            } else {
                auto equals = value.find('=');
                if (equals == std::string::npos || equals == 0) return usage("--query takes NAME=VALUE");
                options.query.emplace_back(value.substr(0, equals), value.substr(equals + 1));
            }
        } else if (argument.size() > 1 && argument[0] == '-') {
            return usage("unknown option");
        } else if (!file) {
            file = argument;
        } else {
            return usage("one FILE only");
        }
    }
    if (!file) return usage("no FILE");
    if (!endpoint && (!options.http->headers.empty() || !options.query.empty() || raw))
        return usage("--header, --query and --raw need --upload ENDPOINT");
    options.mode = raw ? voicenote::upload_mode::raw : voicenote::upload_mode::multipart;

    try {
        // The payload: everything but the server's URL, read from the file (a recorder's duration and waveform
        // would be passed here).
        auto payload = voicenote::payload::from_recording(*file);
        if (title) payload.set_field(voicenote::payload_field::title, *title);
        if (!endpoint) {
            std::cout << payload.to_json(2) << "\n";
            return 0;
        }
        return upload(*file, payload, *endpoint, options);
    } catch (const voicenote::error &e) {
        return fail(endpoint ? "preparing the upload" : "making the payload", e);
    }
}
