/* COpusShims: the variadic requests of libopus and libopusenc (opus_decoder_ctl, ope_encoder_ctl), which Swift
 * cannot call, as plain functions. Named vnshim_*; hidden by the version script. */
#ifndef VOICENOTE_COPUSSHIMS_H
#define VOICENOTE_COPUSSHIMS_H

typedef struct OpusDecoder OpusDecoder;

/** Sets an OpusDecoder's output gain (Q7.8 dB, the Ogg Opus header's field); OPUS_OK or an Opus error. */
int vnshim_opus_decoder_set_gain(OpusDecoder *decoder, int gain_q8);

/* libopusenc requests (opusenc_ctl.c): ope_encoder_ctl is variadic. Each returns OPE_OK or a libopusenc error. */
typedef struct OggOpusEnc OggOpusEnc;
/** OPE_SET_DECISION_DELAY: input samples (48 kHz) held before encoding; 0 encodes each frame as soon as it is whole. */
int vnshim_ope_set_decision_delay(OggOpusEnc *encoder, int samples);
/** OPE_SET_MUXING_DELAY: the longest span (48 kHz samples) a page may hold before it is closed. */
int vnshim_ope_set_muxing_delay(OggOpusEnc *encoder, int samples);
/** OPE_SET_SERIALNO: the Ogg stream serial number (before the first write). */
int vnshim_ope_set_serialno(OggOpusEnc *encoder, int serial);
/** OPUS_SET_APPLICATION, forwarded by libopusenc to every stream's encoder (before the first write). */
int vnshim_ope_set_application(OggOpusEnc *encoder, int application);
/** OPUS_SET_BITRATE in bits per second. */
int vnshim_ope_set_bitrate(OggOpusEnc *encoder, int bits_per_second);
/** OPUS_SET_VBR: 1 variable, 0 constant bitrate. */
int vnshim_ope_set_vbr(OggOpusEnc *encoder, int enabled);
/** OPUS_SET_COMPLEXITY, 0...10. */
int vnshim_ope_set_complexity(OggOpusEnc *encoder, int complexity);
/** OPUS_SET_EXPERT_FRAME_DURATION with an OPUS_FRAMESIZE_* value; libopusenc also adopts the packet size. */
int vnshim_ope_set_frame_duration(OggOpusEnc *encoder, int frame_size_request);

#endif
