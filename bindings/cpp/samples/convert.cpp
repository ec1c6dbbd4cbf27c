/*
 * convert.cpp: a voice note written again as Ogg Opus at another speed, its pitch kept — what a bridge does with an
 * MP3 or M4A voice message before passing it on, or a bot answering with a faster copy (the task of
 * bindings/c/convert.c, with the C++ layer).
 *
 * Usage:  convert IN OUT [RATE]     RATE 0.5…2.5 (default 2); IN any format the player reads
 *
 * What it shows:
 * - voicenote::convert_options: a plain struct whose set fields are applied (rate, format; `encoder`, a
 *   voicenote::encoder_settings as a recorder's, is not set here, so the library's bitrate, complexity and frame
 *   duration stand);
 * - voicenote::convert_file(): one blocking call decodes IN, stretches it with libsonic and encodes OUT, written
 *   aside and renamed once complete, so a failure leaves OUT as it was; it returns the new length as
 *   voicenote::seconds;
 * - voicenote::audio_info_file() reads the original's length and codec back;
 * - a failing call (a RATE out of range included: the library range-checks it) throws voicenote::error.
 *
 * Build:  c++ -std=c++17 convert.cpp $(pkg-config --cflags --libs voicenote) -o convert
 * Exit status: 0 on success; 1 when a call fails (status and messages on stderr); 2 for a usage error.
 */
#include <voicenote.hpp>
#include <voicenote/analysis.hpp>

#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        std::fprintf(stderr, "usage: convert IN OUT [RATE]\n");
        return 2;
    }
    char *end = nullptr;
    double rate = argc == 4 ? std::strtod(argv[3], &end) : 2.0;
    if (argc == 4 && (end == argv[3] || *end != '\0')) {
        std::fprintf(stderr, "convert: RATE must be a number, not \"%s\"\n", argv[3]);
        return 2;
    }

    const char *call = "voicenote::convert_file";
    try {
        voicenote::convert_options options;
        options.rate = rate;
        options.format = voicenote::recording_format::opus;
        voicenote::seconds duration = voicenote::convert_file(argv[1], argv[2], options);
        call = "voicenote::audio_info_file";
        voicenote::audio_info before = voicenote::audio_info_file(argv[1]);
        std::printf("%s: %.3f s (%s) -> %s: %.3f s (opus) at %gx\n", argv[1], before.duration.count(),
                    before.codec.c_str(), argv[2], duration.count(), rate);
    } catch (const voicenote::error &e) {
        std::fprintf(stderr, "%s failed: %s: %s\n  detail: %s\n", call, e.name(), e.code().message().c_str(),
                     e.detail().c_str());
        return 1;
    }
    return 0;
}
