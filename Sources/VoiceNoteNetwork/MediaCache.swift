#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// The media cache: downloads kept on disk so a replay costs no network (docs/player.md, "The media cache").
///
/// One directory (by default `$XDG_CACHE_HOME/voicenote/media`, made 0700), one file per key (0600, see
/// `CacheEntry`), at most `limit` bytes in all: after each store the least recently used entries (by modification
/// time, renewed at every hit) go first. Processes may share the directory: an entry is written to a temporary
/// file there and renamed into place, so a reader sees a whole entry or none; an entry deleted by another process
/// while open stays readable through the open file.
public final class MediaCache: Sendable {
    /// The cache every download uses.
    public static let shared = MediaCache()
    /// The default size limit: 100 MB.
    public static let defaultLimit: Int64 = 100_000_000
    /// The largest limit taken (1 TB): beyond it a number is surely a mistake.
    public static let largestLimit: Int64 = 1_000_000_000_000

    private struct Settings {
        var directory: String?
        var limit = MediaCache.defaultLimit
    }

    private let settings = Locked(Settings())

    /// A cache with the default settings.
    public init() {}

    /// The directory in use: the one set, else the default.
    public var directory: String {
        settings.withLock { $0.directory } ?? FileSystem.cacheDirectory("media")
    }

    /// The size limit in bytes; 0 turns the cache off (nothing is stored or read).
    public var limit: Int64 { settings.withLock { $0.limit } }

    /// Uses `path` as the directory (made when first needed), or the default for nil. Entries already in the old
    /// directory stay there. `.invalidArgument` for an empty path.
    public func setDirectory(_ path: String?) throws(VoiceNoteError) {
        if let path, path.isEmpty { throw VoiceNoteError(.invalidArgument, "the cache directory is empty") }
        settings.withLock { $0.directory = path }
    }

    /// Sets the size limit (0…1 TB; 0 turns the cache off); entries over it are evicted now.
    public func setLimit(_ bytes: Int64) throws(VoiceNoteError) {
        guard bytes >= 0 && bytes <= Self.largestLimit else {
            throw VoiceNoteError(.invalidArgument, "cache limit \(bytes) bytes is outside 0…\(Self.largestLimit)")
        }
        settings.withLock { $0.limit = bytes }
        try evict(keeping: bytes)
    }

    /// The bytes the entries take now, unfinished files included (0 when the directory does not exist).
    public func size() throws(VoiceNoteError) -> Int64 {
        try (entries() + incomingFiles()).reduce(0) { $0 + $1.size }
    }

    /// Deletes every entry, and the unfinished files of writers that died (files being written by live writers,
    /// in this process or another, are left to them).
    public func clear() throws(VoiceNoteError) {
        for entry in try entries() { try FileSystem.remove(entry.path) }
        try sweepAbandoned()
    }

    /// How long an unfinished `.incoming-` file may go unchanged before, if no writer holds its lock, it counts as
    /// abandoned (its writer was killed) and is deleted.
    static let abandonedAfterSeconds = 300

    /// Deletes the `.incoming-` files whose writer is gone: unchanged for `abandonedAfterSeconds` and not locked
    /// (a writer holds an exclusive `flock` on its file until it renames it; the kernel drops it when the process
    /// dies).
    func sweepAbandoned() throws(VoiceNoteError) {
        let now = time(nil)
        for file in try incomingFiles() where Int(now - file.used.tv_sec) >= Self.abandonedAfterSeconds {
            guard let (handle, _) = try? FileDescriptor.openRegularFile(file.path, flags: O_RDONLY | O_NOFOLLOW),
                  handle.tryLockExclusively() else { continue }  // a live writer
            try FileSystem.remove(file.path)
        }
    }

    /// The media kept for `key`, as a source named `name`, or nil; a hit makes the entry the most recently used.
    public func source(for key: String, name: String) -> FileSource? {
        guard limit > 0 else { return nil }
        return CacheEntry.open(directory + "/" + CacheEntry.fileName(for: key), key: key, name: name)
    }

