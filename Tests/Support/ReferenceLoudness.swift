import CEBUR128
import Glibc

/// libebur128's own measurement of PCM, every sample (true peak included), nothing skipped: the reference the
/// loudness and levelling tests hold the code under test against.
public enum ReferenceLoudness {
    /// Integrated loudness (LUFS; -infinity for silence), loudness range (LU) and true peak (dBTP; -infinity for
    /// digital silence) of interleaved `pcm` at `rate` with `channels`, libebur128's default channel map.
    public static func measure(_ pcm: [Int16], rate: Int, channels: Int)
        -> (integrated: Double, range: Double, truePeak: Double) {
        let mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue
        var state = ebur128_init(UInt32(channels), UInt(rate), Int32(bitPattern: mode))
        defer { ebur128_destroy(&state) }
        pcm.withUnsafeBufferPointer { _ = ebur128_add_frames_short(state, $0.baseAddress, $0.count / channels) }
        var integrated = 0.0, range = 0.0, peak = 0.0
        _ = ebur128_loudness_global(state, &integrated)
        _ = ebur128_loudness_range(state, &range)
        for channel in 0..<channels {
            var value = 0.0
            _ = ebur128_true_peak(state, UInt32(channel), &value)
            peak = max(peak, value)
        }
        return (integrated.isFinite ? integrated : -.infinity, range, peak > 0 ? 20 * log10(peak) : -.infinity)
    }
}
