import VoiceNoteCore
import VoiceNoteWaveform

/// Levelled playback's stage on the decoder thread (docs/loudness.md): the note's gain, then the `TruePeakLimiter`,
/// on decoded int16 PCM before the player's other stages. Frames leave in order, `lookaheadFrames` later than they
/// came (`finish` gives the rest), so the stages after it count source frames as before.
///
/// The gain is set before the first frame and stays for the note; a change (the host's offset or target) ramps over
/// 50 ms, so the level never jumps. Not thread-safe: the decoder thread owns it.
final class Leveler {
    let channels: Int
    private var limiter: TruePeakLimiter
    /// The gain applied now and the one a ramp goes to (amplitude ratios), with the ramp's step per frame.
    private var gain: Float
    private var targetGain: Float
    private var gainStep: Float = 0
    private let rampFrames: Int
    /// Output frames still to drop: the delay line's initial zeros.
    private var toDrop: Int
    private var floats: [Float] = []
    private var limited: [Float] = []
    private var samples: [Int16] = []

    /// Makes the stage for PCM at `sampleRate` with `channels`, at `gainDecibels` from the first frame.
    init(sampleRate: Int, channels: Int, gainDecibels: Double) {
        self.channels = channels
        limiter = TruePeakLimiter(sampleRate: sampleRate, channels: channels, ceilingDecibels: Leveling.limiterCeiling)
        gain = Float(Leveling.amplitude(ofDecibels: gainDecibels))
        targetGain = gain
        rampFrames = max(1, sampleRate / 20)
        toDrop = limiter.lookaheadFrames
    }

    /// Moves the gain to `decibels` over 50 ms from the next frame.
    func setGain(decibels: Double) {
        let target = Float(Leveling.amplitude(ofDecibels: decibels))
        guard target != targetGain else { return }
        targetGain = target
        gainStep = (target - gain) / Float(rampFrames)
    }

    /// Takes decoded frames; `emit` receives the levelled frames ready (fewer at first: the look-ahead fills).
    func process(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        let frames = input.count / channels
        guard frames > 0 else { return }
        let count = frames * channels
        if floats.count < count {
            floats = [Float](repeating: 0, count: count)
            limited = floats
            samples = [Int16](repeating: 0, count: count)
        }
        floats.withUnsafeMutableBufferPointer { out in
            var index = 0
            for _ in 0..<frames {
                if gain != targetGain {
                    gain += gainStep
                    if (gainStep > 0 && gain > targetGain) || (gainStep < 0 && gain < targetGain) { gain = targetGain }
                }
                for _ in 0..<channels {
                    out[index] = Float(input[index]) * gain
                    index += 1
                }
            }
        }
        try limitAndEmit(frames: frames, emit)
    }

    /// Gives the frames the look-ahead still holds (the end of the note), then starts afresh.
    func finish(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        let frames = limiter.lookaheadFrames
        let count = frames * channels
        if limited.count < count {
            floats = [Float](repeating: 0, count: count)
            limited = floats
            samples = [Int16](repeating: 0, count: count)
        }
        // The delay line leaves its initial zeros first (`toDrop` of them when the note was shorter than it), then
        // the frames taken in that have not left.
        let held = frames - toDrop
        limited.withUnsafeMutableBufferPointer { out in limiter.flush(into: out.baseAddress!) }
        try convertAndEmit(from: toDrop, frames: held, emit)
        reset()
    }

    /// Forgets what is held (a seek); the gain stays.
    func reset() {
        limiter.reset()
        toDrop = limiter.lookaheadFrames
        gain = targetGain
    }

    private func limitAndEmit(frames: Int, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        floats.withUnsafeBufferPointer { input in
            limited.withUnsafeMutableBufferPointer { out in
                limiter.process(input.baseAddress!, frames: frames, into: out.baseAddress!)
            }
        }
        let dropped = min(toDrop, frames)
        toDrop -= dropped
        try convertAndEmit(from: dropped, frames: frames - dropped, emit)
    }

    /// Rounds `frames` limited frames from frame `first` to int16 and emits them.
    private func convertAndEmit(from first: Int, frames: Int, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard frames > 0 else { return }
        let start = first * channels, count = frames * channels
        limited.withUnsafeBufferPointer { source in
            samples.withUnsafeMutableBufferPointer { target in
                for index in 0..<count {
                    target[index] = Int16(min(max(source[start + index].rounded(), -32768), 32767))
                }
            }
        }
        try samples.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in
            try emit(UnsafeBufferPointer(rebasing: all[0..<count]))
        }
    }
}
