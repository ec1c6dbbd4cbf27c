import CVoiceNote
import VoiceNoteCore

/// A C log handler and its user data, as one sendable value.
private struct CLogHandler: @unchecked Sendable {
    let function: vn_log_fn
    let userData: UnsafeMutableRawPointer?

    func call(_ level: LogLevel, _ message: String) {
        message.withCString { function(userData, level.rawValue, $0) }
    }
}

@c @implementation public func vn_log_set_handler(
    _ handler: vn_log_fn?, _ userData: UnsafeMutableRawPointer?, _ maxLevel: Int32
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        guard let level = LogLevel(rawValue: maxLevel) else {
            throw VoiceNoteError(.invalidArgument, "max_level \(maxLevel) is not a vn_log_level")
        }
        var swiftHandler: Log.Handler?
        if let handler {
            let target = CLogHandler(function: handler, userData: userData)
            swiftHandler = { level, message in target.call(level, message) }
        }
        try Log.setHandler(swiftHandler, maxLevel: level)
    }
}
