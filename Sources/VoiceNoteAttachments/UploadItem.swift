import VoiceNoteCore
import VoiceNoteSources

/// What an upload sends: a local file, or the bytes of a source (memory, or a host's callbacks: Matrix encrypted
/// rooms upload the ciphertext the client made), with the name and MIME type it is sent under.
public enum UploadItem: @unchecked Sendable {
    /// A local file (a path or a `file://` URL), checked as a `LocalAttachment` when the upload is asked for.
    case file(String)
    /// A source's bytes from its current position; `mimeType` nil: from `fileName`'s extension.
    case source(ByteSource, fileName: String, mimeType: String?)

    /// The name the file is sent under.
    var fileName: String {
        switch self {
        case .file(let location): (try? LocalAttachment.path(of: location))?.split(separator: "/").last.map(String.init) ?? location
        case .source(_, let fileName, _): fileName
        }
    }
}

extension LocalAttachment {
    /// The path of a location given as a path or a `file://` URL.
    static func path(of location: String) throws(VoiceNoteError) -> String {
        location.contains("://") ? try FileURL.path(of: location) : location
    }
}
