#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import VoiceNoteCore

/// AAC-LC in ADTS: FFmpeg's native `aac` encoder and its `adts` muxer (which writes every frame header), over a
/// custom AVIOContext whose write callback is `RecordingFile`'s write(2) loop. Input int16 goes through
/// libswresample to the encoder's planar float, in frames of the encoder's `frame_size` (1024).
///
/// The muxer flushes its AVIO buffer after every packet, so each encoded frame reaches the file as soon as the
/// encoder gives it out; the encoder itself holds about two frames back (its lookahead), so a process killed while
/// recording loses under 50 ms plus the input not yet making up a frame.
final class AACRecordingEncoder: RecordingEncoder {
    private(set) var framesWritten: Int64 = 0
    var bytesWritten: Int64 { file.size }
    /// The rate of the AAC stream: the input rate when AAC has it, else the next AAC rate above (at most 48 kHz).
    private(set) var outputRate = 0

    let file: RecordingFile
    private let channels: Int
    private let inputRate: Int
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var stream: UnsafeMutablePointer<AVStream>?
    private var resampler: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frameSize = 1024
    private var acceptsShortLastFrame = false
    /// Converted samples not yet sent, one array per channel.
    private var pending: [[Float]]
    /// libswresample's output planes: `channels` pointers into `scratch`.
    private let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private var scratch: UnsafeMutablePointer<Float>?
    private var scratchFrames = 0
    private var nextTimestamp: Int64 = 0
    /// Frames given to the encoder so far.
    private var framesSent = 0
    private var finished = false
    /// A codec or muxer failure; write failures are the file's.
    private var codecFailure: VoiceNoteError?

    /// Encoder frames a finished file holds at least. With the encoder's priming frame that makes three ADTS frames:
    /// FFmpeg's ADTS probe recognises a stream by content only from three frames on; with two, a short take was
    /// taken for MPEG-TS by ffprobe and by our own reader about half the time and could not be read.
    static let minimumEncodedFrames = 2
    /// Input frames converted per libswresample call: bounds the scratch buffer whatever `write` is given.
    private static let conversionChunk = 4096
    private static let ioBufferSize = 16 * 1024
    /// AVERROR_EOF and AVERROR(EAGAIN), macros Swift does not import.
    private static let errorEOF = FFmpegDecoder.errorEOF
    private static let errorAgain = -EAGAIN

    init(path: String, inputRate: Int, channels: Int, settings: EncoderSettings) throws(VoiceNoteError) {
        try FFmpegLibraries.require()  // before the file exists: nothing to clean up when FFmpeg is missing
        self.channels = channels
        self.inputRate = inputRate
        pending = Array(repeating: [], count: channels)
        file = try RecordingFile(creating: path)  // first: a throw before `planes` exists leaks nothing
        planes = .allocate(capacity: channels)
        planes.initialize(repeating: nil, count: channels)
        do throws(VoiceNoteError) {
            try openEncoder(bitrate: settings.bitrate)
            try openMuxer()
            try openResampler()
        } catch {
            file.discard()
            throw error
        }
    }

    deinit {
        av_frame_free(&frame)
        av_packet_free(&packet)
        if resampler != nil { swr_free(&resampler) }
        if codec != nil { avcodec_free_context(&codec) }
        if let format {
            format.pointee.pb = nil  // ours, freed below
            avformat_free_context(format)
        }
        if let context = io {
            av_free(context.pointee.buffer)  // AVIO may have replaced the buffer it was given
            io = context
            avio_context_free(&io)
        }
        scratch?.deallocate()
        planes.deallocate()
    }

    // MARK: RecordingEncoder

    func write(_ pcm: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) {
        guard !finished else { throw VoiceNoteError(.misuse, "write after finish") }
        try forEachChunk(of: pcm, channels: channels, chunk: Self.conversionChunk, failure: codecFailure ?? file.failure) {
            (frames, count) throws(VoiceNoteError) in
            try convert(frames, frames: count)
            framesWritten += Int64(count)
            try encodeWholeFrames()
        }
    }

    func flush() throws(VoiceNoteError) {
        guard !finished else { throw VoiceNoteError(.misuse, "flush after finish") }
        if let failure = codecFailure ?? file.failure { throw failure }
        try receivePackets()
        avio_flush(io)
        try checkFile()
        try file.sync()
    }

