/* Every FFmpeg function voicenote calls, written once: an X-macro list included by ffmpeg_loader.c with
 * VNFF / VNFF_VOID defined for each use (pointer, symbol table, trampoline).
 *   VNFF(library, return type, name, (parameters), (arguments))
 *   VNFF_VOID(library, name, (parameters), (arguments))        for functions returning void
 * The trampolines are definitions of the functions FFmpeg's headers declare, so the compiler checks each line
 * against FFmpeg's prototype. Add a line here when Swift starts calling a new FFmpeg function: the link of the
 * CLI and the tests fails on any function missing from this list. No FFmpeg data symbol (global variable) is used.
 * Static inline helpers (av_q2d, av_make_q) need no line: they live in the headers. */

/* libavutil */
VNFF(AVUTIL, int, av_channel_layout_copy, (AVChannelLayout *dst, const AVChannelLayout *src), (dst, src))
VNFF_VOID(AVUTIL, av_channel_layout_default, (AVChannelLayout *ch_layout, int nb_channels), (ch_layout, nb_channels))
VNFF_VOID(AVUTIL, av_channel_layout_uninit, (AVChannelLayout *channel_layout), (channel_layout))
VNFF(AVUTIL, AVFrame *, av_frame_alloc, (void), ())
VNFF_VOID(AVUTIL, av_frame_free, (AVFrame **frame), (frame))
VNFF(AVUTIL, int, av_frame_get_buffer, (AVFrame *frame, int align), (frame, align))
VNFF(AVUTIL, int, av_frame_make_writable, (AVFrame *frame), (frame))
VNFF_VOID(AVUTIL, av_frame_unref, (AVFrame *frame), (frame))
VNFF_VOID(AVUTIL, av_free, (void *ptr), (ptr))
VNFF(AVUTIL, void *, av_malloc, (size_t size), (size))
VNFF(AVUTIL, char *, av_strdup, (const char *s), (s))
VNFF(AVUTIL, const char *, av_get_sample_fmt_name, (enum AVSampleFormat sample_fmt), (sample_fmt))
VNFF(AVUTIL, int, av_log_get_level, (void), ())
VNFF_VOID(AVUTIL, av_log_set_level, (int level), (level))
VNFF_VOID(AVUTIL, av_log_set_callback, (void (*callback)(void *, int, const char *, va_list)), (callback))
VNFF(AVUTIL, int, av_log_format_line2,
     (void *ptr, int level, const char *fmt, va_list vl, char *line, int line_size, int *print_prefix),
     (ptr, level, fmt, vl, line, line_size, print_prefix))
VNFF(AVUTIL, int64_t, av_rescale_q, (int64_t a, AVRational bq, AVRational cq), (a, bq, cq))
VNFF(AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size))

/* libswresample */
VNFF(SWRESAMPLE, int, swr_alloc_set_opts2,
     (struct SwrContext **ps, AVChannelLayout *out_ch_layout, enum AVSampleFormat out_sample_fmt, int out_sample_rate,
      AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate, int log_offset,
      void *log_ctx),
     (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate, log_offset,
      log_ctx))
VNFF(SWRESAMPLE, int, swr_convert,
     (struct SwrContext *s, uint8_t **out, int out_count, const uint8_t **in, int in_count),
     (s, out, out_count, in, in_count))
VNFF_VOID(SWRESAMPLE, swr_free, (struct SwrContext **s), (s))
VNFF(SWRESAMPLE, int, swr_get_out_samples, (struct SwrContext *s, int in_samples), (s, in_samples))
VNFF(SWRESAMPLE, int, swr_init, (struct SwrContext *s), (s))

/* libavcodec */
VNFF(AVCODEC, AVPacket *, av_packet_alloc, (void), ())
VNFF_VOID(AVCODEC, av_packet_free, (AVPacket **pkt), (pkt))
VNFF_VOID(AVCODEC, av_packet_rescale_ts, (AVPacket *pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst))
VNFF_VOID(AVCODEC, av_packet_unref, (AVPacket *pkt), (pkt))
VNFF_VOID(AVCODEC, av_parser_close, (AVCodecParserContext *s), (s))
VNFF(AVCODEC, AVCodecParserContext *, av_parser_init, (int codec_id), (codec_id))
VNFF(AVCODEC, int, av_parser_parse2,
     (AVCodecParserContext *s, AVCodecContext *avctx, uint8_t **poutbuf, int *poutbuf_size, const uint8_t *buf,
      int buf_size, int64_t pts, int64_t dts, int64_t pos),
     (s, avctx, poutbuf, poutbuf_size, buf, buf_size, pts, dts, pos))
