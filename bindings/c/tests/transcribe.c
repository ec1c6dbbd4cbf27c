/*
 * transcribe.c: transcripts through the C API (vn_transcriber_*, vn_transcription_*, vn_transcript_words_add()):
 * PocketSphinx on espeak-ng speech encoded by opusenc (words told as each utterance ends, then FINISHED with all of them and
 * the JSON of vn_transcription_wait(); a second request is a cache read); a host recogniser written here that
 * scripts its words, one that fails, one that blocks (destroy does not wait for it, and its release runs once the
 * hook returns); cancel; refusals and NULLs.
 */
#define _XOPEN_SOURCE 700 /* nftw, strdup */
#include "harness.h"
#include "child.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char directory[256];
static char note_path[400];
static char cache_path[400];

/* espeak-ng's speech as 48 kHz WAV, then Ogg Opus (opusenc). */
static int setup(void) {
    char raw[300], wav[300];
    snprintf(raw, sizeof raw, "%s/raw.wav", directory);
    snprintf(wav, sizeof wav, "%s/speech.wav", directory);
    snprintf(note_path, sizeof note_path, "%s/speech.ogg", directory);
    snprintf(cache_path, sizeof cache_path, "%s/cache", directory);
    /* Pauses of 1.2 s between the sentences: PocketSphinx's detector ends an utterance at each, so words are told
     * in three events. */
    char *speak[] = {"espeak-ng", "-m", "-v", "en-us+f2", "-s", "160", "-w", raw,
                     "<speak>Open the door please.<break time='1200ms'/>Call me tomorrow morning.<break time='1200ms'/>"
                     "The weather is nice today.</speak>", NULL};
    char *convert[] = {"sox", "-R", raw, "-r", "48000", "-c", "1", "-b", "16", wav, "pad", "0.3", "0.5", NULL};
    char **steps[] = {speak, convert};
    for (size_t i = 0; i < 2; i++) {
        int to_child = -1, from_child = -1;
        pid_t pid = spawn(steps[i], &to_child, &from_child);
        if (pid < 0) return 0;
        close(to_child);
        if (finish_child(pid, -1, from_child, ENCODE_MS) != 0) return 0;
    }
    return encode_opus(wav, note_path) && vn_cache_set_directory(cache_path) == VN_OK;
}

typedef struct {
    atomic_int words_events, words_told, ended, cached, status;
    char text[4096];
} heard;

static void on_event(void *user_data, const vn_transcription_event *event) {
    heard *h = user_data;
    if (event->kind == VN_TRANSCRIPTION_EVENT_WORDS) {
        atomic_fetch_add(&h->words_events, 1);
        atomic_fetch_add(&h->words_told, (int)event->word_count);
        return;
    }
    if (event->kind == VN_TRANSCRIPTION_EVENT_FINISHED) {
        snprintf(h->text, sizeof h->text, "%s", event->text);
        atomic_store(&h->cached, event->cached);
        for (size_t i = 0; i + 1 < event->word_count; i++)
            if (event->words[i].start_s > event->words[i + 1].start_s) atomic_store(&h->status, VN_E_INTERNAL);
    } else {
        atomic_store(&h->status, event->status);
    }
    atomic_store(&h->ended, 1);
    notify();
}

/* Runs a transcription of `location` by `transcriber` to its end; its JSON from vn_transcription_wait() (to free),
 * or NULL when it failed (`status` set). */
static char *transcribe(const char *location, vn_transcriber *transcriber, heard *h, int *status) {
    vn_transcription *job = NULL;
    EXPECT_STATUS(VN_OK, vn_transcription_create(location, transcriber, NULL, NULL, &job));
    if (job == NULL) return NULL;
    EXPECT_STATUS(VN_OK, vn_transcription_subscribe(job, on_event, h, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_transcription_start(job));
    EXPECT_STATUS(VN_E_MISUSE, vn_transcription_start(job));
    char *json = NULL;
    *status = vn_transcription_wait(job, 60000, &json);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&h->ended), 10000);
    EXPECT(ok, "no FINISHED or FAILED event");
    vn_transcription_destroy(job);
    return json;
}

