/*
 * cleanup.c: voice cleanup on record through the C API (vn_recorder_options_set_voice_cleanup(),
 * vn_recorder_set_voice_cleanup(), vn_recorder_get_voice_cleanup()): off by default; on, off and toggled between takes
 * of one recorder, each take exactly as long as asked; with cleanup the noise before the voice is far lower in the
 * take's waveform; refusals and NULLs.
 *
 * The microphone is ALSA's file plugin reading 2 s of a steady hiss (-40 dBFS) and then harness.h's 440 Hz
 * triangle with the hiss under it, as raw 48 kHz mono S16 (not paced: a take runs at the encoder's speed).
 */
#define _XOPEN_SOURCE 700 /* nftw, strdup */
#include "harness.h"
#include "child.h"

#include <stdint.h>

#define TAKE_SECONDS 3.0
#define LEAD_SECONDS 2.0

static char directory[256];
static char microphone[700];

/* The input: a deterministic hiss (xorshift, about -40 dBFS RMS), the tone joining it after LEAD_SECONDS. */
static int write_microphone(const char *path) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) return 0;
    uint32_t state = 0x2545F491u;
    for (uint32_t i = 0; i < 48000u * 10u; i++) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        int32_t hiss = (int32_t)(state >> 16) - 32768; /* -32768…32767 */
        int32_t value = hiss / 58;                     /* ±565: RMS ≈ 326, -40 dBFS */
        if (i >= (uint32_t)(LEAD_SECONDS * 48000)) {
            uint32_t phase = (uint32_t)(((uint64_t)i * 440 * 65536 / 48000) & 0xffff);
            value += (phase < 32768 ? (int32_t)phase - 16384 : 49152 - (int32_t)phase) / 2;
        }
        put16(file, (unsigned)(uint16_t)(int16_t)value);
    }
    return fclose(file) == 0;
}

typedef struct {
    atomic_int finished;
    double duration_s;
    float lead;  /* the waveform's mean over the noise-only second before the tone */
    float tone;  /* and over the tone */
} take_result;

static void on_event(void *user_data, const vn_recorder_event *event) {
    take_result *result = user_data;
    if (event->type != VN_RECORDER_EVENT_FINISHED) return;
    size_t per_second = (size_t)(event->waveform_count / TAKE_SECONDS);
    float lead = 0, tone = 0;
    for (size_t i = per_second; i < 2 * per_second; i++) lead += event->waveform[i];
    for (size_t i = 2 * per_second; i < event->waveform_count; i++) tone += event->waveform[i];
    result->lead = lead / (float)per_second;
    result->tone = tone / (float)(event->waveform_count - 2 * per_second);
    result->duration_s = event->duration_s;
    atomic_store(&result->finished, 1);
    notify();
}

/* One take of TAKE_SECONDS by `recorder`; 0 when it did not finish. */
static int take(vn_recorder *recorder, take_result *result) {
    memset(result, 0, sizeof *result);
    vn_subscription_id id = 0;
    EXPECT_STATUS(VN_OK, vn_recorder_subscribe(recorder, on_event, result, NULL, &id));
    EXPECT_STATUS(VN_OK, vn_recorder_begin(recorder));
    int ok = 0;
    WAIT_UNTIL(ok, atomic_load(&result->finished), 30000);
    EXPECT(ok, "the take did not finish within 30 s");
    EXPECT_STATUS(VN_OK, vn_unsubscribe(id));
    return ok;
}

static vn_recorder *make_recorder(int cleanup) {
    vn_recorder_options *options = NULL;
    vn_recorder *recorder = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_directory(options, directory));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_device(options, "vn_clean_mic", microphone));
    EXPECT_STATUS(VN_OK, vn_recorder_options_set_limits(options, TAKE_SECONDS, 1, 0));
    if (cleanup >= 0) EXPECT_STATUS(VN_OK, vn_recorder_options_set_voice_cleanup(options, cleanup));
    EXPECT_STATUS(VN_OK, vn_recorder_create(options, &recorder));
    vn_recorder_options_destroy(options);
    return recorder;
}

