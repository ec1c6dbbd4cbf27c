/* ALSA's error messages ("ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM x") go to stderr unless a
 * handler takes them. The handler type is variadic / takes a va_list, which Swift cannot write, so it lives here.
 * Only the per-thread handler (snd_lib_error_set_local) is used: the process-wide one belongs to the host, which
 * may use ALSA itself. */
#include "realtime.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_message[512];
static _Thread_local snd_local_error_handler_t previous_handler;
static _Thread_local int depth;

/* Keeps the message for the caller's error text instead of printing it. */
static void keep_message(const char *file, int line, const char *function, int err, const char *fmt, va_list args) {
    (void)file;
    (void)line;
    (void)function;
    int used = vsnprintf(last_message, sizeof last_message, fmt, args);
    if (used < 0) {
        last_message[0] = '\0';
    } else {
        size_t length = strlen(last_message);     /* plugins end some messages with a newline */
        while (length > 0 && (last_message[length - 1] == '\n' || last_message[length - 1] == ' ')) length--;
        last_message[length] = '\0';
        used = (int)length;
    }
    if (err != 0 && used >= 0 && (size_t)used < sizeof last_message - 2) {
        snprintf(last_message + used, sizeof last_message - (size_t)used, ": %s", snd_strerror(err));
    }
}

/* For the real-time capture thread: drops the message without formatting it (vsnprintf may allocate). */
static void drop_message(const char *file, int line, const char *function, int err, const char *fmt, va_list args) {
    (void)file;
    (void)line;
    (void)function;
    (void)err;
    (void)fmt;
    (void)args;
}

void vnshim_alsa_errors_begin(void) {
    if (depth++ == 0) {
        last_message[0] = '\0';
        previous_handler = snd_lib_error_set_local(keep_message);
    }
}

void vnshim_alsa_errors_end(void) {
    if (depth > 0 && --depth == 0) {
        snd_lib_error_set_local(previous_handler);
        previous_handler = NULL;
    }
}

const char *vnshim_alsa_errors_last(void) { return last_message; }

void vnshim_alsa_errors_silence_thread(void) { snd_lib_error_set_local(drop_message); }