static void test_pocketsphinx_hears_a_note_and_the_second_request_is_a_cache_read(void) {
    vn_transcriber *sphinx = NULL;
    EXPECT_STATUS(VN_OK, vn_transcriber_create_pocketsphinx(NULL, NULL, &sphinx));
    heard first = {0};
    int status = 0;
    char *json = transcribe(note_path, sphinx, &first, &status);
    EXPECT_STATUS(VN_OK, status);
    EXPECT(json != NULL && strstr(json, "\"recogniser\":\"pocketsphinx/en-us\"") && strstr(json, "\"start\":"), "%s", json ? json : "(null)");
    EXPECT(strstr(first.text, "tomorrow") != NULL, "\"tomorrow\" not heard in \"%s\"", first.text);
    EXPECT(atomic_load(&first.words_events) >= 3 && atomic_load(&first.words_told) >= 5 && !atomic_load(&first.cached),
           "%d WORDS events, %d words told", atomic_load(&first.words_events), atomic_load(&first.words_told));
    vn_free(json);
    heard second = {0};
    json = transcribe(note_path, sphinx, &second, &status);
    EXPECT(atomic_load(&second.cached) && atomic_load(&second.words_events) == 0 && strcmp(first.text, second.text) == 0,
           "second: cached %d, \"%s\"", atomic_load(&second.cached), second.text);
    vn_free(json);
    vn_transcriber_destroy(sphinx);
}

/* A host recogniser: 8 kHz; one word "w<n>" per second fed; "stop" at the finish. `fail` fails its first feed;
 * `block` waits in its first feed until `released`. */
typedef struct {
    int fail, block;
    atomic_int fed, begun, ended, released, in_feed, unblock;
    monitor gate;
} host;

static int host_begin(void *user_data, void **session) {
    host *h = user_data;
    atomic_fetch_add(&h->begun, 1);
    *session = h;
    return VN_OK;
}

static int host_feed(void *user_data, void *session, const int16_t *samples, size_t count, vn_transcript_words *words) {
    host *h = user_data;
    (void)samples;
    if (session != h) return VN_E_INTERNAL;
    if (h->fail) return VN_E_IO;
    if (h->block && atomic_exchange(&h->in_feed, 1) == 0) {
        pthread_mutex_lock(&h->gate.mutex);
        while (!atomic_load(&h->unblock)) pthread_cond_wait(&h->gate.cond, &h->gate.mutex);
        pthread_mutex_unlock(&h->gate.mutex);
    }
    int before = atomic_fetch_add(&h->fed, (int)count) / 8000;
    int after = atomic_load(&h->fed) / 8000;
    for (int second = before; second < after; second++) {
        char word[16];
        snprintf(word, sizeof word, "w%d", second);
        if (vn_transcript_words_add(words, word, second, second + 0.5, 0.5) != VN_OK) return VN_E_INTERNAL;
    }
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcript_words_add(words, "two words", 0, 1, 1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcript_words_add(words, "x", 2, 1, 1));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcript_words_add(words, "x", 0, 1, 2));
    return VN_OK;
}

static int host_finish(void *user_data, void *session, vn_transcript_words *words) {
    (void)user_data;
    (void)session;
    return vn_transcript_words_add(words, "stop", 0, 0, 1);
}

static void host_end(void *user_data, void *session) {
    (void)session;
    atomic_fetch_add(&((host *)user_data)->ended, 1);
}

static void host_release(void *user_data) {
    atomic_fetch_add(&((host *)user_data)->released, 1);
    notify();
}

static vn_transcriber *host_recogniser(host *h, const char *identity) {
    monitor_init(&h->gate);
    vn_transcriber *made = NULL;
    EXPECT_STATUS(VN_OK, vn_transcriber_create_callbacks(identity, 8000, host_begin, host_feed, host_finish, host_end, h,
                                                         host_release, &made));
    return made;
}

static void test_a_host_recogniser_gives_its_words(void) {
    host h = {0};
    vn_transcriber *recogniser = host_recogniser(&h, "test/scripted");
    heard told = {0};
    int status = 0;
    char *json = transcribe(note_path, recogniser, &told, &status);
    EXPECT_STATUS(VN_OK, status);
    EXPECT(strncmp(told.text, "w0 w1 w2", 8) == 0 && strstr(told.text, " stop") != NULL, "\"%s\"", told.text);
    EXPECT(json != NULL && strstr(json, "\"recogniser\":\"test/scripted\""), "%s", json ? json : "(null)");
    EXPECT(atomic_load(&h.begun) == 1 && atomic_load(&h.ended) == 1, "begun %d, ended %d", atomic_load(&h.begun), atomic_load(&h.ended));
    vn_free(json);
    vn_transcriber_destroy(recogniser);
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&h.released) == 1, 10000);
    EXPECT(ok, "release ran %d times", atomic_load(&h.released));
}

