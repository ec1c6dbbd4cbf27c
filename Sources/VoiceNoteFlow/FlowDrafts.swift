#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON

/// A take kept for one conversation: parked by the user leaving it, or running when the record was written (then a
/// crash may have left it as a `.part` to make whole).
public struct FlowDraft: Equatable, Sendable {
    /// The conversation's key (its id).
    public var key: String
    /// The audio file: a finished take, or a running one's `.part`.
    public var path: String
    /// Seconds of audio (0 while it was running).
    public var duration: Double

    /// Whether the take was running when the record was written.
    public var wasRecording: Bool { path.hasSuffix(RecordingRecovery.partSuffix) }

    public init(key: String, path: String, duration: Double) {
        self.key = key
        self.path = path
        self.duration = duration
    }
}

/// The drafts directory: one small JSON record per key (`<the key's UTF-8 in hex>.json`: any key makes a safe file
/// name), each written aside and renamed, so a crash leaves the old record or the new one. Parked takes are moved in
/// beside their records (`<hex>.ogg`/`.aac`); a running take's record names its `.part` where the recorder writes.
public struct FlowDrafts: Sendable {
    /// Where the records live.
    public let directory: String

    /// `$XDG_DATA_HOME/voicenote/drafts` (else `~/.local/share/voicenote/drafts`).
    public static var defaultDirectory: String { FileSystem.dataDirectory("drafts") }
    /// The longest key in UTF-8 bytes (a conversation id; its hex name stays within NAME_MAX).
    public static let maximumKeyBytes = 100
    private static let limits = JSONLimits(maximumBytes: 16 << 10)

    /// The drafts in `directory` (nil: the default).
    public init(directory: String? = nil) {
        self.directory = directory ?? Self.defaultDirectory
    }

    /// Checks a key: 1…100 bytes of UTF-8, no NUL. - Throws: `.invalidArgument`.
    public static func check(key: String) throws(VoiceNoteError) {
        guard (1...maximumKeyBytes).contains(key.utf8.count), !key.utf8.contains(0) else {
            throw VoiceNoteError(.invalidArgument, "a draft key is 1…\(maximumKeyBytes) bytes of UTF-8 without NUL, not \(key.utf8.count) bytes")
        }
    }

    /// The record's path for `key`, without its extension.
    func stem(_ key: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let hex = key.utf8.flatMap { byte in [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return directory + "/" + String(decoding: hex, as: UTF8.self)
    }

    /// Writes `draft`'s record (replacing the key's old one). - Throws: the file system's errors.
    public func save(_ draft: FlowDraft) throws(VoiceNoteError) {
        try Self.check(key: draft.key)
        try FileSystem.makeDirectories(directory)
        let record = JSONValue.object(JSONObject([("key", .string(draft.key)), ("path", .string(draft.path)),
                                                  ("duration", .real(draft.duration.isFinite ? draft.duration : 0))]))
        try FileSystem.replace(stem(draft.key) + ".json", with: Array(try record.text().utf8), sync: true)
    }

    /// The record for `key`, or nil when there is none. A record that cannot be read (damaged, another key's, not
    /// JSON) is `.format`.
    public func load(key: String) throws(VoiceNoteError) -> FlowDraft? {
        try Self.check(key: key)
        return try read(stem(key) + ".json")
    }

    private func read(_ path: String) throws(VoiceNoteError) -> FlowDraft? {
        guard let bytes = try FileSystem.contents(of: path, atMost: Self.limits.maximumBytes) else { return nil }
        let document = try bytes.withUnsafeBytes { buffer in
            Result { () throws(VoiceNoteError) in try JSONDocument(parsing: buffer, limits: Self.limits, what: "draft record \(path)") }
        }.get()
        let top = document.top
        guard let key = top["key"]?.string, let filePath = top["path"]?.string, !filePath.isEmpty,
              let duration = top["duration"]?.value.number, path == stem(key) + ".json" else {
            throw VoiceNoteError(.format, "\(path) is not a voicenote draft record")
        }
        return FlowDraft(key: key, path: filePath, duration: duration)
    }

    /// Forgets `key`'s record (the audio stays: it may have been sent).
    public func forget(key: String) {
        try? FileSystem.remove(stem(key) + ".json")
    }

    /// Every draft in the directory, by key; records that cannot be read are left out.
    public func list() -> [FlowDraft] {
        let names = (try? FileSystem.entries(of: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
            .compactMap { name in try? read(directory + "/" + name) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// Deletes `key`'s draft (nil: every draft): its record and its audio.
    public func clear(key: String? = nil) throws(VoiceNoteError) {
        let drafts: [FlowDraft]
        if let key {
            drafts = try load(key: key).map { [$0] } ?? []
        } else {
            drafts = list()
        }
        for draft in drafts {
            try? FileSystem.remove(draft.path)
            forget(key: draft.key)
        }
    }

    /// Moves a parked take in beside its record (a rename; left where it is when that cannot be done, e.g. across
    /// file systems). Returns where it is.
    func adopt(_ path: String, key: String) -> String {
        let dot = path.lastIndex(of: ".").map { String(path[$0...]) } ?? ""
        let target = stem(key) + dot
        guard path != target else { return path }
        do {
            try FileSystem.makeDirectories(directory)
            try FileSystem.rename(path, to: target)
            return target
        } catch {
            return path
        }
    }

    /// `key`'s take made ready for preview: a running take's `.part` is made whole first (the recorder's recovery:
    /// every whole page kept), and moved in beside the record. Nil when there is no draft, or its audio is gone
    /// (the record is then forgotten); `.busy` while another recorder still writes it.
    public func restore(key: String) throws(VoiceNoteError) -> FlowDraft? {
        guard var draft = try load(key: key) else { return nil }
        if draft.wasRecording {
            let finished = String(draft.path.dropLast(RecordingRecovery.partSuffix.count))
            if access(draft.path, F_OK) == 0 {
                let recovered = try RecordingRecovery.recover(partPath: draft.path)
                draft.path = recovered.path
                draft.duration = recovered.duration
            } else if access(finished, F_OK) == 0 {
                draft.path = finished  // the take was finished before the record said so
                draft.duration = 0
            } else {
                forget(key: key)
                return nil
            }
        } else if access(draft.path, F_OK) != 0 {
            forget(key: key)
            return nil
        }
        draft.path = adopt(draft.path, key: key)
        try save(draft)
        return draft
    }
}
