/* Every PocketSphinx and sphinxbase function voicenote calls, written once: an X-macro list included with VNPS
 * defined for each use (declaration, pointer, symbol table, trampoline).
 *   VNPS(return type, name, (parameters), (arguments))
 * Without VNPS defined (a module map's umbrella) it declares nothing. */
#ifdef VNPS
/* sphinxbase (libsphinxbase.so.3) */
VNPS(cmd_ln_t *, cmd_ln_parse_r, (cmd_ln_t *inout_cmdln, arg_t const *defn, int32 argc, char *argv[], int32 strict),
     (inout_cmdln, defn, argc, argv, strict))
VNPS(int, cmd_ln_free_r, (cmd_ln_t *cmdln), (cmdln))
VNPS(long, cmd_ln_int_r, (cmd_ln_t *cmdln, char const *name), (cmdln, name))
VNPS(double, cmd_ln_float_r, (cmd_ln_t *cmdln, char const *name), (cmdln, name))
VNPS(float64, logmath_exp, (logmath_t *lmath, int logb_p), (lmath, logb_p))
/* pocketsphinx (libpocketsphinx.so.3) */
VNPS(arg_t const *, ps_args, (void), ())
VNPS(ps_decoder_t *, ps_init, (cmd_ln_t *config), (config))
VNPS(int, ps_free, (ps_decoder_t *ps), (ps))
VNPS(logmath_t *, ps_get_logmath, (ps_decoder_t *ps), (ps))
VNPS(int, ps_start_utt, (ps_decoder_t *ps), (ps))
VNPS(int, ps_process_raw, (ps_decoder_t *ps, int16 const *data, size_t n_samples, int no_search, int full_utt),
     (ps, data, n_samples, no_search, full_utt))
VNPS(int, ps_end_utt, (ps_decoder_t *ps), (ps))
VNPS(uint8, ps_get_in_speech, (ps_decoder_t *ps), (ps))
VNPS(ps_seg_t *, ps_seg_iter, (ps_decoder_t *ps), (ps))
VNPS(ps_seg_t *, ps_seg_next, (ps_seg_t *seg), (seg))
VNPS(char const *, ps_seg_word, (ps_seg_t *seg), (seg))
VNPS(void, ps_seg_frames, (ps_seg_t *seg, int *out_sf, int *out_ef), (seg, out_sf, out_ef))
VNPS(int32, ps_seg_prob, (ps_seg_t *seg, int32 *out_ascr, int32 *out_lscr, int32 *out_lback),
     (seg, out_ascr, out_lscr, out_lback))
VNPS(void, ps_seg_free, (ps_seg_t *seg), (seg))
#endif