static void test_a_failing_host_recogniser_fails_the_transcription(void) {
    host h = {.fail = 1};
    vn_transcriber *recogniser = host_recogniser(&h, "test/failing");
    heard told = {0};
    int status = 0;
    char *json = transcribe(note_path, recogniser, &told, &status);
    EXPECT_STATUS(VN_E_IO, status);
    EXPECT(json == NULL && atomic_load(&told.status) == VN_E_IO, "event status %d", atomic_load(&told.status));
    EXPECT(strstr(vn_last_error_message(), "feed hook") != NULL, "%s", vn_last_error_message());
    EXPECT(atomic_load(&h.ended) == 1, "end ran %d times", atomic_load(&h.ended));
    vn_transcriber_destroy(recogniser);
    int ok = 0;  /* the transcription's thread lets go of the recogniser as it ends: `h` must outlive that */
    WAIT_UNTIL(ok, atomic_load(&h.released) == 1, 10000);
    EXPECT(ok, "release ran %d times", atomic_load(&h.released));
}

static void test_destroy_does_not_wait_for_a_blocking_hook(void) {
    host h = {.block = 1};
    vn_transcriber *recogniser = host_recogniser(&h, "test/blocking");
    heard told = {0};
    vn_transcription *job = NULL;
    EXPECT_STATUS(VN_OK, vn_transcription_create(note_path, recogniser, NULL, NULL, &job));
    EXPECT_STATUS(VN_OK, vn_transcription_subscribe(job, on_event, &told, NULL, NULL));
    EXPECT_STATUS(VN_OK, vn_transcription_start(job));
    int ok = 0;
    POLL_UNTIL(ok, atomic_load(&h.in_feed), 5, 10000);
    EXPECT(ok, "the hook was not reached");
    char *json = NULL;
    EXPECT_STATUS(VN_E_BUSY, vn_transcription_wait(job, 50, &json));
    EXPECT_STATUS(VN_OK, vn_transcription_cancel(job));
    long long start = harness_now_ms();
    vn_transcription_destroy(job);
    vn_transcriber_destroy(recogniser);
    EXPECT(harness_now_ms() - start < 1000, "destroy waited %lld ms for a blocked hook", harness_now_ms() - start);
    EXPECT(atomic_load(&h.released) == 0, "released while a hook runs");
    pthread_mutex_lock(&h.gate.mutex);
    atomic_store(&h.unblock, 1);
    pthread_cond_broadcast(&h.gate.cond);
    pthread_mutex_unlock(&h.gate.mutex);
    WAIT_UNTIL(ok, atomic_load(&h.released) == 1, 10000);
    EXPECT(ok && atomic_load(&h.ended) == 1, "released %d, ended %d", atomic_load(&h.released), atomic_load(&h.ended));
    EXPECT(!atomic_load(&told.ended), "an event arrived after destroy");
}

static void test_a_player_seeks_to_a_word_just_before_it(void) {
    char output[400];
    snprintf(output, sizeof output, "%s/seek.raw", directory);
    vn_player *player = speaker_player(output);
    if (player == NULL) return;
    EXPECT_STATUS(VN_OK, vn_player_load(player, note_path, 0, -1));
    vn_transcript_word word = {.text = "tomorrow", .start_s = 3.11, .end_s = 3.55, .confidence = 0.9};
    EXPECT_STATUS(VN_OK, vn_player_seek_to_word(player, &word));
    vn_player_context context = {.size = sizeof context};
    int ok = 0;
    POLL_UNTIL(ok, vn_player_get_context(player, &context) == VN_OK && !context.is_seeking
                   && distance(context.current_time_s, 3.06) < 1e-6, 5, 10000);
    EXPECT(ok, "at %g s after a seek to a word at 3.11 s", context.current_time_s);
    word.start_s = 0.02;
    EXPECT_STATUS(VN_OK, vn_player_seek_to_word(player, &word));
    POLL_UNTIL(ok, vn_player_get_context(player, &context) == VN_OK && !context.is_seeking && context.current_time_s == 0, 5, 10000);
    EXPECT(ok, "at %g s after a seek to a word at 0.02 s", context.current_time_s);
    word.start_s = NAN;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_seek_to_word(player, &word));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_player_seek_to_word(player, NULL));
    vn_player_destroy(player);
}

