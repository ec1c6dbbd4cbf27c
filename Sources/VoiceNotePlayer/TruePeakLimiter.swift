import Glibc

/// A look-ahead limiter that keeps the true peak (the level between samples too) under a ceiling: the last stage of
/// levelled playback (docs/loudness.md), after the note's gain.
///
/// It works in blocks of `blockFrames` (64) frames. Each block's peak is its largest sample, and, when the block can
/// reach the ceiling at all (its samples and the 7 before it, times the interpolator's largest gain, at or over the
/// ceiling), the peaks between its samples, 4× oversampled by an 8-tap windowed-sinc interpolator (its output lags
/// its input by 3.5 frames, so a block's peaks may sit in its neighbours). A block needs the gain ceiling / peak (at
/// most 1). The envelope follows the least need of the `lookaheadBlocks + 4` blocks taken in last, dropping at once
/// and released slowly (80 ms); the gain at the end of the block leaving, `lookaheadBlocks + 2` blocks back, is the
/// envelope averaged over its last `lookaheadBlocks + 1` values — by construction at most the needs of that block
/// and the blocks either side of it, so it is down before a peak plays — and within a block the gain moves linearly
/// between its two ends. No frame leaves above the ceiling.
///
/// Output is delayed by `latencyFrames`; `flush` gives what is held at the end. Per frame the cost is a multiply
/// when the gain moves and nothing when it is 1; the interpolator runs only in blocks near the ceiling.
/// Not thread-safe: the decoder thread owns it.
final class TruePeakLimiter {
    /// Frames per block.
    static let blockFrames = 64
    /// Frames of history the interpolator needs before a block's first frame.
    static let historyFrames = 7

    let channels: Int
    /// Blocks of look-ahead (5 ms, at least one).
    let lookaheadBlocks: Int
    /// Frames between a frame entering and leaving.
    let latencyFrames: Int
    /// The ceiling as an amplitude (full scale 32768).
    let ceiling: Float
    /// Per block, how far the release moves the gain back towards 1.
    private let releaseCoefficient: Float
    /// Interpolation taps for the phases ¼, ½ and ¾ between samples 3 and 4 of 8 (`taps[phase * 8 + k]`).
    private let taps: UnsafeMutablePointer<Float>
    /// The largest gain the interpolator gives any input: a window whose samples stay under ceiling / bound cannot
    /// peak over the ceiling between them.
    private let bound: Float

    /// The block being filled, after the history frames before it (interleaved), and how many frames it holds.
    private let work: UnsafeMutablePointer<Float>
    private var filled = 0
    /// The last `lookaheadBlocks + 3` blocks in (a ring), the last `lookaheadBlocks + 4` blocks' needs (a ring),
    /// and the released envelope's last `lookaheadBlocks + 1` values (a ring).
    private let delay: UnsafeMutablePointer<Float>
    private var needs: [Float]
    private var envelopes: [Float]
    private var envelope: Float = 1
    /// Blocks taken in, and the gain of the boundary that starts the next block out.
    private var blocks = 0
    private var startGain: Float = 1
    private let out: UnsafeMutablePointer<Float>

    /// Makes a limiter.
    /// - Parameters:
    ///   - sampleRate: frames per second (sets the 5 ms look-ahead and the 80 ms release).
    ///   - channels: interleaved channels.
    ///   - ceilingDecibels: the highest true peak let out, dBFS (≤ 0).
    init(sampleRate: Int, channels: Int, ceilingDecibels: Double) {
        self.channels = channels
        let block = Self.blockFrames
        lookaheadBlocks = max(1, (sampleRate / 200 + block - 1) / block)
        latencyFrames = (lookaheadBlocks + 2) * block
        ceiling = Float(32768 * Leveling.amplitude(ofDecibels: ceilingDecibels))
        releaseCoefficient = min(1, Float(Double(block) / (0.080 * Double(sampleRate))))
        taps = .allocate(capacity: 24)
        var bound: Float = 1
        for phase in 1...3 {
            var sum: Float = 0
            for k in 0..<8 {
                // Distance from tap k (sample positions 0…7) to the point 3 + phase/4.
                let distance = Double(k) - (3 + Double(phase) / 4)
                let sinc: Double = sin(Double.pi * distance) / (Double.pi * distance)
                let window: Double = 0.5 + 0.5 * cos(Double.pi * distance / 4.5)  // Hann over ±4.5 samples
                let value = sinc * window
                taps[(phase - 1) * 8 + k] = Float(value)
                sum += abs(Float(value))
            }
            bound = max(bound, sum)
        }
        self.bound = bound
        work = .allocate(capacity: (Self.historyFrames + block) * channels)
        delay = .allocate(capacity: (lookaheadBlocks + 3) * block * channels)
        out = .allocate(capacity: block * channels)
        needs = [Float](repeating: 1, count: lookaheadBlocks + 4)
        envelopes = [Float](repeating: 1, count: lookaheadBlocks + 1)
        reset()
    }

