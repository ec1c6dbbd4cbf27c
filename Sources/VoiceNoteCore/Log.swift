#if canImport(Glibc)
import Glibc
#endif

/// Severity of a log line; numbered as the C API's `vn_log_level`.
public enum LogLevel: Int32, Sendable, Comparable {
    /// Something failed.
    case error = 1
    /// Something unexpected that voicenote handled.
    case warning = 2
    /// A notable step.
    case info = 3
    /// Detail for debugging.
    case debug = 4

    /// Orders by severity number (error < debug).
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The process-wide log hook. Quiet until a handler is set. The handler runs on the thread that logs, never
/// under a library lock; `setHandler` waits until running calls of the old handler have returned.
public enum Log {
    /// Receives a level and a line.
    public typealias Handler = @Sendable (LogLevel, String) -> Void

    private final class State: @unchecked Sendable {
        let monitor = Monitor()
        var handler: Handler?
        var maxLevel = LogLevel.warning
        var running: [pthread_t] = []
    }
    private static let state = State()

    /// Replaces the handler (nil: quiet) and waits for running calls of the old one on other threads.
    /// Throws `.misuse` when called from inside a handler.
    public static func setHandler(_ handler: Handler?, maxLevel: LogLevel) throws(VoiceNoteError) {
        try state.monitor.locked { () throws(VoiceNoteError) in
            if state.running.contains(where: { pthread_equal($0, pthread_self()) != 0 }) {
                throw VoiceNoteError(.misuse, "the log handler cannot be changed from inside a log handler")
            }
            state.handler = handler
            state.maxLevel = maxLevel
            while !state.running.isEmpty { state.monitor.wait() }
        }
    }

    /// Whether a line at `level` would reach a handler (to skip formatting lines nobody reads).
    public static func isEnabled(_ level: LogLevel) -> Bool {
        state.monitor.locked { state.handler != nil && level <= state.maxLevel }
    }

    /// Passes a line to the handler, if any takes this level. Never call from an audio thread.
    public static func write(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let handler: Handler? = state.monitor.locked {
            guard let handler = state.handler, level <= state.maxLevel,
                  !state.running.contains(where: { pthread_equal($0, pthread_self()) != 0 }) else { return nil }
            state.running.append(pthread_self())
            return handler
        }
        guard let handler else { return }
        handler(level, message())
        state.monitor.locked {
            if let index = state.running.firstIndex(where: { pthread_equal($0, pthread_self()) != 0 }) {
                state.running.remove(at: index)
            }
            state.monitor.broadcast()
        }
    }
}
