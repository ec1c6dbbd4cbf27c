import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

@Suite struct WaveformEncodingTests {
    @Test func parsesNamesIgnoringCase() throws {
        #expect(try WaveformEncoding(parsing: "stream") == .stream)
        #expect(try WaveformEncoding(parsing: "Matrix") == .matrix)
        #expect(try WaveformEncoding(parsing: "TELEGRAM") == .telegram)
        #expect(try WaveformEncoding(parsing: "signal") == .signal)
        #expect(WaveformEncoding.allCases.map(\.name) == ["stream", "matrix", "telegram", "signal"])
    }

    @Test func unknownNamesAreInvalidArgument() {
        for name in ["", "whatsapp", " stream", "stream\0"] {
            let message = expectError(.invalidArgument) { _ = try WaveformEncoding(parsing: name) }
            #expect(message?.contains("stream, matrix, telegram, signal") == true)
        }
    }

    @Test func dispatchesToEachEncoding() throws {
        let levels: [Float] = [0, 0.5, 1]
        #expect(WaveformEncoding.stream.encode(levels) == .levels(levels))
        #expect(WaveformEncoding.matrix.encode(levels) == .integers(MatrixWaveform.encode(levels)))
        #expect(WaveformEncoding.telegram.encode(levels) == .bytes(TelegramWaveform.encode(levels)))
        #expect(WaveformEncoding.signal.encode(levels) == .bytes([0, 128, 255]))
        for encoding in WaveformEncoding.allCases {
            let decoded = try encoding.decode(encoding.encode(levels))
            #expect(decoded.first == 0 && decoded.last == 1, "\(encoding)")
        }
    }

    @Test func wrongRepresentationIsInvalidArgument() {
        expectError(.invalidArgument) { _ = try WaveformEncoding.telegram.decode(.integers([1, 2])) }
        expectError(.invalidArgument) { _ = try WaveformEncoding.stream.decode(.bytes([1])) }
        expectError(.invalidArgument) { _ = try WaveformEncoding.matrix.decode(.levels([1])) }
    }
}
