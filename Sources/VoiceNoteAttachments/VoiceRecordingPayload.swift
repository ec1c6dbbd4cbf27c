import VoiceNoteCore
import VoiceNoteJSON

/// A `voiceRecording` attachment payload in Stream's wire format: `type`, `title`, `asset_url`, `file_size`,
/// `mime_type`, `duration`, `waveform_data`, and any other key as extra data.
///
/// The payload is its JSON object: the typed properties read and write members of it, so a payload that was read
/// and written back keeps every key, its position and its value (64-bit integers exact, reals as written). The one
/// normalisation is `file_size`, which is bytes: a real is rounded to an integer when read (0 outside Int64), and
/// any other value becomes 0, as in Stream.
public struct VoiceRecordingPayload: Sendable, Equatable {
    /// The keys this type knows, in Stream's order; every other key is extra data.
    public static let keyOrder = ["type", "title", "asset_url", "file_size", "mime_type", "duration", "waveform_data"]
    /// The keys this type knows.
    public static let knownKeys = Set(keyOrder)

    /// The JSON object, in its order.
    public private(set) var object: JSONObject

    /// A new payload; its keys go in Stream's order, `type` first (`voiceRecording` unless given), then the extra
    /// data.
    public init(type: AttachmentType = .voiceRecording, assetURL: String, title: String? = nil, fileSize: Int64? = nil, mimeType: String? = nil,
                duration: Double? = nil, waveform: [Double]? = nil, extraData: JSONObject = JSONObject()) throws(VoiceNoteError) {
        object = JSONObject([("type", .string(type.rawValue))])
        self.title = title
        try setAssetURL(assetURL)
        self.fileSize = fileSize
        self.mimeType = mimeType
        try setDuration(duration)
        try setWaveform(waveform)
        try setExtraData(extraData)
    }

    /// Reads a payload from JSON text (at most 1 MiB). - Throws: `.tooLarge` over the limit, `.format` for invalid
    /// JSON, a value that is not an object, a missing or relative `asset_url`, or a known key of the wrong type.
    public init(json: String) throws(VoiceNoteError) {
        try self.init(document: JSONDocument(parsing: json, limits: .payload, what: "a voiceRecording payload").top)
    }

    /// Reads a payload from a parsed JSON value; see `init(json:)`.
    public init(document node: JSONNode) throws(VoiceNoteError) {
        guard case .object(var object) = node.value else {
            throw VoiceNoteError(.format, "a voiceRecording payload must be a JSON object")
        }
        if let size = object["file_size"] { object["file_size"] = .integer(Self.bytes(size)) }
        self.object = object
        try Self.check(object)
    }

    /// The JSON text: compact, or pretty with `indent` spaces.
    public func json(indent: Int = 0) -> String {
        // Every value was checked when it was set: only finite reals are stored, so encoding cannot fail.
        (try? JSONValue.object(object).text(indent: indent)) ?? "{}"
    }

    /// `type` (normally "voiceRecording"); nil when the payload read had none.
    public var type: String? { object["type"]?.string }

    /// `title`, e.g. the file name.
    public var title: String? {
        get { object["title"]?.string }
        set { setKnown("title", newValue.map(JSONValue.string)) }
    }

    /// `asset_url`: where the audio is (a `file://` URL before upload).
    public var assetURL: String { object["asset_url"]?.string ?? "" }

    /// Sets `asset_url`. - Throws: `.invalidArgument` unless it is an absolute URL (`scheme:...`).
    public mutating func setAssetURL(_ url: String) throws(VoiceNoteError) {
        guard Self.isAbsoluteURL(url), !url.utf8.contains(0) else { throw VoiceNoteError(.invalidArgument, "asset_url must be an absolute URL") }
        setKnown("asset_url", .string(url))
    }

    /// `file_size` in bytes.
    public var fileSize: Int64? {
        get { object["file_size"].map(Self.bytes) }
        set { setKnown("file_size", newValue.map(JSONValue.integer)) }
    }

    /// `mime_type`, e.g. `audio/ogg`.
    public var mimeType: String? {
        get { object["mime_type"]?.string }
        set { setKnown("mime_type", newValue.map(JSONValue.string)) }
    }

    /// `duration` in seconds.
    public var duration: Double? { object["duration"]?.number }

    /// Sets `duration` (nil removes it). - Throws: `.invalidArgument` unless finite and not negative.
    public mutating func setDuration(_ seconds: Double?) throws(VoiceNoteError) {
        if let seconds, !(seconds.isFinite && seconds >= 0) {
            throw VoiceNoteError(.invalidArgument, "duration must be a finite number of seconds, not \(seconds)")
        }
        setKnown("duration", seconds.map(JSONValue.real))
    }

    /// `waveform_data`: levels 0…1.
    public var waveform: [Double]? { object["waveform_data"]?.array?.compactMap(\.number) }

