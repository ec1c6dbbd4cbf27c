import VoiceNoteCore

extension EventLoop {
    /// Dispatches this loop's events on this thread until `condition` holds or `seconds` pass; whether it held.
    /// The commands that drive a library object step by step (the demo, `record --flow`) wait with this.
    func dispatch(until condition: () throws(VoiceNoteError) -> Bool, seconds: Double) throws(VoiceNoteError) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while try !condition() {
            guard monotonicNanoseconds() < deadline else { return false }
            _ = try wait(timeoutMilliseconds: 100)
            _ = try dispatch()
        }
        return true
    }
}