VNFF(AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec))
VNFF(AVCODEC, const AVCodec *, avcodec_find_decoder, (enum AVCodecID id), (id))
VNFF(AVCODEC, const AVCodec *, avcodec_find_encoder_by_name, (const char *name), (name))
VNFF_VOID(AVCODEC, avcodec_free_context, (AVCodecContext **avctx), (avctx))
VNFF(AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id))
VNFF(AVCODEC, int, avcodec_open2, (AVCodecContext *avctx, const AVCodec *codec, AVDictionary **options),
     (avctx, codec, options))
VNFF(AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters *par, const AVCodecContext *codec), (par, codec))
VNFF(AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext *codec, const AVCodecParameters *par), (codec, par))
VNFF(AVCODEC, int, avcodec_receive_frame, (AVCodecContext *avctx, AVFrame *frame), (avctx, frame))
VNFF(AVCODEC, int, avcodec_receive_packet, (AVCodecContext *avctx, AVPacket *avpkt), (avctx, avpkt))
VNFF(AVCODEC, int, avcodec_send_frame, (AVCodecContext *avctx, const AVFrame *frame), (avctx, frame))
VNFF_VOID(AVCODEC, avcodec_flush_buffers, (AVCodecContext *avctx), (avctx))
VNFF(AVCODEC, int, avcodec_send_packet, (AVCodecContext *avctx, const AVPacket *avpkt), (avctx, avpkt))

/* libavformat */
VNFF(AVFORMAT, int, av_find_best_stream,
     (AVFormatContext *ic, enum AVMediaType type, int wanted_stream_nb, int related_stream,
      const AVCodec **decoder_ret, int flags),
     (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags))
VNFF(AVFORMAT, int, av_probe_input_buffer2,
     (AVIOContext *pb, const AVInputFormat **fmt, const char *url, void *logctx, unsigned int offset,
      unsigned int max_probe_size),
     (pb, fmt, url, logctx, offset, max_probe_size))
VNFF(AVFORMAT, int, av_read_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
VNFF(AVFORMAT, int, av_seek_frame, (AVFormatContext *s, int stream_index, int64_t timestamp, int flags),
     (s, stream_index, timestamp, flags))
VNFF(AVFORMAT, int, av_write_frame, (AVFormatContext *s, AVPacket *pkt), (s, pkt))
VNFF(AVFORMAT, int, av_write_trailer, (AVFormatContext *s), (s))
VNFF(AVFORMAT, AVFormatContext *, avformat_alloc_context, (void), ())
VNFF(AVFORMAT, int, avformat_alloc_output_context2,
     (AVFormatContext **ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename),
     (ctx, oformat, format_name, filename))
VNFF_VOID(AVFORMAT, avformat_close_input, (AVFormatContext **s), (s))
VNFF(AVFORMAT, int, avformat_find_stream_info, (AVFormatContext *ic, AVDictionary **options), (ic, options))
VNFF_VOID(AVFORMAT, avformat_free_context, (AVFormatContext *s), (s))
VNFF(AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext *s, const AVCodec *c), (s, c))
VNFF(AVFORMAT, int, avformat_open_input,
     (AVFormatContext **ps, const char *url, const AVInputFormat *fmt, AVDictionary **options), (ps, url, fmt, options))
VNFF(AVFORMAT, int, avformat_write_header, (AVFormatContext *s, AVDictionary **options), (s, options))
VNFF(AVFORMAT, AVIOContext *, avio_alloc_context,
     (unsigned char *buffer, int buffer_size, int write_flag, void *opaque,
      int (*read_packet)(void *opaque, uint8_t *buf, int buf_size),
      int (*write_packet)(void *opaque, uint8_t *buf, int buf_size),
      int64_t (*seek)(void *opaque, int64_t offset, int whence)),
     (buffer, buffer_size, write_flag, opaque, read_packet, write_packet, seek))
VNFF_VOID(AVFORMAT, avio_context_free, (AVIOContext **s), (s))
VNFF_VOID(AVFORMAT, avio_flush, (AVIOContext *s), (s))
