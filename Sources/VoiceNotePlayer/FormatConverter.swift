import VoiceNoteCore

/// Converts the pipeline's output to what the device took when it would not take the note's own format: channels
/// by duplicating (more) or averaging (to mono) or dropping (fewer, not mono), then the rate through libsonic's
/// resampler. `NoteConverter` also brings a note below the stages' 8000 Hz up to it. Not thread-safe: one thread
/// (the player's decoder thread, the converter's caller) owns it.
final class FormatConverter {
    /// The lowest input rate taken: libsonic's shortest pitch period (400 Hz) is still 2 samples long there.
    static let lowestInputRate = 1000

    let inputRate: Int, inputChannels: Int, outputRate: Int, outputChannels: Int
    private var resampler: SonicStream?
    private var mixed: [Int16] = []
    private var resampled: [Int16] = []

    /// `.invalidArgument` for formats the stages do not take (input from `lowestInputRate`), `.noMemory` from
    /// libsonic.
    init(inputRate: Int, inputChannels: Int, outputRate: Int, outputChannels: Int) throws(VoiceNoteError) {
        try TimeStretcher.checkFormat(sampleRate: inputRate, channels: inputChannels, lowest: Self.lowestInputRate)
        try TimeStretcher.checkFormat(sampleRate: outputRate, channels: outputChannels)
        self.inputRate = inputRate
        self.inputChannels = inputChannels
        self.outputRate = outputRate
        self.outputChannels = outputChannels
        try makeResampler()
    }

    /// Whether output equals input.
    var isIdentity: Bool { inputRate == outputRate && inputChannels == outputChannels }

    /// Output frames for `frames` input frames, as far as known now (the resampler holds a few back).
    func convert(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) -> Void) throws(VoiceNoteError) {
        let frames = input.count / inputChannels
        guard frames > 0 else { return }
        guard inputChannels != outputChannels else { return try resample(input, emit) }
        if mixed.count < frames * outputChannels { mixed = [Int16](repeating: 0, count: frames * outputChannels) }
        mixed.withUnsafeMutableBufferPointer { out in
            for frame in 0..<frames {
                let from = frame * inputChannels, to = frame * outputChannels
                if outputChannels == 1 {
                    var sum = 0
                    for channel in 0..<inputChannels { sum += Int(input[from + channel]) }
                    out[to] = Int16(sum / inputChannels)
                } else {
                    for channel in 0..<outputChannels { out[to + channel] = input[from + channel % inputChannels] }
                }
            }
        }
        try mixed.withUnsafeBufferPointer { all throws(VoiceNoteError) in
            try resample(UnsafeBufferPointer(rebasing: all[0..<(frames * outputChannels)]), emit)
        }
    }

    /// Drops what the resampler holds (a restart).
    func reset() throws(VoiceNoteError) { try makeResampler() }

    /// Emits what the resampler holds, at the end of the input.
    func finish(_ emit: (UnsafeBufferPointer<Int16>) -> Void) throws(VoiceNoteError) {
        guard let resampler else { return }
        try resampler.flush()
        try resample(UnsafeBufferPointer(start: nil, count: 0), emit)
    }

    private func makeResampler() throws(VoiceNoteError) {
        guard inputRate != outputRate else { resampler = nil; return }
        let sonic = try SonicStream(sampleRate: inputRate, channels: outputChannels)
        sonic.setRate(Double(inputRate) / Double(outputRate))
        resampler = sonic
    }

    private func resample(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) -> Void) throws(VoiceNoteError) {
        guard let resampler else { return emit(input) }
        try resampler.write(input)
        let available = resampler.framesAvailable
        guard available > 0 else { return }
        if resampled.count < available * outputChannels { resampled = [Int16](repeating: 0, count: available * outputChannels) }
        let frames = resampled.withUnsafeMutableBufferPointer { resampler.read(into: $0) }
        resampled.withUnsafeBufferPointer { emit(UnsafeBufferPointer(rebasing: $0[0..<(frames * outputChannels)])) }
    }
}
