import CSQLiteLoader
import VoiceNoteCore

/// One SQLite connection (SQLite is opened with dlopen on first use, like libcurl): statements run with their
/// arguments bound, never spliced into the text; every failure becomes a `VoiceNoteError` naming the database.
/// Not thread-safe: its owner serializes the calls.
final class SQLiteDatabase {
    /// A value bound to a statement's `?` or read from a row.
    enum Value: Equatable {
        case integer(Int64)
        case text(String)
        case null

        /// The integer, or nil.
        var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
        /// The text, or nil.
        var text: String? { if case .text(let value) = self { value } else { nil } }
    }

    private var open: OpaquePointer?
    /// The database's path, for messages.
    let path: String

    /// Opens (or with `create`, creates) the database at `path`: a symbolic link there is refused
    /// (`SQLITE_OPEN_NOFOLLOW`), as is a file that is not an SQLite database.
    /// - Throws: `.unsupported` when SQLite cannot be loaded; `.format` for a damaged file; the file's errno status.
    init(path: String, create: Bool) throws(VoiceNoteError) {
        var message: UnsafePointer<CChar>?
        guard vnshim_sqlite_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, message.map { String(cString: $0) } ?? "SQLite is not available")
        }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOFOLLOW
            | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let text = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            if let opened { sqlite3_close_v2(opened) }
            throw Self.error(code: code, "\(path): \(text)")
        }
        open = opened
        self.path = path
        sqlite3_busy_timeout(opened, 2000)
    }

    deinit { close() }

    /// Closes the connection (its last changes are durable already); later calls throw `.misuse`.
    func close() {
        if let open { sqlite3_close_v2(open) }
        open = nil
    }

    /// The open connection. - Throws: `.misuse` after `close`.
    private var handle: OpaquePointer {
        get throws(VoiceNoteError) {
            guard let open else { throw VoiceNoteError(.misuse, "\(path) is closed") }
            return open
        }
    }

    /// Runs `sql` (one or more statements, no arguments).
    func execute(_ sql: String) throws(VoiceNoteError) {
        let code = sqlite3_exec(try handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// Runs one statement with `arguments` bound in order and returns its rows (each a list of column values).
    @discardableResult
    func query(_ sql: String, _ arguments: [Value] = []) throws(VoiceNoteError) -> [[Value]] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(try handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        defer { sqlite3_finalize(statement) }
        for (index, argument) in arguments.enumerated() {
            let position = Int32(index + 1)
            let bound: Int32 = switch argument {
            case .integer(let value): sqlite3_bind_int64(statement, position, value)
            case .null: sqlite3_bind_null(statement, position)
            case .text(let value):
                value.withCString { text in vnshim_sqlite_bind_text_copy(statement, position, text, Int32(clamping: value.utf8.count)) }
            }
            guard bound == SQLITE_OK else { throw failure(bound) }
        }
        var rows: [[Value]] = []
        while true {
            let stepped = sqlite3_step(statement)
            if stepped == SQLITE_DONE { return rows }
            guard stepped == SQLITE_ROW else { throw failure(stepped) }
            let columns = sqlite3_column_count(statement)
            rows.append((0..<columns).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: .integer(sqlite3_column_int64(statement, column))
                case SQLITE_NULL: .null
                default:
                    sqlite3_column_text(statement, column).map { .text(String(cString: $0)) } ?? .null
                }
            })
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` (rolled back when it throws): durable when this returns.
    func transaction<T>(_ body: () throws(VoiceNoteError) -> T) throws(VoiceNoteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do throws(VoiceNoteError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            _ = sqlite3_exec(open, "ROLLBACK", nil, nil, nil)
            throw error
        }
    }

    /// The rows the last statement changed.
    var changes: Int { open.map { Int(sqlite3_changes($0)) } ?? 0 }

    /// The row id the last INSERT made.
    var lastRowID: Int64 { open.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    private func failure(_ code: Int32) -> VoiceNoteError {
        Self.error(code: code, "\(path): \(open.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")")
    }

    /// The status an SQLite result code stands for: a full disk `.noSpace`, a damaged or foreign file `.format`,
    /// a refused file `.permission`, a missing one `.notFound`, a busy database `.busy`, anything else `.io`.
    static func error(code: Int32, _ message: String) -> VoiceNoteError {
        let status: Status = switch code & 0xff {
        case SQLITE_FULL: .noSpace
        case SQLITE_CORRUPT, SQLITE_NOTADB: .format
        case SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH: .permission
        case SQLITE_CANTOPEN: .notFound
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_NOMEM: .noMemory
        default: .io
        }
        return VoiceNoteError(status, "\(message) (SQLite \(code))")
    }
}
