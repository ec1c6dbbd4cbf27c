import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteWaveform

/// A channel's messages as the next-item provider needs them: in chronological order (oldest first, as Stream's
/// REST API returns them), each with its author and the `asset_url` of each of its `voiceRecording` attachments (and
/// the loudness the sender measured, when the attachment carries it).
public struct ChannelMessages: Sendable, Equatable {
    /// One message.
    public struct Message: Sendable, Equatable {
        /// The message's `id` (nil when it has none).
        public var id: String?
        /// The author's `user.id` (nil when unknown: then it is nobody's, not even the current user's).
        public var authorID: String?
        /// The `asset_url` of each `voiceRecording` attachment, in the message's order; other types are left out.
        public var voiceRecordings: [String]
        /// The loudness each of those attachments carries (`voicenote_loudness`, docs/attachments.md), by
        /// `asset_url`; only plausible figures are kept.
        public var loudness: [String: Loudness]

        /// A message.
        public init(id: String? = nil, authorID: String?, voiceRecordings: [String], loudness: [String: Loudness] = [:]) {
            self.id = id
            self.authorID = authorID
            self.voiceRecordings = voiceRecordings
            self.loudness = loudness
        }
    }

    /// The messages, oldest first.
    public var messages: [Message]

    /// Messages given directly.
    public init(_ messages: [Message]) { self.messages = messages }

    /// The loudness the latest message naming `url` carries for it, or nil.
    public func loudness(of url: String) -> Loudness? {
        messages.last { $0.voiceRecordings.contains(url) }?.loudness[url]
    }

    /// Reads messages from JSON (at most 64 MiB): an array of message objects, or an object with a `messages`
    /// array (a Stream channel response). Each message is `{"id", "user": {"id"}, "attachments": [...]}`; keys it
    /// lacks are taken as absent. - Throws: `.tooLarge` over the limit; `.format` for invalid JSON, a list or a
    /// message or attachment that is not of its JSON type.
    public init(json: String) throws(VoiceNoteError) {
        try self.init(document: JSONDocument(parsing: json, limits: .messages, what: "the message list"))
    }

    /// Reads messages from a parsed document; see `init(json:)`.
    public init(document: JSONDocument) throws(VoiceNoteError) {
        var list = document.top
        if list.isObject, let inner = list["messages"] { list = inner }
        guard list.isArray else { throw VoiceNoteError(.format, "the message list is not a JSON array") }
        var messages: [Message] = []
        for (index, node) in list.elements.enumerated() {
            messages.append(try Self.message(node, index: index))
        }
        self.messages = messages
    }

    private static func message(_ node: JSONNode, index: Int) throws(VoiceNoteError) -> Message {
        guard node.isObject else { throw VoiceNoteError(.format, "message \(index) is not a JSON object") }
        var recordings: [String] = []
        var loudness: [String: Loudness] = [:]
        if let attachments = node["attachments"] {
            guard attachments.isArray else { throw VoiceNoteError(.format, "message \(index)'s attachments are not an array") }
            for attachment in attachments.elements {
                guard attachment.isObject else { throw VoiceNoteError(.format, "an attachment of message \(index) is not an object") }
                if attachment["type"]?.isString(AttachmentType.voiceRecording.rawValue) == true, attachment["og_scrape_url"] == nil,
                   let url = attachment["asset_url"]?.string {
                    // Handed to C as NUL-terminated text, a URL cut at a NUL would name another resource.
                    guard !url.utf8.contains(0) else {
                        throw VoiceNoteError(.format, "a voiceRecording asset_url of message \(index) holds a NUL character")
                    }
                    recordings.append(url)
                    if let figures = Loudness(json: attachment[VoiceRecordingPayload.loudnessKey]?.value) { loudness[url] = figures }
                }
            }
        }
        return Message(id: node["id"]?.string, authorID: node["user"]?["id"]?.string, voiceRecordings: recordings,
                       loudness: loudness)
    }
}
