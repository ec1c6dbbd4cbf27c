/*
 * convert.c: vn_convert_file / vn_convert_source through the C ABI — a note written again at 2x lasts half as long
 * (read back by vn_audio_info_file), AAC when asked, from memory; every refusal (NULL, bad rate and format,
 * destroyed options, missing and non-audio input) with the destination left as it was; a note whose packets claim
 * more than their bytes can hold refused by info, waveform and convert; a note at 4 kHz converted; a cancelled file
 * source ends the call at its next read.
 */
#define _XOPEN_SOURCE 700
#include <unistd.h>
#include "harness.h"
#include "child.h"

static char directory[256];
static char note[300];

static double length_of(const char *path) {
    vn_audio_info info = {.size = sizeof info};
    if (vn_audio_info_file(path, &info) != VN_OK) return -1;
    return info.duration_s;
}

static void test_a_note_at_twice_the_speed_lasts_half_as_long(void) {
    char out[320];
    snprintf(out, sizeof out, "%s/fast.ogg", directory);
    vn_convert_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_convert_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_convert_options_set_rate(options, 2.0));
    double duration = 0;
    EXPECT_STATUS(VN_OK, vn_convert_file(note, out, options, &duration));
    double original = length_of(note);
    EXPECT(original > 1.9 && duration > 0.98 * original / 2 && duration < 1.02 * original / 2,
           "%.3f s from %.3f s", duration, original);
    EXPECT(length_of(out) > 0 && length_of(out) - duration < 0.001 && duration - length_of(out) < 0.001,
           "the file lasts %.3f s, the call said %.3f s", length_of(out), duration);
    vn_convert_options_destroy(options);
}

static void test_aac_from_memory(void) {
    FILE *file = fopen(note, "rb");
    EXPECT(file != NULL, "cannot open %s", note);
    if (file == NULL) return;
    static unsigned char bytes[1 << 20];
    size_t size = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, size, &source));
    vn_convert_options *options = NULL;
    EXPECT_STATUS(VN_OK, vn_convert_options_create(&options));
    EXPECT_STATUS(VN_OK, vn_convert_options_set_format(options, VN_FORMAT_AAC));
    EXPECT_STATUS(VN_OK, vn_convert_options_set_encoder(options, 48000, 10, 20));
    char out[320];
    snprintf(out, sizeof out, "%s/copy.aac", directory);
    EXPECT_STATUS(VN_OK, vn_convert_source(source, out, options, NULL));
    vn_audio_info info = {.size = sizeof info};
    EXPECT_STATUS(VN_OK, vn_audio_info_file(out, &info));
    EXPECT(strcmp(info.codec, "aac") == 0, "codec %s", info.codec);
    vn_convert_options_destroy(options);
    vn_source_destroy(source);
}

static void test_refusals_leave_the_destination_alone(void) {
    char out[320], bogus[320], missing[320];
    snprintf(out, sizeof out, "%s/kept.ogg", directory);
    snprintf(bogus, sizeof bogus, "%s/bogus.ogg", directory);
    snprintf(missing, sizeof missing, "%s/missing.ogg", directory);
    FILE *file = fopen(out, "w");
    if (file != NULL) { fputs("the old file", file); fclose(file); }
    file = fopen(bogus, "w");
    if (file != NULL) { fputs("not audio", file); fclose(file); }

    vn_convert_options *options = NULL;
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_options_create(NULL));
    EXPECT_STATUS(VN_OK, vn_convert_options_create(&options));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_options_set_rate(options, 3.0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_options_set_rate(options, 0.0 / 0.0));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_options_set_format(options, 7));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_options_set_encoder(options, 1, 10, 20));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_file(NULL, out, options, NULL));
    EXPECT_STATUS(VN_E_INVALID_ARG, vn_convert_file(note, NULL, options, NULL));
    EXPECT_STATUS(VN_E_MISUSE, vn_convert_source(NULL, out, options, NULL));
    EXPECT_STATUS(VN_E_NOT_FOUND, vn_convert_file(missing, out, options, NULL));
    EXPECT_STATUS(VN_E_FORMAT, vn_convert_file(bogus, out, NULL, NULL));
    vn_convert_options_destroy(options);
    EXPECT_STATUS(VN_E_MISUSE, vn_convert_options_set_rate(options, 1.5));
    EXPECT_STATUS(VN_E_MISUSE, vn_convert_file(note, out, options, NULL));

    char text[32] = {0};
    file = fopen(out, "r");
    if (file != NULL) { (void)!fgets(text, sizeof text, file); fclose(file); }
    EXPECT(strcmp(text, "the old file") == 0, "the destination became \"%s\"", text);
}

