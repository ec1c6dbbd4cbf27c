/*
 * paced-speaker.h: a speaker that plays in real time without a sound card: ALSA's `file` plugin (over `null`) writing
 * into a FIFO (shrunk to 4 KiB) that a thread of the test reads at a 48 kHz mono S16 card's pace, so a player's
 * writes block as on a real card (the `file` plugin alone is not paced: a note would end before the first click).
 * Shared by the tests that play (voice-message.c, composer.c); include it first (it defines _GNU_SOURCE). Not a test
 * itself.
 */
#ifndef VOICENOTE_GTK_TESTS_PACED_SPEAKER_H
#define VOICENOTE_GTK_TESTS_PACED_SPEAKER_H

#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIPE_BYTES 4096
#define SPEAKER_BYTES_PER_SECOND (48000 * 2)

/* The speaker: the FIFO the ALSA `file` plugin writes into, read by a thread at the pace of a 48 kHz mono S16 sound
 * card (a token bucket of at most one pipe's worth), so the player's writes block as a real device's do and a note
 * plays in real time. */
typedef struct {
    gchar *path;
    int fd;
    GThread *thread;
    GMutex lock;
    GCond changed;
    gboolean stop;
    guint64 bytes; /* read so far, under lock */
} Speaker;

static gpointer speaker_run(gpointer data) {
    Speaker *speaker = data;
    guint8 buffer[PIPE_BYTES];
    gdouble credit = 0;
    gint64 last = g_get_monotonic_time();
    g_mutex_lock(&speaker->lock);
    while (!speaker->stop) {
        gint64 now = g_get_monotonic_time();
        credit = MIN(credit + (gdouble)(now - last) * SPEAKER_BYTES_PER_SECOND / G_USEC_PER_SEC, (gdouble)PIPE_BYTES);
        last = now;
        ssize_t got = credit >= 1 ? read(speaker->fd, buffer, (size_t)credit) : 0;
        if (got > 0) {
            credit -= (gdouble)got;
            speaker->bytes += (guint64)got;
        }
        /* The next 5 ms of the card's clock, or the end of the test. */
        g_cond_wait_until(&speaker->changed, &speaker->lock, g_get_monotonic_time() + 5 * G_TIME_SPAN_MILLISECOND);
    }
    g_mutex_unlock(&speaker->lock);
    return NULL;
}

G_GNUC_UNUSED static void speaker_start(Speaker *speaker, const gchar *directory) {
    speaker->path = g_build_filename(directory, "speaker.fifo", NULL);
    g_assert_cmpint(mkfifo(speaker->path, 0600), ==, 0);
    /* Our end first, without waiting for a writer, so the player's open of the other end never blocks. */
    speaker->fd = open(speaker->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    g_assert_cmpint(speaker->fd, >=, 0);
    g_assert_cmpint(fcntl(speaker->fd, F_SETPIPE_SZ, PIPE_BYTES), >=, PIPE_BYTES);
    g_mutex_init(&speaker->lock);
    g_cond_init(&speaker->changed);
    speaker->thread = g_thread_new("speaker", speaker_run, speaker);
}

G_GNUC_UNUSED static guint64 speaker_bytes(Speaker *speaker) {
    g_mutex_lock(&speaker->lock);
    guint64 bytes = speaker->bytes;
    g_mutex_unlock(&speaker->lock);
    return bytes;
}

G_GNUC_UNUSED static void speaker_stop(Speaker *speaker) {
    g_mutex_lock(&speaker->lock);
    speaker->stop = TRUE;
    g_cond_signal(&speaker->changed);
    g_mutex_unlock(&speaker->lock);
    g_thread_join(speaker->thread);
    close(speaker->fd);
    g_remove(speaker->path);
    g_free(speaker->path);
    g_mutex_clear(&speaker->lock);
    g_cond_clear(&speaker->changed);
}

/* The ALSA configuration text that defines `vn_spk`, this speaker (started); free it. */
G_GNUC_UNUSED static gchar *speaker_configuration(Speaker *speaker) {
    return g_strdup_printf("pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0600 }",
                           speaker->path);
}

#endif /* VOICENOTE_GTK_TESTS_PACED_SPEAKER_H */
