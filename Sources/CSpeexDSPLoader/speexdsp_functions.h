/* Every speexdsp function voicenote calls, written once: an X-macro list included by speexdsp_loader.c with VNSPX
 * defined for each use (pointer, symbol table, trampoline).
 *   VNSPX(return type, name, (parameters), (arguments))
 * The trampolines are definitions of the functions speex_preprocess.h declares, so the compiler checks each line
 * against speexdsp's prototype. */

VNSPX(SpeexPreprocessState *, speex_preprocess_state_init, (int frame_size, int sampling_rate),
      (frame_size, sampling_rate))
VNSPX(void, speex_preprocess_state_destroy, (SpeexPreprocessState *st), (st))
VNSPX(int, speex_preprocess_run, (SpeexPreprocessState *st, spx_int16_t *x), (st, x))
VNSPX(int, speex_preprocess_ctl, (SpeexPreprocessState *st, int request, void *ptr), (st, request, ptr))
/* The resampler: a transcript's speech brought to the recogniser's rate. */
VNSPX(SpeexResamplerState *, speex_resampler_init,
      (spx_uint32_t nb_channels, spx_uint32_t in_rate, spx_uint32_t out_rate, int quality, int *err),
      (nb_channels, in_rate, out_rate, quality, err))
VNSPX(void, speex_resampler_destroy, (SpeexResamplerState *st), (st))
VNSPX(int, speex_resampler_process_int,
      (SpeexResamplerState *st, spx_uint32_t channel_index, const spx_int16_t *in, spx_uint32_t *in_len,
       spx_int16_t *out, spx_uint32_t *out_len),
      (st, channel_index, in, in_len, out, out_len))
VNSPX(int, speex_resampler_skip_zeros, (SpeexResamplerState *st), (st))
VNSPX(int, speex_resampler_get_input_latency, (SpeexResamplerState *st), (st))
