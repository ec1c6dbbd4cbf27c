/*
 * convert.c: vn_convert_file / vn_convert_source through the C ABI — a note written again at 2x lasts half as long
 * (read back by vn_audio_info_file), AAC when asked, from memory; every refusal (NULL, bad rate and format,
 * destroyed options, missing and non-audio input) with the destination left as it was.
 */
#define _XOPEN_SOURCE 700
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

static int make_note(void) { return write_note(directory, 3.0, note, sizeof note); }

int main(void) {
    harness_init("convert");
    if (!temp_directory_create(directory, sizeof directory, "convert")) return 1;
    if (!fixture_setup(make_note, directory, "write a tone and encode it with opusenc")) return 1;
    TEST(test_a_note_at_twice_the_speed_lasts_half_as_long);
    TEST(test_aac_from_memory);
    TEST(test_refusals_leave_the_destination_alone);
    int status = harness_finish();
    temp_directory_remove(directory);
    return status;
}
