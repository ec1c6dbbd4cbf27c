/*
 * cycles.c: reference cycles through a signal handler are freed (voicenote-glib's classes with signals).
 *
 * A handler whose data holds a reference to its own object (the closure holds the object, the object holds the
 * closure) keeps the object alive after the application's last unref, as in any GObject library. Disposing the
 * object — g_object_run_dispose(), what a language binding or a window's destruction does — disconnects its
 * handlers, which drops the closure's reference, and the object is finalized: nothing of it is leaked, also while
 * its library object had work under way (a take running, a note playing). The leak check (make test-leaks) runs
 * this under LeakSanitizer.
 */
#include "capture-rig.h"

/* A handler doing nothing; its data is a reference to the object, released by the closure's destroy notify. */
static void ignore(void) {}

/* Connects `signal` on `object` with a handler that holds a reference to `object`, drops the caller's reference,
 * checks the cycle keeps the object alive, then disposes it and checks it is gone. */
static void expect_cycle_freed(gpointer object, const gchar *signal) {
    gpointer watched = object;
    g_object_add_weak_pointer(G_OBJECT(object), &watched);
    g_signal_connect_data(object, signal, G_CALLBACK(ignore), g_object_ref(object),
                          (GClosureNotify)(void (*)(void))g_object_unref, 0);
    g_object_unref(object);
    g_assert_nonnull(watched); /* the cycle holds it */
    g_object_run_dispose(G_OBJECT(watched));
    g_assert_null(watched); /* the handler's reference went with the handler: finalized */
}

static void test_player(void) {
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device("null", NULL, &error);
    g_assert_no_error(error);
    expect_cycle_freed(player, "finished");
}

static void test_queue_player(void) {
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device("null", NULL, &error);
    g_assert_no_error(error);
    VnQueuePlayer *queue = vng_queue_player_new(player, &error);
    g_assert_no_error(error);
    g_object_unref(player); /* the queue keeps it */
    expect_cycle_freed(queue, "item-changed");
}

static void test_recorder_with_a_take_running(void) {
    gchar *microphone = NULL;
    gchar *directory = rig_directory_with_tone("vn-glib-cycles-XXXXXX", 5, &microphone);
    GError *error = NULL;
    VnRecorder *recorder = vng_recorder_new("vn_mic", microphone, directory, &error);
    g_assert_no_error(error);
    g_assert_true(vng_recorder_begin(recorder, &error));
    g_assert_no_error(error);
    expect_cycle_freed(recorder, "finished");
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
}

static void test_flow_and_what_it_holds(void) {
    gchar *microphone = NULL;
    gchar *directory = rig_directory_with_tone("vn-glib-cycles-XXXXXX", 5, &microphone);
    GError *error = NULL;
    VnRecorder *recorder = vng_recorder_new("vn_mic", microphone, directory, &error);
    g_assert_no_error(error);
    VnPlayer *player = vng_player_new_for_device("null", NULL, &error);
    g_assert_no_error(error);
    VnFlow *flow = vng_flow_new(recorder, player, NULL, NULL, &error);
    g_assert_no_error(error);
    gpointer recorder_watched = recorder, player_watched = player;
    g_object_add_weak_pointer(G_OBJECT(recorder), &recorder_watched);
    g_object_add_weak_pointer(G_OBJECT(player), &player_watched);
    g_object_unref(recorder); /* the flow keeps both */
    g_object_unref(player);
    expect_cycle_freed(flow, "attachment-ready");
    g_assert_null(recorder_watched); /* and lets them go with it */
    g_assert_null(player_watched);
    rig_remove_tree(directory);
    g_free(directory);
    g_free(microphone);
}

static void test_uploader(void) {
    GError *error = NULL;
    VnUploader *uploader = vng_uploader_new("http://127.0.0.1:9/upload", VN_UPLOAD_MODE_RAW, &error);
    g_assert_no_error(error);
    expect_cycle_freed(uploader, "completed");
}

int main(int argc, char **argv) {
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cycles/player", test_player);
    g_test_add_func("/cycles/queue-player", test_queue_player);
    g_test_add_func("/cycles/recorder-with-a-take-running", test_recorder_with_a_take_running);
    g_test_add_func("/cycles/flow-and-what-it-holds", test_flow_and_what_it_holds);
    g_test_add_func("/cycles/uploader", test_uploader);
    return g_test_run();
}