static void test_a_payload_carries_the_transcript(void) {
    vn_payload *payload = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_create("mxc://example.org/abc", &payload));
    if (payload == NULL) return;
    char *json = NULL;
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_payload_copy_transcript(payload, &json));
    EXPECT_STATUS(VN_E_FORMAT, vn_payload_set_transcript(payload, "{\"recogniser\":\"x\",\"words\":[{\"text\":\"a b\",\"start\":0,\"end\":1,\"confidence\":1}]}"));
    const char *given = "{\"recogniser\":\"x\",\"text\":\"call me\",\"words\":[{\"text\":\"call\",\"start\":0.25,\"end\":0.5,"
                        "\"confidence\":0.9},{\"text\":\"me\",\"start\":0.52,\"end\":0.7,\"confidence\":0.5}]}";
    EXPECT_STATUS(VN_OK, vn_payload_set_transcript(payload, given));
    EXPECT_STATUS(VN_OK, vn_payload_copy_transcript(payload, &json));
    EXPECT(json != NULL && strcmp(json, given) == 0, "%s", json ? json : "(null)");
    vn_free(json);
    EXPECT_STATUS(VN_OK, vn_payload_set_duration_s(payload, 1.5));
    char *content = NULL;
    EXPECT_STATUS(VN_OK, vn_payload_to_matrix_content(payload, NULL, &content));
    EXPECT(content != NULL && strstr(content, "\"body\":\"Voice message: call me\"") &&
               strstr(content, "\"org.matrix.msc1767.text\":\"call me\"") && strstr(content, "[\"call\",250,500,900]"),
           "%s", content ? content : "(null)");
    vn_free(content);
    EXPECT_STATUS(VN_OK, vn_payload_set_transcript(payload, NULL));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_payload_copy_transcript(payload, &json));
    vn_payload_destroy(payload);
}

static void test_refusals_and_nulls(void) {
    vn_transcriber *t = (vn_transcriber *)1;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_pocketsphinx(NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_pocketsphinx("", NULL, &t));
    EXPECT(t == NULL, "out not cleared");
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_pocketsphinx(NULL, "../x", &t));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_callbacks("x", 7999, host_begin, host_feed, host_finish, host_end, NULL, NULL, &t));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_callbacks("x", 16000, host_begin, NULL, host_finish, host_end, NULL, NULL, &t));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcriber_create_callbacks("", 16000, host_begin, host_feed, host_finish, host_end, NULL, NULL, &t));
    vn_transcription *job = (vn_transcription *)1;
    EXPECT_STATUS(VN_E_MISUSE, vn_transcription_create(note_path, NULL, NULL, NULL, &job));
    EXPECT(job == NULL, "out not cleared");
    vn_transcriber *sphinx = NULL;
    EXPECT_STATUS(VN_OK, vn_transcriber_create_pocketsphinx(NULL, NULL, &sphinx));
    EXPECT_STATUS(VN_E_UNSUPPORTED, vn_transcription_create("ftp://example.org/a.ogg", sphinx, NULL, NULL, &job));
    EXPECT_STATUS(VN_OK, vn_transcription_create(note_path, sphinx, NULL, NULL, &job));
    char *json = NULL;
    EXPECT_STATUS(VN_E_MISUSE, vn_transcription_wait(job, 0, &json));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcription_wait(job, 0, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_transcription_start(NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_transcription_cancel(NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_transcription_subscribe(job, NULL, NULL, NULL, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_transcript_words_add(NULL, "x", 0, 1, 1));
    vn_transcription_destroy(job);
    vn_transcription_destroy(NULL);
    vn_transcriber_destroy(sphinx);
    vn_transcriber_destroy(NULL);
}

int main(void) {
    harness_init("transcribe");
    if (!temp_directory_create(directory, sizeof directory, "transcribe")) return 1;
    if (!fixture_setup(setup, directory, "espeak-ng, sox, opusenc")) return 1;
    TEST(test_pocketsphinx_hears_a_note_and_the_second_request_is_a_cache_read);
    TEST(test_a_host_recogniser_gives_its_words);
    TEST(test_a_failing_host_recogniser_fails_the_transcription);
    TEST(test_destroy_does_not_wait_for_a_blocking_hook);
    TEST(test_a_player_seeks_to_a_word_just_before_it);
    TEST(test_a_payload_carries_the_transcript);
    TEST(test_refusals_and_nulls);
    temp_directory_remove(directory);
    return harness_finish();
}
