/// The MIME type voicenote gives a file by its extension (case-insensitive): the audio formats a voice message
/// uses, and the common image and video formats so that an attachment's type can follow from its name.
public struct MIMEType: Hashable, Sendable, CustomStringConvertible {
    /// The full type, e.g. `audio/ogg`.
    public let rawValue: String

    /// What a file with an unknown or no extension is sent as.
    public static let unknown = MIMEType(rawValue: "application/octet-stream")

    /// A MIME type by its text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The type for a file name or path by its extension.
    public init(fileName: String) {
        self = Self.table[Self.fileExtension(of: fileName)] ?? .unknown
    }

    /// The part before the slash: `audio`, `image`, `video`, `application`, ...
    public var majorType: Substring { rawValue.prefix { $0 != "/" } }

    public var description: String { rawValue }

    /// The lower-cased extension of the last path component ("" when it has none).
    static func fileExtension(of fileName: String) -> String {
        let name = fileName.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    private static let table: [String: MIMEType] = [
        "ogg": "audio/ogg", "opus": "audio/ogg", "oga": "audio/ogg", "aac": "audio/aac", "m4a": "audio/mp4",
        "mp3": "audio/mpeg", "wav": "audio/wav", "flac": "audio/flac", "weba": "audio/webm",
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "bmp": "image/bmp",
        "mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm", "mkv": "video/x-matroska",
        "avi": "video/x-msvideo",
    ].mapValues(MIMEType.init(rawValue:))
}
