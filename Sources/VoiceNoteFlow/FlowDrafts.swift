#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON

/// A take kept for one conversation: parked by the user leaving it, in preview, or running when the record was
/// written (then a crash may have left it as a `.part` to make whole).
public struct FlowDraft: Equatable, Sendable {
    /// The conversation's key (its id).
    public var key: String
    /// The audio file, in the drafts directory: a finished take, or a running one's `.part`.
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

/// The drafts directory (the user's own: `FileSystem.makeOwnedDirectory`): one small JSON record per key
/// (`<the key's UTF-8 in hex>.json`: any key makes a safe file name), each written to a fresh file and renamed, so a
/// crash leaves the old record or the new one. A flow with a draft key records its takes here, so a take never moves
/// and a record names its audio by file name in this directory only — never a path elsewhere.
///
/// One flow at a time holds a key (`claim`: an flock(2) on `<hex>.lock`, let go by the kernel if the process dies),
/// so two windows on one conversation never overwrite each other's draft.
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

    /// Creates the directory (0700) and checks it is the user's own. - Throws: `.permission` when it is not.
    public func prepare() throws(VoiceNoteError) {
        try FileSystem.makeOwnedDirectory(directory)
    }

    // MARK: - Claims

    /// A key held by one flow: while it lives, no other flow (in this process or another) claims the key.
    public final class Claim: @unchecked Sendable {
        private let lock: FileDescriptor
        init(_ lock: FileDescriptor) { self.lock = lock }
        /// Lets the key go (also when the claim goes away, or the process dies).
        public func release() { try? lock.close() }
        deinit { release() }
    }

    /// Claims `key` for one flow: nil when another flow holds it (still after `milliseconds`, when given: a flow
    /// just destroyed lets its key go from its worker). - Throws: `.permission` for a directory that is not the
    /// user's own; `.invalidArgument` for a lock file that is not a regular file (planted); file statuses.
    public func claim(key: String, within milliseconds: Int = 0) throws(VoiceNoteError) -> Claim? {
        try Self.check(key: key)
        try prepare()
        let lock = try FileDescriptor.openLockFile(stem(key) + ".lock")
        guard milliseconds > 0 ? lock.lockExclusively(within: milliseconds) : lock.tryLockExclusively() else { return nil }
        return Claim(lock)
    }

    // MARK: - Records

    /// Writes `draft`'s record (replacing the key's old one), naming its audio by file name. The audio must be in
    /// this directory. - Throws: `.invalidArgument` for audio elsewhere; the file system's errors.
    public func save(_ draft: FlowDraft) throws(VoiceNoteError) {
        try Self.check(key: draft.key)
        try prepare()
        guard let name = fileName(inDirectory: draft.path) else {
            throw VoiceNoteError(.invalidArgument, "a draft's audio is kept in \(directory), not at \(draft.path)")
        }
        let record = JSONValue.object(JSONObject([("key", .string(draft.key)), ("file", .string(name)),
                                                  ("duration", .real(draft.duration.isFinite ? draft.duration : 0))]))
        try FileSystem.replace(stem(draft.key) + ".json", with: Array(try record.text().utf8), sync: true)
    }

    /// The record for `key`, or nil when there is none. A record that cannot be read (damaged, another key's, not
    /// JSON, not a regular file, naming a file outside this directory) is `.format`.
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
        // "file": a name in this directory; "path" (the first records' form): accepted only inside it.
        let named = top["file"]?.string ?? top["path"]?.string.flatMap { fileName(inDirectory: $0) }
        guard let key = top["key"]?.string, let name = named, Self.isAudioName(name),
              let duration = top["duration"]?.value.number, path == stem(key) + ".json" else {
            throw VoiceNoteError(.format, "\(path) is not a voicenote draft record")
        }
        return FlowDraft(key: key, path: directory + "/" + name, duration: duration.isFinite ? max(0, duration) : 0)
    }

    /// `path`'s file name when `path` is directly in this directory, else nil.
    private func fileName(inDirectory path: String) -> String? {
        guard let slash = path.lastIndex(of: "/"), path[..<slash] == directory[...] else { return nil }
        let name = String(path[path.index(after: slash)...])
        return Self.isAudioName(name) ? name : nil
    }

    /// A name a record may give: one plain, visible file name of a take (`.ogg`, `.aac`, or either's `.part`).
    static func isAudioName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("."), !name.contains("/"), !name.utf8.contains(0) else {
            return false
        }
        let bare = RecordingRecovery.finishedPath(of: name) ?? name
        return RecordingFormat.allCases.contains { bare.hasSuffix("." + $0.fileExtension) && bare.count > $0.fileExtension.count + 1 }
    }

    /// Forgets `key`'s record (the audio stays: it may have been sent).
    public func forget(key: String) {
        try? FileSystem.remove(stem(key) + ".json")
    }

    /// Every draft in the directory, by key; records that cannot be read are left out.
    public func list() -> [FlowDraft] {
        let names = (try? FileSystem.entries(of: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") }
            .compactMap { name in try? read(directory + "/" + name) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// Deletes `key`'s draft (nil: every draft): its record and the audio it names in this directory. A record that
    /// cannot be read (damaged, a FIFO, too large) is deleted too; nothing outside this directory is touched.
    public func clear(key: String? = nil) throws(VoiceNoteError) {
        let records: [String]
        if let key {
            try Self.check(key: key)
            records = [stem(key) + ".json"]
        } else {
            let names = (try? FileSystem.entries(of: directory)) ?? []
            records = names.filter { $0.hasSuffix(".json") }.map { directory + "/" + $0 }
            for leftover in names where leftover.hasPrefix(".") && leftover.hasSuffix(".new") {
                try? FileSystem.remove(directory + "/" + leftover)  // a record writer killed before its rename
            }
        }
        for record in records {
            if let draft = try? read(record) {
                for path in [draft.path, RecordingRecovery.finishedPath(of: draft.path) ?? draft.path + RecordingRecovery.partSuffix] {
                    try? FileSystem.remove(path)
                }
            }
            try FileSystem.remove(record)
        }
    }

    /// `key`'s take made ready for preview (call it holding the key's claim): a running take's `.part` is made whole
    /// first (the recorder's recovery: every whole page kept), and the record rewritten to name the whole file. Nil
    /// when there is no draft, or its audio is gone (the record is then forgotten); `.busy` while a recorder still
    /// writes it; `.format` for a damaged record or audio that is not a regular file.
    public func restore(key: String) throws(VoiceNoteError) -> FlowDraft? {
        guard var draft = try load(key: key) else { return nil }
        if let finished = RecordingRecovery.finishedPath(of: draft.path) {
            if try Self.isRegularFile(draft.path) {
                let recovered = try RecordingRecovery.recover(partPath: draft.path)
                draft.path = recovered.path
                draft.duration = recovered.duration
            } else if try Self.isRegularFile(finished) {
                draft.path = finished  // the take was finished before the record said so
                draft.duration = 0
            } else {
                forget(key: key)
                return nil
            }
        } else if try !Self.isRegularFile(draft.path) {
            forget(key: key)
            return nil
        }
        try save(draft)
        return draft
    }

    /// Whether `path` is a regular file (not followed when a symlink); false when there is nothing there.
    /// - Throws: `.format` for anything else there (a symlink, a FIFO, a directory).
    private static func isRegularFile(_ path: String) throws(VoiceNoteError) -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else { return false }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VoiceNoteError(.format, "\(path) is \(FileDescriptor.kind(of: status.st_mode)), not a take")
        }
        return true
    }
}
