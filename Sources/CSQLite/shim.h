/* SQLite's header only: CSQLiteLoader opens libsqlite3 with dlopen on first use (the outbox's database), so nothing
 * links it. */
#include <sqlite3.h>