/* Ogg's CRC-32 (polynomial 0x04C11DB7, no reflection). */
static uint32_t ogg_crc(const unsigned char *data, size_t size) {
    uint32_t crc = 0;
    for (size_t i = 0; i < size; i++) {
        crc ^= (uint32_t)data[i] << 24;
        for (int bit = 0; bit < 8; bit++) crc = crc & 0x80000000u ? (crc << 1) ^ 0x04C11DB7u : crc << 1;
    }
    return crc;
}

/* Appends one Ogg page of `count` packets of `packet_size` bytes each (all `packet`) at `out`; returns its size. */
static size_t ogg_page(unsigned char *out, const unsigned char *packet, size_t packet_size, int count, int64_t granule,
                       uint32_t sequence, int flags) {
    unsigned char *p = out;
    memcpy(p, "OggS", 4);
    p[4] = 0;
    p[5] = (unsigned char)flags;
    for (int i = 0; i < 8; i++) p[6 + i] = (unsigned char)((uint64_t)granule >> (8 * i));
    for (int i = 0; i < 4; i++) p[14 + i] = (unsigned char)(0x1234u >> (8 * i));
    for (int i = 0; i < 4; i++) p[18 + i] = (unsigned char)(sequence >> (8 * i));
    memset(p + 22, 0, 4);
    p[26] = (unsigned char)count;
    memset(p + 27, (int)packet_size, (size_t)count);
    size_t size = 27 + (size_t)count;
    for (int i = 0; i < count; i++, size += packet_size) memcpy(p + size, packet, packet_size);
    uint32_t crc = ogg_crc(p, size);
    for (int i = 0; i < 4; i++) p[22 + i] = (unsigned char)(crc >> (8 * i));
    return size;
}

static void test_a_note_claiming_more_than_its_bytes_hold_is_refused(void) {
    /* 8 pages of 255 two-byte packets that each claim 120 ms (no frame data): 245 s in 6 KiB, past the 60 s any note
     * may hold whatever its bytes (docs/errors.md, "What a note may cost"). */
    static unsigned char bytes[16384];
    static const unsigned char head[] = {'O', 'p', 'u', 's', 'H', 'e', 'a', 'd', 1, 1, 0, 0, 0x80, 0xBB, 0, 0, 0, 0, 0};
    static const unsigned char tags[] = {'O', 'p', 'u', 's', 'T', 'a', 'g', 's', 2, 0, 0, 0, 'v', 'n', 0, 0, 0, 0};
    static const unsigned char empty[] = {(3 << 3) | 3, 2};
    size_t size = ogg_page(bytes, head, sizeof head, 1, 0, 0, 2);
    size += ogg_page(bytes + size, tags, sizeof tags, 1, 0, 1, 0);
    for (int page = 0; page < 8; page++) {
        size += ogg_page(bytes + size, empty, sizeof empty, 255, (int64_t)(page + 1) * 255 * 5760, (uint32_t)page + 2,
                         page == 7 ? 4 : 0);
    }
    vn_audio_info info = {.size = sizeof info};
    float values[100];
    size_t count = 0;
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(bytes, size, &source));
    EXPECT_STATUS(VN_E_FORMAT, vn_audio_info_source(source, &info));
    EXPECT(strstr(vn_last_error_message(), "honestly hold") != NULL, "message: %s", vn_last_error_message());
    EXPECT_STATUS(VN_E_FORMAT, vn_waveform_memory(bytes, size, 100, values, 100, &count));
    char out[320];
    snprintf(out, sizeof out, "%s/claimed.ogg", directory);
    EXPECT_STATUS(VN_E_FORMAT, vn_convert_source(source, out, NULL, NULL));
    EXPECT(access(out, F_OK) != 0, "%s was written", out);
    vn_source_destroy(source);
}

