/* sd-bus on demand: dlopen of libsystemd.so.0 the first time a player shows itself on the session bus (MPRIS) or a
 * recorder asks other players to pause, and a trampoline for each sd-bus function voicenote calls. A process that
 * never does either never loads it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <systemd/sd-bus.h>

#include "desktop_bus.h"
#include "lazy_library.h"

/* libsystemd's SONAME since 2014 (systemd 209); Debian's libsystemd0 provides it. */
static const char *const vnbus_sonames[] = {"libsystemd.so.0"};

#define VNBUS(type, name, parameters, arguments) static type(*vnbus_##name) parameters;
#include "sdbus_functions.h"
#undef VNBUS

static const vnshim_lazy_symbol vnbus_symbols[] = {
#define VNBUS(type, name, parameters, arguments) {0, #name, (void **)&vnbus_##name},
#include "sdbus_functions.h"
#undef VNBUS
};

static pthread_once_t vnbus_once = PTHREAD_ONCE_INIT;
static int vnbus_status = -1; /* written once, inside vnbus_once */
static char vnbus_message[512] = "sd-bus was not loaded";

static void vnbus_load_once(void) {
    size_t count = sizeof vnbus_symbols / sizeof vnbus_symbols[0];
    if (vnshim_lazy_load("sd-bus (Debian: libsystemd0)", vnbus_sonames, 1, vnbus_symbols, count, vnbus_message,
                         sizeof vnbus_message) != 0)
        return;
    vnbus_status = 0;
}

int vnbus_load(const char **message) {
    pthread_once(&vnbus_once, vnbus_load_once);
    if (message) *message = vnbus_message;
    return vnbus_status;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNBUS(type, name, parameters, arguments) \
    VNSHIM_LAZY_TRAMPOLINE("sd-bus", "vnbus_load", vnbus_##name, type, name, parameters, arguments)
#include "sdbus_functions.h"
#undef VNBUS

/* SD_BUS_VTABLE_START refers to this libsystemd variable (a link-time mark that the library knows the vtable layout
 * of systemd 242 and later); the vtable's element size is what sd-bus reads at run time, so a hidden copy with the
 * same value serves when libsystemd is opened rather than linked. */
__attribute__((visibility("hidden"))) const unsigned sd_bus_object_vtable_format = 242;
