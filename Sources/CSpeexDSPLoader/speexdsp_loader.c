/* speexdsp on demand: dlopen of libspeexdsp.so.1 the first time a take with voice cleanup begins, and a trampoline
 * for each speexdsp function Swift calls. A process that never cleans a take never loads it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "lazy_library.h"
#include "speexdsp_loader.h"

/* speexdsp's SONAME since 1.2 (2012); Debian's libspeexdsp1 provides it. */
static const char *const vnspx_sonames[] = {"libspeexdsp.so.1"};

#define VNSPX(type, name, parameters, arguments) static type(*vnspx_##name) parameters;
#include "speexdsp_functions.h"
#undef VNSPX

static const vnshim_lazy_symbol vnspx_symbols[] = {
#define VNSPX(type, name, parameters, arguments) {0, #name, (void **)&vnspx_##name},
#include "speexdsp_functions.h"
#undef VNSPX
};

static pthread_once_t vnspx_once = PTHREAD_ONCE_INIT;
static int vnspx_status = -1; /* written once, inside vnspx_once */
static char vnspx_message[512] = "speexdsp was not loaded";

static void vnspx_load_once(void) {
    size_t count = sizeof vnspx_symbols / sizeof vnspx_symbols[0];
    if (vnshim_lazy_load("speexdsp (Debian: libspeexdsp1)", vnspx_sonames, 1, vnspx_symbols, count, vnspx_message,
                         sizeof vnspx_message) != 0)
        return;
    vnspx_status = 0;
}

int vnshim_speexdsp_load(const char **message) {
    pthread_once(&vnspx_once, vnspx_load_once);
    if (message) *message = vnspx_message;
    return vnspx_status;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNSPX(type, name, parameters, arguments) \
    VNSHIM_LAZY_TRAMPOLINE("speexdsp", "vnshim_speexdsp_load", vnspx_##name, type, name, parameters, arguments)
#include "speexdsp_functions.h"
#undef VNSPX
