/// Stream's `waveform_data` (docs/waveform.md): the 0…1 floats themselves.
public enum StreamWaveform {
    /// The levels clamped to 0…1 (NaN as 0), as many as given; Stream sends its waveform at whatever length it
    /// was computed (100 by default).
    public static func encode(_ levels: [Float]) -> [Float] {
        levels.map(Waveform.clamped)
    }

    /// Received `waveform_data` as 0…1 levels: out of range clamps, NaN is 0.
    /// - Throws: `VoiceNoteError(.format)` when longer than `WaveformEncoding.maximumDecodedCount`.
    public static func decode(_ values: [Float]) throws -> [Float] {
        try WaveformEncoding.checkDecoded(count: values.count, "Stream")
        return values.map(Waveform.clamped)
    }

    /// Received `waveform_data` as JSON parsers give it (doubles); see `decode(_:)` for `Float`.
    /// - Throws: `VoiceNoteError(.format)` when longer than `WaveformEncoding.maximumDecodedCount`.
    public static func decode(_ values: [Double]) throws -> [Float] {
        try WaveformEncoding.checkDecoded(count: values.count, "Stream")
        // Clamp before narrowing, so 1e300 is 1, not infinity.
        return values.map { value in value > 0 ? Float(min(value, 1)) : 0 }
    }
}