    /// Keeps `length` bytes for `key`, written by `copy` (into the file, from offset `start` on). Failures (a full
    /// disk, a read-only directory) leave the cache as it was: the media plays on from its download.
    func store(key: String, length: Int64, copy: (FileDescriptor, _ start: Int64) throws(VoiceNoteError) -> Void) {
        guard length > 0, length <= limit else { return }
        keep(CacheEntry.fileName(for: key)) { (file) throws(VoiceNoteError) in
            let header = CacheEntry.header(key: key, length: length)
            try Self.write(header, to: file, at: 0)
            try copy(file, Int64(header.count))
        }
    }

    /// Writes a file of the directory aside (a fresh `.incoming-` name, 0600, locked while written) with `write`,
    /// renames it to `name` and evicts what no longer fits. Failures are logged at `warning` and leave the cache as
    /// it was.
    func keep(_ name: String, write: (FileDescriptor) throws(VoiceNoteError) -> Void) {
        let limit = self.limit
        guard limit > 0 else { return }
        let directory = self.directory
        do throws(VoiceNoteError) {
            try FileSystem.makeOwnedDirectory(directory)
            let (file, temporary) = try FileSystem.createTemporary(in: directory, prefix: ".incoming-")  // 0600
            _ = file.tryLockExclusively()  // held while writing: a sweep never takes a live writer's file
            do throws(VoiceNoteError) {
                try write(file)
                try FileSystem.rename(temporary, to: directory + "/" + name)
            } catch {
                try? FileSystem.remove(temporary)
                throw error
            }
            try evict(keeping: limit)
        } catch {
            Log.write(.warning, "media cache: \(error.message)")
        }
    }

    /// Writes `bytes` at `offset` of `file`.
    static func write(_ bytes: [UInt8], to file: FileDescriptor, at offset: Int64) throws(VoiceNoteError) {
        let failure = bytes.withUnsafeBytes { (raw) -> Errno? in
            do throws(Errno) { try file.write(at: offset, raw) } catch { return error }
            return nil
        }
        if let failure { throw VoiceNoteError.fromErrno(failure.code, "write the media cache's file") }
    }

    /// An entry file.
    private struct Entry {
        let path: String
        let size: Int64
        let used: timespec
    }

    /// The entry files of the directory: media, and the analyses and transcripts kept beside them.
    private func entries() throws(VoiceNoteError) -> [Entry] {
        try files { name in name.hasSuffix(CacheEntry.suffix) || KeptAnalysisEntry.suffixes.contains { name.hasSuffix($0) } }
    }

    /// The unfinished files of the directory (an entry being written, or one whose writer died).
    private func incomingFiles() throws(VoiceNoteError) -> [Entry] {
        try files { $0.hasPrefix(".incoming-") }
    }

    /// The regular files of the directory whose names pass `wanted`. - Throws: `.io` when the cache path is not a
    /// directory.
    private func files(_ wanted: (String) -> Bool) throws(VoiceNoteError) -> [Entry] {
        let directory = self.directory
        var status = stat()
        guard stat(directory, &status) == 0 else { return [] }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw VoiceNoteError(.io, "the cache directory \(directory) is \(FileDescriptor.kind(of: status.st_mode)), not a directory")
        }
        return try FileSystem.entries(of: directory).filter(wanted).compactMap { name in
            let path = directory + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            return Entry(path: path, size: Int64(status.st_size), used: status.st_mtim)
        }
    }

    /// Deletes the least recently used entries until the rest fit in `limit`.
    private func evict(keeping limit: Int64) throws(VoiceNoteError) {
        try sweepAbandoned()
        var all = try entries()
        var total = all.reduce(0) { $0 + $1.size }
        guard total > limit else { return }
        all.sort { ($0.used.tv_sec, $0.used.tv_nsec) < ($1.used.tv_sec, $1.used.tv_nsec) }
        for entry in all where total > limit {
            try FileSystem.remove(entry.path)
            total -= entry.size
        }
    }
}
