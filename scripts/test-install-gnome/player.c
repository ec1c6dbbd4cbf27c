/* voicenote-glib from an installed prefix (scripts/test-install.sh builds it with only the prefix's pkg-config):
 * plays a note on a VnPlayer to its end on the main loop, then prints the path of every voicenote library the
 * process mapped, one a line, for the script to check they are the prefix's.
 *   player DEVICE ALSA_CONFIGURATION NOTE          exit 0 once `finished` came (within 30 s) */
#include <stdio.h>
#include <string.h>
#include <voicenote-glib.h>

#define WAIT_S 30

/* finished: records that the note played to its end and stops the loop. */
static void on_finished(VnPlayer *player, const gchar *location, gpointer loop) {
    (void)player; (void)location;
    g_object_set_data(G_OBJECT(player), "finished", GINT_TO_POINTER(1));
    g_main_loop_quit(loop);
}

/* The wait's bound: stops the loop; `finished` not having come fails the program. */
static gboolean on_timeout(gpointer loop) {
    g_main_loop_quit(loop);
    return G_SOURCE_REMOVE;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DEVICE ALSA_CONFIGURATION NOTE\n", argv[0]);
        return 2;
    }
    GError *error = NULL;
    VnPlayer *player = vng_player_new_for_device(argv[1], argv[2], &error);
    if (!player) {
        fprintf(stderr, "vng_player_new_for_device: %s\n", error->message);
        return 1;
    }
    GMainLoop *loop = g_main_loop_new(NULL, FALSE);
    g_signal_connect(player, "finished", G_CALLBACK(on_finished), loop);
    if (!vng_player_load(player, argv[3], TRUE, -1, &error)) {
        fprintf(stderr, "vng_player_load: %s\n", error->message);
        return 1;
    }
    guint timeout = g_timeout_add_seconds(WAIT_S, on_timeout, loop);
    g_main_loop_run(loop);
    gboolean finished = g_object_get_data(G_OBJECT(player), "finished") != NULL;
    if (finished)
        g_source_remove(timeout);
    else
        fprintf(stderr, "no `finished` within %d s\n", WAIT_S);

    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        const char *path = strchr(line, '/');
        if (path && strstr(path, "/libvoicenote"))
            fputs(path, stdout);
    }
    if (maps)
        fclose(maps);
    g_object_unref(player);
    g_main_loop_unref(loop);
    return finished ? 0 : 1;
}
