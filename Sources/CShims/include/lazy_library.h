/* Libraries opened with dlopen on first use instead of linked (ARCHITECTURE.md, "Heavy libraries are loaded
 * lazily"): FFmpeg (CFFmpegLoader), libcurl (CCurlLoader), SQLite (CSQLiteLoader) and speexdsp (CSpeexDSPLoader)
 * share this one way of opening them. */
#ifndef VOICENOTE_LAZY_LIBRARY_H
#define VOICENOTE_LAZY_LIBRARY_H

#include <stddef.h>

/** One function to resolve: the index of its library in the list given to vnshim_lazy_load, its name, and the
 *  pointer that receives its address. */
typedef struct vnshim_lazy_symbol {
    int library;
    const char *name;
    void **slot;
} vnshim_lazy_symbol;

/** Opens `sonames` in order (RTLD_NOW | RTLD_LOCAL: their symbols stay out of the global scope, so a host that
 *  links another copy is not disturbed; they still find each other through their own DT_NEEDED entries; they stay
 *  open for the life of the process) and resolves every symbol into its slot. Not thread-safe: call it inside a
 *  pthread_once.
 *  \param what a name for messages ("FFmpeg", "libcurl").
 *  \param message receives, on failure, text naming the library or function missing (at most `message_size`).
 *  \returns 0 when every symbol is resolved; -1 with every slot NULL otherwise. */
int vnshim_lazy_load(const char *what, const char *const *sonames, size_t library_count,
                     const vnshim_lazy_symbol *symbols, size_t symbol_count, char *message, size_t message_size);

/** Stops the process for a trampoline reached before its library was loaded: a bug in voicenote (a path that
 *  skipped the load), named rather than a jump to NULL. Prints `what`'s `function` and the `loader` that should have
 *  run on stderr (the one place the library prints: it is about to abort). */
__attribute__((noreturn, cold)) void vnshim_lazy_not_loaded(const char *what, const char *function, const char *loader);

/** A loader's trampoline for `name`: a hidden definition with the library's own prototype (so the compiler checks
 *  it against the library's header) that jumps through `pointer`, the address vnshim_lazy_load resolved, and stops
 *  the process, naming `what`'s function and the `loader` that should have run, while it is still NULL. Hidden: it
 *  never enters a dynamic symbol table, so it neither leaves the library nor binds to a host's own copy. */
#define VNSHIM_LAZY_TRAMPOLINE(what, loader, pointer, type, name, parameters, arguments)          \
    __attribute__((visibility("hidden"))) type name parameters {                               \
        if (__builtin_expect(pointer == NULL, 0)) vnshim_lazy_not_loaded(what, #name, loader); \
        return pointer arguments;                                                              \
    }

#endif
