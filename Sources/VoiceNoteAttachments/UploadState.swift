import VoiceNoteCore

/// Where an upload is (Stream's `LocalAttachmentState`); every change is an event of the `Uploader`.
public enum UploadState: Sendable, Equatable {
    /// Accepted, not sending yet (the file is being read for its payload).
    case pendingUpload
    /// Sending; the fraction of the body sent, 0…1. Events come at 0, at every step of at least 0.05, and at 1.
    case uploading(progress: Double)
    /// Failed or cancelled; the local file is untouched. `retry` sends it again.
    case uploadFailed(VoiceNoteError)
    /// Done: the payload with the uploaded `asset_url` (after the post-processor).
    case uploaded(VoiceRecordingPayload)

    /// Whether the upload has ended (uploaded or failed).
    public var isFinal: Bool {
        switch self {
        case .uploaded, .uploadFailed: true
        case .pendingUpload, .uploading: false
        }
    }
}

/// Progress steps as Stream reports them: only when the fraction moved by at least 0.05 since the last report;
/// 0 and 1 are reported by the uploader itself.
struct ProgressSteps {
    /// The body's size; nil when unknown (then no steps between 0 and 1).
    let total: Int64?
    private var reported = 0.0

    init(total: Int64?) { self.total = total }

    /// The fraction to report for `sent` bytes, or nil when it moved less than 0.05 (1 itself is kept for the end).
    mutating func advance(sent: Int64) -> Double? {
        guard let total, total > 0 else { return nil }
        let fraction = min(Double(sent) / Double(total), 1)
        guard fraction - reported >= 0.05, fraction < 1 else { return nil }
        reported = fraction
        return fraction
    }
}
