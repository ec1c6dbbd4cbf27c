/* SQLite on demand: dlopen of libsqlite3.so.0 the first time an outbox is opened, and a trampoline for each SQLite
 * function Swift calls. A process that never keeps an outbox never loads it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "lazy_library.h"
#include "sqlite_loader.h"

/* SQLite 3's SONAME since 2004; Debian's libsqlite3-0 provides it. */
static const char *const vnsql_sonames[] = {"libsqlite3.so.0"};

#define VNSQL(type, name, parameters, arguments) static type(*vnsql_##name) parameters;
#include "sqlite_functions.h"
#undef VNSQL

static const vnshim_lazy_symbol vnsql_symbols[] = {
#define VNSQL(type, name, parameters, arguments) {0, #name, (void **)&vnsql_##name},
#include "sqlite_functions.h"
#undef VNSQL
};

static pthread_once_t vnsql_once = PTHREAD_ONCE_INIT;
static int vnsql_status = -1; /* written once, inside vnsql_once */
static char vnsql_message[512] = "SQLite was not loaded";

/* Runs once: opens SQLite and resolves every function; a build without threads is refused (the outbox's worker and
 * the host's calls use one connection under a lock, which SQLite's serialized or multi-thread modes allow). */
static void vnsql_load_once(void) {
    size_t count = sizeof vnsql_symbols / sizeof vnsql_symbols[0];
    if (vnshim_lazy_load("SQLite", vnsql_sonames, 1, vnsql_symbols, count, vnsql_message, sizeof vnsql_message) != 0)
        return;
    if (vnsql_sqlite3_threadsafe() == 0) {
        snprintf(vnsql_message, sizeof vnsql_message, "this SQLite (%s) was built without thread support",
                 vnsql_sqlite3_libversion());
        return;
    }
    vnsql_status = 0;
}

int vnshim_sqlite_load(const char **message) {
    pthread_once(&vnsql_once, vnsql_load_once);
    if (message) *message = vnsql_message;
    return vnsql_status;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNSQL(type, name, parameters, arguments) \
    VNSHIM_LAZY_TRAMPOLINE("SQLite", "vnshim_sqlite_load", vnsql_##name, type, name, parameters, arguments)
#include "sqlite_functions.h"
#undef VNSQL

int vnshim_sqlite_bind_text_copy(sqlite3_stmt *statement, int index, const char *text, int bytes) {
    return sqlite3_bind_text(statement, index, text, bytes, SQLITE_TRANSIENT);
}
