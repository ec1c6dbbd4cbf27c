import VoiceNoteCore

/// Waveforms of voice messages (docs/waveform.md): levels, display resampling, wire encodings.
///
/// The namespace also holds the limits every waveform-producing type checks, so the C layer can report them.
public enum Waveform {
    /// The number of values a waveform has unless the caller asks otherwise (Stream `waveformTargetSamples`).
    public static let defaultSampleCount = 100

    /// The largest waveform length accepted. Far beyond any display; it keeps a bad length from the C API from
    /// allocating gigabytes.
    public static let maximumSampleCount = 1 << 20

    /// Throws `.invalidArgument` unless `1 ≤ samples ≤ maximumSampleCount` (a C `size_t` above `Int.max`
    /// arrives negative and is named as the caller passed it).
    public static func checkSampleCount(_ samples: Int) throws(VoiceNoteError) {
        guard samples > 0, samples <= maximumSampleCount else {
            throw VoiceNoteError(
                .invalidArgument, "waveform length \(UInt(bitPattern: samples)) is outside 1…\(maximumSampleCount)")
        }
    }

    /// `level` clamped to 0…1, NaN as 0: what every encoder does before quantising.
    static func clamped(_ level: Float) -> Float {
        // `!(level > 0)` also catches NaN, which would otherwise poison means and integer conversions.
        guard level > 0 else { return 0 }
        return min(level, 1)
    }

    /// `level` (clamped) on the integer scale 0…`steps`, rounded to nearest.
    static func quantise(_ level: Float, steps: Int) -> Int {
        Int((clamped(level) * Float(steps)).rounded())
    }
}
