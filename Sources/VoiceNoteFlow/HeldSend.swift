import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteOutbox

/// A take streamed by the flow's uploader while it was recorded, and the outbox item the flow keeps for it once it
/// is sent (`held`): whichever of the two ends second — the upload's final state, the item's addition — releases
/// the item: `uploaded` with the upload's payload, or back to the outbox's queue when the upload failed.
final class HeldSend: Sendable {
    private struct State {
        var outcome: UploadState?
        var item: Int64?
        var released = false
    }
    /// Weak: the host's uploader keeps its last request, and with it this; a closed outbox needs no release.
    private weak let outbox: Outbox?
    private let state = Locked(State())

    init(outbox: Outbox) { self.outbox = outbox }

    /// The upload ended (its completion hook, on the upload thread).
    func uploadEnded(_ outcome: UploadState) {
        release(state.withLock { state in
            state.outcome = outcome
            return Self.due(&state)
        })
    }

    /// The sent take is in the outbox as `item`, held (on the flow's worker).
    func added(_ item: Int64) {
        release(state.withLock { state in
            state.item = item
            return Self.due(&state)
        })
    }

    /// The item and the outcome, once both are known (once).
    private static func due(_ state: inout State) -> (Int64, UploadState)? {
        guard !state.released, let item = state.item, let outcome = state.outcome else { return nil }
        state.released = true
        return (item, outcome)
    }

    private func release(_ due: (Int64, UploadState)?) {
        guard let (item, outcome) = due, let outbox else { return }
        let uploaded: VoiceRecordingPayload? = if case .uploaded(let payload) = outcome { payload } else { nil }
        do throws(VoiceNoteError) {
            try outbox.release(item, uploaded: uploaded)
        } catch {
            // The host cancelled the item, or closed the outbox (the item is queued at its next start).
            Log.write(.debug, "the flow's held outbox item \(item) was not released: \(error.message)")
        }
    }
}
