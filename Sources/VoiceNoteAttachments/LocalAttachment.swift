import VoiceNoteCore
import VoiceNoteSources

/// A file about to be uploaded as an attachment, checked as Stream checks it: the type must be uploadable, the
/// location a `file://` URL (or a path) of a regular file, and the size within the limit.
public struct LocalAttachment: Sendable, Equatable {
    /// The default size limit: 100 MiB.
    public static let defaultMaximumBytes: Int64 = 100 << 20

    /// The file's path.
    public let path: String
    /// Its size when checked.
    public let size: Int64
    /// The attachment type it is uploaded as.
    public let type: AttachmentType

    /// Checks a local file. `location` is a `file://` URL or a path. - Throws: `.unsupported` for a type an upload
    /// does not take; `.invalidArgument` for a URL of another scheme or a directory; `.notFound` and the other file
    /// statuses; `.tooLarge` over `maximumBytes`.
    public init(location: String, type: AttachmentType = .voiceRecording,
                maximumBytes: Int64 = LocalAttachment.defaultMaximumBytes) throws(VoiceNoteError) {
        guard AttachmentType.uploadable.contains(type) else {
            throw VoiceNoteError(.unsupported, "an attachment of type \(type) cannot be uploaded")
        }
        let path = try Self.path(of: location)
        guard !path.isEmpty else { throw VoiceNoteError(.invalidArgument, "no file to upload") }
        let size = try FileSource(path: path).size ?? 0
        guard size <= maximumBytes else {
            throw VoiceNoteError(.tooLarge, "\(path) is \(size) bytes, over the attachment limit of \(maximumBytes)")
        }
        self.path = path
        self.size = size
        self.type = type
    }
}
