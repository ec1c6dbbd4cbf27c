import VoiceNoteCore

/// A call running on a thread of its own, for a test that must act (advance a `ManualClock`, close a source) while
/// the call blocks: `result` is nil until it returns; `join` waits for it.
public final class Background<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    private let thread: LibraryThread

    /// Starts `body` on a new thread.
    public init(_ body: @escaping @Sendable () -> Value) throws(VoiceNoteError) {
        thread = try LibraryThread(name: "test-background") { [value] in
            let result = body()  // not under the lock: a test reads `result` while the call blocks
            value.withLock { $0 = result }
        }
    }

    /// What the call returned; nil while it runs.
    public var result: Value? { value.withLock { $0 } }

    /// What the call returned, waiting at most `seconds` for it (then joined); nil when it is still running.
    public func result(within seconds: Double) -> Value? {
        guard eventually(seconds: seconds, { result != nil }) else { return nil }
        thread.join()
        return result
    }
}
