import VoiceNoteCore

/// Where each voice message was left, and which were heard, across processes (listening that remembers): two small
/// JSON files under the cache directory (`$XDG_CACHE_HOME/voicenote/positions/`, resolved at each use) —
/// `resume-positions.json` and `listened.json` —, keyed by the location's key: an absolute path, or a URL's key (or
/// the URL). Bounded: the `limit` most recently used positions stay (1000 for the shared store), and the
/// `listenedLimit` most recently heard notes (10,000).
/// Each file is a `KeyedStoreFile`: changes are merged under a lock file's flock, so players in several processes
/// never lose each other's; the directory must be the user's own (`FileSystem.makeOwnedDirectory`). It is a cache:
/// nothing is synced to disk, a damaged file reads as empty and is replaced by the next change, and a change that
/// cannot take the lock within `lockWaitMilliseconds` is skipped.
public final class ResumeStore: Sendable {
    /// The one store of this process.
    public static let shared = ResumeStore()
    /// The most locations the shared store keeps.
    public static let defaultLimit = 1000
    /// The longest key kept, in bytes (longer ones, odd URLs, are not remembered).
    public static let maximumKeyBytes = 2048
    /// The most listened marks the shared store keeps.
    public static let defaultListenedLimit = 10_000

    /// The longest a change waits for another process's lock on the store before it is skipped.
    public static let lockWaitMilliseconds = 1000

    private let directoryOverride: String?
    /// The most locations kept (the least recently used go first).
    public let limit: Int
    /// The most listened marks kept (the least recently heard go first).
    public let listenedLimit: Int
    private let positions: KeyedStoreFile
    private let listened: KeyedStoreFile

    /// The shared store, or one in `directory` keeping at most `limit` locations and `listenedLimit` listened marks
    /// (for tests).
    public init(directory: String? = nil, limit: Int = ResumeStore.defaultLimit,
                listenedLimit: Int = ResumeStore.defaultListenedLimit) {
        directoryOverride = directory
        self.limit = max(1, limit)
        self.listenedLimit = max(1, listenedLimit)
        positions = KeyedStoreFile(name: "resume-positions", valueCount: 1, limit: self.limit, what: "resume positions")
        listened = KeyedStoreFile(name: "listened", valueCount: 0, limit: self.listenedLimit, what: "listened notes")
    }

    private var directory: String { directoryOverride ?? FileSystem.cacheDirectory("positions") }

    /// The position kept for `key`, if any.
    public func position(of key: String) -> Double? {
        guard let seconds = positions.read(in: directory)[key]?.values.first, seconds > 0 else { return nil }
        return seconds
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
        positions.change(in: directory) { entries in
            if seconds > 0 {
                entries[key] = KeyedStoreFile.Entry(values: [seconds], used: KeyedStoreFile.now)
            } else {
                entries[key] = nil
            }
        }
    }

    /// Forgets `key`'s position (the end of the note, a stop).
    public func forget(_ key: String) {
        guard positions.read(in: directory)[key] != nil else { return }
        positions.change(in: directory) { $0[key] = nil }
    }

    /// Forgets every position (the listened marks stay: `clearListened`).
    public func clear() throws(VoiceNoteError) {
        try positions.remove(in: directory)
    }

    // MARK: - Listened

    /// Whether the note under `key` was heard to the listened mark (`Player.listenedFraction`) or its end.
    public func isListened(_ key: String) -> Bool {
        listened.read(in: directory)[key] != nil
    }

    /// Whether the note at `location` (a path or URL, with the key it is loaded under) was heard.
    /// - Throws: what loading it would throw for a bad location.
    public func isListened(_ location: PlayerLocation) throws(VoiceNoteError) -> Bool {
        guard let key = try location.key().storeKey else { return false }
        return isListened(key)
    }

    /// Marks `key` listened, or, with `false`, unlistened again (a host's "mark as unplayed").
    public func setListened(_ value: Bool, for key: String) {
        guard key.utf8.count <= Self.maximumKeyBytes else { return }
        if !value, !isListened(key) { return }
        listened.change(in: directory) { entries in
            entries[key] = value ? KeyedStoreFile.Entry(values: [], used: KeyedStoreFile.now) : nil
        }
    }

    /// Marks the note at `location` (a path or URL, with the key it is loaded under) listened, or unlistened again.
    /// - Throws: what loading it would throw for a bad location.
    public func setListened(_ value: Bool, for location: PlayerLocation) throws(VoiceNoteError) {
        guard let key = try location.key().storeKey else { return }
        setListened(value, for: key)
    }

    /// Forgets every listened mark.
    public func clearListened() throws(VoiceNoteError) {
        try listened.remove(in: directory)
    }
}
