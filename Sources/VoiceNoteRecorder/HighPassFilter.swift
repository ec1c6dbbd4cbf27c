#if canImport(Glibc)
import Glibc
#endif

/// A second-order Butterworth high-pass (the biquad of R. Bristow-Johnson's audio EQ cookbook) on one channel of
/// 16-bit samples: voice cleanup's rumble filter (desk knocks, a fan's hum, wind, handling noise under the voice).
/// speexdsp, which does the rest of the cleanup, has none, and this is the one piece written here: ten lines of
/// textbook arithmetic rather than a second signal-processing library.
struct HighPassFilter {
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    /// A filter cutting below `cutoff` Hz (−3 dB there, −12 dB per octave under it) at `sampleRate`.
    init(cutoff: Double, sampleRate: Int) {
        let omega = 2 * Double.pi * cutoff / Double(sampleRate)
        let quality = 0.5.squareRoot()  // 1/√2: Butterworth, flat above the cutoff
        let alpha = sin(omega) / (2 * quality)
        let a0 = 1 + alpha
        b0 = (1 + cos(omega)) / 2 / a0
        b1 = -(1 + cos(omega)) / a0
        b2 = b0
        a1 = -2 * cos(omega) / a0
        a2 = (1 - alpha) / a0
    }

    /// Filters `count` samples in place, `stride` apart (one channel of interleaved audio), rounding and clamping
    /// to 16 bits.
    mutating func process(_ samples: UnsafeMutablePointer<Int16>, count: Int, stride: Int) {
        for index in Swift.stride(from: 0, to: count * stride, by: stride) {
            let x = Double(samples[index])
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1; x1 = x
            y2 = y1; y1 = y
            samples[index] = Int16(max(-32768, min(32767, y.rounded())))
        }
    }
}