    func finish() throws(VoiceNoteError) {
        guard !finished else { return }
        finished = true
        if codecFailure != nil || file.failure != nil {
            // Reported by the write that met it; the file ends with whole frames: close it as it is.
            try file.close()
            return
        }
        do throws(VoiceNoteError) {
            if framesWritten == 0 {
                // As the Opus encoder does: an empty take still becomes a decodable stream (one silent sample).
                let silence = [Int16](repeating: 0, count: channels)
                try silence.withUnsafeBufferPointer { samples throws(VoiceNoteError) in
                    guard let base = samples.baseAddress else { return }
                    try convert(base, frames: 1)
                }
            }
            try convert(nil, frames: 0)  // what the resampler still holds
            try encodeWholeFrames()
            if let count = pending.first?.count, count > 0 {
                if !acceptsShortLastFrame {
                    for channel in pending.indices {
                        pending[channel].append(contentsOf: repeatElement(0, count: frameSize - count))
                    }
                }
                try send(count: pending[0].count)
                for channel in pending.indices { pending[channel].removeAll() }
            }
            try sendSilenceUntilRecognisable()
            try check(avcodec_send_frame(codec, nil), "avcodec_send_frame(NULL)")
            try receivePackets()
            try check(av_write_trailer(format), "av_write_trailer")
            avio_flush(io)
            try checkFile()
            try file.close()
        } catch {
            try? file.close()
            throw error
        }
    }

    // MARK: Setup

