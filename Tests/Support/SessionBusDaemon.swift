import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus session bus for tests: `dbus-daemon --session` listening on a socket in its own temporary
/// directory, started by the test and stopped by pid (`stop`, also done by deinit). Clients reach it through
/// `DBUS_SESSION_BUS_ADDRESS`: `run` passes it to the tools it starts (playerctl, the fake players), and a test of the
/// library's own bus use sets it for its process (`export`), so those suites must be serialized.
public final class SessionBusDaemon: @unchecked Sendable {
    /// The bus's address (`unix:path=…,guid=…`).
    public let address: String
    /// The daemon's private directory (the socket); removed by `stop`.
    public let directory: String
    private let daemon: PulseServer.Child

    /// Starts the daemon and returns once it printed its address (or throws after `timeout` seconds).
    public init(timeout: Double = 10) throws {
        var template = Array("/tmp/vnbus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw FixtureError(message: "mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        daemon = try PulseServer.Child(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1",
                                        "--address=unix:path=\(directory)/bus"],
                                       environment: ProcessInfo.processInfo.environment)
        let started = daemon.wait(timeout: timeout) { $0.outputText.contains("\n") || $0.exited }
        let printed = daemon.status.outputText.split(separator: "\n").first.map(String.init) ?? ""
        guard started, !daemon.exited, printed.hasPrefix("unix:") else {
            let log = daemon.errorText
            daemon.signal(SIGKILL)
            try? FileManager.default.removeItem(atPath: directory)
            throw FixtureError(message: "dbus-daemon did not start within \(timeout) s: \(log)")
        }
        address = printed
    }

    deinit { stop() }

    /// Sets `DBUS_SESSION_BUS_ADDRESS` to this bus for the whole process.
    public func export() {
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
    }

    /// The environment of a client of this bus.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }

    /// Starts `arguments` as a client of this bus (a fake player, a long-running tool); stop it with `signal`.
    public func start(_ arguments: [String]) throws -> PulseServer.Child {
        try PulseServer.Child(arguments, environment: environment)
    }

    /// Runs `arguments` as a client of this bus to its end, at most `timeout` seconds (then SIGKILL), and returns
    /// what it printed (standard output, trimmed) and whether it exited in time.
    @discardableResult
    public func run(_ arguments: [String], timeout: Double = 10) throws -> String {
        let child = try start(arguments)
        // Its output read to the end too: the process may exit before the reading thread has taken all it wrote.
        guard child.wait(timeout: timeout, { $0.exited && $0.outputEnded }) else {
            child.signal(SIGKILL)
            throw FixtureError(message: "\(arguments.joined(separator: " ")) did not end within \(timeout) s")
        }
        return child.status.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The MPRIS players on the bus, as playerctl names them (`voicenote.instance123_1`).
    public func mprisPlayers() throws -> [String] {
        try run(["playerctl", "--list-all"]).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("No players") }
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 5 s) and removes its directory.
    public func stop() {
        daemon.signal(SIGTERM)
        if !daemon.wait(timeout: 5, { $0.exited }) { daemon.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Fake MPRIS players (`Tests/Servers/fake_mpris.py`, dbus-next) on a `SessionBusDaemon`: some playing, some paused;
/// each call they get is logged, and `hang` stops the process (SIGSTOP) so its players never answer.
public final class FakeMPRISPlayers: @unchecked Sendable {
    /// The JSON-lines log of the calls the players got.
    public let logPath: String
    private let child: PulseServer.Child

    /// Starts players `specs` ("NAME:Playing", "NAME:Paused") and returns once every name is owned.
    public init(on bus: SessionBusDaemon, _ specs: [String], directory: String, timeout: Double = 15) throws {
        logPath = directory + "/mpris-calls-\(UUID().uuidString).jsonl"
        FileManager.default.createFile(atPath: logPath, contents: nil)
        child = try bus.start(["python3", HTTPTestServer.script("fake_mpris.py"), "--log", logPath] + specs)
        guard child.wait(timeout: timeout, { $0.outputText.contains("READY") || $0.exited }), !child.exited else {
            let log = child.errorText
            child.signal(SIGKILL)
            throw FixtureError(message: "fake MPRIS players did not start: \(log)")
        }
    }

    deinit { stop() }

    /// The calls logged so far, as "PLAYER CALL".
    public func calls() -> [String] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let data = line.data(using: .utf8),
                  let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  let player = record["player"] as? String, let call = record["call"] as? String else { return nil }
            return player + " " + call
        }
    }

    /// Stops the process without ending it: its players never answer again.
    public func hang() { child.signal(SIGSTOP) }

    /// Ends the process (SIGCONT first, in case it hangs).
    public func stop() {
        child.signal(SIGCONT)
        child.signal(SIGTERM)
        if !child.wait(timeout: 5, { $0.exited }) { child.signal(SIGKILL) }
    }
}