static void test_refusals_and_the_default(void) {
    vn_recorder_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_recorder_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_voice_cleanup(options, 2));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_options_set_voice_cleanup(options, -1));
    EXPECT_STATUS(VN_E_MISUSE, vn_recorder_options_set_voice_cleanup(NULL, 1));
    vn_recorder_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_recorder_set_voice_cleanup(NULL, 1));
    int enabled = -1;
    EXPECT_STATUS(VN_E_MISUSE, vn_recorder_get_voice_cleanup(NULL, &enabled));
    vn_recorder *recorder = make_recorder(-1);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_get_voice_cleanup(recorder, NULL));
    EXPECT_STATUS(VN_OK, vn_recorder_get_voice_cleanup(recorder, &enabled));
    EXPECT(enabled == 0, "cleanup is off by default, got %d", enabled);
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_recorder_set_voice_cleanup(recorder, 7));
    EXPECT_STATUS(VN_OK, vn_recorder_get_voice_cleanup(recorder, &enabled));
    EXPECT(enabled == 0, "a refused value changes nothing, got %d", enabled);
    vn_recorder_destroy(recorder);
    EXPECT_STATUS(VN_E_MISUSE, vn_recorder_set_voice_cleanup(recorder, 1));
}

static void test_on_off_and_toggled_between_takes(void) {
    vn_recorder *recorder = make_recorder(1);
    int enabled = -1;
    EXPECT_STATUS(VN_OK, vn_recorder_get_voice_cleanup(recorder, &enabled));
    EXPECT(enabled == 1, "the options turned cleanup on, got %d", enabled);
    take_result on, off, on_again;
    if (!take(recorder, &on)) goto done;
    EXPECT_STATUS(VN_OK, vn_recorder_set_voice_cleanup(recorder, 0));
    EXPECT_STATUS(VN_OK, vn_recorder_get_voice_cleanup(recorder, &enabled));
    EXPECT(enabled == 0, "turned off, got %d", enabled);
    if (!take(recorder, &off)) goto done;
    EXPECT_STATUS(VN_OK, vn_recorder_set_voice_cleanup(recorder, 1));
    if (!take(recorder, &on_again)) goto done;
    take_result *takes[] = {&on, &off, &on_again};
    for (int i = 0; i < 3; i++)
        EXPECT(distance(takes[i]->duration_s, TAKE_SECONDS) < 1e-9, "take %d is %.6f s, not %.1f", i,
               takes[i]->duration_s, TAKE_SECONDS);
    /* The waveform maps -50…0 dB to 0…1: the hiss at -40 dBFS shows without cleanup (about 0.03 over the second
     * before the tone) and is gone with it. A steady tone is what noise suppression learns as noise in time (speech
     * is not steady), so it is only required to stay clearly there. */
    EXPECT(off.lead > 0.02f, "the hiss shows in the take without cleanup: %.3f", off.lead);
    EXPECT(on.lead < off.lead / 4 && on_again.lead < off.lead / 4,
           "the hiss alone is far lower with cleanup: on %.3f, off %.3f, on again %.3f", on.lead, off.lead,
           on_again.lead);
    EXPECT(off.tone > 0.5f && on.tone > 0.2f && on_again.tone > 0.2f, "the tone is kept: on %.3f, off %.3f, on again %.3f",
           on.tone, off.tone, on_again.tone);
done:
    vn_recorder_destroy(recorder);
}

int main(void) {
    harness_init("cleanup");
    if (!temp_directory_create(directory, sizeof directory, "cleanup")) return 1;
    char input[400];
    snprintf(input, sizeof input, "%s/mic.raw", directory);
    if (!write_microphone(input)) return 1;
    snprintf(microphone, sizeof microphone,
             "pcm.vn_clean_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"%s\" format raw }", input);
    TEST(test_refusals_and_the_default);
    TEST(test_on_off_and_toggled_between_takes);
    temp_directory_remove(directory);
    return harness_finish();
}
