import VoiceNoteCore
import VoiceNoteSources

/// What an upload sends: a local file, the bytes of a source (memory, or a host's callbacks: Matrix encrypted rooms
/// upload the ciphertext the client made), with the name and MIME type it is sent under, or a take as it is recorded.
public enum UploadItem: @unchecked Sendable {
    /// A local file (a path or a `file://` URL), checked as a `LocalAttachment` when the upload is asked for.
    case file(String)
    /// A source's bytes from its current position; `mimeType` nil: from `fileName`'s extension.
    case source(ByteSource, fileName: String, mimeType: String?)
    /// A take still being recorded, sent as it is written (chunked); it completes with the finished take's payload.
    /// Sent once: a retry of it is refused (the finished take's file is uploaded whole instead).
    case live(LiveTake)

    /// The name the file is sent under.
    var fileName: String {
        switch self {
        case .file(let location): (try? LocalAttachment.path(of: location))?.split(separator: "/").last.map(String.init) ?? location
        case .source(_, let fileName, _): fileName
        case .live(let take): take.fileName
        }
    }
}

extension LocalAttachment {
    /// The path of a location given as a path or a `file://` URL (parsed by `Location`).
    /// - Throws: `.invalidArgument` for empty text, a `file://` URL of another host, or a URL of another scheme.
    public static func path(of location: String) throws(VoiceNoteError) -> String {
        let parsed: Location
        do throws(VoiceNoteError) {
            parsed = try Location(location)
        } catch {
            throw VoiceNoteError(.invalidArgument, error.message)  // an upload takes a local file, whatever else it is
        }
        guard case .file(let path, _) = parsed else {
            throw VoiceNoteError(.invalidArgument, "an upload reads a local file, not \(Location.redacted(location))")
        }
        return path
    }
}
