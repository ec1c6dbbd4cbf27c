#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteAttachments
import VoiceNoteCore

/// The outbox's directory: `outbox.db` (SQLite, write-ahead log, synced at every commit), `items/<key>/<name>` (the
/// outbox's own copy of each note, under the name it is sent with) and `lock` (one process at a time). Every item
/// records its destination (endpoint and mode: never the credentials). Every method is durable when it returns. Not
/// thread-safe: `Outbox` serializes the calls.
final class OutboxStore {
    /// The schema this code writes; a database of a later one is refused rather than misread.
    static let schemaVersion: Int64 = 1
    /// The longest name a note is kept under (bytes); longer names are cut, keeping the extension.
    static let maximumNameBytes = 200
    /// How long opening waits for another holder of the outbox's lock before it is `.busy`.
    static let lockWaitMilliseconds = 500

    let directory: String
    private let database: SQLiteDatabase
    private let lock: FileDescriptor

    /// Opens the outbox at `directory` (created, mode 0700, when missing; it must be ours: see
    /// `FileSystem.makeOwnedDirectory`), its database checked (`quick_check`) and its schema made or verified.
    /// Items found mid-send, held or waiting go back to `queued`; copies in `items/` that no item names (a crash inside
    /// `add`) go.
    /// - Throws: `.busy` while another process has it open (after waiting `lockWaitMilliseconds` for it to be closed:
    ///   a child process that another thread is starting holds a copy of a just-closed outbox's lock until its exec);
    ///   `.format` for a damaged database (nothing is changed);
    ///   `.unsupported` for a later schema or no SQLite; `.permission` for a directory we cannot trust.
    init(directory: String) throws(VoiceNoteError) {
        try FileSystem.makeOwnedDirectory(directory)
        self.directory = directory
        lock = try FileDescriptor.openLockFile(directory + "/lock")
        guard lock.lockExclusively(within: Self.lockWaitMilliseconds) else {
            throw VoiceNoteError(.busy, "the outbox \(directory) is open in another process (or another outbox object)")
        }
        let path = directory + "/outbox.db"
        let fresh = !FileSystem.exists(path)
        if !fresh { _ = try FileDescriptor.openRegularFile(path, flags: O_RDONLY | O_NOFOLLOW) }
        database = try SQLiteDatabase(path: path, create: fresh)
        let check = try database.query("PRAGMA quick_check")
        guard check.first?.first?.text == "ok" else {
            throw VoiceNoteError(.format, "\(path) is damaged: \(check.first?.first?.text ?? "no answer")")
        }
        let version = try database.query("PRAGMA user_version").first?.first?.integer ?? 0
        guard version <= Self.schemaVersion else {
            throw VoiceNoteError(.unsupported, "\(path) was written by a later voicenote (schema \(version))")
        }
        try database.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
        if version == 0 {
            try database.transaction { () throws(VoiceNoteError) in
                try database.execute("""
                    CREATE TABLE items(
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        key TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        payload TEXT,
                        endpoint TEXT NOT NULL,
                        mode TEXT NOT NULL,
                        state TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        reserved TEXT,
                        error_status INTEGER,
                        error_message TEXT,
                        error_http INTEGER,
                        uploaded TEXT);
                    PRAGMA user_version = \(Self.schemaVersion);
                    """)
            }
        }
        try FileSystem.makeOwnedDirectory(directory + "/items")
        // Found mid-send or held (that process ended), or waiting out a back-off of that process: tried at once.
        try database.query("UPDATE items SET state = 'queued' WHERE state IN ('sending', 'held', 'waiting')")
        try removeOrphans()
    }

    /// Closes the database and lets another process open the outbox; later calls throw `.misuse`.
    func close() {
        database.close()
        try? lock.close()
    }

    /// The item's copy of its note.
    func path(key: String, name: String) -> String { "\(directory)/items/\(key)/\(name)" }

