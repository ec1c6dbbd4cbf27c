/* CSpeexDSPLoader: speexdsp opened with dlopen on first use, not linked (ARCHITECTURE.md, "Heavy libraries are
 * loaded lazily"): only a recorder with voice cleanup on needs it. The functions voicenote calls are hidden
 * trampolines with speexdsp's own prototypes (speexdsp_functions.h). Nothing here is public: the version script
 * exports vn_* alone. */
#ifndef VOICENOTE_SPEEXDSP_LOADER_H
#define VOICENOTE_SPEEXDSP_LOADER_H

#include <speex/speex_preprocess.h>

/** Loads speexdsp (libspeexdsp.so.1) and resolves every function voicenote calls. The first call does the work,
 *  once per process (pthread_once); later calls return its outcome. Any thread.
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when speexdsp is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnshim_speexdsp_load(const char **message);

#endif
