/*
 * process-threads.h: the process's thread count (/proc/self/task), for tests that check a cancelled or disposed
 * piece of work left no thread behind (async.c, upload-async.c, voicenote-gtk's tests/voice-message-loading.c). Not a
 * test itself.
 */
#ifndef VOICENOTE_GLIB_TESTS_PROCESS_THREADS_H
#define VOICENOTE_GLIB_TESTS_PROCESS_THREADS_H

#include <glib.h>

/* The threads of this process now (/proc/self/task). */
static inline guint count_threads(void) {
    GDir *dir = g_dir_open("/proc/self/task", 0, NULL);
    g_assert_nonnull(dir);
    guint count = 0;
    while (g_dir_read_name(dir) != NULL) count++;
    g_dir_close(dir);
    return count;
}

#endif /* VOICENOTE_GLIB_TESTS_PROCESS_THREADS_H */
