import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

/// A 100-value waveform touching 0, 1 and levels between quantisation steps.
private let levels: [Float] = (0..<100).map { Float(($0 * 37) % 101) / 100 }

@Suite struct StreamWaveformTests {
    @Test func encodeClampsAndKeepsLength() {
        #expect(StreamWaveform.encode([0, 0.25, 1, -0.5, 1.5, .nan, .infinity]) == [0, 0.25, 1, 0, 1, 0, 1])
        #expect(StreamWaveform.encode(levels) == levels)
        #expect(StreamWaveform.encode([]) == [])
    }

    @Test func decodeClamps() throws {
        #expect(try StreamWaveform.decode([0.5, -1, 2, .nan] as [Float]) == [0.5, 0, 1, 0])
        #expect(try StreamWaveform.decode([0.5, -1, 1e300, .nan, -.infinity] as [Double]) == [0.5, 0, 1, 0, 0])
        #expect(try StreamWaveform.decode([Double]()) == [])
        expectError(.format) { _ = try StreamWaveform.decode([Double](repeating: 0.5, count: 4097)) }
        #expect(try StreamWaveform.decode([Float](repeating: 0.5, count: 4096)).count == 4096)
    }
}

@Suite struct MatrixWaveformTests {
    @Test func encodesOneHundredIntegersUpTo1024() {
        let encoded = MatrixWaveform.encode(levels)
        #expect(encoded.count == 100)
        #expect(encoded[0] == 0)
        // Level 0.37 → 378.88 → 379; level 1 → 1024.
        #expect(encoded[1] == 379)
        #expect(encoded.contains(1024))
        #expect(MatrixWaveform.encode([0, 0.5, 1]).count == 100)
        #expect(MatrixWaveform.encode([-1, .nan, 7]).allSatisfy { (0...1024).contains($0) })
        #expect(MatrixWaveform.encode([]) == [])
    }

    @Test func roundTripWithinOneStep() throws {
        let decoded = try MatrixWaveform.decode(MatrixWaveform.encode(levels))
        #expect(maximumDifference(decoded, levels) <= 0.5 / 1024 + 1e-6)
    }

    /// Hostile input clamps: negative → 0, above 1024 → 1; any length up to the limit.
    @Test func decodeClampsOutOfRange() throws {
        #expect(try MatrixWaveform.decode([-5, 0, 256, 512, 1024, 1025, Int.max, Int.min]) == [0, 0, 0.25, 0.5, 1, 1, 1, 0])
        #expect(try MatrixWaveform.decode([]) == [])
        expectError(.format) { _ = try MatrixWaveform.decode([Int](repeating: 1, count: 5000)) }
    }
}

@Suite struct SignalWaveformTests {
    @Test func encodesAtMostOneHundredBytes() {
        #expect(SignalWaveform.encode(levels).count == 100)
        #expect(SignalWaveform.encode([0, 0.5, 1]) == [0, 128, 255])
        #expect(SignalWaveform.encode([Float](repeating: 1, count: 250)) == [UInt8](repeating: 255, count: 100))
        #expect(SignalWaveform.encode([-1, .nan, 3]) == [0, 0, 255])
        #expect(SignalWaveform.encode([]) == [])
    }

    @Test func roundTripWithinOneStep() throws {
        let decoded = try SignalWaveform.decode(SignalWaveform.encode(levels))
        #expect(maximumDifference(decoded, levels) <= 0.5 / 255 + 1e-6)
    }

    @Test func decodeTakesAnyLengthUpToTheLimit() throws {
        #expect(try SignalWaveform.decode([0, 51, 255]) == [0, 0.2, 1])
        #expect(try SignalWaveform.decode([]) == [])
        #expect(try SignalWaveform.decode([UInt8](repeating: 9, count: 101)).count == 101)
        expectError(.format) { _ = try SignalWaveform.decode([UInt8](repeating: 9, count: 4097)) }
    }
}