    /// Sets `waveform_data` (nil removes it). - Throws: `.invalidArgument` for a value that is not finite.
    public mutating func setWaveform(_ levels: [Double]?) throws(VoiceNoteError) {
        if let levels, levels.contains(where: { !$0.isFinite }) {
            throw VoiceNoteError(.invalidArgument, "waveform_data values must be finite")
        }
        setKnown("waveform_data", levels.map { .array($0.map(JSONValue.real)) })
    }

    /// Every member whose key is not a known one, in order.
    public var extraData: JSONObject {
        JSONObject(object.members.filter { !Self.knownKeys.contains($0.key) }.map { ($0.key, $0.value) })
    }

    /// Replaces the extra data: a key kept stays where it was, a key dropped goes, a new key is appended.
    /// - Throws: `.invalidArgument` for a known key (set it through its property) or a real that is not finite.
    public mutating func setExtraData(_ extra: JSONObject) throws(VoiceNoteError) {
        if let known = extra.keys.first(where: Self.knownKeys.contains) {
            throw VoiceNoteError(.invalidArgument, "\(known) is not extra data")
        }
        _ = try JSONValue.object(extra).text()
        object.removeAll { !Self.knownKeys.contains($0) && extra[$0] == nil }
        for member in extra { object[member.key] = member.value }
    }

    /// Sets or removes a known key: an existing one in place; a new one before the first known key that comes after
    /// it in Stream's order, else after the last known key, else first.
    private mutating func setKnown(_ key: String, _ value: JSONValue?) {
        guard let value else {
            object[key] = nil
            return
        }
        let rank = Self.keyOrder.firstIndex(of: key) ?? Self.keyOrder.count
        func rankOf(_ member: JSONObject.Member) -> Int? { Self.keyOrder.firstIndex(of: member.key) }
        let members = object.members
        let index = members.firstIndex { (rankOf($0) ?? -1) > rank }
            ?? members.lastIndex { rankOf($0) != nil }.map { $0 + 1 }
            ?? 0
        object.insert(key, value, at: index)
    }

    /// Checks the known keys of a payload read from JSON.
    private static func check(_ object: JSONObject) throws(VoiceNoteError) {
        guard let url = object["asset_url"]?.string else {
            throw VoiceNoteError(.format, "a voiceRecording payload needs an asset_url string")
        }
        guard isAbsoluteURL(url) else { throw VoiceNoteError(.format, "asset_url is not an absolute URL") }
        for key in ["type", "title", "mime_type"] {
            if let value = object[key], value != .null, value.string == nil {
                throw VoiceNoteError(.format, "\(key) is not a string")
            }
        }
        for key in ["asset_url", "type", "title", "mime_type"] { try refuseNUL(object[key]?.string, named: key) }
        if let value = object["duration"], value != .null, value.number == nil {
            throw VoiceNoteError(.format, "duration is not a number")
        }
        if let value = object["waveform_data"], value != .null,
           value.array.map({ $0.contains { $0.number == nil } }) ?? true {
            throw VoiceNoteError(.format, "waveform_data is not an array of numbers")
        }
    }

    /// Refuses received text that C would get cut short: handed over NUL-terminated, text cut at a NUL would name
    /// another resource, or show another title than the payload's JSON. - Throws: `.format` naming the field.
    static func refuseNUL(_ text: String?, named field: String) throws(VoiceNoteError) {
        if text?.utf8.contains(0) == true { throw VoiceNoteError(.format, "\(field) holds a NUL character") }
    }

    /// `file_size` as Stream reads it: an integer, a real rounded (0 outside Int64), anything else 0; and, since it
    /// counts bytes, 0 for a negative one.
    private static func bytes(_ value: JSONValue) -> Int64 {
        switch value {
        case .integer(let bytes): return max(0, bytes)
        case .real(let bytes):
            let rounded = bytes.rounded()
            return rounded >= 0 && rounded < 0x1p63 ? Int64(rounded) : 0
        default: return 0
        }
    }

    /// `scheme:` then something: RFC 3986's scheme is a letter, then letters, digits, `+`, `-` or `.`.
    static func isAbsoluteURL(_ url: String) -> Bool {
        guard let colon = url.firstIndex(of: ":"), url.index(after: colon) != url.endIndex else { return false }
        let scheme = url[..<colon].utf8
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = scheme.first, isLetter(first) else { return false }
        return scheme.allSatisfy { isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.".utf8.contains($0) }
    }
}

extension VoiceRecordingPayload {
    /// Sets `type` (nil removes it).
    public mutating func setType(_ type: AttachmentType?) throws(VoiceNoteError) {
        if let type, type.rawValue.isEmpty { throw VoiceNoteError(.invalidArgument, "an attachment type is not empty") }
        setKnown("type", type.map { .string($0.rawValue) })
    }
}
