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

/** How many times the calling thread has called vnshim_ffmpeg_load: lets a test prove a code path never asks for
 *  FFmpeg, even in a process where other threads already loaded it. */
unsigned long vnshim_ffmpeg_load_calls_on_thread(void);

#endif
