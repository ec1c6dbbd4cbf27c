/* opus_decoder_ctl is variadic, which Swift cannot call. */
#include "opus_shims.h"
#include <opus.h>

int vnshim_opus_decoder_set_gain(OpusDecoder *decoder, int gain_q8) {
    return opus_decoder_ctl(decoder, OPUS_SET_GAIN(gain_q8));
}
