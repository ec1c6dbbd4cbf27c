/*
 * notes.h: what the payload, queue and uploader tests share: a short spoken note (espeak-ng, then opusenc) made in
 * a directory, each tool run to its end under a bounded wait (capture-rig.h's rig_wait).
 */
#ifndef VOICENOTE_GLIB_TESTS_NOTES_H
#define VOICENOTE_GLIB_TESTS_NOTES_H

#include "capture-rig.h"

typedef struct {
    gboolean done;
    gboolean ok;
} ChildRun;

static void notes_child_done(GObject *source, GAsyncResult *result, gpointer data) {
    ChildRun *run = data;
    GError *error = NULL;
    run->ok = g_subprocess_wait_check_finish(G_SUBPROCESS(source), result, &error);
    if (error != NULL) {
        g_printerr("%s\n", error->message);
        g_error_free(error);
    }
    run->done = TRUE;
}

static gboolean notes_child_finished(gpointer data) {
    return ((ChildRun *)data)->done;
}

/* Runs argv to its end within WAIT_MS (killed after that); whether it exited 0. */
static inline gboolean notes_run(const gchar *const *argv) {
    GError *error = NULL;
    GSubprocess *child = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error);
    g_assert_no_error(error);
    ChildRun run = {FALSE, FALSE};
    g_subprocess_wait_check_async(child, NULL, notes_child_done, &run);
    if (!rig_wait(notes_child_finished, &run, WAIT_MS)) {
        g_subprocess_force_exit(child);
        rig_wait(notes_child_finished, &run, WAIT_MS); /* the callback holds &run: let it come */
        run.ok = FALSE;
    }
    g_object_unref(child);
    return run.ok;
}

/* Makes `directory`/`name`.ogg saying `text`; returns its path. */
static inline gchar *notes_make(const gchar *directory, const gchar *name, const gchar *text) {
    gchar *wav_name = g_strconcat(name, ".wav", NULL);
    gchar *ogg_name = g_strconcat(name, ".ogg", NULL);
    gchar *wav = g_build_filename(directory, wav_name, NULL);
    gchar *ogg = g_build_filename(directory, ogg_name, NULL);
    const gchar *speak[] = {"espeak-ng", "-w", wav, text, NULL};
    const gchar *encode[] = {"opusenc", "--quiet", wav, ogg, NULL};
    g_assert_true(notes_run(speak));
    g_assert_true(notes_run(encode));
    g_remove(wav);
    g_free(wav);
    g_free(wav_name);
    g_free(ogg_name);
    return ogg;
}

#endif /* VOICENOTE_GLIB_TESTS_NOTES_H */
