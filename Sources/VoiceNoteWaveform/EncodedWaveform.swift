import VoiceNoteCore

/// A waveform in one of the wire encodings, for code that handles every encoding alike (the CLI, the C API).
public enum EncodedWaveform: Sendable, Equatable {
    /// Stream: floats 0…1.
    case levels([Float])
    /// Matrix: integers 0…1024.
    case integers([Int])
    /// Telegram (packed 5-bit values) and Signal (bytes 0…255).
    case bytes([UInt8])
}

extension WaveformEncoding {
    /// Encodes a 0…1 waveform: `.levels` for Stream, `.integers` for Matrix, `.bytes` for Telegram and Signal.
    public func encode(_ levels: [Float]) -> EncodedWaveform {
        switch self {
        case .stream: .levels(StreamWaveform.encode(levels))
        case .matrix: .integers(MatrixWaveform.encode(levels))
        case .telegram: .bytes(TelegramWaveform.encode(levels))
        case .signal: .bytes(SignalWaveform.encode(levels))
        }
    }

    /// Decodes a received waveform to 0…1 levels.
    /// - Throws: `VoiceNoteError(.invalidArgument)` when the case does not belong to this encoding (integers for
    ///   Telegram); `VoiceNoteError(.format)` when it is longer than `maximumDecodedCount` values.
    public func decode(_ encoded: EncodedWaveform) throws -> [Float] {
        switch (self, encoded) {
        case (.stream, .levels(let values)): return try StreamWaveform.decode(values)
        case (.matrix, .integers(let values)): return try MatrixWaveform.decode(values)
        case (.telegram, .bytes(let bytes)): return try TelegramWaveform.decode(bytes)
        case (.signal, .bytes(let bytes)): return try SignalWaveform.decode(bytes)
        default: throw VoiceNoteError(.invalidArgument, "that is not a \(name) waveform")
        }
    }
}