    private func openEncoder(bitrate: Int) throws(VoiceNoteError) {
        guard let encoder = avcodec_find_encoder_by_name("aac") else {
            throw VoiceNoteError(.unsupported, "this FFmpeg has no native aac encoder")
        }
        outputRate = Self.aacRate(for: inputRate, supported: encoder.pointee.supported_samplerates)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        codec = avcodec_alloc_context3(encoder)
        guard let codec, let frame, packet != nil else { throw VoiceNoteError(.noMemory, "FFmpeg allocation failed") }
        codec.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        codec.pointee.sample_rate = Int32(outputRate)
        av_channel_layout_default(&codec.pointee.ch_layout, Int32(channels))
        codec.pointee.bit_rate = Int64(bitrate)
        codec.pointee.profile = FF_PROFILE_AAC_LOW
        codec.pointee.time_base = AVRational(num: 1, den: Int32(outputRate))
        try check(avcodec_open2(codec, encoder, nil), "avcodec_open2(aac, \(outputRate) Hz, \(bitrate) bit/s)")
        frameSize = codec.pointee.frame_size > 0 ? Int(codec.pointee.frame_size) : 1024
        acceptsShortLastFrame = encoder.pointee.capabilities & AV_CODEC_CAP_SMALL_LAST_FRAME != 0
        frame.pointee.nb_samples = Int32(frameSize)
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(outputRate)
        try check(av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout), "av_channel_layout_copy")
        try check(av_frame_get_buffer(frame, 0), "av_frame_get_buffer")
    }

    private func openMuxer() throws(VoiceNoteError) {
        guard let codec else { return }
        try check(avformat_alloc_output_context2(&format, nil, "adts", nil), "avformat_alloc_output_context2(adts)")
        guard let format, let stream = avformat_new_stream(format, nil) else {
            throw VoiceNoteError(.noMemory, "avformat_new_stream failed")
        }
        self.stream = stream
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, codec), "avcodec_parameters_from_context")
        stream.pointee.time_base = codec.pointee.time_base
        guard let buffer = av_malloc(Self.ioBufferSize) else { throw VoiceNoteError(.noMemory, "av_malloc failed") }
        io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.ioBufferSize), 1,
                                Unmanaged.passUnretained(file).toOpaque(), nil, { opaque, buffer, size in
            guard let opaque, let buffer, size > 0 else { return 0 }
            let file = Unmanaged<RecordingFile>.fromOpaque(opaque).takeUnretainedValue()
            let code = file.append(UnsafeRawBufferPointer(start: buffer, count: Int(size)))
            return code == 0 ? size : -code  // AVERROR(errno); the file keeps the errno's status
        }, nil)
        guard io != nil else {
            av_free(buffer)
            throw VoiceNoteError(.noMemory, "avio_alloc_context failed")
        }
        format.pointee.pb = io
        // Every packet goes to the file as it is muxed, not when the AVIO buffer fills.
        format.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
        format.pointee.flush_packets = 1
        try check(avformat_write_header(format, nil), "avformat_write_header(adts)")
        try checkFile()
    }

    private func openResampler() throws(VoiceNoteError) {
        guard let codec else { return }
        var inputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(channels))
        defer { av_channel_layout_uninit(&inputLayout) }
        try check(swr_alloc_set_opts2(&resampler, &codec.pointee.ch_layout, AV_SAMPLE_FMT_FLTP, Int32(outputRate),
                                      &inputLayout, AV_SAMPLE_FMT_S16, Int32(inputRate), 0, nil), "swr_alloc_set_opts2")
        try check(swr_init(resampler), "swr_init")
    }

    /// The input rate when AAC has it, else the lowest AAC rate above it, capped at 48 kHz (voice needs no more).
    private static func aacRate(for rate: Int, supported: UnsafePointer<Int32>?) -> Int {
        var rates: [Int] = []
        if var next = supported {
            while next.pointee != 0 {
                rates.append(Int(next.pointee))
                next += 1
            }
        }
        if rates.isEmpty { rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000] }
        if rates.contains(rate) { return rate }
        return rates.filter { $0 > rate && $0 <= 48_000 }.min() ?? 48_000
    }

    // MARK: Encoding

    /// Converts `frames` input frames (nil: drains the resampler) and appends them to `pending`.
    private func convert(_ input: UnsafePointer<Int16>?, frames: Int) throws(VoiceNoteError) {
        let capacity = Int(swr_get_out_samples(resampler, Int32(frames)))
        guard capacity > 0 else { return }
        if capacity > scratchFrames {
            scratch?.deallocate()
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: capacity * channels)
            scratch = buffer
            scratchFrames = capacity
            for channel in 0..<channels {
                planes[channel] = UnsafeMutableRawPointer(buffer + channel * capacity).assumingMemoryBound(to: UInt8.self)
            }
        }
        let converted: Int32
        if let input {
            var plane: UnsafePointer<UInt8>? = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
            converted = swr_convert(resampler, planes, Int32(scratchFrames), &plane, Int32(frames))
        } else {
            converted = swr_convert(resampler, planes, Int32(scratchFrames), nil, 0)
        }
        try check(converted, "swr_convert")
        guard let scratch, converted > 0 else { return }
        for channel in 0..<channels {
            pending[channel].append(contentsOf: UnsafeBufferPointer(start: scratch + channel * scratchFrames, count: Int(converted)))
        }
    }

    /// Sends every whole frame in `pending` to the encoder and writes what it gives out.
    private func encodeWholeFrames() throws(VoiceNoteError) {
        var consumed = 0
        while pending[0].count - consumed >= frameSize {
            try send(count: frameSize, from: consumed)
            consumed += frameSize
        }
        if consumed > 0 {
            for channel in pending.indices { pending[channel].removeFirst(consumed) }
        }
    }

    /// Sends `count` samples per channel of `pending`, from `start`, as one frame.
    private func send(count: Int, from start: Int = 0) throws(VoiceNoteError) {
        guard let frame else { return }
        try check(av_frame_make_writable(frame), "av_frame_make_writable")
        frame.pointee.nb_samples = Int32(count)
        for channel in 0..<channels {
            guard let plane = frame.pointee.extended_data[channel] else { continue }
            let target = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
            pending[channel].withUnsafeBufferPointer { samples in
                guard let source = samples.baseAddress else { return }
                target.update(from: source + start, count: count)
            }
        }
        frame.pointee.pts = nextTimestamp
        nextTimestamp += Int64(count)
        framesSent += 1
        try check(avcodec_send_frame(codec, frame), "avcodec_send_frame")
        try receivePackets()
    }

    /// Pads a very short take with silent frames up to `minimumEncodedFrames`, so every finished file is readable.
    private func sendSilenceUntilRecognisable() throws(VoiceNoteError) {
        while framesSent < Self.minimumEncodedFrames {
            for channel in pending.indices { pending[channel] = [Float](repeating: 0, count: frameSize) }
            try send(count: frameSize)
        }
        for channel in pending.indices { pending[channel].removeAll() }
    }

    /// Muxes every packet the encoder has ready.
    private func receivePackets() throws(VoiceNoteError) {
        guard let codec, let packet, let stream else { return }
        while true {
            let received = avcodec_receive_packet(codec, packet)
            if received == Self.errorAgain || received == Self.errorEOF { return }
            try check(received, "avcodec_receive_packet")
            packet.pointee.stream_index = 0
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            let written = av_write_frame(format, packet)
            av_packet_unref(packet)
            try checkFile()
            try check(written, "av_write_frame")
        }
    }

    /// The file's write failure, if the last AVIO flush met one.
    private func checkFile() throws(VoiceNoteError) {
        if let failure = file.failure { throw failure }
        if let io, io.pointee.error < 0 { try check(io.pointee.error, "AVIO write") }
    }

    private func check(_ code: Int32, _ what: String) throws(VoiceNoteError) {
        guard code < 0 else { return }
        if let failure = file.failure { throw failure }
        let error = VoiceNoteError(code == -ENOMEM ? .noMemory : .internal, "\(what): \(Self.describe(code))")
        codecFailure = codecFailure ?? error
        throw error
    }

    private static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + " (\(code))"
    }
}
