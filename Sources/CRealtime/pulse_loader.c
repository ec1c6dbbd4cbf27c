/* libpulse on demand: dlopen of libpulse.so.0 the first time a stream with a role is opened on a PulseAudio (or
 * pipewire-pulse) server, and a trampoline for each libpulse function voicenote calls. A process that never asks
 * for a stream role never loads it (ALSA's own pulse plugin may still load it for its PCMs: the same file). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <pulse/pulseaudio.h>

#include "lazy_library.h"
#include "pulse_streams.h"

/* libpulse's SONAME since 0.9 (2006); Debian's libpulse0 provides it. */
static const char *const vnpa_sonames[] = {"libpulse.so.0"};

#define VNPA(type, name, parameters, arguments) static type(*vnpa_##name) parameters;
#include "pulse_functions.h"
#undef VNPA

static const vnshim_lazy_symbol vnpa_symbols[] = {
#define VNPA(type, name, parameters, arguments) {0, #name, (void **)&vnpa_##name},
#include "pulse_functions.h"
#undef VNPA
};

static pthread_once_t vnpa_once = PTHREAD_ONCE_INIT;
static int vnpa_status = -1; /* written once, inside vnpa_once */
static char vnpa_message[512] = "libpulse was not loaded";

static void vnpa_load_once(void) {
    size_t count = sizeof vnpa_symbols / sizeof vnpa_symbols[0];
    if (vnshim_lazy_load("libpulse (Debian: libpulse0)", vnpa_sonames, 1, vnpa_symbols, count, vnpa_message,
                         sizeof vnpa_message) != 0)
        return;
    vnpa_status = 0;
}

int vnpa_load(const char **message) {
    pthread_once(&vnpa_once, vnpa_load_once);
    if (message) *message = vnpa_message;
    return vnpa_status;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNPA(type, name, parameters, arguments) \
    VNSHIM_LAZY_TRAMPOLINE("libpulse", "vnpa_load", vnpa_##name, type, name, parameters, arguments)
#include "pulse_functions.h"
#undef VNPA
