import CFFmpeg
import VoiceNoteCore

/// AAC in ADTS as `FFmpegDecoder` decodes the finished file (same decoder, its priming samples included, int16 at
/// the stream's rate), fed with the bytes a recorder writes: FFmpeg's AAC parser splits them into frames.
public final class ADTSStreamAnalyzer: StreamAnalyzer {
    private var parser: UnsafeMutablePointer<AVCodecParserContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var converter: FFmpegSampleConverter?
    private var finished = false
    /// AV_NOPTS_VALUE, a cast macro Swift does not import.
    private static let noTimestamp = Int64(bitPattern: 0x8000_0000_0000_0000)

    /// An analyzer for an ADTS stream; `.unsupported` when FFmpeg cannot be loaded, `.internal` when it has no AAC
    /// decoder.
    public init() throws(VoiceNoteError) {
        try FFmpegLibraries.require()
        guard let decoder = avcodec_find_decoder(AV_CODEC_ID_AAC) else { throw VoiceNoteError(.internal, "FFmpeg has no AAC decoder") }
        parser = av_parser_init(Int32(AV_CODEC_ID_AAC.rawValue))
        codec = avcodec_alloc_context3(decoder)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard parser != nil, let codec, packet != nil, frame != nil, avcodec_open2(codec, decoder, nil) >= 0 else {
            throw VoiceNoteError(.noMemory, "cannot set up the AAC decoder")
        }
    }

    deinit {
        if parser != nil { av_parser_close(parser) }
        avcodec_free_context(&codec)
        av_packet_free(&packet)
        av_frame_free(&frame)
    }

    /// Takes ADTS bytes and passes decoded frames to `consume`.
    public func feed(_ bytes: UnsafeRawBufferPointer, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) {
        guard !finished, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        try parse(base, bytes.count, consume)
    }

    /// Flushes the parser and the decoder.
    public func finish(_ consume: (PCMChunk) -> Void) {
        guard !finished else { return }
        finished = true
        try? parse(nil, 0, consume)
        if let codec {
            avcodec_send_packet(codec, nil)
            receive(consume)
        }
        _ = converter?.flush(consume)
    }

    /// Runs bytes (nil: the end) through the parser and decodes every whole frame it finds.
    private func parse(_ bytes: UnsafePointer<UInt8>?, _ count: Int, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) {
        guard let parser, let codec, let packet else { return }
        var input = bytes
        var left = count
        repeat {
            var data: UnsafeMutablePointer<UInt8>?
            var size: Int32 = 0
            let used = av_parser_parse2(parser, codec, &data, &size, input, Int32(left), Self.noTimestamp, Self.noTimestamp, 0)
            guard used >= 0 else { throw VoiceNoteError(.format, "AAC parser failed (\(used))") }
            input = input.map { $0 + Int(used) }
            left -= Int(used)
            if size > 0, let data {
                packet.pointee.data = data
                packet.pointee.size = size
                if avcodec_send_packet(codec, packet) >= 0 { receive(consume) }
            }
            if bytes == nil && size == 0 { break }
        } while left > 0
    }

    /// Hands on every frame the decoder has ready.
    private func receive(_ consume: (PCMChunk) -> Void) {
        guard let codec, let frame else { return }
        while avcodec_receive_frame(codec, frame) == 0 {
            defer { av_frame_unref(frame) }
            if converter == nil { converter = try? FFmpegSampleConverter(codec: codec) }
            _ = converter?.convert(frame, consume)
        }
    }
}
