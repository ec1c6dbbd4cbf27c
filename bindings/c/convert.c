/*
 * convert.c: a voice note written again as Ogg Opus at another speed, its pitch kept — what a bridge does with an
 * MP3 or M4A voice message before passing it on, or a bot answering with a faster copy.
 *
 * Usage:  convert IN OUT [RATE]     RATE 0.5…2.5 (default 2); IN any format the player reads
 *
 * What it shows:
 * - vn_convert_options_*: an options object with typed setters (rate, format, encoder), destroyed after use;
 * - vn_convert_file(): one blocking call decodes IN, stretches it with libsonic and encodes OUT, written aside and
 *   renamed once complete, so a failure leaves OUT as it was; it returns the new length;
 * - vn_audio_info_file() reads both lengths back.
 *
 * Build:  cc convert.c $(pkg-config --cflags --libs voicenote) -o convert
 * Exit status: 0 on success; 1 when a call fails (status and messages on stderr); 2 for a usage error.
 */
#include <stdio.h>
#include <stdlib.h>

#include <voicenote.h>

static int failed(const char *call, int status) {
    fprintf(stderr, "%s failed: %s: %s\n  detail: %s\n", call, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: convert IN OUT [RATE]\n");
        return 2;
    }
    char *end = NULL;
    double rate = argc == 4 ? strtod(argv[3], &end) : 2.0;
    if (argc == 4 && (end == argv[3] || *end != '\0')) {
        fprintf(stderr, "convert: RATE must be a number, not \"%s\"\n", argv[3]);
        return 2;
    }

    vn_convert_options *options = NULL;
    int status = vn_convert_options_create(&options);
    if (status != VN_OK) return failed("vn_convert_options_create", status);
    status = vn_convert_options_set_rate(options, rate); /* the library range-checks it: 0.5…2.5 */
    if (status == VN_OK) status = vn_convert_options_set_format(options, VN_FORMAT_OPUS);
    if (status != VN_OK) {
        vn_convert_options_destroy(options);
        return failed("vn_convert_options_set_*", status);
    }
    double duration = 0;
    status = vn_convert_file(argv[1], argv[2], options, &duration);
    vn_convert_options_destroy(options);
    if (status != VN_OK) return failed("vn_convert_file", status);

    vn_audio_info before = {.size = sizeof before};
    status = vn_audio_info_file(argv[1], &before);
    if (status != VN_OK) return failed("vn_audio_info_file", status);
    printf("%s: %.3f s (%s) -> %s: %.3f s (opus) at %gx\n", argv[1], before.duration_s, before.codec, argv[2],
           duration, rate);
    return 0;
}
