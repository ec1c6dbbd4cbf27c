import Glibc

/// A look-ahead limiter that keeps the true peak (the level between samples too) under a ceiling: the last stage of
/// levelled playback (docs/loudness.md), after the note's gain.
///
/// Each frame's peak is estimated 4× oversampled (an 8-tap windowed-sinc interpolator at ¼, ½ and ¾ of a sample);
/// the gain a frame needs (ceiling / peak, at most 1) is held as the minimum over the next `lookaheadFrames` frames,
/// released slowly (an exponential return towards 1, 80 ms), and averaged over the look-ahead window, so the gain
/// reaches each peak's value smoothly before the peak plays and no frame leaves above the ceiling. Output is delayed by
/// `lookaheadFrames`; `flush` gives the held frames at the end.
///
/// Idle stretches cost almost nothing: while no gain is being applied, a piece whose samples are all far enough
/// below the ceiling that no interpolation can reach it skips the estimate.
/// Not thread-safe: the decoder thread owns it.
struct TruePeakLimiter {
    /// Frames between a frame entering and leaving (the look-ahead): 5 ms.
    let lookaheadFrames: Int
    let channels: Int
    /// The ceiling as an amplitude (full scale 32768).
    let ceiling: Float
    /// Per frame, how far the release moves the gain back towards 1.
    private let releaseCoefficient: Float
    /// Interpolation taps for the phases ¼, ½ and ¾ between samples 3 and 4 of 8 (`taps[phase * 8 + k]`).
    private let taps: [Float]
    /// The largest gain the interpolator gives any input (the sum of a phase's absolute taps): a piece whose samples
    /// stay under ceiling / bound cannot peak over the ceiling between them.
    private let bound: Float

    /// The last 8 frames in, per channel, newest last (`history[channel * 8 + k]`).
    private var history: [Float]
    /// The delay line: `lookaheadFrames` frames, interleaved, as a ring.
    private var delay: [Float]
    private var delayIndex = 0
    /// The gains needed over the window (a ring of `lookaheadFrames + 1`), the window's minimum as a deque of
    /// increasing values (ring positions), the released envelope, and the ring of envelope values with their sum.
    private var needed: [Float]
    private var minimumQueue: [Int]
    private var queueHead = 0
    private var queueCount = 0
    private var envelope: Float = 1
    private var envelopes: [Float]
    private var envelopeSum: Double
    private var position = 0

    /// Makes a limiter.
    /// - Parameters:
    ///   - sampleRate: frames per second (sets the 5 ms look-ahead and the 80 ms release).
    ///   - channels: interleaved channels.
    ///   - ceilingDecibels: the highest true peak let out, dBFS (≤ 0).
    init(sampleRate: Int, channels: Int, ceilingDecibels: Double) {
        self.channels = channels
        lookaheadFrames = max(8, sampleRate / 200)
        ceiling = Float(32768 * Leveling.amplitude(ofDecibels: ceilingDecibels))
        releaseCoefficient = Float(1 / (0.080 * Double(sampleRate)))
        var taps = [Float](repeating: 0, count: 24)
        var bound: Float = 1
        for phase in 1...3 {
            var sum: Float = 0
            for k in 0..<8 {
                // Distance from tap k (sample positions 0…7) to the point 3 + phase/4.
                let distance = Double(k) - (3 + Double(phase) / 4)
                let sinc = sin(Double.pi * distance) / (Double.pi * distance)
                let window = 0.5 + 0.5 * cos(Double.pi * distance / 4.5)  // Hann over ±4.5 samples
                taps[(phase - 1) * 8 + k] = Float(sinc * window)
                sum += abs(Float(sinc * window))
            }
            bound = max(bound, sum)
        }
        self.taps = taps
        self.bound = bound
        history = [Float](repeating: 0, count: channels * 8)
        delay = [Float](repeating: 0, count: lookaheadFrames * channels)
        needed = [Float](repeating: 1, count: lookaheadFrames + 1)
        minimumQueue = [Int](repeating: 0, count: lookaheadFrames + 1)
        envelopes = [Float](repeating: 1, count: lookaheadFrames + 1)
        envelopeSum = Double(lookaheadFrames + 1)
    }

