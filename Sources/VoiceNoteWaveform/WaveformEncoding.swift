import VoiceNoteCore

/// The networks' waveform encodings (docs/waveform.md). Encoders take a 0…1 waveform, clamp it (NaN as 0) and never
/// fail; `[]` encodes as empty. Decoders give 0…1 levels: values out of range clamp, lengths are taken as sent
/// (Telegram's by its own rule), and only input longer than `maximumDecodedCount` values is refused.
public enum WaveformEncoding: String, Sendable, CaseIterable {
    /// Stream `waveform_data`: floats 0…1, as many as the waveform has.
    case stream
    /// Matrix MSC3246 (`org.matrix.msc1767.audio` `waveform`): 100 integers 0…1024, as Element sends.
    case matrix
    /// Telegram: 100 values of 5 bits (0…31) packed LSB-first into 63 bytes.
    case telegram
    /// Signal: at most 100 bytes 0…255.
    case signal

    /// The most values a decoder accepts. A received waveform longer than this is hostile or broken (every
    /// network sends about 100); refusing it lets the client fall back to computing one from the audio.
    public static let maximumDecodedCount = 4096

    /// The encoding's name as the CLI and C API spell it: `stream`, `matrix`, `telegram` or `signal`.
    public var name: String { rawValue }

    /// Parses a name, ignoring ASCII case.
    /// - Throws: `VoiceNoteError(.invalidArgument)` naming the accepted names.
    public init(parsing name: String) throws {
        guard let encoding = WaveformEncoding(rawValue: name.lowercased()) else {
            let names = Self.allCases.map(\.name).joined(separator: ", ")
            throw VoiceNoteError(.invalidArgument, "unknown waveform encoding \"\(name)\" (expected \(names))")
        }
        self = encoding
    }

    /// Throws `.format` when a received waveform has more than `maximumDecodedCount` values.
    static func checkDecoded(count: Int, _ what: String) throws {
        guard count <= maximumDecodedCount else {
            throw VoiceNoteError(
                .format, "\(what) waveform has \(count) values; at most \(maximumDecodedCount) are accepted")
        }
    }
}
