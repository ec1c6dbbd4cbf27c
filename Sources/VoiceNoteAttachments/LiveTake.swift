import VoiceNoteCore
import VoiceNoteSources

/// A take the recorder is still recording, as an upload sends it while it grows: its file (read up to the pages the
/// recorder has written), the name and MIME type it is sent under, and — once the recorder finished it — the
/// finished take's payload (its duration and waveform), which the upload completes with the uploaded URL. A take
/// that ends any other way (cancelled, too short, rewritten after a failed write) abandons its file, and the upload
/// fails with the reason.
public final class LiveTake: @unchecked Sendable {
    /// The take's bytes as they are written.
    public let file: GrowingFile
    /// The name the take is sent under (its final file name).
    public let fileName: String
    /// Its MIME type.
    public let mimeType: String
    private let payloadStore = Locked<VoiceRecordingPayload?>(nil)

    /// A take written to `path` (its `.part`, `bytes` of it written so far) and sent as `fileName`.
    /// - Throws: `GrowingFile`'s statuses.
    public init(path: String, bytes: Int64, fileName: String, mimeType: String) throws(VoiceNoteError) {
        file = try GrowingFile(path: path, bytes: bytes)
        self.fileName = fileName
        self.mimeType = mimeType
    }

    /// Recorder: the take finished whole as `payload` (a file of `size` bytes): the body ends there.
    public func finish(_ payload: VoiceRecordingPayload, size: Int64) {
        payloadStore.withLock { $0 = payload }
        file.complete(size: size)
    }

    /// Recorder: the take will not be finished as it was sent (`error` says why): the upload fails with it.
    public func abandon(_ error: VoiceNoteError) { file.abandon(error) }

    /// The finished take's payload; nil until `finish`.
    public var payload: VoiceRecordingPayload? { payloadStore.withLock { $0 } }
}
