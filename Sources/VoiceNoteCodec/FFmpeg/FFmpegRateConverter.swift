import CFFmpeg
import VoiceNoteCore

/// Mono int16 from one rate to another through libswresample with its defaults — what `ffmpeg -ar` does — so a
/// transcript's recogniser hears what it hears from FFmpeg's own tools. FFmpeg is loaded here (a note that needs a
/// new rate came from FFmpeg's decoders anyway, or is Opus at another rate than its analysis decode's). Not
/// thread-safe: one thread owns it.
public final class FFmpegRateConverter {
    public let inputRate: Int, outputRate: Int
    private var resampler: OpaquePointer?
    private var output: [Int16] = []

    /// `.invalidArgument` for rates outside 1000…384000 Hz; `.unsupported` without FFmpeg; `.noMemory`.
    public init(inputRate: Int, outputRate: Int) throws(VoiceNoteError) {
        guard (1000...384_000).contains(inputRate), (1000...384_000).contains(outputRate) else {
            throw VoiceNoteError(.invalidArgument, "a rate conversion takes 1000…384000 Hz, not \(inputRate) → \(outputRate)")
        }
        try FFmpegLibraries.require()
        self.inputRate = inputRate
        self.outputRate = outputRate
        var monoOut = AVChannelLayout(), monoIn = AVChannelLayout()
        av_channel_layout_default(&monoOut, 1)
        av_channel_layout_default(&monoIn, 1)
        let made = swr_alloc_set_opts2(&resampler, &monoOut, AV_SAMPLE_FMT_S16, Int32(outputRate),
                                       &monoIn, AV_SAMPLE_FMT_S16, Int32(inputRate), 0, nil)
        guard made >= 0, swr_init(resampler) >= 0 else {
            if resampler != nil { swr_free(&resampler) }
            throw VoiceNoteError(.noMemory, "libswresample could not convert \(inputRate) → \(outputRate) Hz")
        }
    }

    deinit { swr_free(&resampler) }

    /// Converts `samples` and hands on what is ready.
    public func convert(_ samples: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard !samples.isEmpty else { return }
        var offset = 0
        while offset < samples.count {
            let count = min(samples.count - offset, 1 << 16)
            var plane: UnsafePointer<UInt8>? = UnsafeRawPointer(samples.baseAddress! + offset).assumingMemoryBound(to: UInt8.self)
            try withUnsafeMutablePointer(to: &plane) { (input) throws(VoiceNoteError) in
                try run(input: UnsafeMutablePointer(OpaquePointer(input)), count: Int32(count), emit)
            }
            offset += count
        }
    }

    /// Hands on what the resampler still holds, at the end of the input.
    public func finish(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        try run(input: nil, count: 0, emit)
    }

    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32,
                     _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        let capacity = Int(swr_get_out_samples(resampler, count))
        guard capacity > 0 else { return }
        if output.count < capacity { output = [Int16](repeating: 0, count: capacity) }
        let converted = output.withUnsafeMutableBytes { out -> Int32 in
            var plane: UnsafeMutablePointer<UInt8>? = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return swr_convert(resampler, &plane, Int32(capacity), input, count)
        }
        guard converted >= 0 else { throw VoiceNoteError(.internal, "libswresample failed (\(converted))") }
        let made = output
        try made.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try emit(UnsafeBufferPointer(rebasing: all[0..<Int(converted)])) }
    }
}
