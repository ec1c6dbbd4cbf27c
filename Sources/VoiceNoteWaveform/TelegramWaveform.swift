/// Telegram's voice-note waveform (docs/waveform.md): 100 values of 5 bits (0…31), value i in bits [5i, 5i + 5) of a
/// little-endian bit stream, LSB first — 500 bits in 63 bytes (how Telegram's clients pack and unpack it).
public enum TelegramWaveform {
    /// Values sent.
    public static let count = 100
    /// Bits per value.
    public static let bitsPerValue = 5
    /// The value that stands for level 1.
    public static let maximumValue: UInt8 = 31
    /// Bytes of a packed 100-value waveform: ⌈500 / 8⌉.
    public static let byteCount = 63

    /// 63 bytes: the levels resampled to 100 (`Waveform.resample`), clamped, × 31 rounded, packed. `[]` gives
    /// `[]`.
    public static func encode(_ levels: [Float]) -> [UInt8] {
        guard !levels.isEmpty else { return [] }
        let values = Waveform.resample(levels.map(Waveform.clamped), to: count).map {
            UInt8(Waveform.quantise($0, steps: Int(maximumValue)))
        }
        return pack(values)
    }

    /// Received bytes as 0…1 levels (value / 31). Any length is accepted, as Telegram's clients accept it:
    /// ⌊bytes · 8 / 5⌋ values, spare trailing bits ignored (63 bytes → 100 values; 1 byte → 1 value).
    /// - Throws: `VoiceNoteError(.format)` when that is more than `WaveformEncoding.maximumDecodedCount`.
    public static func decode(_ bytes: [UInt8]) throws -> [Float] {
        try WaveformEncoding.checkDecoded(count: bytes.count * 8 / bitsPerValue, "Telegram")
        return unpack(bytes).map { Float($0) / Float(maximumValue) }
    }

    /// Packs 5-bit values LSB-first into ⌈5·count / 8⌉ bytes; only each value's low 5 bits are kept.
    public static func pack(_ values: [UInt8]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: (values.count * bitsPerValue + 7) / 8)
        for (index, value) in values.enumerated() {
            let bit = index * bitsPerValue
            // Shifted by at most 7, a 5-bit value spans this byte and maybe the next one.
            let shifted = UInt16(value & maximumValue) << UInt16(bit % 8)
            bytes[bit / 8] |= UInt8(truncatingIfNeeded: shifted)
            if shifted > 0xFF {
                bytes[bit / 8 + 1] |= UInt8(truncatingIfNeeded: shifted >> 8)
            }
        }
        return bytes
    }

    /// Unpacks ⌊bytes · 8 / 5⌋ 5-bit values, LSB-first.
    public static func unpack(_ bytes: [UInt8]) -> [UInt8] {
        let count = bytes.count * 8 / bitsPerValue
        return (0..<count).map { index in
            let bit = index * bitsPerValue
            let low = UInt16(bytes[bit / 8])
            let high = bit / 8 + 1 < bytes.count ? UInt16(bytes[bit / 8 + 1]) << 8 : 0
            return UInt8(truncatingIfNeeded: ((low | high) >> UInt16(bit % 8))) & maximumValue
        }
    }
}
