import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteOutbox
import VoiceNoteRecorder

/// The flow's uploader (`FlowConfiguration.uploader`): each take streamed to it while it is recorded, and what a
/// trim, a cancel, a discard or a restored draft changes about that. Everything here runs on the flow's worker.
extension RecordingFlow {
    /// The uploader's part in the current take.
    enum LiveUpload {
        /// Not being sent (no uploader, the uploader was busy, a restored draft, or its upload is over for the flow).
        case none
        /// Being sent while recorded; its upload completes on its own when the take stops.
        case streaming
        /// Sent while recorded, then trimmed in preview: what was sent is not the take any more.
        case cut
    }

    /// The longest a sent take's upload waits for the uploader's previous upload to end (on the worker).
    static let uploaderWaitSeconds = 30.0

    /// In the take's `beforeCapture` hook: the uploader starts sending the take from its first page. An uploader
    /// still busy with the last take leaves this one to be uploaded as a file when it is sent.
    func startLiveUpload() {
        liveUpload = .none
        liveHold = nil
        guard let uploader = configuration.uploader else { return }
        do throws(VoiceNoteError) {
            let hold = configuration.outbox.map { HeldSend(outbox: $0) }
            var completion: (@Sendable (UploadState) -> Void)?
            if let hold { completion = { outcome in hold.uploadEnded(outcome) } }
            try uploader.upload(.live(recorder.streamTake()), completion: completion)
            liveHold = hold
            liveUpload = .streaming
        } catch {
            Log.write(.debug, "the flow's take is uploaded when it is sent, not while recorded: \(error.message)")
        }
    }

    /// A trim succeeded: a streamed take's upload no longer matches it.
    func liveUploadCut() {
        if liveUpload == .streaming { liveUpload = .cut }
    }

    /// The take was cancelled or discarded: its upload, if it is still running, is cancelled.
    func cancelLiveUpload() {
        guard liveUpload != .none, let uploader = configuration.uploader else { return }
        liveUpload = .none
        uploader.cancel()
    }

    /// The take was sent (`attachmentReady`). With an outbox, the take goes into it (durable before this returns):
    /// held while its streamed upload ends, else queued for the outbox to send (a cut streamed upload cancelled
    /// first). Without one, a streamed take's upload completes on its own; any other take (cut by a trim, restored
    /// from a draft, begun while the uploader was busy) is uploaded as its file now, once the uploader's previous
    /// upload ended (a cut one is cancelled first). A failure to add or start is a `failed` event.
    func uploadSentTake(_ take: FlowTake) {
        let state = liveUpload
        let hold = liveHold
        liveUpload = .none
        liveHold = nil
        do throws(VoiceNoteError) {
            let payload = take.payloadJSON.isEmpty ? nil : try VoiceRecordingPayload(json: take.payloadJSON)
            if let outbox = configuration.outbox {
                if state == .cut { configuration.uploader?.cancel() }
                if state == .streaming, let hold {
                    hold.added(try outbox.add(path: take.path, payload: payload, held: true))
                } else {
                    try outbox.add(path: take.path, payload: payload)
                }
                return
            }
            guard let uploader = configuration.uploader else { return }
            if state == .streaming { return }
            if state == .cut { uploader.cancel() }
            _ = uploader.wait(timeout: Self.uploaderWaitSeconds)
            try uploader.upload(.file(take.path), payload: payload)
        } catch {
            events.emit(.failed(error))
        }
    }
}
