import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

@Suite struct TelegramWaveformTests {
    /// Value i in bits [5i, 5i + 5), LSB first: 31 fills bits 0–4 (0x1F), 1 sets bit 10 (byte 1, bit 2).
    @Test func packsLSBFirst() {
        #expect(TelegramWaveform.pack([31, 0, 1]) == [0x1F, 0x04])
        // Worked by hand: 1 | 2<<5 = 0x41; 3<<2 = 0x0C; 4<<1 | 5<<4 = 0x52; 6<<2 | (7 & 3)<<6 = 0xCC;
        // 7>>2 | 8<<3 = 0x41.
        #expect(TelegramWaveform.pack([1, 2, 3, 4, 5, 6, 7, 8]) == [0x41, 0x0C, 0x52, 0xCC, 0x41])
        // Only the low 5 bits of a value are kept.
        #expect(TelegramWaveform.pack([0xFF]) == [0x1F])
        #expect(TelegramWaveform.pack([]) == [])
    }

    @Test func unpacksLSBFirst() {
        #expect(TelegramWaveform.unpack([0x1F, 0x04]) == [31, 0, 1])
        #expect(TelegramWaveform.unpack([0x41, 0x0C, 0x52, 0xCC, 0x41]) == [1, 2, 3, 4, 5, 6, 7, 8])
        let values = (0..<100).map { UInt8($0 % 32) }
        #expect(TelegramWaveform.unpack(TelegramWaveform.pack(values)) == values)
    }

    @Test func hundredValuesAre63Bytes() {
        let bytes = TelegramWaveform.pack([UInt8](repeating: 31, count: 100))
        #expect(bytes.count == 63)
        #expect(bytes[..<62].allSatisfy { $0 == 0xFF })
        // Bits 496–499 of the last byte; the 4 spare bits stay 0.
        #expect(bytes[62] == 0x0F)
        #expect(TelegramWaveform.encode([1]) == bytes)
    }

    /// 0…1 → 100 values of 0…31 → back, within half a step.
    @Test func roundTripWithinOneStep() throws {
        let levels = (0..<100).map { Float(($0 * 37) % 101) / 100 }
        let bytes = TelegramWaveform.encode(levels)
        #expect(bytes.count == TelegramWaveform.byteCount)
        let decoded = try TelegramWaveform.decode(bytes)
        #expect(decoded.count == 100)
        #expect(maximumDifference(decoded, levels) <= 0.5 / 31 + 1e-6)
    }

    @Test func encodeResamplesToOneHundredAndClamps() throws {
        #expect(try TelegramWaveform.decode(TelegramWaveform.encode([0.5, 0.5, 0.5])).count == 100)
        #expect(TelegramWaveform.unpack(TelegramWaveform.encode([-3, .nan, 9])).allSatisfy { $0 <= 31 })
        #expect(TelegramWaveform.encode([]) == [])
        let long = [Float](repeating: 1, count: 1000)
        #expect(TelegramWaveform.unpack(TelegramWaveform.encode(long)) == [UInt8](repeating: 31, count: 100))
    }

    /// Other lengths decode by Telegram's own rule, ⌊bytes·8/5⌋ values; only absurd lengths are refused.
    @Test func decodesAnyLengthByTelegramsRule() throws {
        #expect(try TelegramWaveform.decode([]) == [])
        #expect(try TelegramWaveform.decode([0xFF]) == [1])
        #expect(try TelegramWaveform.decode([0x1F, 0x04]) == [1, 0, 1 / 31])
        #expect(try TelegramWaveform.decode([UInt8](repeating: 0, count: 64)).count == 102)
        #expect(try TelegramWaveform.decode([UInt8](repeating: 0, count: 62)).count == 99)
        let message = expectError(.format) {
            _ = try TelegramWaveform.decode([UInt8](repeating: 0, count: 4096))
        }
        #expect(message?.contains("6553 values") == true)
    }
}
