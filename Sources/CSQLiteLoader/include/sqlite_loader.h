/* CSQLiteLoader: SQLite opened with dlopen on first use, not linked (ARCHITECTURE.md, "Heavy libraries are loaded
 * lazily"): only a host that keeps an outbox needs it. The functions voicenote calls are hidden trampolines with
 * SQLite's own prototypes (sqlite_functions.h). Nothing here is public: the version script exports vn_* alone. */
#ifndef VOICENOTE_SQLITE_LOADER_H
#define VOICENOTE_SQLITE_LOADER_H

#include <sqlite3.h>

/** Loads SQLite (libsqlite3.so.0) and resolves every function voicenote calls. The first call does the work, once
 *  per process (pthread_once); later calls return its outcome. Any thread.
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when SQLite is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnshim_sqlite_load(const char **message);

/** sqlite3_bind_text of `bytes` bytes of UTF-8 at `text`, copied by SQLite (SQLITE_TRANSIENT, which Swift cannot
 *  spell). */
int vnshim_sqlite_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes);

#endif
