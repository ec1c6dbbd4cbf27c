import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteOutbox

/// The recording flow's constants (all configurable; the defaults are Stream's composer's).
public struct FlowConfiguration: Equatable, Sendable {
    /// Equal when every constant is and the uploader is the same object (or both have none).
    public static func == (lhs: FlowConfiguration, rhs: FlowConfiguration) -> Bool {
        lhs.slideToCancelDistance == rhs.slideToCancelDistance && lhs.lockDistance == rhs.lockDistance
            && lhs.minimumPressDuration == rhs.minimumPressDuration && lhs.hideTipDelay == rhs.hideTipDelay
            && lhs.waveformSamples == rhs.waveformSamples && lhs.confirmationRequired == rhs.confirmationRequired
            && lhs.toggleMode == rhs.toggleMode && lhs.keyInputs == rhs.keyInputs && lhs.draftKey == rhs.draftKey
            && lhs.draftsDirectory == rhs.draftsDirectory && lhs.uploader === rhs.uploader && lhs.outbox === rhs.outbox
    }

    /// Pixels the pointer slides left of the press point to cancel a take.
    public var slideToCancelDistance: Double = 75
    /// Pixels the pointer slides up from the press point to lock a take.
    public var lockDistance: Double = 50
    /// Seconds the button is held before a take begins; a shorter press shows the tip instead.
    public var minimumPressDuration: Double = 0.5
    /// Seconds the tip stays shown.
    public var hideTipDelay: Double = 2
    /// Values in a take's waveform.
    public var waveformSamples: Int = 100
    /// Whether a finished take waits in the composer for `confirm` (true) or is published at once.
    public var confirmationRequired = true
    /// Toggle mode, for people who cannot hold a button: a press released before the minimum press starts a locked
    /// take, and the next press stops it into preview (no tip). A longer press still records while held.
    public var toggleMode = false
    /// Key inputs: the record key held like the button, Escape cancels, Enter sends. Off: keys are ignored.
    public var keyInputs = false
    /// The conversation this flow records for (its id), to keep a take as its draft: written while a take runs
    /// (so a crash loses at most the last page), kept by `park`, restored into preview by the next flow with this
    /// key. Nil: no drafts. 1…100 bytes of UTF-8.
    public var draftKey: String?
    /// Where drafts are kept (nil: `$XDG_DATA_HOME/voicenote/drafts`).
    public var draftsDirectory: String?
    /// The uploader every sent take goes through (nil: none; the host uploads `attachmentReady`'s file). Each take
    /// is uploaded while it is recorded (from its first page); a take trimmed in preview, restored from a draft or
    /// begun while the uploader was still busy with the last one is uploaded as a file when it is sent; a take
    /// cancelled or discarded has its upload cancelled. The host follows the upload on the uploader's own events.
    public var uploader: Uploader?
    /// The outbox every sent take goes into (nil: none): copied and recorded durably when it is sent, then sent by
    /// the outbox (resumed and retried across crashes) and handed off on the outbox's events. With an `uploader`
    /// too, a take streamed while it was recorded is kept `held` in the outbox while that upload ends: its payload
    /// is then the outbox's hand-off, and the outbox sends the file only if that upload failed or the process ended.
    public var outbox: Outbox?

    /// The defaults.
    public init() {}

    /// Checks every constant: distances and times finite and positive (the tip delay may be 0), 1…1048576 samples.
    /// - Throws: `.invalidArgument` naming the first that is not.
    public func validate() throws(VoiceNoteError) {
        for (name, value) in [("slide-to-cancel distance", slideToCancelDistance), ("lock distance", lockDistance),
                              ("minimum press duration", minimumPressDuration)] where !(value.isFinite && value > 0) {
            throw VoiceNoteError(.invalidArgument, "the \(name) must be a finite number > 0, not \(value)")
        }
        guard hideTipDelay.isFinite, hideTipDelay >= 0 else {
            throw VoiceNoteError(.invalidArgument, "the tip's hiding delay must be a finite number ≥ 0, not \(hideTipDelay)")
        }
        guard (1...1_048_576).contains(waveformSamples) else {
            throw VoiceNoteError(.invalidArgument, "a waveform has 1…1048576 values, not \(waveformSamples)")
        }
        if let draftKey { try FlowDrafts.check(key: draftKey) }
        if let draftsDirectory, draftsDirectory.isEmpty || draftsDirectory.utf8.contains(0) {
            throw VoiceNoteError(.invalidArgument, "the drafts directory must be a path")
        }
    }
}
