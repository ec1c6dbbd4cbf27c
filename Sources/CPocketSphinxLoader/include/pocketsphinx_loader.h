/* CPocketSphinxLoader: PocketSphinx (the speech recogniser of transcripts) opened with dlopen on first use, not
 * linked (ARCHITECTURE.md, "Heavy libraries are loaded lazily"): only a transcription with the PocketSphinx backend
 * needs it, and a host without it keeps every other feature. The functions voicenote calls are hidden trampolines
 * with PocketSphinx's own prototypes (pocketsphinx_functions.h). Nothing here is public: the version script exports
 * vn_* alone. */
#ifndef VOICENOTE_POCKETSPHINX_LOADER_H
#define VOICENOTE_POCKETSPHINX_LOADER_H

#include <stddef.h>

/* sphinxbase's headers are on the compiler's default path (Debian's multiarch include directory); pocketsphinx.h is
 * not (it includes its siblings without a directory), so the few pocketsphinx declarations voicenote needs are
 * repeated here, identical to pocketsphinx.h 5prealpha (libpocketsphinx.so.3); scripts/check-pocketsphinx.sh
 * compiles them against the real header. */
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <sphinxbase/prim_type.h>

typedef struct ps_decoder_s ps_decoder_t;
typedef struct ps_seg_s ps_seg_t;

#define VNPS(type, name, parameters, arguments) type name parameters;
#include "pocketsphinx_functions.h"
#undef VNPS

/** Loads PocketSphinx (libpocketsphinx.so.3 and its libsphinxbase.so.3) and resolves every function voicenote calls;
 *  then sends sphinxbase's log to `sink` (below). The first call does the work, once per process (pthread_once);
 *  later calls return its outcome. Any thread.
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when PocketSphinx is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnshim_pocketsphinx_load(const char **message);

/** Where sphinxbase's log lines go: `wants(level)` says whether a line of voicenote's log level (1 error,
 *  2 warning, 3 info, 4 debug) would be read; `write(level, line)` takes one line (no trailing newline, valid during
 *  the call). Both run on the thread PocketSphinx logs from. */
typedef struct vnshim_pocketsphinx_log_sink {
    int (*wants)(int level);
    void (*write)(int level, const char *line);
} vnshim_pocketsphinx_log_sink;

/** Sets the sink sphinxbase's log goes to once PocketSphinx is loaded (err_set_callback, process-wide: sphinxbase
 *  has one log). Call before vnshim_pocketsphinx_load; later calls are ignored. */
void vnshim_pocketsphinx_set_log_sink(vnshim_pocketsphinx_log_sink sink);

#endif
