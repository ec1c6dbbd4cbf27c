/* See lazy_library.h. */
#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int vnshim_lazy_load(const char *what, const char *const *sonames, size_t library_count,
                     const vnshim_lazy_symbol *symbols, size_t symbol_count, char *message, size_t message_size) {
    void *handles[16] = {0};
    if (library_count > sizeof handles / sizeof handles[0]) {
        snprintf(message, message_size, "%s: too many libraries", what);
        return -1;
    }
    for (size_t i = 0; i < library_count; i++) {
        handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (handles[i] == NULL) {
            const char *detail = dlerror();
            snprintf(message, message_size, "%s is not available: cannot load %s (%s)", what, sonames[i],
                     detail ? detail : "unknown error");
            return -1;
        }
    }
    for (size_t i = 0; i < symbol_count; i++) {
        void *address = dlsym(handles[symbols[i].library], symbols[i].name);
        if (address == NULL) {
            snprintf(message, message_size, "%s is not usable: %s has no function %s", what,
                     sonames[symbols[i].library], symbols[i].name);
            for (size_t j = 0; j < i; j++) *symbols[j].slot = NULL;
            return -1;
        }
        *symbols[i].slot = address;
    }
    if (message_size > 0) message[0] = '\0';
    return 0;
}

void vnshim_lazy_not_loaded(const char *what, const char *function, const char *loader) {
    fprintf(stderr, "voicenote: internal error: %s function %s called before %s was loaded (%s)\n", what, function, what,
            loader);
    abort();
}
