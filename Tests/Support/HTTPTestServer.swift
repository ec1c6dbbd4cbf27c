import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A scripted HTTP(S) server on 127.0.0.1 for one test: `Tests/Servers/http_server.py` (Python's standard
/// library) serving `root` under behaviour prefixes (`/range/`, `/norange/`, `/drop/`, `/stall/<n>/`, `/slow/<s>/`,
/// `/status/<code>`, `/redirect/<n>/`, `/auth/<token>/`, `/throttle/<rate>/`, `/chunked/`), logging every request
/// as a JSON line so a test can assert the request it expects was made. Stopped by its pid (SIGTERM) in `stop`
/// or `deinit`.
public final class HTTPTestServer: @unchecked Sendable {
    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:<port>` (https with a certificate).
    public let baseURL: String
    private let child: PulseServer.Child
    private let logPath: String
    private let directory: String

    /// Starts the server over `root` (with `certificate` and `key` PEM files: HTTPS).
    public init(root: String, certificate: String? = nil, key: String? = nil) throws {
        directory = try Fixtures.temporaryDirectory()
        logPath = directory + "/requests.log"
        var arguments = ["python3", Self.script("http_server.py"), "--root", root, "--port", "0", "--log", logPath]
        if let certificate, let key { arguments += ["--cert", certificate, "--key", key] }
        child = try PulseServer.Child(arguments, environment: ProcessInfo.processInfo.environment)
        let started = child.wait(timeout: 15) { $0.outputText.contains("\n") || $0.exited }
        let line = child.status.outputText.split(separator: "\n").first { $0.hasPrefix("PORT ") }
        guard started, let line, let port = Int(line.dropFirst(5)) else {
            child.signal(SIGKILL)
            throw FixtureError(message: "http_server.py did not start: \(child.status.outputText) \(child.errorText)")
        }
        self.port = port
        baseURL = (certificate == nil ? "http" : "https") + "://127.0.0.1:\(port)"
    }

    deinit { stop() }

    /// `baseURL` + `path` (which starts with "/").
    public func url(_ path: String) -> String { baseURL + path }

    /// The requests logged so far: method, path, headers (lower-case names), range, status, bytes, completed.
    public func requests() -> [[String: Any]] { Self.records(logPath) }

    /// Whether an upload to `path` has reached the server (its first body bytes were read): the moment a test
    /// knows a body is being sent, whatever the kernel's socket buffers took from the client first.
    public func isReceiving(_ path: String) -> Bool {
        Self.records(logPath + ".receiving").contains { $0["path"] as? String == path }
    }

    /// Whether an upload to a path beginning with `prefix` (its query included, e.g. `?filename=`) has reached the
    /// server, as `isReceiving`.
    public func isReceiving(pathPrefix prefix: String) -> Bool {
        Self.records(logPath + ".receiving").contains { ($0["path"] as? String)?.hasPrefix(prefix) == true }
    }

    private static func records(_ path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// The requests whose path is `path`.
    public func requests(to path: String) -> [[String: Any]] {
        requests().filter { $0["path"] as? String == path }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its directory. Idempotent.
    public func stop() {
        child.signal(SIGTERM)
        if !child.wait(timeout: 5, { $0.exited }) { child.signal(SIGKILL) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The path of a script in Tests/Servers.
    static func script(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Servers").appendingPathComponent(name).path
    }
}