static void test_a_note_at_4_khz_converts(void) {
    /* Old phone and radio recordings: 1 s of a 308 Hz square wave, 16-bit mono WAV at 4000 Hz. */
    static unsigned char wav[44 + 8000];
    static const unsigned char header[44] = {'R', 'I', 'F', 'F', 36 + 64, 31, 0, 0, 'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
                                             16, 0, 0, 0, 1, 0, 1, 0, 0xA0, 0x0F, 0, 0, 0x40, 0x1F, 0, 0, 2, 0, 16, 0,
                                             'd', 'a', 't', 'a', 64, 31, 0, 0};
    memcpy(wav, header, sizeof header);
    for (int i = 0; i < 4000; i++) {
        int16_t sample = i % 13 < 7 ? 8000 : -8000;
        wav[44 + 2 * i] = (unsigned char)(sample & 0xFF);
        wav[45 + 2 * i] = (unsigned char)((uint16_t)sample >> 8);
    }
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_memory(wav, sizeof wav, &source));
    char out[320];
    snprintf(out, sizeof out, "%s/low.ogg", directory);
    double duration = 0;
    EXPECT_STATUS(VN_OK, vn_convert_source(source, out, NULL, &duration));
    EXPECT(duration > 0.97 && duration < 1.03, "%.3f s from 1 s at 4 kHz", duration);
    vn_source_destroy(source);
}

/* vn_source_cancel on a file source: its reads never wait, so the next read fails instead — a conversion (or any
 * call) of a local note stops there with VN_E_CANCELLED and leaves no file; the read after it works again. */
static void test_a_cancelled_file_source_ends_the_call_at_its_next_read(void) {
    char out[320];
    snprintf(out, sizeof out, "%s/cancelled.ogg", directory);
    vn_source *source = NULL;
    EXPECT_STATUS(VN_OK, vn_source_create_file(note, &source));
    EXPECT_STATUS(VN_OK, vn_source_cancel(source));
    double duration = 0;
    EXPECT_STATUS(VN_E_CANCELLED, vn_convert_source(source, out, NULL, &duration));
    EXPECT(access(out, F_OK) != 0, "a cancelled conversion left %s", out);
    float values[10];
    size_t count = 0;
    EXPECT_STATUS(VN_OK, vn_waveform_source(source, 10, values, 10, &count));
    EXPECT(count == 10, "%zu values after the cancelled read", count);
    vn_source_destroy(source);
}

static int make_note(void) { return write_note(directory, 3.0, note, sizeof note); }

int main(void) {
    harness_init("convert");
    if (!temp_directory_create(directory, sizeof directory, "convert")) return 1;
    if (!fixture_setup(make_note, directory, "write a tone and encode it with opusenc")) return 1;
    TEST(test_a_note_at_twice_the_speed_lasts_half_as_long);
    TEST(test_aac_from_memory);
    TEST(test_refusals_leave_the_destination_alone);
    TEST(test_a_note_claiming_more_than_its_bytes_hold_is_refused);
    TEST(test_a_note_at_4_khz_converts);
    TEST(test_a_cancelled_file_source_ends_the_call_at_its_next_read);
    int status = harness_finish();
    temp_directory_remove(directory);
    return status;
}
