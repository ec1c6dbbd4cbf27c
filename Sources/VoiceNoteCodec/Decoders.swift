import VoiceNoteCore

/// What a decoder is opened for: analysis takes the fastest path (Opus at 16 kHz through plain libopus),
/// playback the exact one (opusfile at 48 kHz with seeking).
public enum DecodePurpose: Sendable {
    /// Waveforms and levels.
    case analysis
    /// Playback.
    case playback
}

/// Chooses a decoder by content, never by file name.
public enum Decoders {
    /// Opens the right decoder for `source`: Ogg Opus (family 0, one stream) → the analysis decoder; other Ogg
    /// Opus → opusfile; anything else → FFmpeg (loaded here the first time, never for Opus). `.format` for empty,
    /// non-audio or damaged-beyond-use input; `.unsupported` for a non-Opus file when FFmpeg cannot be loaded.
    public static func open(_ source: ByteSource, purpose: DecodePurpose = .analysis) throws(VoiceNoteError) -> any AudioDecoder {
        try source.seek(to: 0)
        let magic = try source.readPrefix(count: 4)
        guard !magic.isEmpty else { throw VoiceNoteError(.format, "\(source.name) is empty") }
        if magic == Array("OggS".utf8) {
            do throws(VoiceNoteError) {
                let probe = try OpusProbe(source: source)
                if purpose == .analysis && probe.header.mappingFamily == 0 && !probe.hasOtherStreams {
                    return try OpusAnalysisDecoder(source: source, probe: probe)
                }
                return try OpusFileDecoder(source: source, probe: probe.hasOtherStreams ? nil : probe)
            } catch where error.status == .format && error.message.hasSuffix(OpusProbe.noOpusStream) {
                // Ogg without Opus (Vorbis, FLAC): FFmpeg's.
            }
        }
        return try FFmpegDecoder(source: source)
    }

    /// Stream facts without decoding (the Opus tail, FFmpeg's container headers).
    public static func info(of source: ByteSource) throws(VoiceNoteError) -> StreamInfo {
        try open(source, purpose: .playback).info
    }
}
