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
