import CFFmpeg
import VoiceNoteCore

/// Decoded FFmpeg frames to interleaved int16 at the decoder's own rate and layout (libswresample), the form every
/// decoder hands on. Shared by the file decoder and the ADTS stream analyzer.
final class FFmpegSampleConverter {
    let channels: Int
    /// The input the resampler was set up for; frames that differ (damaged streams change layout mid-way) are
    /// dropped: handing them to libswresample would read planes that do not exist.
    private let inputFormat: Int32
    private let inputRate: Int32
    private var resampler: OpaquePointer?
    private var pcm: [Int16] = []

    /// A converter for what `codec` decodes; `.format` when libswresample cannot convert its sample format.
    init(codec: UnsafeMutablePointer<AVCodecContext>) throws(VoiceNoteError) {
        channels = Int(codec.pointee.ch_layout.nb_channels)
        inputFormat = codec.pointee.sample_fmt.rawValue
        inputRate = codec.pointee.sample_rate
        let result = swr_alloc_set_opts2(&resampler, &codec.pointee.ch_layout, AV_SAMPLE_FMT_S16, codec.pointee.sample_rate,
                                         &codec.pointee.ch_layout, codec.pointee.sample_fmt, codec.pointee.sample_rate, 0, nil)
        guard result >= 0, swr_init(resampler) >= 0 else {
            if resampler != nil { swr_free(&resampler) }
            throw VoiceNoteError(.format, "cannot convert \(String(cString: av_get_sample_fmt_name(codec.pointee.sample_fmt))) samples")
        }
    }

    deinit { swr_free(&resampler) }

    /// Converts one decoded frame and hands it on; false when it produced no samples.
    func convert(_ frame: UnsafeMutablePointer<AVFrame>, _ consume: (PCMChunk) -> Void) -> Bool {
        guard Int(frame.pointee.ch_layout.nb_channels) == channels, frame.pointee.format == inputFormat,
              frame.pointee.sample_rate == inputRate, frame.pointee.extended_data != nil else { return false }
        let input = frame.pointee.extended_data.map { UnsafeMutablePointer<UnsafePointer<UInt8>?>(OpaquePointer($0)) }
        return resample(input: input, frames: frame.pointee.nb_samples, consume)
    }

    /// Drains what the resampler still holds; false when nothing was left.
    func flush(_ consume: (PCMChunk) -> Void) -> Bool {
        resample(input: nil, frames: 0, consume)
    }

    private func resample(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, frames: Int32, _ consume: (PCMChunk) -> Void) -> Bool {
        let capacity = Int(swr_get_out_samples(resampler, frames))
        guard capacity > 0 else { return false }
        if pcm.count < capacity * channels { pcm = [Int16](repeating: 0, count: capacity * channels) }
        let converted = pcm.withUnsafeMutableBytes { out -> Int32 in
            var planes: UnsafeMutablePointer<UInt8>? = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(resampler, &planes, Int32(capacity), input, frames)
        }
        guard converted > 0 else { return false }
        pcm.withUnsafeBufferPointer { all in
            consume(PCMChunk(samples: UnsafeBufferPointer(rebasing: all[0..<(Int(converted) * channels)]), channels: channels))
        }
        return true
    }
}
