import VoiceNoteCore

/// A waveform in one of the wire encodings: the one implementation the C API, the CLI and (through C) Python use.
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

    /// The integers a network sends for `levels` (Matrix 0…1024, Telegram's packed bytes, Signal's bytes); nil
    /// for Stream, whose values are the 0…1 floats themselves. What the C API and the CLI give out.
    public func integers(encoding levels: [Float]) -> [Int]? {
        switch encode(levels) {
        case .levels: nil
        case .integers(let values): values
        case .bytes(let bytes): bytes.map(Int.init)
        }
    }

    /// Received integers as 0…1 levels, as many as the encoding yields. Each integer is first clamped into the
    /// encoding's range (Matrix 0…1024, Telegram and Signal bytes 0…255; Stream takes them as levels, clamped to
    /// 0…1): a peer that sends 2000 or -3 gets a waveform drawn, not an error.
    /// - Throws: `VoiceNoteError(.format)` only when that is more than `maximumDecodedCount` values.
    public func levels(decodingIntegers values: [Int]) throws -> [Float] {
        switch self {
        case .stream: try decode(.levels(values.map { Float($0) }))
        case .matrix: try decode(.integers(values))
        case .telegram, .signal: try decode(.bytes(values.map { UInt8(clamping: $0) }))
        }
    }
}