    /// Copies the note at `source` into a fresh `items/<key>/` and records it `queued`; returns the item.
    /// - Throws: the source's statuses (`.notFound`, `.invalidArgument` for what is not a regular file); `.noSpace`
    ///   and the like (then nothing is left behind: neither a copy nor a row).
    func add(source: String, payload: VoiceRecordingPayload?, destination: OutboxItem.Destination,
             held: Bool = false) throws(VoiceNoteError) -> OutboxItem {
        let (input, _) = try FileDescriptor.openRegularFile(source, flags: O_RDONLY)
        let name = Self.keptName(source)
        var key = randomHex(bytes: 16)
        while mkdir("\(directory)/items/\(key)", 0o700) != 0 {
            guard errno == EEXIST else { throw VoiceNoteError.fromErrno(errno, "mkdir \(directory)/items/\(key)") }
            key = randomHex(bytes: 16)
        }
        let copy = path(key: key, name: name)
        do throws(VoiceNoteError) {
            try Self.copy(input, to: copy)
            FileSystem.syncDirectory(of: copy)
            FileSystem.syncDirectory(of: "\(directory)/items/\(key)")
            let id = try database.transaction { () throws(VoiceNoteError) -> Int64 in
                try database.query("INSERT INTO items(key, name, payload, endpoint, mode, state) VALUES (?, ?, ?, ?, ?, ?)",
                                   [.text(key), .text(name), payload.map { .text($0.json()) } ?? .null,
                                    .text(destination.endpoint), .text(destination.mode.rawValue),
                                    .text(held ? "held" : "queued")])
                return database.lastRowID
            }
            guard let item = try item(id: id) else { throw VoiceNoteError(.internal, "the outbox lost item \(id)") }
            return item
        } catch {
            removeCopy(key: key)
            throw error
        }
    }

    /// Every item, oldest first.
    func items() throws(VoiceNoteError) -> [OutboxItem] {
        try database.query("SELECT \(Self.columns) FROM items ORDER BY id").compactMap(makeItem)
    }

    /// Item `id`, or nil.
    func item(id: Int64) throws(VoiceNoteError) -> OutboxItem? {
        try database.query("SELECT \(Self.columns) FROM items WHERE id = ?", [.integer(id)]).first.flatMap(makeItem)
    }

    /// The oldest `queued` item added for `destination`.
    func firstQueued(for destination: OutboxItem.Destination) throws(VoiceNoteError) -> OutboxItem? {
        try database.query("""
            SELECT \(Self.columns) FROM items WHERE state = 'queued' AND endpoint = ? AND mode = ? ORDER BY id LIMIT 1
            """, [.text(destination.endpoint), .text(destination.mode.rawValue)]).first.flatMap(makeItem)
    }

    /// Item `id` begins an attempt (`sending`, one more attempt). False when it is gone.
    func beginAttempt(id: Int64) throws(VoiceNoteError) -> Bool {
        try database.query("UPDATE items SET state = 'sending', attempts = attempts + 1 WHERE id = ?", [.integer(id)])
        return database.changes == 1
    }

    /// Records where the server reserved item `id`'s note.
    func setReserved(id: Int64, _ reserved: String) throws(VoiceNoteError) {
        try database.query("UPDATE items SET reserved = ? WHERE id = ?", [.text(reserved), .integer(id)])
    }

    /// Item `id` ends its attempt in `state` (`queued`, `waiting`, `failed`), with its error.
    func endAttempt(id: Int64, state: OutboxItem.State, error: VoiceNoteError?) throws(VoiceNoteError) {
        try database.query("""
            UPDATE items SET state = ?, error_status = ?, error_message = ?, error_http = ? WHERE id = ?
            """, [.text(state.rawValue), error.map { .integer(Int64($0.status.rawValue)) } ?? .null,
                  error.map { .text($0.message) } ?? .null, error?.httpCode.map { .integer(Int64($0)) } ?? .null,
                  .integer(id)])
    }

    /// Item `id` is uploaded with `payload` (state `uploaded`, until acknowledged).
    func setUploaded(id: Int64, _ payload: VoiceRecordingPayload) throws(VoiceNoteError) {
        try database.query("UPDATE items SET state = 'uploaded', uploaded = ?, error_status = NULL, error_message = NULL, error_http = NULL WHERE id = ?",
                           [.text(payload.json()), .integer(id)])
    }