    deinit {
        taps.deallocate()
        work.deallocate()
        delay.deallocate()
        out.deallocate()
    }

    /// Takes `frames` interleaved frames (full scale 32768, the gain applied); `emit` receives each block leaving
    /// (`blockFrames` frames; the first `latencyFrames` are the delay's silence).
    func process(_ input: UnsafePointer<Float>, frames: Int, _ emit: (UnsafePointer<Float>, Int) -> Void) {
        let block = Self.blockFrames, history = Self.historyFrames * channels
        var taken = 0
        while taken < frames {
            let count = min(block - filled, frames - taken)
            (work + history + filled * channels).update(from: input + taken * channels, count: count * channels)
            filled += count
            taken += count
            if filled == block {
                step(emit)
                filled = 0
            }
        }
    }

    /// Completes the last block with silence and lets everything held leave (`latencyFrames` and more), then starts
    /// afresh.
    func flush(_ emit: (UnsafePointer<Float>, Int) -> Void) {
        let block = Self.blockFrames, history = Self.historyFrames * channels
        let pending = filled
        if pending > 0 {
            (work + history + pending * channels).update(repeating: 0, count: (block - pending) * channels)
            step(emit)
        }
        (work + history).update(repeating: 0, count: block * channels)
        for _ in 0..<(lookaheadBlocks + 2) { step(emit) }
        reset()
    }

    /// Forgets everything held (a seek).
    func reset() {
        let block = Self.blockFrames
        work.update(repeating: 0, count: (Self.historyFrames + block) * channels)
        delay.update(repeating: 0, count: (lookaheadBlocks + 3) * block * channels)
        for index in needs.indices { needs[index] = 1 }
        for index in envelopes.indices { envelopes[index] = 1 }
        envelope = 1
        startGain = 1
        blocks = 0
        filled = 0
    }

    /// One full block in `work`: its need, into the delay; the oldest block out, at its gains.
    private func step(_ emit: (UnsafePointer<Float>, Int) -> Void) {
        let block = Self.blockFrames, history = Self.historyFrames * channels, size = block * channels
        let ring = lookaheadBlocks + 3
        needs[blocks % needs.count] = need()
        // In: block t takes the slot of block t − ring (gone already); out: block t − (lookahead + 2), the next slot.
        (delay + (blocks % ring) * size).update(from: work + history, count: size)
        out.update(from: delay + ((blocks + 1) % ring) * size, count: size)
        // Keep the block's last frames as the next block's history.
        work.update(from: work + size, count: history)
        blocks += 1
        // The envelope: the least need taken in lately, at once down, slowly up; the gain at the end of the block
        // out: its average over the look-ahead.
        var least: Float = 1
        for need in needs { least = min(least, need) }
        envelope = least < envelope ? least : min(least, envelope + (1 - envelope) * releaseCoefficient)
        envelopes[blocks % envelopes.count] = envelope
        var sum: Float = 0
        for value in envelopes { sum += value }
        let endGain = min(1, sum / Float(envelopes.count))
        if startGain != 1 || endGain != 1 {
            let stepGain = (endGain - startGain) / Float(block)
            var index = 0
            for frame in 0..<block {
                let gain = startGain + stepGain * Float(frame + 1)
                for _ in 0..<channels {
                    out[index] *= min(gain, max(startGain, endGain))
                    index += 1
                }
            }
        }
        startGain = endGain
        emit(out, block)
    }

    /// The gain the block in `work` needs: 1 unless it can reach the ceiling; then ceiling / its peak, between
    /// samples included. The interpolator runs only on the quarters of the block whose frames and the 7 before
    /// them can reach the ceiling.
    private func need() -> Float {
        let history = Self.historyFrames, block = Self.blockFrames, quarter = block / 4
        let threshold = ceiling / bound
        var peak: Float = 0
        var start = history
        while start < history + block {
            var largest: Float = 0
            for index in ((start - history) * channels)..<((start + quarter) * channels) {
                largest = max(largest, abs(work[index]))
            }
            peak = max(peak, largest)
            if largest >= threshold { peak = max(peak, interpolatedPeak(from: start, frames: quarter)) }
            start += quarter
        }
        return peak > ceiling ? ceiling / peak : 1
    }

    /// The largest magnitude of the 4× interpolation between the samples of `frames` frames from `first` in `work`
    /// (each interpolated point uses the 8 frames ending at its frame).
    private func interpolatedPeak(from first: Int, frames: Int) -> Float {
        var peak: Float = 0
        for frame in first..<(first + frames) {
            for channel in 0..<channels {
                let window = work + (frame - 7) * channels + channel
                for phase in 0..<3 {
                    let row = taps + phase * 8
                    var value: Float = 0
                    for k in 0..<8 { value += window[k * channels] * row[k] }
                    peak = max(peak, abs(value))
                }
            }
        }
        return peak
    }
}
