/*
 * note-fixture.h: what the `_async` tests over files and URLs (async.c, http-options.c) share: a note (NOTE_SECONDS
 * of tone, encoded by opusenc) in a temporary directory, the media cache there (downloads counted there, the user's
 * cache untouched), and note-server.h's HTTP server serving the note. Not a test itself.
 */
#ifndef VOICENOTE_GLIB_TESTS_NOTE_FIXTURE_H
#define VOICENOTE_GLIB_TESTS_NOTE_FIXTURE_H

#include "async-outcome.h"
#include "note-server.h"

#define NOTE_SECONDS 3.0

static gchar *directory;
static gchar *note_path;
static GBytes *note_bytes;

static inline void note_fixture_child_done(GObject *source, GAsyncResult *result, gpointer data) {
    gboolean *ok = data;
    GError *error = NULL;
    *ok = g_subprocess_wait_check_finish(G_SUBPROCESS(source), result, &error) ? 1 : 2;
    if (error != NULL) g_printerr("%s\n", error->message);
    g_clear_error(&error);
}

static inline gboolean note_fixture_child_ended(gpointer data) {
    return *(gboolean *)data != 0;
}

/* The note: a tone written by rig_write_tone(), encoded by opusenc (bounded wait), read into note_bytes. */
static inline void note_fixture_make_note(void) {
    GError *error = NULL;
    directory = g_dir_make_tmp("vn-glib-async-XXXXXX", &error);
    g_assert_no_error(error);
    gchar *raw = g_build_filename(directory, "tone.raw", NULL);
    note_path = g_build_filename(directory, "note.ogg", NULL);
    rig_write_tone(raw, NOTE_SECONDS);
    const gchar *argv[] = {"opusenc", "--quiet", "--raw", "--raw-bits", "16", "--raw-rate", "48000", "--raw-chan",
                           "1", raw, note_path, NULL};
    GSubprocess *child = g_subprocess_newv(argv, G_SUBPROCESS_FLAGS_NONE, &error);
    g_assert_no_error(error);
    gboolean ok = 0;
    g_subprocess_wait_check_async(child, NULL, note_fixture_child_done, &ok);
    if (!rig_wait(note_fixture_child_ended, &ok, WAIT_MS)) g_subprocess_force_exit(child);
    g_assert_cmpint(ok, ==, 1);
    g_object_unref(child);
    g_remove(raw);
    g_free(raw);
    gchar *contents = NULL;
    gsize size = 0;
    g_assert_true(g_file_get_contents(note_path, &contents, &size, &error));
    note_bytes = g_bytes_new_take(contents, size);
}

/* The note, the media cache in the test's directory and the server; before g_test_run(). */
static inline void note_fixture_start(void) {
    note_fixture_make_note();
    gchar *cache = g_build_filename(directory, "cache", NULL);
    g_assert_cmpint(vn_cache_set_directory(cache), ==, VN_OK);
    g_free(cache);
    note_server_start(note_bytes);
}

/* The server stopped, the note and its directory gone; after g_test_run(). */
static inline void note_fixture_stop(void) {
    note_server_stop();
    g_bytes_unref(note_bytes);
    rig_remove_tree(directory);
    g_free(note_path);
    g_free(directory);
}

#endif /* VOICENOTE_GLIB_TESTS_NOTE_FIXTURE_H */
