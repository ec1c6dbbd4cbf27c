import Synchronization

/// A request to stop a long piece of work, set from any thread and checked by the working one between steps (a
/// decoder's packets): what lets closing a waveform batch end a decode at once instead of waiting for its end.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// A flag not yet set.
    public init() {}

    /// Sets the flag; idempotent, any thread.
    public func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Whether `cancel` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Throws `.cancelled`, naming `work`, once the flag is set.
    public func check(_ work: @autoclosure () -> String) throws(VoiceNoteError) {
        if isCancelled { throw VoiceNoteError(.cancelled, "\(work()) was cancelled") }
    }
}
