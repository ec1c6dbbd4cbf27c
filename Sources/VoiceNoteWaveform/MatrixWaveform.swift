/// Matrix MSC3246 (docs/waveform.md): the `waveform` of `org.matrix.msc1767.audio`, integers 0…1024 as Element sends.
public enum MatrixWaveform {
    /// Values sent.
    public static let count = 100
    /// The integer that stands for level 1.
    public static let maximumValue = 1024

    /// `count` integers: the levels resampled to 100 (`Waveform.resample`), clamped, × 1024 rounded. `[]` gives
    /// `[]`.
    public static func encode(_ levels: [Float]) -> [Int] {
        guard !levels.isEmpty else { return [] }
        return Waveform.resample(levels.map(Waveform.clamped), to: count).map {
            Waveform.quantise($0, steps: maximumValue)
        }
    }

    /// Received integers as 0…1 levels (value / 1024), as many as sent; below 0 clamps to 0, above 1024 to 1.
    /// - Throws: `VoiceNoteError(.format)` when longer than `WaveformEncoding.maximumDecodedCount`.
    public static func decode(_ values: [Int]) throws -> [Float] {
        try WaveformEncoding.checkDecoded(count: values.count, "Matrix")
        return values.map { Float(min(max($0, 0), maximumValue)) / Float(maximumValue) }
    }
}
