/*
 * transcribe.c: the words of voice notes, recognised on this machine (PocketSphinx), with their times.
 *
 * Usage:  transcribe FILE|URL...
 *
 * What it shows:
 * - vn_transcriber_create_pocketsphinx(): the recogniser (Debian's libpocketsphinx3 and pocketsphinx-en-us, opened
 *   on the first transcription: without them each note fails with VN_E_UNSUPPORTED naming the packages).
 * - vn_transcription_create() / _subscribe() / _start(): each note transcribed on its own thread; the WORDS events
 *   come as each utterance is recognised (printed as they come, with their times), then FINISHED with every word.
 * - vn_transcription_wait(): the end, and the transcript as JSON (printed last, one line per note). A second run
 *   is a cache read (the media cache keeps transcripts beside what it keeps of each note).
 *
 * Build:  cc transcribe.c $(pkg-config --cflags --libs voicenote) -o transcribe
 *    or:  find_package(voicenote 0.1 REQUIRED) + target_link_libraries(transcribe PRIVATE voicenote::voicenote)
 * Exit status: 0 when every note was transcribed; 1 when one failed (its status on stderr); 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <voicenote.h>

/* One note's events: its name, and whether its last event (FINISHED or FAILED) has been handled. */
typedef struct {
    const char *name;
    pthread_mutex_t mutex;
    pthread_cond_t ended_cond;
    int ended;
} note_events;

/* Prints each WORDS event's words with their times (on the library's event thread); marks the last event. */
static void on_event(void *user_data, const vn_transcription_event *event) {
    note_events *note = user_data;
    if (event->kind != VN_TRANSCRIPTION_EVENT_WORDS) {
        pthread_mutex_lock(&note->mutex);
        note->ended = 1;
        pthread_cond_broadcast(&note->ended_cond);
        pthread_mutex_unlock(&note->mutex);
        return;
    }
    printf("%s:", note->name);
    for (size_t i = 0; i < event->word_count; i++) {
        printf(" %s@%.2f", event->words[i].text, event->words[i].start_s);
    }
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: transcribe FILE|URL...\n");
        return 2;
    }
    vn_transcriber *recogniser = NULL;
    int status = vn_transcriber_create_pocketsphinx(NULL, NULL, &recogniser);
    if (status != VN_OK) {
        fprintf(stderr, "vn_transcriber_create_pocketsphinx failed: %s: %s\n", vn_status_name(status),
                vn_last_error_message());
        return 1;
    }
    int failures = 0;
    for (int i = 1; i < argc; i++) {
        vn_transcription *job = NULL;
        char *json = NULL;
        note_events note = {argv[i], PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        status = vn_transcription_create(argv[i], recogniser, NULL, NULL, &job);
        if (status == VN_OK) status = vn_transcription_subscribe(job, on_event, &note, NULL, NULL);
        if (status == VN_OK) status = vn_transcription_start(job);
        if (status == VN_OK) status = vn_transcription_wait(job, -1, &json);
        if (status == VN_OK) {
            /* The last utterance's words come in an event just before the end: let the event thread print them
             * (at most 10 s) before the destroy below ends the subscription. */
            struct timespec deadline;
            clock_gettime(CLOCK_REALTIME, &deadline);
            deadline.tv_sec += 10;
            pthread_mutex_lock(&note.mutex);
            while (!note.ended && pthread_cond_timedwait(&note.ended_cond, &note.mutex, &deadline) == 0) {}
            pthread_mutex_unlock(&note.mutex);
            printf("%s\n", json);
        } else {
            fprintf(stderr, "%s: %s: %s\n", argv[i], vn_status_name(status), vn_last_error_message());
            failures++;
        }
        vn_free(json);
        vn_transcription_destroy(job); /* after this returns no event of it runs: `note` is no longer used */
    }
    vn_transcriber_destroy(recogniser);
    return failures ? 1 : 0;
}
