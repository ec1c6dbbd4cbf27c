/* ope_encoder_ctl is variadic and its requests are function-like macros, neither of which Swift can call.
 * One typed wrapper per request the recorder sets; each returns OPE_OK or a libopusenc error. */
#include "opus_shims.h"
#include <opusenc.h>

int vnshim_ope_set_decision_delay(OggOpusEnc *encoder, int samples) {
    return ope_encoder_ctl(encoder, OPE_SET_DECISION_DELAY(samples));
}

int vnshim_ope_set_muxing_delay(OggOpusEnc *encoder, int samples) {
    return ope_encoder_ctl(encoder, OPE_SET_MUXING_DELAY(samples));
}

int vnshim_ope_set_serialno(OggOpusEnc *encoder, int serial) {
    return ope_encoder_ctl(encoder, OPE_SET_SERIALNO(serial));
}

int vnshim_ope_set_application(OggOpusEnc *encoder, int application) {
    return ope_encoder_ctl(encoder, OPUS_SET_APPLICATION(application));
}

int vnshim_ope_set_bitrate(OggOpusEnc *encoder, int bits_per_second) {
    return ope_encoder_ctl(encoder, OPUS_SET_BITRATE(bits_per_second));
}

int vnshim_ope_set_vbr(OggOpusEnc *encoder, int enabled) {
    return ope_encoder_ctl(encoder, OPUS_SET_VBR(enabled));
}

int vnshim_ope_set_complexity(OggOpusEnc *encoder, int complexity) {
    return ope_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}

int vnshim_ope_set_frame_duration(OggOpusEnc *encoder, int frame_size_request) {
    return ope_encoder_ctl(encoder, OPUS_SET_EXPERT_FRAME_DURATION(frame_size_request));
}
