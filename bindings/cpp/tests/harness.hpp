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
 */
#ifndef VOICENOTE_CPP_TEST_HARNESS_HPP
#define VOICENOTE_CPP_TEST_HARNESS_HPP

#include <voicenote.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
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
