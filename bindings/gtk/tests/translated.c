/*
 * translated.c: voicenote-gtk's strings in the user's language, from the catalogues the library finds beside itself
 * (OUT/share/locale, compiled from po/ by the Makefile), in a real GtkWindow on an X server (make test runs it under
 * xvfb-run). The test sets LANGUAGE=de and LC_ALL=C.UTF-8 (a UTF-8 locale every glibc has; LANGUAGE is honoured in
 * any locale but C/POSIX) before GTK initialises, as a German desktop session would give them.
 *
 * - /translated/german: a VnRecordButton (on a real VnFlow: recorder on an ALSA `null` PCM, player on `null`), a
 *   VnWaveform and a VnVoiceMessage on a missing file are made and shown: their accessible names are German
 *   ("Sprachnachricht aufnehmen", "Position in der Sprachnachricht", the play button's "Abspielen"); once the row's
 *   read of the missing note has failed, its visible text is "Diese Sprachnachricht kann nicht abgespielt werden" and
 *   its button "Erneut versuchen"; the speed button shows "1×". The catalogue is the one in the library's own
 *   share/locale (its path is checked through the text domain's binding).
 * Every wait is bounded (x11-rig.h's rig_wait: 10 s); nothing sleeps.
 */
#include <glib/gstdio.h>
#include <libintl.h>
#include <voicenote-gtk.h>

#include "x11-rig.h"

static gboolean shows_failure(gpointer data) {
    GtkWidget *failure = gtk_widget_get_next_sibling(GTK_WIDGET(vngtk_voice_message_get_waveform(data)));
    return gtk_widget_get_visible(failure);
}

static GtkWidget *last_label_in(GtkWidget *widget) {
    for (GtkWidget *child = gtk_widget_get_last_child(widget); child != NULL; child = gtk_widget_get_prev_sibling(child))
        if (GTK_IS_LABEL(child)) return child;
    return NULL;
}

static void test_german(void) {
    GError *error = NULL;
    gchar *directory = g_dir_make_tmp("vn-gtk-translated-XXXXXX", &error);
    g_assert_no_error(error);
    VnRecorder *recorder = vng_recorder_new("null", NULL, directory, &error);
    g_assert_no_error(error);
    VnPlayer *player = vng_player_new_for_device("null", NULL, &error);
    g_assert_no_error(error);
    VnFlow *flow = vng_flow_new(recorder, player, NULL, NULL, &error);
    g_assert_no_error(error);
    gchar *missing = g_build_filename(directory, "missing.ogg", NULL);

    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);
    GtkWidget *button = vngtk_record_button_new(flow);
    GtkWidget *waveform = vngtk_waveform_new();
    VnVoiceMessage *row = VNGTK_VOICE_MESSAGE(vngtk_voice_message_new(player, missing, 3));
    gtk_widget_set_size_request(GTK_WIDGET(row), 420, -1);
    gtk_box_append(GTK_BOX(box), button);
    gtk_box_append(GTK_BOX(box), waveform);
    gtk_box_append(GTK_BOX(box), GTK_WIDGET(row));
    guint frames = 0;
    GtkWidget *window = rig_window_show("voicenote-gtk auf Deutsch", box, &frames);

    /* The catalogue the library bound: its own share/locale. */
    const char *bound = bindtextdomain("voicenote-gtk-1", NULL);
    g_test_message("text domain voicenote-gtk-1 bound to %s", bound);
    g_assert_true(g_str_has_suffix(bound, "/share/locale"));
    gchar *catalogue = g_build_filename(bound, "de", "LC_MESSAGES", "voicenote-gtk-1.mo", NULL);
    g_assert_true(g_file_test(catalogue, G_FILE_TEST_IS_REGULAR));
    g_free(catalogue);

    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        "Sprachnachricht aufnehmen");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(waveform), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        "Position in der Sprachnachricht");
    GtkWidget *play = gtk_widget_get_first_child(GTK_WIDGET(row));
    GtkWidget *rate = gtk_widget_get_last_child(GTK_WIDGET(row));
    g_assert_cmpstr(gtk_button_get_label(GTK_BUTTON(rate)), ==, "1×");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(rate), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        "Wiedergabegeschwindigkeit 1×");

    g_assert_true(rig_wait(shows_failure, row));
    GtkWidget *failure = gtk_widget_get_next_sibling(GTK_WIDGET(vngtk_voice_message_get_waveform(row)));
    GtkWidget *label = last_label_in(failure);
    g_assert_nonnull(label);
    g_assert_cmpstr(gtk_label_get_text(GTK_LABEL(label)), ==, "Diese Sprachnachricht kann nicht abgespielt werden");
    gtk_test_accessible_assert_property(GTK_ACCESSIBLE(play), GTK_ACCESSIBLE_PROPERTY_LABEL, "Erneut versuchen");

    gtk_window_destroy(GTK_WINDOW(window));
    g_object_unref(flow);
    g_object_unref(player);
    g_object_unref(recorder);
    g_rmdir(directory);
    g_free(missing);
    g_free(directory);
}

int main(int argc, char **argv) {
    g_setenv("LC_ALL", "C.UTF-8", TRUE);
    g_setenv("LANGUAGE", "de", TRUE);
    g_test_init(&argc, &argv, NULL);
    gtk_init();
    g_test_add_func("/translated/german", test_german);
    return g_test_run();
}
