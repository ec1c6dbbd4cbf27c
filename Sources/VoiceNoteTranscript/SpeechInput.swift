import VoiceNoteCodec
import VoiceNoteCore

/// A decoder's PCM as a recogniser hears it: channels averaged to mono, then brought to the recogniser's rate by
/// libswresample with its defaults (`FFmpegRateConverter`), as `ffmpeg -ar` would, only when the rates differ (Opus
/// decodes at 16 kHz for analysis, PocketSphinx's rate: no conversion). Not thread-safe.
final class SpeechInput {
    let inputRate: Int, channels: Int, outputRate: Int
    private let converter: FFmpegRateConverter?
    private var mono: [Int16] = []

    /// `.invalidArgument` for rates outside 1000…384000 Hz or channels outside 1…255; `.unsupported` when the
    /// rates differ and FFmpeg cannot be loaded.
    init(inputRate: Int, channels: Int, outputRate: Int) throws(VoiceNoteError) {
        guard (1000...384_000).contains(inputRate), (1000...384_000).contains(outputRate), (1...255).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "a recogniser takes 1000…384000 Hz and 1…255 channels, not \(inputRate) Hz × \(channels) → \(outputRate) Hz")
        }
        self.inputRate = inputRate
        self.channels = channels
        self.outputRate = outputRate
        converter = inputRate == outputRate ? nil : try FFmpegRateConverter(inputRate: inputRate, outputRate: outputRate)
    }

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

    /// Hands on what the converter still holds, at the note's end.
    func finish(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        try converter?.finish(emit)
    }

    private func resample(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard let converter else { return try emit(input) }
        try converter.convert(input, emit)
    }
}
