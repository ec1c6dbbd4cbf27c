/* Every SQLite function voicenote calls, written once: an X-macro list included by sqlite_loader.c with VNSQL
 * defined for each use (pointer, symbol table, trampoline).
 *   VNSQL(return type, name, (parameters), (arguments))
 * The trampolines are definitions of the functions sqlite3.h declares, so the compiler checks each line against
 * SQLite's prototype. */

VNSQL(int, sqlite3_open_v2, (const char *filename, sqlite3 **db, int flags, const char *vfs), (filename, db, flags, vfs))
VNSQL(int, sqlite3_close_v2, (sqlite3 *db), (db))
VNSQL(int, sqlite3_exec,
      (sqlite3 *db, const char *sql, int (*callback)(void *, int, char **, char **), void *argument, char **error),
      (db, sql, callback, argument, error))
VNSQL(int, sqlite3_prepare_v2, (sqlite3 *db, const char *sql, int bytes, sqlite3_stmt **statement, const char **tail),
      (db, sql, bytes, statement, tail))
VNSQL(int, sqlite3_step, (sqlite3_stmt *statement), (statement))
VNSQL(int, sqlite3_reset, (sqlite3_stmt *statement), (statement))
VNSQL(int, sqlite3_finalize, (sqlite3_stmt *statement), (statement))
VNSQL(int, sqlite3_bind_int64, (sqlite3_stmt *statement, int index, sqlite3_int64 value), (statement, index, value))
VNSQL(int, sqlite3_bind_null, (sqlite3_stmt *statement, int index), (statement, index))
VNSQL(int, sqlite3_bind_text,
      (sqlite3_stmt *statement, int index, const char *text, int bytes, void (*destructor)(void *)),
      (statement, index, text, bytes, destructor))
VNSQL(int, sqlite3_column_type, (sqlite3_stmt *statement, int column), (statement, column))
VNSQL(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt *statement, int column), (statement, column))
VNSQL(const unsigned char *, sqlite3_column_text, (sqlite3_stmt *statement, int column), (statement, column))
VNSQL(int, sqlite3_column_bytes, (sqlite3_stmt *statement, int column), (statement, column))
VNSQL(const char *, sqlite3_errmsg, (sqlite3 *db), (db))
VNSQL(const char *, sqlite3_errstr, (int code), (code))
VNSQL(int, sqlite3_extended_result_codes, (sqlite3 *db, int on), (db, on))
VNSQL(int, sqlite3_busy_timeout, (sqlite3 *db, int milliseconds), (db, milliseconds))
VNSQL(int, sqlite3_changes, (sqlite3 *db), (db))
VNSQL(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 *db), (db))
VNSQL(int, sqlite3_threadsafe, (void), ())
VNSQL(const char *, sqlite3_libversion, (void), ())
VNSQL(int, sqlite3_column_count, (sqlite3_stmt *statement), (statement))
