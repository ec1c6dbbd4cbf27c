/// Signal (docs/waveform.md): at most 100 bytes, 0…255.
public enum SignalWaveform {
    /// The most bytes sent.
    public static let maximumCount = 100

    /// One byte per level (× 255, rounded): waveforms longer than 100 are resampled to 100, shorter ones are
    /// kept at their length. `[]` gives `[]`.
    public static func encode(_ levels: [Float]) -> [UInt8] {
        let clamped = levels.map(Waveform.clamped)
        let sized = clamped.count > maximumCount ? Waveform.resample(clamped, to: maximumCount) : clamped
        return sized.map { UInt8(Waveform.quantise($0, steps: 255)) }
    }

    /// Received bytes as 0…1 levels (byte / 255), as many as sent (every byte is in range; more than 100 bytes
    /// are taken too).
    /// - Throws: `VoiceNoteError(.format)` when longer than `WaveformEncoding.maximumDecodedCount`.
    public static func decode(_ bytes: [UInt8]) throws -> [Float] {
        try WaveformEncoding.checkDecoded(count: bytes.count, "Signal")
        return bytes.map { Float($0) / 255 }
    }
}
