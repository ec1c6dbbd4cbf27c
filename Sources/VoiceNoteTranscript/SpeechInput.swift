import CSpeexDSPLoader
import VoiceNoteCore

/// A decoder's PCM as a recogniser hears it: channels averaged to mono, then brought to the recogniser's rate by
/// speexdsp's resampler (quality 8: its passband reaches past the 8 kHz a 16 kHz recogniser hears, with the
/// aliasing of a 48 kHz note's highs kept out), which is loaded only when the rates differ. Not thread-safe.
final class SpeechInput {
    static let quality: Int32 = 8

    let inputRate: Int, channels: Int, outputRate: Int
    private var resampler: OpaquePointer?
    private var mono: [Int16] = []
    private var resampled: [Int16] = []
    private var skipped = false

    /// `.invalidArgument` for rates outside 1000…384000 Hz or channels outside 1…255; `.unsupported` when the
    /// rates differ and speexdsp cannot be loaded.
    init(inputRate: Int, channels: Int, outputRate: Int) throws(VoiceNoteError) {
        guard (1000...384_000).contains(inputRate), (1000...384_000).contains(outputRate), (1...255).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "a recogniser takes 1000…384000 Hz and 1…255 channels, not \(inputRate) Hz × \(channels) → \(outputRate) Hz")
        }
        self.inputRate = inputRate
        self.channels = channels
        self.outputRate = outputRate
        guard inputRate != outputRate else { return }
        var message: UnsafePointer<CChar>?
        guard vnshim_speexdsp_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, "transcribing a note at \(inputRate) Hz needs speexdsp's resampler (Debian: libspeexdsp1): "
                                 + (message.map { String(cString: $0) } ?? "it could not be loaded"))
        }
        var error: Int32 = 0
        guard let made = speex_resampler_init(1, UInt32(inputRate), UInt32(outputRate), Self.quality, &error) else {
            throw VoiceNoteError(.noMemory, "speexdsp could not make a resampler \(inputRate) → \(outputRate) Hz (error \(error))")
        }
        resampler = made
    }

    deinit { if let resampler { speex_resampler_destroy(resampler) } }

    /// Converts `samples` (interleaved, `channels` per frame) and hands on what is ready.
    func convert(_ samples: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        let frames = samples.count / channels
        guard frames > 0 else { return }
        if channels == 1 { return try resample(samples, emit) }
        if mono.count < frames { mono = [Int16](repeating: 0, count: frames) }
        mono.withUnsafeMutableBufferPointer { out in
            for frame in 0..<frames {
                var sum = 0
                for channel in 0..<channels { sum += Int(samples[frame * channels + channel]) }
                out[frame] = Int16(sum / channels)
            }
        }
        let mixed = mono
        try mixed.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try resample(UnsafeBufferPointer(rebasing: all[0..<frames]), emit) }
    }

    /// Hands on what the resampler still holds (its latency, pushed out with silence) at the note's end.
    func finish(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard let resampler else { return }
        let silence = [Int16](repeating: 0, count: Int(speex_resampler_get_input_latency(resampler)))
        try silence.withUnsafeBufferPointer { (zeros) throws(VoiceNoteError) in try resample(zeros, emit) }
    }

    private func resample(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard let resampler else { return try emit(input) }
        if !skipped {
            _ = speex_resampler_skip_zeros(resampler)  // the output starts with the input's first sample, not the filter's delay
            skipped = true
        }
        let capacity = input.count * outputRate / inputRate + 64
        if resampled.count < capacity { resampled = [Int16](repeating: 0, count: capacity) }
        var offset = 0
        while offset < input.count {
            var taken = UInt32(min(input.count - offset, 1 << 20))
            var made = UInt32(resampled.count)
            let base = input.baseAddress! + offset
            let status = resampled.withUnsafeMutableBufferPointer { speex_resampler_process_int(resampler, 0, base, &taken, $0.baseAddress, &made) }
            guard status == 0 else { throw VoiceNoteError(.internal, "speexdsp's resampler failed (\(status))") }
            offset += Int(taken)
            let out = resampled
            try out.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try emit(UnsafeBufferPointer(rebasing: all[0..<Int(made)])) }
            if taken == 0 && made == 0 { break }
        }
    }
}
