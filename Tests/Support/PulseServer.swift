import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private PulseAudio server for one test: a real-time microphone on a machine with no sound card (STYLE.md,
/// "Tests"). It has one null sink (`vn_null`, 48 kHz mono by default) whose monitor source carries whatever is
/// played into the sink, and a native-protocol socket in its own short temporary directory, with anonymous auth.
/// The server and every client it starts get their own `HOME`, `XDG_RUNTIME_DIR` and `PULSE_RUNTIME_PATH`, so no
/// user session is touched; running as root works (pulseaudio only warns). Tests that use it must be serialized.
///
///     let server = try PulseServer()
///     try server.warm()                       // optional: a low-latency stream kept running
///     let config = server.alsaConfiguration(pcmName: "vn_rt")   // open "vn_rt" with snd_pcm_open_lconf
///     let player = try server.play(wavPath)
///     ...
///     server.kill()                           // SIGKILL by pid: device loss for its clients
///     server.stop()                           // also done by deinit
public final class PulseServer: @unchecked Sendable {
    /// The server's private directory (home, runtime directory, socket, log); removed by `stop`.
    public let directory: String
    /// The native-protocol socket.
    public let socketPath: String
    /// The null sink's name; its monitor source is `monitorSource`.
    public let sinkName: String
    /// The null sink's rate and channel count.
    public let rate: Int, channels: Int

    /// `unix:<socket>`, for `--server=` and the ALSA pulse plugin's `server`.
    public var address: String { "unix:" + socketPath }
    /// The monitor source of the null sink: a microphone that hears what is played into the sink.
    public var monitorSource: String { sinkName + ".monitor" }
    /// The pulseaudio process id.
    public var pid: Int32 { daemon.pid }
    /// What pulseaudio logged so far (info level), for failure messages.
    public var log: String { daemon.errorText }

    private let daemon: Child
    private let lock = NSLock()
    private var clients: [Child] = []
    private var stopped = false

    /// Starts `pulseaudio` and returns once it has logged "Daemon startup complete" (or throws after `timeout`
    /// seconds, with its log).
    public init(sinkName: String = "vn_null", rate: Int = 48_000, channels: Int = 1, timeout: Double = 15) throws {
        var template = Array("/tmp/vnpa-XXXXXX".utf8CString)   // short: a socket path must fit in 107 bytes
        guard let made = mkdtemp(&template) else { throw FixtureError(message: "mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        socketPath = directory + "/native"
        self.sinkName = sinkName
        self.rate = rate
        self.channels = channels
        for sub in ["home", "run", "run/pulse"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        do {
            // norewinds=1: with default arguments the idle null sink renders its first 2 s block ahead, before any
            // capture stream can connect, so audio played into it at the start is lost for every client (measured:
            // `arecord -D pulse` loses the same 1.46 s as our recorder on a fresh server); without rewinds it is not.
            daemon = try Child(["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no",
                                "--log-target=stderr", "--log-level=info",
                                "--load=module-null-sink sink_name=\(sinkName) rate=\(rate) channels=\(channels)"
                                    + " norewinds=1",
                                "--load=module-native-protocol-unix auth-anonymous=1 socket=\(socketPath)"],
                               environment: Self.environment(directory))
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let started = daemon.wait(timeout: timeout) { $0.errorText.contains("Daemon startup complete") || $0.exited }
        guard started, !daemon.exited else {
            let log = daemon.errorText
            stop()
            throw FixtureError(message: "pulseaudio did not start within \(timeout) s:\n\(log)")
        }
    }

    deinit { stop() }

    /// ALSA configuration text defining `pcm.<pcmName>` as this server's `device` (the monitor source by
    /// default) through the ALSA pulse plugin; open it with `snd_pcm_open_lconf`.
    public func alsaConfiguration(pcmName: String, device: String? = nil) -> String {
        "pcm.\(pcmName) { type pulse server \"\(address)\" device \"\(device ?? monitorSource)\" }"
    }

    /// Starts a low-latency recorder (`parec --latency-msec=10`) on the monitor and waits until its first data
    /// arrives. It keeps running until `stop`: while it does, the idle null sink runs with short blocks and new
    /// streams start within tens of milliseconds. (Needed on a null sink with default arguments, where the first
    /// data of every stream would come ~1.8 s late; with this fixture's norewinds=1 a fresh server is as quick.)
    public func warm(timeout: Double = 15) throws {
        let recorder = try client(["parec", "--server=\(address)", "--device=\(monitorSource)", "--latency-msec=10",
                                   "--raw", "--format=s16le", "--rate=\(rate)", "--channels=\(channels)"])
        guard recorder.wait(timeout: timeout, { $0.outputBytes > 0 || $0.exited }), !recorder.exited else {
            throw FixtureError(message: "parec got no data within \(timeout) s: \(recorder.errorText)\n\(log)")
        }
    }

    /// Records what the null sink plays into `path` (raw S16_LE at the sink's rate and channels) until `stop`, with a
    /// low-latency `parec` (which warms the sink as `warm` does); returns once its first data is in the file.
    public func record(to path: String, timeout: Double = 15) throws {
        let recorder = try client(["parec", "--server=\(address)", "--device=\(monitorSource)", "--latency-msec=10",
                                   "--raw", "--format=s16le", "--rate=\(rate)", "--channels=\(channels)", path])
        let arrived = eventually(seconds: timeout, pollMicroseconds: 2000) {
            recorder.exited || ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > 0
        }
        guard arrived, !recorder.exited else {
            throw FixtureError(message: "parec wrote nothing to \(path) within \(timeout) s: \(recorder.errorText)\n\(log)")
        }
    }

    /// Plays an audio file into the null sink with `paplay`; returns the running client (stopped by `stop`).
    @discardableResult
    public func play(_ path: String) throws -> Child {
        try client(["paplay", "--server=\(address)", "--device=\(sinkName)", path])
    }

    /// Runs `pactl` on this server and returns its standard output; throws with its errors when it fails or does not
    /// end within `timeout` seconds.
    @discardableResult
    public func pactl(_ arguments: [String], timeout: Double = 10) throws -> String {
        let child = try client(["pactl", "--server=\(address)"] + arguments)
        guard child.wait(timeout: timeout, { $0.exited && $0.outputEnded }) else {
            child.signal(SIGKILL)
            throw FixtureError(message: "pactl \(arguments) did not end within \(timeout) s")
        }
        let status = child.status
        guard status.exitCode == 0 else {
            throw FixtureError(message: "pactl \(arguments) failed: \(status.errorText)")
        }
        return status.outputText
    }

    /// The server's playback streams (sink inputs, `playback: true`) or recording streams (source outputs), each as
    /// its `pactl list` block: its properties (`media.role = "phone"`) and its `Volume:` line.
    public func streams(playback: Bool) throws -> [String] {
        try pactl(["list", playback ? "sink-inputs" : "source-outputs"])
            .components(separatedBy: "\n\n").filter { $0.contains("#") }
    }

    /// Plays raw S16_LE frames at the sink's rate and channels from `path` (silence from /dev/zero, for as long as
    /// the server runs, by default) into the null sink with `pacat`, real-time paced, as a stream with the
    /// `media.role` given: another application's music, for the sound server's ducking.
    @discardableResult
    public func playRaw(_ path: String = "/dev/zero", role: String) throws -> Child {
        try client(["pacat", "--server=\(address)", "--device=\(sinkName)", "--playback", "--raw", "--format=s16le",
                    "--rate=\(rate)", "--channels=\(channels)", "--property=media.role=\(role)", path])
    }

    /// SIGKILL to the server by pid, then waits (at most `timeout` seconds) until it is gone: a device loss for
    /// every client. Returns whether it exited in time.
    @discardableResult
    public func kill(timeout: Double = 5) -> Bool {
        daemon.signal(SIGKILL)
        return daemon.wait(timeout: timeout) { $0.exited }
    }

    /// Ends the clients and the server (SIGTERM, then SIGKILL after 5 s) and removes the directory. Idempotent.
    public func stop() {
        let children: [Child] = lock.withLock {
            defer { stopped = true; clients = [] }
            return stopped ? [] : clients
        }
        guard !children.isEmpty || FileManager.default.fileExists(atPath: directory) else { return }
        for child in children + [daemon] {
            child.signal(SIGTERM)
            if !child.wait(timeout: 5, { $0.exited }) {
                child.signal(SIGKILL)
                _ = child.wait(timeout: 5) { $0.exited }
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func client(_ arguments: [String]) throws -> Child {
        var environment = Self.environment(directory)
        environment["PULSE_SERVER"] = address
        let child = try Child(arguments, environment: environment)
        lock.withLock { clients.append(child) }
        return child
    }

    private static func environment(_ directory: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory + "/home"
        environment["XDG_RUNTIME_DIR"] = directory + "/run"
        environment["PULSE_RUNTIME_PATH"] = directory + "/run/pulse"
        environment.removeValue(forKey: "PULSE_SERVER")
        // Never a session bus: a test that set one for its process (the desktop suites) would have every server
        // take org.PulseAudio1 there, and the second one started meanwhile would exit.
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return environment
    }

    /// A child process whose stderr is kept as text and whose stdout is counted and discarded; every change
    /// (output, exit) wakes `wait`, so tests wait on conditions with deadlines instead of sleeping.
    ///
    /// Started with posix_spawn, not Foundation's `Process`: `Process` learns that a child ended when a socket the
    /// child inherited closes, and then calls a blocking `waitpid` on its one monitor thread. pulseaudio closes
    /// every inherited descriptor at startup, so that thread would block until the server exits and no other
    /// `Process` in the test run (every `Fixtures.run`) would ever be seen to finish. The child also gets no
    /// descriptor but 0, 1 and 2 (`closefrom`), so it cannot hold another test's pipes open.
    public final class Child: @unchecked Sendable {
        /// What a child has done so far.
        public struct Status: Sendable {
            /// Whether it has exited (and was reaped).
            public var exited = false
            /// Its exit status (WEXITSTATUS) once it exited normally; -1 before, or when a signal ended it.
            public var exitCode: Int32 = -1
            /// Whether its stdout reached its end (all of it is in `outputData`, up to its limit).
            public var outputEnded = false
            /// Bytes it wrote to stdout.
            public var outputBytes = 0
            /// The first 64 KiB it wrote to stdout.
            public var outputData = Data()
            /// `outputData` as text.
            public var outputText: String { String(decoding: outputData, as: UTF8.self) }
            /// What it wrote to stderr.
            public var errorData = Data()
            /// `errorData` as text.
            public var errorText: String { String(decoding: errorData, as: UTF8.self) }
        }

        /// The process id.
        public let pid: pid_t
        private let condition = NSCondition()
        private var state = Status()

        init(_ arguments: [String], environment: [String: String]) throws {
            var output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
            guard GNU.pipe2(&output, O_CLOEXEC) == 0 else { throw FixtureError(message: "pipe2: errno \(errno)") }
            guard GNU.pipe2(&errors, O_CLOEXEC) == 0 else {
                Glibc.close(output[0]); Glibc.close(output[1])
                throw FixtureError(message: "pipe2: errno \(errno)")
            }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, output[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
            guard GNU.addClosefrom(&actions, 3) == 0 else { throw FixtureError(message: "closefrom action failed") }
            // Default signal handling and an empty mask: the spawning thread may block or ignore signals.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var none = sigset_t(), defaults = sigset_t()
            sigemptyset(&none)
            sigemptyset(&defaults)
            for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigmask(&attributes, &none)
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer {
                argv.forEach { free($0) }
                envp.forEach { free($0) }
            }
            var child: pid_t = 0
            let result = posix_spawnp(&child, arguments[0], &actions, &attributes, argv, envp)
            Glibc.close(output[1])
            Glibc.close(errors[1])
            guard result == 0 else {
                Glibc.close(output[0]); Glibc.close(errors[0])
                throw FixtureError(message: "cannot start \(arguments[0]): \(String(cString: strerror(result)))")
            }
            pid = child
            let outputFD = output[0], errorFD = errors[0]
            Thread.detachNewThread { [self] in pump(outputFD) { status, bytes in
                status.outputBytes += bytes.count
                if status.outputData.count < 65536 { status.outputData.append(contentsOf: bytes.prefix(65536 - status.outputData.count)) }
            }
                update { $0.outputEnded = true }
            }
            Thread.detachNewThread { [self] in pump(errorFD) { $0.errorData.append(contentsOf: $1) } }
            Thread.detachNewThread { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                let code: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1   // WIFEXITED, WEXITSTATUS
                update { $0.exited = true; $0.exitCode = code }
            }
        }

        /// What it has done so far.
        public var status: Status {
            condition.lock()
            defer { condition.unlock() }
            return state
        }
        /// Whether it has exited.
        public var exited: Bool { status.exited }
        /// What it wrote to stderr so far.
        public var errorText: String { status.errorText }

        /// Sends `signal` unless it has exited (and so its pid may be reused).
        public func signal(_ signal: Int32) {
            condition.lock()
            defer { condition.unlock() }
            if !state.exited { _ = Glibc.kill(pid, signal) }
        }

        /// Waits until `predicate` holds (checked after every output and at exit) or `timeout` seconds pass;
        /// returns whether it holds.
        public func wait(timeout: Double, _ predicate: (Status) -> Bool) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            condition.lock()
            defer { condition.unlock() }
            while !predicate(state) {
                if !condition.wait(until: deadline) { return predicate(state) }
            }
            return true
        }

        /// Reads `fd` until end of file, passing each chunk to `record`; then closes it.
        private func pump(_ fd: Int32, _ record: (inout Status, ArraySlice<UInt8>) -> Void) {
            var buffer = [UInt8](repeating: 0, count: 16384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                update { record(&$0, buffer[0..<count]) }
            }
            Glibc.close(fd)
        }

        private func update(_ change: (inout Status) -> Void) {
            condition.lock()
            change(&state)
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// glibc functions that Swift's Glibc module does not import (they need _GNU_SOURCE / __USE_MISC), looked up once.
private enum GNU {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias AddClosefrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// pipe2(2): both ends close-on-exec atomically, so no child spawned meanwhile by another thread inherits them.
    static let pipe2: Pipe2 = symbol("pipe2")
    /// posix_spawn_file_actions_addclosefrom_np (glibc 2.34): the child closes every descriptor from the given one.
    static let addClosefrom: AddClosefrom = symbol("posix_spawn_file_actions_addclosefrom_np")

    private static func symbol<T>(_ name: String) -> T {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {   // RTLD_DEFAULT
            fatalError("glibc has no \(name)")
        }
        return unsafeBitCast(address, to: T.self)
    }
}
