#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteJSON

/// Where each voice message was left, across processes (listening that remembers): one small JSON file under the
/// cache directory (`$XDG_CACHE_HOME/voicenote/positions/resume-positions.json`, resolved at each use), keyed by the
/// location's key — an absolute path, or a URL's key (or the URL). Bounded: the `limit` most recently used stay
/// (1000 for the shared store).
/// Changes are read, merged and written aside (a fresh name, O_EXCL | O_NOFOLLOW) and renamed under an exclusive
/// flock(2) on a lock file beside it, so players in several processes never lose each other's positions; readers
/// need no lock (a rename is atomic). The directory must be the user's own (`FileSystem.makeOwnedDirectory`). It is a
/// cache: nothing is synced to disk, a damaged file reads as empty and is replaced by the next change, and a change
/// that cannot take the lock within `lockWaitMilliseconds` is skipped.
public final class ResumeStore: Sendable {
    /// The one store of this process.
    public static let shared = ResumeStore()
    /// The most locations the shared store keeps.
    public static let defaultLimit = 1000
    /// The longest key kept, in bytes (longer ones, odd URLs, are not remembered).
    public static let maximumKeyBytes = 2048
    private static let limits = JSONLimits(maximumBytes: 8 << 20)

    /// The longest a change waits for another process's lock on the store before it is skipped.
    public static let lockWaitMilliseconds = 1000

    private let directoryOverride: String?
    /// The most locations kept (the least recently used go first).
    public let limit: Int

    /// The shared store, or one in `directory` keeping at most `limit` locations (for tests).
    public init(directory: String? = nil, limit: Int = ResumeStore.defaultLimit) {
        directoryOverride = directory
        self.limit = max(1, limit)
    }

    private var directory: String { directoryOverride ?? FileSystem.cacheDirectory("positions") }
    private var file: String { directory + "/resume-positions.json" }

    /// The position kept for `key`, if any.
    public func position(of key: String) -> Double? {
        read()[key]?.seconds
    }

    /// The position kept for `location` (a path or URL, with the key it is loaded under), if any.
    /// - Throws: what loading it would throw for a bad location.
    public func position(of location: PlayerLocation) throws(VoiceNoteError) -> Double? {
        guard let key = try location.key().storeKey else { return nil }
        return position(of: key)
    }

    /// Keeps `seconds` for `key` (0 or less forgets it).
    public func keep(_ seconds: Double, for key: String) {
        guard key.utf8.count <= Self.maximumKeyBytes, seconds.isFinite else { return }
        change { entries in
            if seconds > 0 {
                entries[key] = Entry(seconds: seconds, used: Self.now)
            } else {
                entries[key] = nil
            }
        }
    }

    /// Forgets `key`'s position (the end of the note, a stop).
    public func forget(_ key: String) {
        guard read()[key] != nil else { return }
        change { $0[key] = nil }
    }

    /// Forgets every position.
    public func clear() throws(VoiceNoteError) {
        try FileSystem.remove(file)
    }

    // MARK: - The file

    private struct Entry {
        var seconds: Double
        /// When it was kept, in seconds since 1970 (the least recently used go first).
        var used: Double
    }

    private static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The entries on disk; none when there is no file or it cannot be read.
    private func read() -> [String: Entry] {
        guard (try? FileSystem.checkOwnedDirectory(directory)) != nil,
              let bytes = try? FileSystem.contents(of: file, atMost: Self.limits.maximumBytes),
              let document = try? bytes.withUnsafeBytes({ buffer in
                  Result { () throws(VoiceNoteError) in try JSONDocument(parsing: buffer, limits: Self.limits, what: "resume positions") }
              }).get() else { return [:] }
        var entries: [String: Entry] = [:]
        guard case .object(let object) = document.top.value else { return [:] }
        for member in object {
            guard let pair = member.value.array, pair.count == 2, let seconds = pair[0].number, let used = pair[1].number,
                  seconds.isFinite, seconds > 0 else { continue }
            entries[member.key] = Entry(seconds: seconds, used: used)
        }
        return entries
    }

    /// Reads, changes and writes the entries under the lock file's flock; failures leave the store as it was
    /// (positions are a convenience: a full disk must not stop playback). The lock is waited for at most
    /// `lockWaitMilliseconds`: another process holding it longer (hung, or hostile) costs this change, never the
    /// player calling it.
    private func change(_ body: (inout [String: Entry]) -> Void) {
        let directory = self.directory
        let lock: FileDescriptor
        do {
            try FileSystem.makeOwnedDirectory(directory)
            lock = try FileDescriptor.openLockFile(directory + "/resume-positions.lock")
        } catch {
            Log.write(.debug, "resume positions: not kept: \(error.message)")
            return
        }
        defer { try? lock.close() }
        guard lock.lockExclusively(within: Self.lockWaitMilliseconds) else {
            Log.write(.debug, "resume positions: not kept: another process held the store's lock for over \(Self.lockWaitMilliseconds) ms")
            return
        }
        var entries = read()
        body(&entries)
        if entries.count > limit {
            let kept = entries.sorted { $0.value.used > $1.value.used }.prefix(limit)
            entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        let object = JSONObject(entries.sorted { $0.key < $1.key }.map { key, entry in
            (key, JSONValue.array([.real(entry.seconds), .real(entry.used)]))
        })
        guard let text = try? JSONValue.object(object).text() else { return }
        try? FileSystem.replace(file, with: Array(text.utf8), sync: false)  // a cache: not synced
    }
}
