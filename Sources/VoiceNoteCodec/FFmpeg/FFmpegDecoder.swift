#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import CFFmpeg
import VoiceNoteSources

/// AAC (ADTS, MP4/M4A/3GP), MP3, WAV, FLAC and Ogg Vorbis (`VoiceMessageFormats`, nothing else): libavformat over our
/// `ByteSource` through a custom AVIOContext, libavcodec, and libswresample to interleaved int16 at the
/// stream's own rate and channels.
final class FFmpegDecoder: AudioDecoder {
    private(set) var info = StreamInfo(codec: "", sampleRate: 0, channels: 0, duration: 0, durationIsEstimate: true, bitrate: 0)
    private(set) var outputRate = 0
    private(set) var outputChannels = 0
    /// Known exactly in advance only for PCM and FLAC with a stream duration in the container; other codecs have
    /// priming, padding or estimated lengths, and callers re-bucket.
    private(set) var exactFrameCount: Int64?

    private let box: Unmanaged<SourceBox>
    private var input: FFmpegInput?
    private var format: UnsafeMutablePointer<AVFormatContext>? { input?.format }
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var converter: FFmpegSampleConverter?
    private var streamIndex: Int32 = -1
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var draining = false
    /// Frames an MP4 edit list says the stream holds: output stops there, as `info` says, instead of running on
    /// into the padding of the last AAC frame (FFmpeg's decoder cannot trim inside a frame). Nil elsewhere.
    private var statedFrames: Int64?
    private var framesDelivered: Int64 = 0
    /// After a seek, the output frame the next delivered sample must be; earlier samples are dropped.
    private var seekTarget: Int64?
    /// The output frame the next decoded sample is, when frames carry no timestamp (counted on).
    private var nextFrame: Int64 = 0
    /// FFmpeg's AV_NOPTS_VALUE, a macro Swift does not import.
    private static let noTimestamp = Int64.min
    private var consecutiveErrors = 0
    /// The first audio, decoded by `init` (interleaved, already delivered as far as the counters go): handed out
    /// before anything else.
    private var primed: [Int16] = []
    /// The length was counted from every frame header (an MP3 without an information frame, ADTS): the bytes
    /// already bound it, so the packet scan of `checkLength` would only do the same walk again.
    private var lengthIsCounted = false
    /// What the packets decoded so far can hold (`HonestLength`, by the codec's bound), set once the decoder is open:
    /// a stream the scans could not count (an estimated length, a format whose packets do not state their durations)
    /// is refused as it is decoded. Fed the bytes of the packets sent (`bytesSent`) with each frame received.
    private var honesty: HonestLength?
    private var bytesSent = 0

    /// AVERROR_EOF, FFERRTAG('E','O','F',' '): a function-like macro Swift does not import.
    static let errorEOF = -Int32(bitPattern: UInt32(0x20) << 24 | UInt32(0x46) << 16 | UInt32(0x4F) << 8 | UInt32(0x45))
    /// AVERROR(EAGAIN).
    static let errorAgain = -EAGAIN
    /// Decoding errors in a row after which the stream counts as ended (a hostile file must not spin forever).
    private static let maximumConsecutiveErrors = 1000

    /// Opens `source` (rewound here) and its best audio stream; `.format` when FFmpeg finds no audio in it or its
    /// declared length leaves none, `.unsupported` when FFmpeg cannot be loaded.
    init(source: ByteSource) throws(VoiceNoteError) {
        try FFmpegLibraries.require()
        box = Unmanaged.passRetained(SourceBox(source))
        // From here every stored property has a value, so a throw below runs deinit, which frees what exists.
        try source.seek(to: 0)
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        guard packet != nil, frame != nil else { throw VoiceNoteError(.noMemory, "av_packet_alloc/av_frame_alloc failed") }
        input = try FFmpegInput(box: box, name: source.name)
        try openDecoder(name: source.name)
        try checkLength(name: source.name)
        try openResampler()
        try primeFirstAudio(name: source.name)
    }

