import VoiceNoteCore
import VoiceNoteWaveform

/// Levelled playback's stage on the decoder thread (docs/loudness.md): the note's gain, then the `TruePeakLimiter`,
/// on decoded int16 PCM before the player's other stages. Frames leave in order, `TruePeakLimiter.latencyFrames`
/// later than they came (`finish` gives the rest), so the stages after it count source frames as before.
///
/// The gain is set before the first frame and stays for the note; a change (the host's offset or target) ramps over
/// 50 ms, so the level never jumps. Not thread-safe: the decoder thread owns it.
final class Leveler {
    let channels: Int
    private let limiter: TruePeakLimiter
    /// The gain applied now and the one a ramp goes to (amplitude ratios), with the ramp's step per frame.
    private var gain: Float
    private var targetGain: Float
    private var gainStep: Float = 0
    private let rampFrames: Int
    /// Frames taken in and given out since the start (or the last seek); the limiter's first `latencyFrames` out
    /// are its delay's silence, dropped.
    private var framesIn = 0
    private var framesOut = 0
    private var dropped = 0
    private var floats: [Float] = []
    /// The levelled frames of one call, emitted together.
    private var samples: [Int16] = []

    /// Makes the stage for PCM at `sampleRate` with `channels`, at `gainDecibels` from the first frame.
    init(sampleRate: Int, channels: Int, gainDecibels: Double) {
        self.channels = channels
        limiter = TruePeakLimiter(sampleRate: sampleRate, channels: channels, ceilingDecibels: Leveling.limiterCeiling)
        gain = Float(Leveling.amplitude(ofDecibels: gainDecibels))
        targetGain = gain
        rampFrames = max(1, sampleRate / 20)
    }

    /// Moves the gain to `decibels` over 50 ms from the next frame.
    func setGain(decibels: Double) {
        let target = Float(Leveling.amplitude(ofDecibels: decibels))
        guard target != targetGain else { return }
        targetGain = target
        gainStep = (target - gain) / Float(rampFrames)
    }

    /// Takes decoded frames; `emit` receives the levelled frames ready (none at first: the look-ahead fills).
    func process(_ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        let frames = input.count / channels
        guard frames > 0, let source = input.baseAddress else { return }
        let count = frames * channels
        if floats.count < count { floats = [Float](repeating: 0, count: count) }
        floats.withUnsafeMutableBufferPointer { out in
            let target = out.baseAddress!
            var index = 0
            while gain != targetGain && index < count {
                gain += gainStep
                if (gainStep > 0 && gain > targetGain) || (gainStep < 0 && gain < targetGain) { gain = targetGain }
                for _ in 0..<channels {
                    target[index] = Float(source[index]) * gain
                    index += 1
                }
            }
            let steady = gain
            for position in index..<count { target[position] = Float(source[position]) * steady }
        }
        framesIn += frames
        samples.removeAll(keepingCapacity: true)
        floats.withUnsafeBufferPointer { all in
            limiter.process(all.baseAddress!, frames: frames) { block, blockFrames in keep(block, blockFrames) }
        }
        try emitKept(emit)
    }

    /// Gives the frames the look-ahead still holds (the end of the note), then starts afresh.
    func finish(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        samples.removeAll(keepingCapacity: true)
        limiter.flush { block, blockFrames in keep(block, blockFrames) }
        reset()
        try emitKept(emit)
    }

    /// Forgets what is held (a seek); the gain stays.
    func reset() {
        limiter.reset()
        framesIn = 0
        framesOut = 0
        dropped = 0
        gain = targetGain
    }

    /// One block out of the limiter, kept: the delay's silence dropped, the padding past the last frame in dropped,
    /// the rest rounded to int16.
    private func keep(_ block: UnsafePointer<Float>, _ frames: Int) {
        var first = 0
        if dropped < limiter.latencyFrames {
            first = min(frames, limiter.latencyFrames - dropped)
            dropped += first
        }
        let wanted = min(frames - first, framesIn - framesOut)
        guard wanted > 0 else { return }
        let start = first * channels, count = wanted * channels
        let offset = samples.count
        samples.append(contentsOf: repeatElement(0, count: count))
        samples.withUnsafeMutableBufferPointer { all in
            let target = all.baseAddress! + offset, source = block + start
            for index in 0..<count {
                // Rounded half away from zero by hand: Float.rounded calls libm for every sample.
                let value = min(max(source[index], -32768), 32767)
                target[index] = Int16(value + (value < 0 ? -0.5 : 0.5))
            }
        }
        framesOut += wanted
    }

    /// Emits what `keep` gathered during one call.
    private func emitKept(_ emit: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        guard !samples.isEmpty else { return }
        try samples.withUnsafeBufferPointer { (all) throws(VoiceNoteError) in try emit(all) }
    }
}
