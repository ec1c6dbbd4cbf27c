/*
 * outbox.c: the outbox's C contract (vn_outbox_*), with no server: NULL handles are VN_E_MISUSE, NULL
 * out-parameters VN_E_INVALID_ARG, a failed create leaves `*out` NULL, every call on a destroyed outbox is
 * VN_E_MISUSE; a note added is listed (copied into the directory) before the outbox starts; refusals (a directory, a
 * missing file, an endpoint that is not http(s), a second outbox on the directory, a damaged database, ids that
 * are not there); a SIGKILL right after vn_outbox_add() returned loses nothing (a child process adds and is killed;
 * the parent finds the item). The sending paths run against real servers in the C++ and Python tests.
 */
#include "harness.h"

#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char folder[] = "/tmp/vn-outbox-c-XXXXXX";

static void path_in(char *out, size_t size, const char *leaf) { snprintf(out, size, "%s/%s", folder, leaf); }

static void test_null_handles_and_outs(void) {
    int64_t id = 7;
    char *json = (char *)1;
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_start(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_set_retry(NULL, 1, 2));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_add(NULL, "/x", NULL, &id));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_acknowledge(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_retry(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_cancel(NULL, 1));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_copy_items(NULL, &json));
    EXPECT(json == NULL, "copy_items left its out-parameter set");
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_subscribe(NULL, NULL, NULL, NULL, NULL));
    vn_outbox_destroy(NULL);

    char directory[512];
    path_in(directory, sizeof directory, "nulls");
    vn_outbox *box = (vn_outbox *)1;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_create(NULL, "http://127.0.0.1:9/", NULL, &box));
    EXPECT(box == NULL, "a failed create left *out set");
    box = (vn_outbox *)1;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_create(directory, "ftp://example.com/", NULL, &box));
    EXPECT(box == NULL, "a failed create left *out set");
    EXPECT_STATUS(VN_OK, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &box));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_copy_items(box, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_add(box, NULL, NULL, &id));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_subscribe(box, NULL, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_set_retry(box, 0, 1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_set_retry(box, NAN, 1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_set_retry(box, 2, 1));
    vn_outbox_destroy(box);
}

static void test_add_list_and_refusals(void) {
    char directory[512], note[512];
    path_in(directory, sizeof directory, "box");
    path_in(note, sizeof note, "note.wav");
    EXPECT(write_tone(note, 0.5), "no tone");
    vn_outbox *box = NULL;
    EXPECT_STATUS(VN_OK, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &box));
    vn_outbox *second = (vn_outbox *)1;
    EXPECT_STATUS(VN_E_BUSY, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &second));
    EXPECT(second == NULL, "a refused second outbox");
    int64_t id = 0;
    EXPECT_STATUS(VN_OK, vn_outbox_add(box, note, NULL, &id));
    EXPECT(id == 1, "the first id is %lld", (long long)id);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_outbox_add(box, folder, NULL, &id));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_outbox_add(box, "/nonexistent/note.ogg", NULL, &id));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_outbox_acknowledge(box, 1));  /* queued, not uploaded */
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_outbox_retry(box, 1));        /* neither failed nor waiting */
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_outbox_cancel(box, 99));
    char *json = NULL;
    EXPECT_STATUS(VN_OK, vn_outbox_copy_items(box, &json));
    EXPECT(json && strstr(json, "\"state\":\"queued\"") && strstr(json, "/note.wav"), "items: %s", json ? json : "");
    vn_free(json);
    vn_outbox_destroy(box);
    /* Every call on a destroyed outbox. */
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_start(box));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_add(box, note, NULL, &id));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_copy_items(box, &json));
    EXPECT_STATUS(VN_E_MISUSE, vn_outbox_cancel(box, 1));
}

static void test_a_sigkill_after_add_loses_nothing(void) {
    char directory[512], note[512];
    path_in(directory, sizeof directory, "killed");
    path_in(note, sizeof note, "kept.wav");
    EXPECT(write_tone(note, 0.5), "no tone");
    int ready[2];
    EXPECT(pipe(ready) == 0, "pipe");
    pid_t child = fork();
    if (child == 0) {
        vn_outbox *box = NULL;
        int64_t id = 0;
        if (vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &box) != VN_OK) _exit(2);
        if (vn_outbox_add(box, note, NULL, &id) != VN_OK) _exit(3);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1) _exit(4);
        for (;;) pause(); /* killed here, the outbox still open */
    }
    close(ready[1]);
    char byte = 0;
    ssize_t got = read(ready[0], &byte, 1);
    close(ready[0]);
    EXPECT(got == 1, "the child did not add its note");
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    unlink(note); /* the host's own file may go: the outbox has its copy */
    vn_outbox *box = NULL;
    EXPECT_STATUS(VN_OK, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &box));
    char *json = NULL;
    EXPECT_STATUS(VN_OK, vn_outbox_copy_items(box, &json));
    EXPECT(json && strstr(json, "\"id\":1") && strstr(json, "kept.wav"), "after the kill: %s", json ? json : "");
    vn_free(json);
    vn_outbox_destroy(box);
}

static void test_a_damaged_database_is_refused(void) {
    char directory[512], database[512];
    path_in(directory, sizeof directory, "damaged");
    EXPECT(mkdir(directory, 0700) == 0, "mkdir");
    path_in(database, sizeof database, "damaged/outbox.db");
    FILE *file = fopen(database, "wb");
    for (int i = 0; i < 8192; i++) fputc((i * 7919) & 0xff, file);
    fclose(file);
    vn_outbox *box = (vn_outbox *)1;
    EXPECT_STATUS(VN_E_FORMAT, vn_outbox_create(directory, "http://127.0.0.1:9/", NULL, &box));
    EXPECT(box == NULL, "a refused outbox");
    struct stat after;
    EXPECT(stat(database, &after) == 0 && after.st_size == 8192, "the database changed");
}

int main(void) {
    harness_init("outbox");
    if (!mkdtemp(folder)) harness_fatal("mkdtemp");
    TEST(test_null_handles_and_outs);
    TEST(test_add_list_and_refusals);
    TEST(test_a_sigkill_after_add_loses_nothing);
    TEST(test_a_damaged_database_is_refused);
    return harness_finish();
}
