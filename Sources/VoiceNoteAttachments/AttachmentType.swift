import VoiceNoteJSON

/// The type of a chat attachment, as Stream's wire format names it (`"voiceRecording"`, `"image"`, ...); any other
/// string is a custom type and is kept as is.
public struct AttachmentType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// A type by its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let image = AttachmentType(rawValue: "image")
    public static let file = AttachmentType(rawValue: "file")
    public static let giphy = AttachmentType(rawValue: "giphy")
    public static let video = AttachmentType(rawValue: "video")
    public static let audio = AttachmentType(rawValue: "audio")
    public static let voiceRecording = AttachmentType(rawValue: "voiceRecording")
    public static let linkPreview = AttachmentType(rawValue: "linkPreview")
    public static let unknown = AttachmentType(rawValue: "unknown")

    /// The types an upload takes (Stream's uploadable types); any other is `.unsupported` there.
    public static let uploadable: Set<AttachmentType> = [.image, .video, .audio, .file, .voiceRecording]

    public var description: String { rawValue }

    /// The type a file gets from its name's extension: image, video or audio by the MIME type's major type, else
    /// `file` (an unknown or missing extension too).
    public init(fileName: String) {
        let mime = MIMEType(fileName: fileName)
        switch mime.majorType {
        case "image": self = .image
        case "video": self = .video
        case "audio": self = .audio
        default: self = .file
        }
    }

    /// The type of an attachment object as it arrives: its `type` string; an object with an `og_scrape_url` is a
    /// link preview whatever its `type` says (as Stream decides); without a `type` string it is `unknown`.
    public init(attachment: JSONObject) {
        if attachment["og_scrape_url"] != nil {
            self = .linkPreview
        } else if let type = attachment["type"]?.string {
            self.init(rawValue: type)
        } else {
            self = .unknown
        }
    }
}
