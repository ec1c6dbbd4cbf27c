/*
 * harness.hpp: the small test harness the C++ tests share (header-only; each test is one .cpp file).
 *
 * - TEST(fn) runs one test function and counts it passed or failed; EXPECT(cond, message) records a failure with
 *   its line (the message is a stream expression: "got " << x) and keeps going; REQUIRE returns from the test.
 *   The summary line "<name>: N passed, N failed" ends every run.
 * - Every wait is bounded: a `waiter` re-checks a predicate under its mutex each time notify() is called, with a
 *   deadline on the steady clock. Code that changes what a waiter looks at calls notify() afterwards.
 * - A watchdog thread ends the process with a message when a test runs longer than its limit, so a deadlock in
 *   the library fails the run instead of hanging it.
 * - Fixtures: temporary directories removed with what they hold, a 440 Hz WAV tone, tools run by posix_spawnp
 *   (opusenc), and the ALSA `file` plugin as a speaker and a microphone.
 * - What several tests check the same way: an on_destroy witness of when a callback's captures go, the errc a call
 *   throws (error_of, expect_error), whole files, waits on files other processes write (inotify), and
 *   Tests/Servers/http_server.py run as a child process (http_server).
 */
#ifndef VOICENOTE_CPP_TEST_HARNESS_HPP
#define VOICENOTE_CPP_TEST_HARNESS_HPP

#include <voicenote.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace harness {

inline std::string &name() {
    static std::string value = "test";
    return value;
}
inline std::atomic<int> &failures() {
    static std::atomic<int> value{0};
    return value;
}
inline std::atomic<int> &passed() {
    static std::atomic<int> value{0};
    return value;
}
inline std::atomic<int> &failed() {
    static std::atomic<int> value{0};
    return value;
}

/** Records a failure of the running test. */
inline bool fail(const char *file, int line, const std::string &message) {
    std::cerr << "  FAIL " << file << ":" << line << ": " << message << std::endl;
    failures()++;
    return false;
}

/** The watchdog: ends the process when a test runs past its deadline. */
class watchdog {
public:
    watchdog() : thread_([this] { run(); }) {}
    ~watchdog() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    void arm(const std::string &test, std::chrono::seconds limit) {
        std::lock_guard<std::mutex> lock(mutex_);
        test_ = test;
        deadline_ = std::chrono::steady_clock::now() + limit;
        armed_ = true;
        changed_.notify_all();
    }
    void disarm() {
        std::lock_guard<std::mutex> lock(mutex_);
        armed_ = false;
        changed_.notify_all();
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopping_) {
            if (!armed_) {
                changed_.wait(lock);
            } else if (changed_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ &&
                       std::chrono::steady_clock::now() >= deadline_) {
                std::cerr << "  FAIL " << name() << ": " << test_ << " still running after its limit (a deadlock?)"
                          << std::endl;
                std::_Exit(3);
            }
        }
    }
    std::mutex mutex_;
    std::condition_variable changed_;
    std::string test_;
    std::chrono::steady_clock::time_point deadline_;
    bool armed_ = false;
    bool stopping_ = false;
    std::thread thread_;
};

inline watchdog &the_watchdog() {
    static watchdog instance;
    return instance;
}

/** Runs one test, bounded by `limit`, and counts it. */
inline void run(const char *test, void (*body)(), std::chrono::seconds limit = std::chrono::seconds(60)) {
    failures() = 0;
    the_watchdog().arm(test, limit);
    auto start = std::chrono::steady_clock::now();
    try {
        body();
    } catch (const std::exception &e) {
        fail(__FILE__, __LINE__, std::string(test) + " threw: " + e.what());
    }
    the_watchdog().disarm();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    if (failures() == 0) {
        passed()++;
        std::cout << "ok    " << test << " (" << ms << " ms)" << std::endl;
    } else {
        failed()++;
        std::cout << "FAIL  " << test << " (" << ms << " ms)" << std::endl;
    }
}

/** The summary line; the process's exit status. */
inline int finish() {
    std::cout << name() << ": " << passed() << " passed, " << failed() << " failed" << std::endl;
    return failed() == 0 ? 0 : 1;
}

