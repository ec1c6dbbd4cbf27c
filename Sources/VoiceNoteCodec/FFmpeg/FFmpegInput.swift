#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg
import VoiceNoteCore
import VoiceNoteSources

/// A container opened by libavformat over a `ByteSource` (a custom AVIOContext reading through a `SourceBox`),
/// with limits that keep what a hostile file makes FFmpeg hold bounded:
/// - `probesize`: `avformat_find_stream_info` keeps every packet it reads until the stream is understood; a file
///   of 7-byte ADTS frames that never decode kept 5 MB of them, 750,000 packets and 420 MB of memory. Voice-note
///   formats are understood from their headers and first packet, far below the limit.
/// - `max_index_size`: the seek index built while reading (one entry per packet for raw streams) is capped;
///   voicenote never seeks through FFmpeg.
/// - `VoiceMessageFormats`: the container is probed from the content and opened only when it is one voice
///   messages come in; the demuxer can open nothing beyond our AVIO, and only voice codecs are decoded.
/// - `WAVEExtent`: a WAV file is shown to its data chunk's end and a little more, so a huge tail is never walked.
final class FFmpegInput {
    /// The container; valid while this object lives.
    let format: UnsafeMutablePointer<AVFormatContext>
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var opened: UnsafeMutablePointer<AVFormatContext>?

    /// Bytes `avformat_find_stream_info` may read: 32 KiB of 7-byte packets keep about 2 MB.
    static let probeBytes: Int64 = 32 * 1024
    /// Bytes of seek index entries kept per stream.
    static let indexBytes: UInt32 = 64 * 1024
    private static let ioBufferSize = 32 * 1024

