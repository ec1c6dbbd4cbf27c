import VoiceNoteCore

/// How many notes are recognised at once in the process: at most one per CPU this process may use. A recogniser's
/// model is large (PocketSphinx's English one takes 93 MB per decoder) and its work is all CPU, so a chat window
/// that asks for the transcripts of fifty notes runs them a few at a time: the others wait their turn on their own
/// thread, holding nothing, and a cancel ends their wait at once.
final class RecognitionSlots: Sendable {
    /// The process's slots.
    static let shared = RecognitionSlots(limit: Processors.available)

    private let monitor = Monitor()
    private let inUse = Locked(0)
    let limit: Int

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a slot; `.cancelled` as soon as `cancellation` is set (`wake` tells the waiters to look).
    func acquire(_ cancellation: CancellationFlag, for name: @autoclosure () -> String) throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            while true {
                try cancellation.check("the transcription of \(name())")
                let taken = inUse.withLock { count -> Bool in
                    guard count < limit else { return false }
                    count += 1
                    return true
                }
                if taken { return }
                monitor.wait()
            }
        }
    }

    /// Gives a slot back.
    func release() {
        monitor.locked {
            inUse.withLock { $0 -= 1 }
            monitor.broadcast()
        }
    }

    /// Wakes the waiters to look at their cancellation flags again.
    func wake() {
        monitor.locked { monitor.broadcast() }
    }

    /// The slots in use now (tests).
    var busy: Int { inUse.withLock { $0 } }
}