    /// Item `id` goes to `queued` (a retry asked for, a held item released); false unless it was in `from`.
    func requeue(id: Int64, from states: [OutboxItem.State] = [.waiting, .failed]) throws(VoiceNoteError) -> Bool {
        let marks = states.map { _ in "?" }.joined(separator: ", ")
        try database.query("UPDATE items SET state = 'queued' WHERE id = ? AND state IN (\(marks))",
                           [.integer(id)] + states.map { .text($0.rawValue) })
        return database.changes == 1
    }

    /// Removes item `id` (row, then copy: a crash between leaves an orphan copy, removed at the next open). Returns
    /// the item removed, or nil when there was none (in `states`, when given).
    func remove(id: Int64, onlyIn states: [OutboxItem.State]? = nil) throws(VoiceNoteError) -> OutboxItem? {
        guard let found = try item(id: id), states.map({ $0.contains(found.state) }) ?? true else { return nil }
        try database.query("DELETE FROM items WHERE id = ?", [.integer(id)])
        removeCopy(key: found.key)
        return found
    }

    private static let columns = """
        id, key, name, payload, state, attempts, reserved, error_status, error_message, error_http, uploaded, endpoint, mode
        """

    /// A row as an item; nil for a row this code cannot read (an unknown state), which is then left alone.
    private func makeItem(_ row: [SQLiteDatabase.Value]) -> OutboxItem? {
        guard row.count == 13, let id = row[0].integer, let key = row[1].text, let name = row[2].text,
              let state = row[4].text.flatMap(OutboxItem.State.init(rawValue:)), let endpoint = row[11].text,
              let mode = row[12].text.flatMap(UploadMode.init(rawValue:)) else { return nil }
        let error = row[7].integer.flatMap { Status(rawValue: Int32(clamping: $0)) }.map { status in
            VoiceNoteError(status, row[8].text ?? "", httpCode: row[9].integer.map { Int(clamping: $0) })
        }
        return OutboxItem(id: id, state: state, path: path(key: key, name: name),
                          attempts: Int(clamping: row[5].integer ?? 0), reserved: row[6].text, lastError: error,
                          payload: row[3].text.flatMap { try? VoiceRecordingPayload(json: $0) },
                          uploaded: row[10].text.flatMap { try? VoiceRecordingPayload(json: $0) }, key: key,
                          destination: OutboxItem.Destination(endpoint: endpoint, mode: mode))
    }

    /// Removes `items/<key>/`'s files and the directory (no link is followed; best effort).
    private func removeCopy(key: String) {
        let folder = "\(directory)/items/\(key)"
        for entry in (try? FileSystem.entries(of: folder)) ?? [] { _ = unlink("\(folder)/\(entry)") }
        _ = rmdir(folder)
        FileSystem.syncDirectory(of: folder)
    }

    /// Removes the copies in `items/` that no item names: a crash inside `add` after the copy, before the row.
    /// Only our own names (32 hex digits) are touched.
    private func removeOrphans() throws(VoiceNoteError) {
        let known = Set(try database.query("SELECT key FROM items").compactMap { $0.first?.text })
        for entry in try FileSystem.entries(of: directory + "/items")
        where entry.utf8.count == 32 && entry.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
            && !known.contains(entry) {
            removeCopy(key: entry)
        }
    }

    /// The name a note is kept and sent under: the source's last component, cut to `maximumNameBytes`.
    static func keptName(_ source: String) -> String {
        let last = source.split(separator: "/").last.map(String.init) ?? "note"
        guard last.utf8.count > maximumNameBytes else { return last.isEmpty || last == "." || last == ".." ? "note" : last }
        let dot = last.lastIndex(of: ".")
        let ext = dot.map { String(last[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
        var stem = Substring(last)
        while stem.utf8.count + ext.utf8.count > maximumNameBytes { stem = stem.dropLast() }
        return String(stem) + ext
    }

    /// Copies everything `input` holds into the new file `target` (O_EXCL | O_NOFOLLOW, mode 0600) and syncs it.
    private static func copy(_ input: FileDescriptor, to target: String) throws(VoiceNoteError) {
        let output: FileDescriptor
        do throws(Errno) {
            output = try FileDescriptor(opening: target, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "create \(target)")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        do throws(Errno) {
            while true {
                let count = try input.read(into: buffer)
                if count == 0 { break }
                try output.write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            try output.sync()
            try output.close()
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "copy into \(target)")
        }
    }
}