    /// Opens the container of `box`'s source from its current position, and reads its stream information
    /// unless `findStreamInfo` is false; `.format` when FFmpeg does not recognise it, `.unsupported` when it is a
    /// container voice messages do not come in, the source's own error when reading failed.
    init(box: Unmanaged<SourceBox>, name: String, findStreamInfo: Bool = true) throws(VoiceNoteError) {
        guard let buffer = av_malloc(Self.ioBufferSize) else { throw VoiceNoteError(.noMemory, "av_malloc failed") }
        io = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(Self.ioBufferSize), 0, box.toOpaque(), { opaque, buffer, size in
            guard let opaque, let buffer else { return FFmpegDecoder.errorEOF }
            let count = SourceBox.from(opaque).read(buffer, Int(size))
            return count > 0 ? Int32(count) : count == 0 ? FFmpegDecoder.errorEOF : -EIO
        }, nil, { opaque, offset, whence in
            guard let opaque else { return -1 }
            let box = SourceBox.from(opaque)
            if whence & AVSEEK_SIZE != 0 { return box.size ?? -1 }
            return box.seek(offset, whence: whence & ~AVSEEK_FORCE)
        })
        guard io != nil else {
            av_free(buffer)
            throw VoiceNoteError(.noMemory, "avio_alloc_context failed")
        }
        guard let context = avformat_alloc_context() else {
            Self.free(&io)
            throw VoiceNoteError(.noMemory, "avformat_alloc_context failed")
        }
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        context.pointee.probesize = Self.probeBytes
        context.pointee.max_index_size = Self.indexBytes
        context.pointee.format_whitelist = VoiceMessageFormats.containerWhitelist()
        context.pointee.codec_whitelist = VoiceMessageFormats.codecWhitelist()
        context.pointee.io_open = VoiceMessageFormats.refuseNestedOpen
        opened = context
        var container: UnsafePointer<AVInputFormat>?
        let probed = av_probe_input_buffer2(io, &container, "", nil, 0, 0)  // scores bytes; opens nothing
        guard probed >= 0, let container, VoiceMessageFormats.allows(container) else {
            avformat_free_context(context)
            opened = nil
            Self.free(&io)
            if let failure = box.takeUnretainedValue().takeFailure() { throw failure }
            guard probed >= 0, let container else {
                throw VoiceNoteError(.format, "\(name): not a recognised audio file (\(FFmpegDecoder.describe(probed)))")
            }
            // A weak guess (random bytes look a little like lyrics or subtitles) is no recognised file at all.
            guard probed > VoiceMessageFormats.confidentScore else {
                throw VoiceNoteError(.format, "\(name): not a recognised audio file")
            }
            throw VoiceNoteError(.unsupported, "\(name): \(VoiceMessageFormats.describe(container)) is not a voice message format")
        }
        switch String(cString: container.pointee.name) {
        case "wav":
            let box = box.takeUnretainedValue()
            box.end = (try? WAVEExtent.end(of: box.source)) ?? nil  // a read failing here fails FFmpeg's read too
        case "mp3":
            let box = box.takeUnretainedValue()
            box.end = (try? Self.mp3AudioEnd(of: box.source)) ?? nil
        default: break
        }
        let result = avformat_open_input(&opened, nil, container, nil)
        guard result >= 0, let opened else {
            Self.free(&io)  // FFmpeg freed the context
            throw box.takeUnretainedValue().takeFailure()
                ?? VoiceNoteError(.format, "\(name): not a recognised audio file (\(FFmpegDecoder.describe(result)))")
        }
        format = opened
        if findStreamInfo {
            let found = avformat_find_stream_info(opened, nil)
            guard found >= 0 else {
                throw box.takeUnretainedValue().takeFailure()
                    ?? VoiceNoteError(.format, "\(name): cannot read stream information (\(FFmpegDecoder.describe(found)))")
            }
        }
    }

    /// Where an MP3's audio ends: before the tags after it (APEv2, ID3v1, Lyrics3, `TrailingTags`), which FFmpeg's
    /// demuxer would otherwise read as one more packet — counted in the length, though the decoder outputs nothing
    /// from it. Nil (the whole source shown) while the source is still arriving, or of unknown size: the tags are at
    /// its end. Reads the head and the end and puts `source` back where it was.
    private static func mp3AudioEnd(of source: ByteSource) throws(VoiceNoteError) -> Int64? {
        if let arriving = source as? any ArrivingSource, !arriving.isComplete { return nil }
        guard let size = source.size else { return nil }
        let resume = source.position
        defer { try? source.seek(to: resume) }
        try source.seek(to: 0)
        let head = try source.readPrefix(count: 10)
        let end = try TrailingTags.start(of: source, size: size, audioStart: TrailingTags.id3v2Size(head[...]))
        return end < size ? end : nil
    }

    deinit {
        avformat_close_input(&opened)
        Self.free(&io)
    }

    /// Reads every remaining packet of stream `index` (no decoding) and returns what the decoder will output from
    /// them, in the stream's time base: their durations less the samples their side data tells the decoder to drop
    /// (an MP3's encoder delay and padding, an MP4 edit list's start; FFmpeg already shortens the packet an edit list
    /// ends in), dropped as libavcodec drops them (`SkipAndDiscard`), at `sampleRate` unless the stream states its
    /// own. With `frameSize`, each packet counts as that many samples instead of its duration: an MP4 demuxer
    /// stretches or shortens the last packet's duration to the edit list's end, while the decoder outputs a whole
    /// frame from it. Each packet is also counted in `honesty` (its duration at `decoderRate`), and reading stops
    /// where the packets claim more than their bytes can hold. Nil when a packet has no duration (then the sum would
    /// be a guess), reading failed or `honesty` has an excess.
    func decodedDuration(ofStream index: Int32, sampleRate decoderRate: Int32, frameSize: Int32? = nil,
                         honesty: inout HonestLength) -> Int64? {
        guard let stream = format.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar,
              let packet = av_packet_alloc() else { return nil }
        var packetRef: UnsafeMutablePointer<AVPacket>? = packet
        defer { av_packet_free(&packetRef) }
        let sampleRate = parameters.pointee.sample_rate > 0 ? parameters.pointee.sample_rate : decoderRate
        let timeBase = stream.pointee.time_base
        let frameDuration = frameSize.map { av_rescale_q(Int64($0), AVRational(num: 1, den: sampleRate), timeBase) }
        var dropping = SkipAndDiscard()
        var total: Int64 = 0
        while av_read_frame(format, packet) >= 0 {
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == index else { continue }
            let duration = frameDuration ?? packet.pointee.duration
            guard duration > 0 else { return nil }
            let samples = av_rescale_q(duration, timeBase, AVRational(num: 1, den: decoderRate))
            honesty.add(bytes: Int(packet.pointee.size), samples: samples)
            guard honesty.excess == nil else { return nil }
            let kept: Int64
            if let (skip, discard) = Self.samplesToDrop(packet) {
                guard sampleRate > 0 else { return nil }
                let samples = AVRational(num: 1, den: sampleRate)
                kept = dropping.output(of: duration, skip: av_rescale_q(skip, samples, timeBase),
                                       discard: av_rescale_q(discard, samples, timeBase))
            } else {
                kept = dropping.output(of: duration)
            }
            let (sum, overflow) = total.addingReportingOverflow(kept)
            guard !overflow else { return nil }
            total = sum
        }
        return total
    }

    /// What libavcodec's decoder keeps of each packet's output (decode.c, `discard_samples`): a packet's
    /// AV_PKT_DATA_SKIP_SAMPLES side data sets the samples still to skip (it replaces what was left, it does not add)
    /// and the padding to discard from that packet's end; the skip runs on across packets, whole frames first; the
    /// padding is dropped only when it fits in what the skip left of the frame. Summing the side data instead counts
    /// a sample twice where a skip and a padding overlap (an MP3 whose LAME tag states fewer frames than it has), and
    /// refused notes FFmpeg plays.
    struct SkipAndDiscard {
        private var skipping: Int64 = 0

        /// What the decoder outputs from a packet of `duration`, with its side data's `skip` and `discard`, or
        /// without side data (nil: the skip left by an earlier packet runs on).
        mutating func output(of duration: Int64, skip: Int64? = nil, discard: Int64 = 0) -> Int64 {
            if let skip { skipping = max(0, skip) }
            guard skipping < duration else {
                skipping -= duration
                return 0
            }
            let left = duration - skipping
            skipping = 0
            return discard > 0 && discard <= left ? left - discard : left
        }
    }

    /// The samples a packet's AV_PKT_DATA_SKIP_SAMPLES side data tells the decoder to skip at its start and to
    /// discard at its end (little-endian 32-bit counts); nil when it has none.
    private static func samplesToDrop(_ packet: UnsafeMutablePointer<AVPacket>) -> (skip: Int64, discard: Int64)? {
        guard let sideData = packet.pointee.side_data else { return nil }
        for element in UnsafeBufferPointer(start: sideData, count: Int(max(0, packet.pointee.side_data_elems)))
        where element.type == AV_PKT_DATA_SKIP_SAMPLES && element.size >= 10 {
            guard let data = element.data else { continue }
            let word = { (offset: Int) in (0..<4).reduce(Int64(0)) { $0 | Int64(data[offset + $1]) << (8 * $1) } }
            return (Int64(Int32(truncatingIfNeeded: word(0))), word(4))
        }
        return nil
    }

    /// Frees an AVIOContext and its buffer.
    private static func free(_ io: inout UnsafeMutablePointer<AVIOContext>?) {
        guard let context = io else { return }
        av_free(context.pointee.buffer)
        avio_context_free(&io)
    }
}
