/* FFmpeg on demand: dlopen of its four libraries the first time voicenote needs one, and a trampoline for each
 * FFmpeg function Swift calls. Linking FFmpeg made every process that loads libvoicenote.so also load FFmpeg and
 * its ~130 dependencies (35-45 ms of start-up) even when it only ever touches Opus. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libswresample/swresample.h>

#include "ffmpeg_loader.h"
#include "lazy_library.h"

/* Never in the dynamic symbol table: a host that links FFmpeg itself keeps its own functions, and the libraries
 * we dlopen resolve each other, not us. (The version script would hide them in the .so, but not in executables
 * that link these modules statically, such as the CLI and the tests.) */
#define VNFF_HIDDEN __attribute__((visibility("hidden")))

/* The libraries in dependency order, by the SONAMEs of the headers compiled against. */
enum { VNFF_LIB_AVUTIL, VNFF_LIB_SWRESAMPLE, VNFF_LIB_AVCODEC, VNFF_LIB_AVFORMAT, VNFF_LIB_COUNT };
static const char *const vnff_sonames[VNFF_LIB_COUNT] = {
    "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." AV_STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

/* One pointer per function, NULL until a load succeeds. Written only inside pthread_once; every caller reaches
 * FFmpeg through vnshim_ffmpeg_load first (or through an object made after it), which orders the reads. */
#define VNFF(library, type, name, parameters, arguments) static type(*vnff_##name) parameters;
#define VNFF_VOID(library, name, parameters, arguments) static void(*vnff_##name) parameters;
#include "ffmpeg_functions.h"
#undef VNFF
#undef VNFF_VOID

/* What to resolve: library, name, and where the address goes. */
static const vnshim_lazy_symbol vnff_symbols[] = {
#define VNFF(library, type, name, parameters, arguments) {VNFF_LIB_##library, #name, (void **)&vnff_##name},
#define VNFF_VOID(library, name, parameters, arguments) {VNFF_LIB_##library, #name, (void **)&vnff_##name},
#include "ffmpeg_functions.h"
#undef VNFF
#undef VNFF_VOID
};

static pthread_once_t vnff_once = PTHREAD_ONCE_INIT;
static int vnff_status = -1;                 /* written once, inside vnff_once */
static atomic_int vnff_ready;                /* vnff_status == 0, for readers that must not trigger the load */
static char vnff_message[512] = "FFmpeg was not loaded";
static _Thread_local unsigned long vnff_calls_on_thread;
static int vnff_host_loaded;                 /* written once, inside vnff_once */

/* Runs once: opens every library (kept open for the life of the process) and resolves every symbol, or leaves
 * every pointer NULL and a message naming what is missing. */
static void vnff_load_once(void) {
    /* Whether the host loaded FFmpeg itself before us: then its log callback is the host's business. */
    void *existing = dlopen(vnff_sonames[VNFF_LIB_AVUTIL], RTLD_NOW | RTLD_NOLOAD);
    if (existing != NULL) {
        vnff_host_loaded = 1;
        dlclose(existing);
    }
    size_t count = sizeof vnff_symbols / sizeof vnff_symbols[0];
    if (vnshim_lazy_load("FFmpeg", vnff_sonames, VNFF_LIB_COUNT, vnff_symbols, count, vnff_message,
                         sizeof vnff_message) != 0)
        return;
    vnff_status = 0;
    atomic_store_explicit(&vnff_ready, 1, memory_order_release);
}

int vnshim_ffmpeg_load(const char **message) {
    vnff_calls_on_thread++;
    pthread_once(&vnff_once, vnff_load_once);
    if (message) *message = vnff_message;
    return vnff_status;
}

int vnshim_ffmpeg_loaded(void) {
    return atomic_load_explicit(&vnff_ready, memory_order_acquire);
}

int vnshim_ffmpeg_loaded_by_host(void) {
    return vnshim_ffmpeg_loaded() ? vnff_host_loaded : 0;
}

unsigned long vnshim_ffmpeg_load_calls_on_thread(void) {
    return vnff_calls_on_thread;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNFF_NOT_LOADED(name) vnshim_lazy_not_loaded("FFmpeg", name, "vnshim_ffmpeg_load")

/* The trampolines: FFmpeg's own prototypes, forwarding to the resolved functions. */
#define VNFF(library, type, name, parameters, arguments)                        \
    VNFF_HIDDEN type name parameters {                                          \
        if (__builtin_expect(vnff_##name == NULL, 0)) VNFF_NOT_LOADED(#name);   \
        return vnff_##name arguments;                                           \
    }
#define VNFF_VOID(library, name, parameters, arguments)                         \
    VNFF_HIDDEN void name parameters {                                          \
        if (__builtin_expect(vnff_##name == NULL, 0)) VNFF_NOT_LOADED(#name);   \
        vnff_##name arguments;                                                  \
    }
#include "ffmpeg_functions.h"
#undef VNFF
#undef VNFF_VOID