/**
 * A bounded wait on a condition others change: they call notify() after a change; wait_until re-checks the
 * predicate under the mutex until it holds or the timeout passes.
 */
class waiter {
public:
    /** Wakes the waiters; under the mutex, so a waiter that returns and destroys the waiter never races it. */
    void notify() {
        std::lock_guard<std::mutex> lock(mutex_);
        changed_.notify_all();
    }
    /** Wakes the waiters from code that already holds `mutex()`. */
    void notify_locked() { changed_.notify_all(); }
    template <class Predicate>
    bool wait_until(Predicate predicate, std::chrono::milliseconds timeout = std::chrono::milliseconds(30000)) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, timeout, predicate);
    }
    /** The mutex to hold while changing what the predicate reads. */
    std::mutex &mutex() { return mutex_; }
    /** A copy of `value` (something callbacks change), read under the mutex. */
    template <class T>
    T read(const T &value) {
        std::lock_guard<std::mutex> lock(mutex_);
        return value;
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
};

/** A temporary directory ($TMPDIR/vn-cpp-<name>-XXXXXX), removed with all it holds when destroyed. */
class temp_directory {
public:
    explicit temp_directory(const std::string &label) {
        const char *base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/vn-cpp-" + label + "-XXXXXX";
        std::vector<char> buffer(pattern.begin(), pattern.end());
        buffer.push_back('\0');
        if (!mkdtemp(buffer.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
        path_ = buffer.data();
    }
    ~temp_directory() { run_tool({"rm", "-rf", path_}); }
    temp_directory(const temp_directory &) = delete;
    temp_directory &operator=(const temp_directory &) = delete;
    const std::string &path() const { return path_; }
    std::string operator/(const std::string &leaf) const { return path_ + "/" + leaf; }

    /** Runs a program found on PATH with stdout and stderr kept from the test's output; returns its exit status. */
    static int run_tool(const std::vector<std::string> &arguments) {
        std::vector<char *> argv;
        for (const auto &argument : arguments) argv.push_back(const_cast<char *>(argument.c_str()));
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        pid_t pid = 0;
        int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (spawned != 0) return -1;
        int status = 0;
        if (waitpid(pid, &status, 0) != pid) return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    std::string path_;
};

/** Writes `seconds` of a 440 Hz triangle at 48 kHz mono 16-bit as a WAV file. */
inline bool write_tone(const std::string &path, double seconds, bool raw = false) {
    std::ofstream out(path, std::ios::binary);
    auto put = [&out](uint32_t value, int bytes) {
        for (int i = 0; i < bytes; i++) out.put(static_cast<char>((value >> (8 * i)) & 0xff));
    };
    const uint32_t rate = 48000;
    auto frames = static_cast<uint32_t>(seconds * rate);
    if (!raw) {
        out << "RIFF";
        put(36 + frames * 2, 4);
        out << "WAVEfmt ";
        put(16, 4);
        put(1, 2);
        put(1, 2);
        put(rate, 4);
        put(rate * 2, 4);
        put(2, 2);
        put(16, 2);
        out << "data";
        put(frames * 2, 4);
    }
    for (uint32_t i = 0; i < frames; i++) {
        auto phase = static_cast<uint32_t>((static_cast<uint64_t>(i) * 440 * 65536 / rate) & 0xffff);
        int32_t value = phase < 32768 ? static_cast<int32_t>(phase) - 16384 : 49152 - static_cast<int32_t>(phase);
        put(static_cast<uint16_t>(static_cast<int16_t>(value / 2)), 2);
    }
    return static_cast<bool>(out);
}

/** A note of `seconds` of the tone, encoded by opusenc into `path`. */
inline bool write_note(const temp_directory &directory, double seconds, const std::string &path) {
    std::string wav = directory / "tone.wav";
    return write_tone(wav, seconds) && temp_directory::run_tool({"opusenc", "--quiet", wav, path}) == 0;
}

/** An ALSA `file` plugin speaker writing raw samples to `output` (device name "vn_spk"). */
inline std::string speaker_configuration(const std::string &output) {
    return "pcm.vn_spk { type file slave.pcm { type null } file \"" + output + "\" format raw perm 0644 }";
}

/** An ALSA `file` plugin microphone reading raw 48 kHz mono samples from `input` (device name "vn_mic"). */
inline std::string microphone_configuration(const std::string &input) {
    return "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"" + input + "\" format raw }";
}

/** Frames (16-bit mono) written to a raw file so far. */
inline long long frames_written(const std::string &path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 ? static_cast<long long>(info.st_size) / 2 : -1;
}

/** The sample rate of the tone, the file speaker and the file microphone. */
constexpr double rate_hz = 48000;

/** Options for a player on the file speaker ("vn_spk") writing raw frames to `output`. */
inline voicenote::player_options speaker(const std::string &output) {
    voicenote::player_options options;
    options.device = "vn_spk";
    options.device_configuration = speaker_configuration(output);
    return options;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Witnesses and errors */

/** Calls `action` when destroyed: a witness of when a callback's (or a function's) captures are destroyed. */
struct on_destroy {
    std::function<void()> action;
    ~on_destroy() {
        if (action) action();
    }
};

/** A witness that sets `released` (under the waiter's mutex) and wakes `waiter` when its last owner lets it go. */
inline std::shared_ptr<on_destroy> release_witness(waiter &notified, bool &released) {
    auto witness = std::make_shared<on_destroy>();
    witness->action = [&notified, &released] {
        {
            std::lock_guard<std::mutex> lock(notified.mutex());
            released = true;
        }
        notified.notify();
    };
    return witness;
}

/** A witness that sets `released` (a bool, or an atomic one) when its last owner lets it go. */
template <class Flag>
std::shared_ptr<on_destroy> release_witness(Flag &released) {
    auto witness = std::make_shared<on_destroy>();
    witness->action = [&released] { released = true; };
    return witness;
}

/**
 * A subscriber that ends its own subscription from inside its callback (no wait, and no later call): it counts its
 * calls, and the release of its callback's captures sets `released`, both under the waiter's mutex. The first event
 * may come on the event thread before subscribe() has returned: the callback takes the subscription's mutex first.
 */
class self_ending_subscriber {
public:
    harness::waiter waiter;
    int calls = 0;
    bool released = false;

    /** Subscribes to `object` (a player, recorder, uploader, test_source...). */
    template <class Object>
    void subscribe(Object &object) {
        auto witness = release_witness(waiter, released);
        std::lock_guard<std::mutex> hold(self_mutex_);
        self_ = object.subscribe([this, witness](const auto &) {
            {
                std::lock_guard<std::mutex> lock(waiter.mutex());
                calls++;
            }
            std::lock_guard<std::mutex> lock(self_mutex_);
            self_.reset();  // ends it from inside its own callback
        });
    }
    /** Waits until the callback ran and was released. */
    bool wait_called_and_released() { return waiter.wait_until([this] { return calls >= 1 && released; }); }

private:
    std::mutex self_mutex_;
    std::optional<voicenote::subscription> self_;
};

/**
 * Runs `body` and returns the errc of the voicenote::error it throws (std::nullopt when it does not throw);
 * `message`, when given, receives the error's what().
 */
template <class Body>
std::optional<voicenote::errc> error_of(Body body, std::string *message = nullptr) {
    try {
        body();
    } catch (const voicenote::error &e) {
        if (message) *message = e.what();
        return static_cast<voicenote::errc>(e.status());
    }
    return std::nullopt;
}

/** A status's name, for messages. */
inline std::string name_of(std::optional<voicenote::errc> code) {
    return code ? vn_status_name(static_cast<int>(*code)) : "no error";
}

/**
 * Runs `action`, expecting it to throw voicenote::error with `want` (a failure of the running test otherwise);
 * returns the error's detail ("" if none).
 */
template <class Action>
std::string expect_error(voicenote::errc want, Action action, const std::string &what) {
    try {
        action();
        fail(__FILE__, __LINE__, what + ": did not throw");
    } catch (const voicenote::error &e) {
        if (e.code() != want) {
            fail(__FILE__, __LINE__,
                 what + ": threw " + e.name() + " (" + e.detail() + "), want " +
                     vn_status_name(static_cast<int>(want)));
        }
        return e.detail();
    }
    return "";
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Files, and waits on files other processes write */

/** The bytes of a whole file (none when it cannot be read). */
inline std::vector<std::uint8_t> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/** Whether the file at `path` contains `text`. */
inline bool file_contains(const std::string &path, const std::string &text) {
    std::ifstream in(path, std::ios::binary);
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return content.find(text) != std::string::npos;
}

/** The checkout: $VOICENOTE_REPO, else this header's path without "bindings/cpp/tests/harness.hpp". */
inline std::string repo_root() {
    const char *from_environment = std::getenv("VOICENOTE_REPO");
    if (from_environment && *from_environment) return from_environment;
    std::string here = __FILE__;
    auto tail = here.find("bindings/cpp/tests/harness.hpp");
    return tail == std::string::npos || tail == 0 ? "." : here.substr(0, tail);
}

/** Milliseconds left until `deadline` (0 when it has passed). */
inline int ms_left(std::chrono::steady_clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return left.count() <= 0 ? 0 : left.count() > INT_MAX ? INT_MAX : static_cast<int>(left.count());
}

/**
 * Waits until `done()` holds, at most `timeout`, for a condition on files another process or a library thread
 * writes in `directories`: inotify on each of them (added as soon as it exists) wakes the check, so there is no
 * polling interval. Returns whether it held.
 */
template <class Predicate>
bool wait_for_files(const std::vector<std::string> &directories, Predicate done, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return false;
    std::vector<bool> watched(directories.size(), false);
    auto watch = [&] {
        for (std::size_t i = 0; i < directories.size(); i++) {
            if (!watched[i]) {
                watched[i] = inotify_add_watch(fd, directories[i].c_str(),
                                               IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE) >= 0;
            }
        }
    };
    watch();
    bool held = done();
    while (!held) {
        pollfd p{fd, POLLIN, 0};
        int ready = poll(&p, 1, ms_left(deadline));
        if (ready < 0 && errno == EINTR) continue;
        char events[4096];
        while (read(fd, events, sizeof events) > 0) {
        }
        watch();
        held = done();
        if (ready <= 0) break;  // the deadline passed (the last check above still counts)
    }
    close(fd);
    return held;
}

/** Waits until the file at `path` contains every fragment, at most `timeout` (wait_for_files). */
inline bool wait_for_file_containing(const std::string &path, const std::vector<std::string> &fragments,
                                     std::chrono::milliseconds timeout) {
    return wait_for_files({path.substr(0, path.rfind('/'))}, [&] {
        for (const auto &fragment : fragments)
            if (!file_contains(path, fragment)) return false;
        return true;
    }, timeout);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The test HTTP server */

/**
 * Tests/Servers/http_server.py in a child process, serving `root` on a free port, its request log at
 * <root>/requests.jsonl: started as bindings/c/tests/child.h starts it (stdin and stdout on pipes,
 * --exit-with-stdin, so it also ends when this process dies; "PORT <n>" read with a deadline) and stopped by its
 * pid (SIGTERM, its stdout read to its end with a deadline, then SIGKILL if it has not exited). When it cannot
 * start, ready() is false and error() says why.
 */
class http_server {
public:
    explicit http_server(std::string root) : root_(std::move(root)), log_path_(root_ + "/requests.jsonl") {
        std::string script = repo_root() + "/Tests/Servers/http_server.py";
        if (access(script.c_str(), R_OK) != 0) {
            error_ = "no " + script + " (set VOICENOTE_REPO)";
            return;
        }
        std::vector<std::string> arguments = {"python3", script, "--root", root_, "--log", log_path_, "--port", "0",
                                              "--exit-with-stdin"};
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0) {
            error_ = "pipe failed";
            return;
        }
        if (pipe2(out, O_CLOEXEC) != 0) {
            close(in[0]);
            close(in[1]);
            error_ = "pipe failed";
            return;
        }
        std::vector<char *> argv;
        for (auto &argument : arguments) argv.push_back(&argument[0]);
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
        int spawned = posix_spawnp(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(in[0]);
        close(out[1]);
        to_child_ = in[1];
        from_child_ = out[0];
        if (spawned != 0) {
            pid_ = -1;
            close_pipes();
            error_ = "cannot start python3: " + std::string(std::strerror(spawned));
            return;
        }
        std::string line;
        int port = 0;
        if (!read_line(std::chrono::steady_clock::now() + std::chrono::seconds(10), line) ||
            std::sscanf(line.c_str(), "PORT %d", &port) != 1 || port <= 0) {
            stop();
            error_ = "http_server.py did not print PORT <n> within 10 s";
            return;
        }
        base_url_ = "http://127.0.0.1:" + std::to_string(port);
    }
    ~http_server() { stop(); }
    http_server(const http_server &) = delete;
    http_server &operator=(const http_server &) = delete;

    /** Whether it is listening. */
    bool ready() const { return !base_url_.empty(); }
    /** Why it is not ready. */
    const std::string &error() const { return error_; }
    /** http://127.0.0.1:<port> */
    const std::string &base_url() const { return base_url_; }
    /** The directory it serves (uploads land in <root>/uploads/<n>.bin). */
    const std::string &root() const { return root_; }
    /** The request log; `<log>.receiving` has a line for each /stall/ response that holds its connection. */
    const std::string &log_path() const { return log_path_; }

    /** SIGTERM, then its stdout's end awaited at most 5 s, SIGKILL after that; returns its exit status or -1. */
    int stop() {
        if (pid_ <= 0) return 0;
        kill(pid_, SIGTERM);
        bool exited = read_to_end(std::chrono::steady_clock::now() + std::chrono::seconds(5));
        if (!exited) kill(pid_, SIGKILL);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        close_pipes();
        return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    /**
     * The first complete line of the request log holding every fragment, waiting up to `timeout` for the server to
     * write it (wait_for_files on its root). "" when none.
     */
    std::string logged(const std::vector<std::string> &fragments,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) const {
        std::string found;
        wait_for_files({root_}, [&] {
            found = find_line(fragments);
            return !found.empty();
        }, timeout);
        return found;
    }

private:
    std::string find_line(const std::vector<std::string> &fragments) const {
        std::ifstream in(log_path_);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::size_t start = 0;
        for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
            std::string line = text.substr(start, end - start);
            bool all = true;
            for (const auto &fragment : fragments) all = all && line.find(fragment) != std::string::npos;
            if (all) return line;
        }
        return "";
    }
    bool read_line(std::chrono::steady_clock::time_point deadline, std::string &line) {
        char c = 0;
        while (true) {
            pollfd p{from_child_, POLLIN, 0};
            int ready = poll(&p, 1, ms_left(deadline));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return false;
            ssize_t got = read(from_child_, &c, 1);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return false;
            if (c == '\n') return true;
            line.push_back(c);
        }
    }
    bool read_to_end(std::chrono::steady_clock::time_point deadline) {
        char buffer[512];
        while (true) {
            pollfd p{from_child_, POLLIN, 0};
            int ready = poll(&p, 1, ms_left(deadline));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return false;
            ssize_t got = read(from_child_, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return true;
        }
    }
    void close_pipes() {
        if (to_child_ >= 0) close(to_child_);
        if (from_child_ >= 0) close(from_child_);
        to_child_ = from_child_ = -1;
    }

    std::string root_, log_path_, base_url_, error_;
    pid_t pid_ = -1;
    int to_child_ = -1, from_child_ = -1;
};

}  // namespace harness

#define EXPECT(cond, message)                                                                                    \
    ((cond) ? true : harness::fail(__FILE__, __LINE__, [&] {                                                     \
        std::ostringstream text_;                                                                                \
        text_ << #cond << ": " << message;                                                                       \
        return text_.str();                                                                                      \
    }()))
#define REQUIRE(cond, message)                                                                                   \
    do {                                                                                                         \
        if (!EXPECT(cond, message)) return;                                                                      \
    } while (0)
#define TEST(fn) harness::run(#fn, fn)

#endif /* VOICENOTE_CPP_TEST_HARNESS_HPP */
