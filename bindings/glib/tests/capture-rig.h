/*
 * capture-rig.h: what the recorder and flow tests share: a temporary directory, a virtual microphone (ALSA's
 * `file` plugin reading a raw tone, unpaced, as bindings/c/tests/flow.c does), a file speaker, and bounded waits
 * on the thread-default main context.
 */
#ifndef VOICENOTE_GLIB_TESTS_CAPTURE_RIG_H
#define VOICENOTE_GLIB_TESTS_CAPTURE_RIG_H

#include <voicenote-glib.h>

#include <glib/gstdio.h>

#define WAIT_MS 30000
#define TONE_RATE 48000

/* Writes `seconds` of a 440 Hz triangle tone, mono S16 at 48 kHz, raw (what the microphone plugin reads). */
static inline void rig_write_tone(const gchar *path, gdouble seconds) {
    guint frames = (guint)(seconds * TONE_RATE);
    gint16 *samples = g_new(gint16, frames);
    for (guint i = 0; i < frames; i++) {
        guint phase = (guint)(((guint64)i * 440 * 65536 / TONE_RATE) & 0xffff); /* 0…65535 per period */
        gint value = phase < 32768 ? (gint)phase - 16384 : 49152 - (gint)phase;  /* -16384…16384 */
        samples[i] = (gint16)(value / 2);
    }
    GError *error = NULL;
    g_assert_true(g_file_set_contents(path, (const gchar *)samples, (gssize)frames * 2, &error));
    g_assert_no_error(error);
    g_free(samples);
}

/* A temporary directory holding `seconds` of tone; *microphone receives the ALSA configuration text that defines
 * `vn_mic` reading it. */
static inline gchar *rig_directory_with_tone(const gchar *name_template, gdouble seconds, gchar **microphone) {
    GError *error = NULL;
    gchar *directory = g_dir_make_tmp(name_template, &error);
    g_assert_no_error(error);
    gchar *tone = g_build_filename(directory, "tone.raw", NULL);
    rig_write_tone(tone, seconds);
    *microphone = g_strdup_printf(
        "pcm.vn_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }", tone);
    g_free(tone);
    return directory;
}

/* The ALSA configuration text that defines `vn_spk`, a file speaker writing to `output` (not paced). */
static inline gchar *rig_speaker(const gchar *output) {
    return g_strdup_printf("pcm.vn_spk { type file slave.pcm { type null } file \"%s\" format raw perm 0644 }",
                           output);
}

/* Removes `path` and everything under it. */
static inline void rig_remove_tree(const gchar *path) {
    GDir *dir = g_dir_open(path, 0, NULL);
    const gchar *name;
    while (dir != NULL && (name = g_dir_read_name(dir)) != NULL) {
        gchar *child = g_build_filename(path, name, NULL);
        if (g_file_test(child, G_FILE_TEST_IS_DIR) && !g_file_test(child, G_FILE_TEST_IS_SYMLINK)) rig_remove_tree(child);
        else g_remove(child);
        g_free(child);
    }
    if (dir != NULL) g_dir_close(dir);
    g_rmdir(path);
}

static gboolean rig_wake(gpointer data) {
    (void)data;
    return G_SOURCE_CONTINUE;
}

/* Iterates the thread-default main context until `done(data)`, for at most `ms` (a timeout source wakes the
 * iteration at the deadline); whether it came. */
static inline gboolean rig_wait(gboolean (*done)(gpointer), gpointer data, guint ms) {
    gint64 end = g_get_monotonic_time() + (gint64)ms * 1000;
    GSource *wake = g_timeout_source_new(ms);
    g_source_set_callback(wake, rig_wake, NULL, NULL);
    g_source_attach(wake, g_main_context_get_thread_default());
    while (!done(data) && g_get_monotonic_time() < end) g_main_context_iteration(g_main_context_get_thread_default(), TRUE);
    g_source_destroy(wake);
    g_source_unref(wake);
    return done(data);
}

/* rig_wait() for a condition that changes on another thread without waking this context (a thread's exit, a file
 * another thread removes): re-checked every RIG_POLL_MS as well, not only at the deadline. */
#define RIG_POLL_MS 10
static inline gboolean rig_wait_polled(gboolean (*done)(gpointer), gpointer data, guint ms) {
    GSource *tick = g_timeout_source_new(RIG_POLL_MS);
    g_source_set_callback(tick, rig_wake, NULL, NULL);
    g_source_attach(tick, g_main_context_get_thread_default());
    gboolean came = rig_wait(done, data, ms);
    g_source_destroy(tick);
    g_source_unref(tick);
    return came;
}

/* Dispatches whatever is ready now (bounded); what a disposed object might still have queued would run here. */
static inline void rig_drain(void) {
    for (int i = 0; i < 1000 && g_main_context_iteration(NULL, FALSE); i++) {}
}

#endif /* VOICENOTE_GLIB_TESTS_CAPTURE_RIG_H */
