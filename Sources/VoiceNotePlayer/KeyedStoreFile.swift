#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteJSON

/// One small JSON file of keyed entries shared by players in every process (the resume positions, the listened
/// marks): an object whose members are `key: [numbers…, used]`, `used` being when the entry was last changed in seconds
/// since 1970. Changes are read, merged and written aside (a fresh name, O_EXCL | O_NOFOLLOW) and renamed under an
/// exclusive flock(2) on a lock file beside it, so processes never lose each other's changes; readers need no lock
/// (a rename is atomic). The directory must be the user's own. Bounded: the `limit` most recently used stay. A
/// damaged file reads as empty and is replaced by the next change; nothing is synced to disk; a change that cannot
/// take the lock within `ResumeStore.lockWaitMilliseconds` is skipped (logged), never waited for longer.
struct KeyedStoreFile: Sendable {
    /// One entry: its numbers, and when it was last changed.
    struct Entry {
        var values: [Double]
        var used: Double
    }

    private static let limits = JSONLimits(maximumBytes: 8 << 20)

    /// The file's name without its extension (`NAME.json`, locked by `NAME.lock`).
    let name: String
    /// How many numbers an entry holds besides `used`.
    let valueCount: Int
    /// The most entries kept.
    let limit: Int
    /// What the log calls the file ("resume positions").
    let what: String

    /// Seconds since 1970 now.
    static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func path(in directory: String) -> String { directory + "/" + name + ".json" }

    /// The entries on disk in `directory`; none when there is no file or it cannot be read. Entries whose numbers
    /// are not finite, or of another count, are left out.
    func read(in directory: String) -> [String: Entry] {
        guard (try? FileSystem.checkOwnedDirectory(directory)) != nil,
              let bytes = try? FileSystem.contents(of: path(in: directory), atMost: Self.limits.maximumBytes),
              let document = try? bytes.withUnsafeBytes({ buffer in
                  Result { () throws(VoiceNoteError) in try JSONDocument(parsing: buffer, limits: Self.limits, what: what) }
              }).get() else { return [:] }
        var entries: [String: Entry] = [:]
        guard case .object(let object) = document.top.value else { return [:] }
        for member in object {
            guard let array = member.value.array, array.count == valueCount + 1 else { continue }
            let numbers = array.compactMap { $0.number }
            guard numbers.count == array.count, numbers.allSatisfy({ $0.isFinite }) else { continue }
            entries[member.key] = Entry(values: Array(numbers.dropLast()), used: numbers[valueCount])
        }
        return entries
    }

    /// Reads, changes and writes the entries in `directory` under the lock file's flock; failures leave the file as
    /// it was (a full disk must not stop playback).
    func change(in directory: String, _ body: (inout [String: Entry]) -> Void) {
        let lock: FileDescriptor
        do {
            try FileSystem.makeOwnedDirectory(directory)
            lock = try FileDescriptor.openLockFile(directory + "/" + name + ".lock")
        } catch {
            Log.write(.debug, "\(what): not kept: \(error.message)")
            return
        }
        defer { try? lock.close() }
        guard lock.lockExclusively(within: ResumeStore.lockWaitMilliseconds) else {
            Log.write(.debug, "\(what): not kept: another process held the lock for over \(ResumeStore.lockWaitMilliseconds) ms")
            return
        }
        var entries = read(in: directory)
        body(&entries)
        if entries.count > limit {
            let kept = entries.sorted { $0.value.used > $1.value.used }.prefix(limit)
            entries = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
        let object = JSONObject(entries.sorted { $0.key < $1.key }.map { key, entry in
            (key, JSONValue.array((entry.values + [entry.used]).map { .real($0) }))
        })
        guard let text = try? JSONValue.object(object).text() else { return }
        try? FileSystem.replace(path(in: directory), with: Array(text.utf8), sync: false)  // a cache: not synced
    }

    /// Removes the file (not an error when there is none).
    func remove(in directory: String) throws(VoiceNoteError) {
        try FileSystem.remove(path(in: directory))
    }
}
