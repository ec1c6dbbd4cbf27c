/* PocketSphinx on demand: dlopen of libpocketsphinx.so.3 (and the libsphinxbase.so.3 it needs) the first time a
 * transcription with the PocketSphinx backend begins, and a trampoline for each function Swift calls. A process
 * that never transcribes never loads it. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <sphinxbase/err.h>

#include "lazy_library.h"
#include "pocketsphinx_loader.h"

/* The SONAMEs of Debian's libsphinxbase3 and libpocketsphinx3 (5prealpha): sphinxbase first, index 0. */
static const char *const vnps_sonames[] = {"libsphinxbase.so.3", "libpocketsphinx.so.3"};

#define VNPS(type, name, parameters, arguments) static type(*vnps_##name) parameters;
#include "pocketsphinx_functions.h"
#undef VNPS

/* sphinxbase's functions come first in the list, then pocketsphinx's (their names start with ps_). */
#define VNPS(type, name, parameters, arguments) {0, #name, (void **)&vnps_##name},
static vnshim_lazy_symbol vnps_symbols[] = {
#include "pocketsphinx_functions.h"
};
#undef VNPS

static void (*vnps_err_set_callback)(err_cb_f callback, void *user_data);
static void (*vnps_err_set_logfp)(FILE *stream);

static pthread_once_t vnps_once = PTHREAD_ONCE_INIT;
static int vnps_status = -1; /* written once, inside vnps_once */
static char vnps_message[512] = "PocketSphinx was not loaded";
static vnshim_pocketsphinx_log_sink vnps_sink; /* set before the load, read after it */

/* sphinxbase's levels as voicenote's (1 error … 4 debug): its INFO lines (the whole configuration, model loading)
 * are debug detail for a host. */
static int vnps_level(err_lvl_t level) {
    switch (level) {
    case ERR_FATAL:
    case ERR_ERROR: return 1;
    case ERR_WARN: return 2;
    default: return 4;
    }
}

/* sphinxbase hands a line in pieces (its prefix, then the text), so pieces gather per thread until a newline. */
static _Thread_local char vnps_line[1024];
static _Thread_local size_t vnps_line_length;
static _Thread_local int vnps_line_level = 4;

static void vnps_log_callback(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    int ours = vnps_level(level);
    if (level != ERR_INFOCONT && vnps_line_length == 0) vnps_line_level = ours;
    if (ours < vnps_line_level) vnps_line_level = ours;
    if (vnps_sink.wants == NULL || !vnps_sink.wants(vnps_line_level)) return;
    char piece[1024];
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(piece, sizeof piece, format, arguments);
    va_end(arguments);
    for (const char *at = piece; *at; at++) {
        if (*at == '\n') {
            vnps_line[vnps_line_length] = '\0';
            if (vnps_line_length > 0 && vnps_sink.write) vnps_sink.write(vnps_line_level, vnps_line);
            vnps_line_length = 0;
        } else if (vnps_line_length + 1 < sizeof vnps_line) {
            vnps_line[vnps_line_length++] = *at;
        }
    }
}

static void vnps_load_once(void) {
    size_t count = sizeof vnps_symbols / sizeof vnps_symbols[0];
    for (size_t i = 0; i < count; i++)
        if (strncmp(vnps_symbols[i].name, "ps_", 3) == 0) vnps_symbols[i].library = 1;
    vnshim_lazy_symbol log_symbols[] = {{0, "err_set_logfp", (void **)&vnps_err_set_logfp},
                                        {0, "err_set_callback", (void **)&vnps_err_set_callback}};
    const char *what = "PocketSphinx (Debian: libpocketsphinx3 and pocketsphinx-en-us)";
    if (vnshim_lazy_load(what, vnps_sonames, 2, vnps_symbols, count, vnps_message, sizeof vnps_message) != 0 ||
        vnshim_lazy_load(what, vnps_sonames, 1, log_symbols, 2, vnps_message, sizeof vnps_message) != 0)
        return;
    /* sphinxbase prints to stderr otherwise: its log file off first (the configuration table is written to it
     * directly, never through the callback), then every line through ours. */
    vnps_err_set_logfp(NULL);
    vnps_err_set_callback(vnps_log_callback, NULL);
    vnps_status = 0;
}

void vnshim_pocketsphinx_set_log_sink(vnshim_pocketsphinx_log_sink sink) {
    if (vnps_sink.write == NULL) vnps_sink = sink;
}

int vnshim_pocketsphinx_load(const char **message) {
    pthread_once(&vnps_once, vnps_load_once);
    if (message) *message = vnps_message;
    return vnps_status;
}

/* A trampoline reached before a successful load is a bug in voicenote: stopped, named (vnshim_lazy_not_loaded). */
#define VNPS(type, name, parameters, arguments) \
    VNSHIM_LAZY_TRAMPOLINE("PocketSphinx", "vnshim_pocketsphinx_load", vnps_##name, type, name, parameters, arguments)
#include "pocketsphinx_functions.h"
#undef VNPS
