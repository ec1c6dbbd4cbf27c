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
#include <stdio.h>

#include <voicenote.h>

/* Prints each WORDS event's words with their times (on the library's event thread; stdout is line-buffered by the
 * C library's lock, so lines do not interleave). */
static void on_event(void *user_data, const vn_transcription_event *event) {
    const char *name = user_data;
    if (event->kind != VN_TRANSCRIPTION_EVENT_WORDS) return;
    printf("%s:", name);
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
        status = vn_transcription_create(argv[i], recogniser, NULL, NULL, &job);
        if (status == VN_OK) status = vn_transcription_subscribe(job, on_event, argv[i], NULL, NULL);
        if (status == VN_OK) status = vn_transcription_start(job);
        if (status == VN_OK) status = vn_transcription_wait(job, -1, &json);
        if (status == VN_OK) {
            printf("%s\n", json);
        } else {
            fprintf(stderr, "%s: %s: %s\n", argv[i], vn_status_name(status), vn_last_error_message());
            failures++;
        }
        vn_free(json);
        vn_transcription_destroy(job); /* after this returns no event of it runs: argv[i] is no longer used */
    }
    vn_transcriber_destroy(recogniser);
    return failures ? 1 : 0;
}