    /// Decodes up to the first audio now, so that a file whose frames all fail to decode (a FLAC whose STREAMINFO
    /// claims samples over damaged frames) is `.format` for `info`, the waveform and the player alike, never a
    /// length reported as exact over no audio; what was decoded is handed out first by `decodeNext`.
    private func primeFirstAudio(name: String) throws(VoiceNoteError) {
        var samples: [Int16] = []
        while samples.isEmpty {
            let more = try decodeFromStream { chunk in samples.append(contentsOf: chunk.samples) }
            if !more { break }
        }
        guard !samples.isEmpty else { throw VoiceNoteError(.format, "\(name): no audio could be decoded") }
        primed = samples
    }

    deinit {
        if codec != nil { avcodec_free_context(&codec) }
        input = nil
        av_packet_free(&packet)
        av_frame_free(&frame)
        box.release()
    }

    /// The best audio stream's decoder, and the stream facts.
    private func openDecoder(name: String) throws(VoiceNoteError) {
        guard let format else { return }
        var decoder: UnsafePointer<AVCodec>?
        streamIndex = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard streamIndex >= 0, let decoder, let stream = format.pointee.streams[Int(streamIndex)],
              let parameters = stream.pointee.codecpar else {
            throw VoiceNoteError(.format, "\(name): no decodable audio stream")
        }
        guard VoiceMessageFormats.allows(decoder) else {
            throw VoiceNoteError(.unsupported, "\(name): \(String(cString: decoder.pointee.name)) audio is not a voice message codec")
        }
        codec = avcodec_alloc_context3(decoder)
        guard let codec else { throw VoiceNoteError(.noMemory, "avcodec_alloc_context3 failed") }
        codec.pointee.codec_whitelist = VoiceMessageFormats.codecWhitelist()
        guard avcodec_parameters_to_context(codec, parameters) >= 0, avcodec_open2(codec, decoder, nil) >= 0 else {
            throw VoiceNoteError(.format, "\(name): cannot open the \(String(cString: avcodec_get_name(parameters.pointee.codec_id))) decoder")
        }
        if codec.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            let channels = codec.pointee.ch_layout.nb_channels
            av_channel_layout_uninit(&codec.pointee.ch_layout)
            av_channel_layout_default(&codec.pointee.ch_layout, max(1, channels))
        }
        outputRate = Int(codec.pointee.sample_rate)
        outputChannels = Int(codec.pointee.ch_layout.nb_channels)
        guard outputRate > 0, outputChannels > 0 else {
            throw VoiceNoteError(.format, "\(name): audio stream without a sample rate or channels")
        }
        var duration = format.pointee.duration > 0 ? Double(format.pointee.duration) / Double(AV_TIME_BASE) : 0
        // MP4/M4A/3GP: the audio track's edit list says what plays (FFmpeg's stream duration), not the movie
        // header, which some encoders write longer (priming included, or another track's length).
        if duration == 0 || Self.appliesEditLists(format), stream.pointee.duration > 0 {
            duration = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }
        let codecID = parameters.pointee.codec_id
        honesty = HonestLength(.of(codecID), sampleRate: outputRate)
        let lossless = codecID == AV_CODEC_ID_FLAC || avcodec_get_name(codecID).map { String(cString: $0).hasPrefix("pcm_") } == true
        if lossless, stream.pointee.duration > 0, stream.pointee.time_base.den > 0 {
            exactFrameCount = av_rescale_q(stream.pointee.duration, stream.pointee.time_base, AVRational(num: 1, den: Int32(outputRate)))
        }
        var estimated = duration == 0 || format.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE
        // MP3: the Xing/LAME tag's length; without an information frame, the frames counted from their headers.
        // ADTS: the frames counted, not FFmpeg's bitrate estimate (HE-AAC, whose decoder doubles the rate, keeps
        // the estimate).
        if let counted = try countedLength(codecID, format) {
            duration = Double(counted.samples) / Double(counted.sampleRate)
            estimated = false
        }
        if !estimated, duration > 0, Self.appliesEditLists(format) {
            statedFrames = Int64((duration * Double(outputRate)).rounded())
        }
        let bitrate = format.pointee.bit_rate > 0 ? format.pointee.bit_rate : parameters.pointee.bit_rate
        info = StreamInfo(
            codec: String(cString: avcodec_get_name(parameters.pointee.codec_id)),
            sampleRate: outputRate, channels: outputChannels, duration: duration,
            durationIsEstimate: estimated, bitrate: Int(max(0, bitrate)))
    }

    /// `StreamLength`'s rule on the length stated so far (a tag, an edit list, a header; an estimate from the bitrate
    /// is bounded by the bytes already): the packets are read once without decoding, and a statement longer than
    /// what the decoder will output from them becomes that (an MP3's, also a shorter one). Only for codecs whose
    /// packets state their own durations exactly; FFmpeg's Ogg demuxer, for one, only approximates Vorbis packet
    /// durations (4 % short on speech), which would cut real audio. A length counted from the frame headers is
    /// skipped: the walk was already bounded by the bytes (an MP3's Xing tag is not, and is checked).
    private func checkLength(name: String) throws(VoiceNoteError) {
        guard let format, !lengthIsCounted, !info.durationIsEstimate, info.duration > 0, let stream = format.pointee.streams[Int(streamIndex)],
              let parameters = stream.pointee.codecpar, Self.hasExactPacketDurations(parameters.pointee.codec_id) else {
            return
        }
        let timeBase = stream.pointee.time_base
        guard timeBase.num > 0, timeBase.den > 0, info.duration < Double(Int32.max) else { return }
        let declared = Int64((info.duration / av_q2d(timeBase)).rounded())
        guard let held = try heldDuration(codec: parameters.pointee.codec_id, name: name) else { return }
        var length = try StreamLength.resolve(declared: declared, held: held, name)
        // An MP3's decoder does not stop where its Xing/LAME tag says (a tag stating fewer frames than the file has,
        // a padding larger than its last frame): what the packets hold, modelled as libavcodec drops samples, is
        // what plays, shorter or longer than the tag.
        if parameters.pointee.codec_id == AV_CODEC_ID_MP3 { length = held }
        guard length != declared else { return }
        info.duration = Double(length) * av_q2d(timeBase)
        let frames = av_rescale_q(length, timeBase, AVRational(num: 1, den: Int32(outputRate)))
        if exactFrameCount != nil { exactFrameCount = frames }
        if statedFrames != nil { statedFrames = frames }
    }

    /// The length an MP3 (its Xing/LAME tag, or its frames when it has no information frame) or an ADTS stream
    /// (its frames) states exactly, when it does and at the decoder's rate; the source is put back where FFmpeg
    /// reads on.
    private func countedLength(_ codecID: AVCodecID, _ format: UnsafeMutablePointer<AVFormatContext>) throws(VoiceNoteError) -> FrameCount? {
        let source = box.takeUnretainedValue().source
        let counted: FrameCount?
        var countedFromFrames = false
        if codecID == AV_CODEC_ID_MP3 {
            let resume = source.position
            try source.seek(to: 0)
            let prefix = try source.readPrefix(count: MP3LengthTag.searchBytes)
            try source.seek(to: resume)
            if let tag = MP3LengthTag(prefix: prefix) {
                counted = FrameCount(samples: tag.samples, sampleRate: tag.sampleRate)
            } else {
                counted = MP3LengthTag.hasInformationFrame(prefix: prefix) ? nil : try MP3LengthTag.countFrames(source)
                countedFromFrames = counted != nil
            }
        } else if codecID == AV_CODEC_ID_AAC, let demuxer = format.pointee.iformat, String(cString: demuxer.pointee.name) == "aac" {
            counted = try ADTSLength.count(source)
            countedFromFrames = counted != nil
        } else {
            counted = nil
        }
        guard let counted, counted.sampleRate == outputRate else { return nil }
        if countedFromFrames {  // the walk is the only look at these frames before decoding: they must be honest
            var honesty = HonestLength(.of(codecID), sampleRate: counted.sampleRate)
            honesty.add(bytes: Int(clamping: counted.bytes), samples: counted.samples)
            if let excess = honesty.excess { throw VoiceNoteError(.format, "\(source.name): \(excess)") }
        }
        lengthIsCounted = countedFromFrames
        return counted
    }

    /// The samples every packet decodes to, for an MP4/M4A/3GP stream of fixed-size frames at the output rate (AAC's
    /// 1024): there the demuxer fits the last packet's duration to the edit list, so durations cannot be summed.
    private func editedFrameSize() -> Int32? {
        guard let format, Self.appliesEditLists(format), let stream = format.pointee.streams[Int(streamIndex)],
              let parameters = stream.pointee.codecpar, parameters.pointee.frame_size > 0,
              parameters.pointee.sample_rate == Int32(outputRate) else { return nil }
        return parameters.pointee.frame_size
    }

    /// Codecs whose packets carry exact durations (frame headers or sample counts).
    private static func hasExactPacketDurations(_ codec: AVCodecID) -> Bool {
        switch codec {
        case AV_CODEC_ID_FLAC, AV_CODEC_ID_MP3, AV_CODEC_ID_MP2, AV_CODEC_ID_AAC, AV_CODEC_ID_OPUS: true
        default: avcodec_get_name(codec).map { String(cString: $0).hasPrefix("pcm_") } == true
        }
    }

    /// What the decoder will output from the audio stream's packets, in its time base (nil when FFmpeg does not know
    /// their durations), read with a second view of the container from the start of the source, which is then put
    /// back where the decoder's view reads on. `.format`, read no further, where the packets claim more than their
    /// bytes can honestly hold.
    private func heldDuration(codec: AVCodecID, name: String) throws(VoiceNoteError) -> Int64? {
        let source = box.takeUnretainedValue().source
        let resume = source.position
        try source.seek(to: 0)
        var held: Int64?
        var honesty = HonestLength(.of(codec), sampleRate: outputRate)
        do {
            let scan = try FFmpegInput(box: box, name: name, findStreamInfo: false)
            held = scan.decodedDuration(ofStream: streamIndex, sampleRate: Int32(outputRate), frameSize: editedFrameSize(),
                                        honesty: &honesty)
        }
        if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
        if let excess = honesty.excess { throw VoiceNoteError(.format, "\(name): \(excess)") }
        try source.seek(to: resume)
        return held
    }

    /// Conversion to interleaved int16, same rate and layout.
    private func openResampler() throws(VoiceNoteError) {
        guard let codec else { return }
        converter = try FFmpegSampleConverter(codec: codec)
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        if !primed.isEmpty {
            let samples = primed
            primed = []
            samples.withUnsafeBufferPointer { consume(PCMChunk(samples: $0, channels: outputChannels)) }
            return true
        }
        return try decodeFromStream(consume)
    }

    /// The next chunk from the stream (`decodeNext` without the primed audio).
    private func decodeFromStream(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        guard let codec, let frame, let packet else { return false }
        let consume = { (chunk: PCMChunk) in self.deliver(chunk, to: consume) }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received == 0 {
                consecutiveErrors = 0
                defer { av_frame_unref(frame) }
                honesty?.add(bytes: bytesSent, samples: Int64(frame.pointee.nb_samples))
                bytesSent = 0
                if let excess = honesty?.excess {
                    throw VoiceNoteError(.format, "\(box.takeUnretainedValue().source.name): \(excess)")
                }
                nextFrame = position(of: frame) ?? nextFrame
                if converter?.convert(frame, consume) == true { return true }
                continue
            }
            if received == Self.errorEOF { return converter?.flush(consume) ?? false }
            if received != Self.errorAgain {
                consecutiveErrors += 1
                if consecutiveErrors > Self.maximumConsecutiveErrors { return false }
                continue
            }
            if draining { return converter?.flush(consume) ?? false }
            let read = av_read_frame(format, packet)
            if read < 0 {
                if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
                draining = true
                avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            bytesSent += Int(packet.pointee.size)
            if avcodec_send_packet(codec, packet) < 0 {  // a damaged packet: skipped
                consecutiveErrors += 1
                if consecutiveErrors > Self.maximumConsecutiveErrors { return false }
            }
        }
    }

    /// Whether `seek(toFrame:)` lands exactly on the frame the whole stream decoded from its start has there, so
    /// that a range decoded after a seek lines up with it: MP3 and AAC (the demuxers count every frame's samples
    /// from the start; ADTS and MP3 without an index read the packets there), FLAC and PCM. Not Ogg Vorbis, whose
    /// packet durations FFmpeg only approximates.
    var seeksExactly: Bool {
        guard let format, let stream = format.pointee.streams[Int(streamIndex)], let parameters = stream.pointee.codecpar,
              let demuxer = format.pointee.iformat?.pointee.name, String(cString: demuxer) != "ogg" else { return false }
        let codec = parameters.pointee.codec_id
        return codec == AV_CODEC_ID_MP3 || codec == AV_CODEC_ID_AAC || codec == AV_CODEC_ID_FLAC
            || avcodec_get_name(codec).map { String(cString: $0).hasPrefix("pcm_") } == true
    }

    /// Seeks with FFmpeg to the key frame at or before `frame`; the frames decoded from there up to `frame` are
    /// then dropped by their timestamps, so output starts exactly at `frame`.
    func seek(toFrame frame: Int64) throws(VoiceNoteError) {
        guard let format, let codec, let stream = format.pointee.streams[Int(streamIndex)] else { return }
        let target = min(max(0, frame), statedFrames ?? exactFrameCount ?? Int64.max)
        let timeBase = stream.pointee.time_base
        let start = stream.pointee.start_time == Self.noTimestamp ? 0 : stream.pointee.start_time
        let timestamp = start + av_rescale_q(target, AVRational(num: 1, den: Int32(outputRate)), timeBase)
        if let io = format.pointee.pb {  // a read that failed (interrupted, the network) is forgotten by a seek
            io.pointee.error = 0
            io.pointee.eof_reached = 0
        }
        guard av_seek_frame(format, streamIndex, timestamp, AVSEEK_FLAG_BACKWARD) >= 0 else {
            if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
            throw VoiceNoteError(.unsupported, "\(box.takeUnretainedValue().source.name) cannot seek")
        }
        avcodec_flush_buffers(codec)
        primed = []
        draining = false
        consecutiveErrors = 0
        seekTarget = target
        nextFrame = target  // until a frame says where it is
        framesDelivered = target
    }

    /// The output frame a decoded frame starts at, from its timestamp; nil when it has none.
    private func position(of frame: UnsafeMutablePointer<AVFrame>) -> Int64? {
        guard let format, let stream = format.pointee.streams[Int(streamIndex)] else { return nil }
        let timestamp = frame.pointee.best_effort_timestamp
        guard timestamp != Self.noTimestamp else { return nil }
        let start = stream.pointee.start_time == Self.noTimestamp ? 0 : stream.pointee.start_time
        return av_rescale_q(timestamp - start, stream.pointee.time_base, AVRational(num: 1, den: Int32(outputRate)))
    }

    /// Passes `chunk` on: without what precedes a seek's target, and cut at `statedFrames` when the container
    /// states the length.
    private func deliver(_ chunk: PCMChunk, to consume: (PCMChunk) -> Void) {
        let first = nextFrame
        nextFrame += Int64(chunk.frames)
        if let target = seekTarget {
            let skip = Int(max(0, min(Int64(chunk.frames), target - first)))
            guard skip < chunk.frames else { return }
            seekTarget = nil
            if skip > 0 {
                let rest = UnsafeBufferPointer(rebasing: chunk.samples[(skip * chunk.channels)...])
                return cutAtStatedLength(PCMChunk(samples: rest, channels: chunk.channels), to: consume)
            }
        }
        cutAtStatedLength(chunk, to: consume)
    }

    /// Passes `chunk` on, cut at `statedFrames` when the container states the length.
    private func cutAtStatedLength(_ chunk: PCMChunk, to consume: (PCMChunk) -> Void) {
        guard let limit = statedFrames else { return consume(chunk) }
        let kept = Int(max(0, min(Int64(chunk.frames), limit - framesDelivered)))
        framesDelivered += Int64(chunk.frames)
        guard kept > 0 else { return }
        consume(kept == chunk.frames ? chunk
                : PCMChunk(samples: UnsafeBufferPointer(rebasing: chunk.samples[0..<(kept * chunk.channels)]), channels: chunk.channels))
    }

    /// Whether FFmpeg read the stream's length from an edit list (MP4, M4A, MOV): its demuxer trims the priming
    /// by it, and the stated end is exact.
    private static func appliesEditLists(_ format: UnsafeMutablePointer<AVFormatContext>) -> Bool {
        guard let name = format.pointee.iformat?.pointee.name else { return false }
        return String(cString: name).split(separator: ",").contains { $0 == "mp4" || $0 == "mov" }
    }

    /// FFmpeg's text for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
