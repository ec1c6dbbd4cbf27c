import VoiceNoteAttachments
import VoiceNoteCore

/// What a take has written, counted as the encoder appends whole pages or frames (on the encoder thread), and the
/// upload that sends the take while it is recorded (`Recorder.streamTake`), told of each append.
final class TakeOutput: @unchecked Sendable {
    private struct State {
        var written: Int64 = 0
        var live: LiveTake?
    }

    private let state = Locked(State())

    /// Encoder thread: `count` more bytes reached the file.
    func appended(_ count: Int) {
        let (live, total) = state.withLock { state -> (LiveTake?, Int64) in
            state.written += Int64(count)
            return (state.live, state.written)
        }
        live?.file.grow(to: total)
    }

    /// Bytes written so far.
    var written: Int64 { state.withLock { $0.written } }

    /// The upload sending the take, if one was asked for.
    var live: LiveTake? { state.withLock { $0.live } }

    /// Makes the take's live upload with `make` (given the bytes written so far), once.
    /// - Throws: `.busy` when the take is already being sent; what `make` throws.
    func attach(_ make: (Int64) throws(VoiceNoteError) -> LiveTake) throws(VoiceNoteError) -> LiveTake {
        try state.withLock { (state: inout State) throws(VoiceNoteError) -> LiveTake in
            guard state.live == nil else { throw VoiceNoteError(.busy, "the take is already being sent while it is recorded") }
            let made = try make(state.written)
            state.live = made
            return made
        }
    }
}