    /// Whether no gain is being applied, nor will be within the look-ahead.
    private var isIdle: Bool {
        envelope == 1 && envelopeSum == Double(lookaheadFrames + 1) && (queueCount == 0 || needed[minimumQueue[queueHead]] == 1)
    }

    /// Takes `frames` interleaved frames (full scale 32768, gain applied) and writes as many frames out, delayed by
    /// the look-ahead (zeros until it is full: the caller drops `lookaheadFrames` frames of output at the start).
    mutating func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) {
        var largest: Float = 0
        for index in 0..<(frames * channels) { largest = max(largest, abs(input[index])) }
        let quiet = isIdle && largest * bound < ceiling
        for frame in 0..<frames {
            let base = frame * channels
            var peak: Float = 0
            for channel in 0..<channels {
                let sample = input[base + channel]
                let row = channel * 8
                for k in 0..<7 { history[row + k] = history[row + k + 1] }
                history[row + 7] = sample
                if !quiet {
                    peak = max(peak, abs(sample))
                    for phase in 0..<3 {
                        var value: Float = 0
                        for k in 0..<8 { value += history[row + k] * taps[phase * 8 + k] }
                        peak = max(peak, abs(value))
                    }
                }
            }
            let gain = quiet ? 1 : step(need: peak > ceiling ? ceiling / peak : 1)
            if quiet { stepQuiet() }
            for channel in 0..<channels {
                let slot = delayIndex * channels + channel
                output[base + channel] = delay[slot] * gain
                delay[slot] = input[base + channel]
            }
            delayIndex = delayIndex + 1 == lookaheadFrames ? 0 : delayIndex + 1
        }
    }

    /// Advances the gain computation by one frame that needs `need`; the gain for the frame leaving the delay.
    private mutating func step(need: Float) -> Float {
        let size = lookaheadFrames + 1
        let slot = position % size
        // The window's minimum: drop what left the window, then what the new value makes irrelevant.
        if queueCount > 0 && minimumQueue[queueHead] == slot {
            queueHead = (queueHead + 1) % size
            queueCount -= 1
        }
        needed[slot] = need
        while queueCount > 0 && needed[minimumQueue[(queueHead + queueCount - 1) % size]] >= need { queueCount -= 1 }
        minimumQueue[(queueHead + queueCount) % size] = slot
        queueCount += 1
        let minimum = needed[minimumQueue[queueHead]]
        envelope = minimum < envelope ? minimum : min(minimum, envelope + (1 - envelope) * releaseCoefficient)
        envelopeSum += Double(envelope) - Double(envelopes[slot])
        envelopes[slot] = envelope
        position += 1
        return Float(envelopeSum / Double(size))
    }

    /// `step(need: 1)` for an idle limiter: everything stays at 1.
    private mutating func stepQuiet() {
        let size = lookaheadFrames + 1
        let slot = position % size
        needed[slot] = 1
        minimumQueue[0] = slot
        queueHead = 0
        queueCount = 1
        position += 1
    }

    /// Writes the `lookaheadFrames` frames still held (the end of the note) into `output`, then starts empty.
    mutating func flush(into output: UnsafeMutablePointer<Float>) {
        let zeros = [Float](repeating: 0, count: lookaheadFrames * channels)
        zeros.withUnsafeBufferPointer { process($0.baseAddress!, frames: lookaheadFrames, into: output) }
        reset()
    }

    /// Forgets everything held (a seek).
    mutating func reset() {
        for index in history.indices { history[index] = 0 }
        for index in delay.indices { delay[index] = 0 }
        for index in needed.indices { needed[index] = 1 }
        for index in envelopes.indices { envelopes[index] = 1 }
        envelopeSum = Double(lookaheadFrames + 1)
        envelope = 1
        queueHead = 0
        queueCount = 0
        delayIndex = 0
        position = 0
    }
}
