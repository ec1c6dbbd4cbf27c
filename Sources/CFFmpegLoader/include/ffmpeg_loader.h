/* CFFmpegLoader: FFmpeg's libraries opened with dlopen on first use, not linked (ARCHITECTURE.md, "FFmpeg is
 * loaded lazily"). This target defines every FFmpeg function voicenote calls as a hidden trampoline with FFmpeg's
 * own prototype (ffmpeg_functions.h), so Swift keeps calling them through the CFFmpeg module unchanged.
 * Nothing here is public: the trampolines are hidden and the version script exports vn_* alone. */
#ifndef VOICENOTE_FFMPEG_LOADER_H
#define VOICENOTE_FFMPEG_LOADER_H

/** Loads libavutil, libswresample, libavcodec and libavformat (the SONAMEs of the headers built against) and
 *  resolves every function in ffmpeg_functions.h. The first call does the work, once per process (pthread_once);
 *  later calls return its outcome. Any thread.
 *  \param message on failure, receives static text naming the library or symbol that is missing (NULL is fine).
 *  \returns 0 when FFmpeg is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnshim_ffmpeg_load(const char **message);

/** 1 once vnshim_ffmpeg_load has succeeded in this process, else 0. Any thread. */
int vnshim_ffmpeg_loaded(void);

/** 1 when FFmpeg's libavutil was already in the process (loaded by the host) before vnshim_ffmpeg_load opened it,
 *  else 0 (also before a successful load). Any thread. */
int vnshim_ffmpeg_loaded_by_host(void);

/** Where FFmpeg's log lines go once routed: `wants(level)` says whether a line of voicenote's log level (1 error,
 *  2 warning, 3 info, 4 debug) would be read, before it is formatted; `write(level, line)` takes one formatted line
 *  (no trailing newline, valid during the call). Both run on the thread FFmpeg logs from. */
typedef struct vnshim_ffmpeg_log_sink {
    int (*wants)(int level);
    void (*write)(int level, const char *line);
} vnshim_ffmpeg_log_sink;

/** Sends FFmpeg's log to `sink` instead of stderr (av_log_set_callback), after a successful load, unless the host
 *  loaded FFmpeg itself (its callback, default or not, is then left alone: FFmpeg cannot say whether a host set
 *  one). Idempotent. \returns 1 when routed, 0 when left alone or FFmpeg is not loaded. */
int vnshim_ffmpeg_route_log(vnshim_ffmpeg_log_sink sink);

/** How many times the calling thread has called vnshim_ffmpeg_load: lets a test prove a code path never asks for
 *  FFmpeg, even in a process where other threads already loaded it. */
unsigned long vnshim_ffmpeg_load_calls_on_thread(void);

#endif
