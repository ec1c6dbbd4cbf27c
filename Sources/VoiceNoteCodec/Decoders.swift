import VoiceNoteCore
import VoiceNoteSources

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
        if purpose == .playback, let arriving = source as? any ArrivingSource, !arriving.isComplete,
           try isOgg(source), let decoder = try ProgressiveOpusDecoder(source: arriving) {
            return decoder  // a download still arriving plays once its headers are in
        }
        guard let probe = try probeOpus(source) else { return try FFmpegDecoder(source: source) }
        if purpose == .analysis && probe.header.mappingFamily == 0 && !probe.hasOtherStreams {
            return try OpusAnalysisDecoder(source: source, probe: probe)
        }
        return try OpusFileDecoder(source: source, probe: probe.hasOtherStreams ? nil : probe)
    }

    /// Stream facts without decoding: an Ogg Opus file of one stream from its pages alone (never opusfile, which
    /// would keep its whole comment header in memory), a chained one from opusfile, the rest from FFmpeg.
    public static func info(of source: ByteSource) throws(VoiceNoteError) -> StreamInfo {
        guard let probe = try probeOpus(source) else { return try FFmpegDecoder(source: source).info }
        if !probe.hasOtherStreams { return probe.info }
        return try OpusFileDecoder(source: source, probe: nil).info
    }

    /// The probe of an Ogg Opus file, or nil when `source` is not Ogg or holds no Opus stream (Vorbis, FLAC in
    /// Ogg: FFmpeg's). `.format` when it is empty or its Opus stream is damaged beyond use.
    private static func probeOpus(_ source: ByteSource) throws(VoiceNoteError) -> OpusProbe? {
        guard try isOgg(source) else { return nil }
        return try OpusProbe(source: source)
    }

    /// Whether `source` starts like an Ogg file (read from its start); `.format` when it is empty.
    static func isOgg(_ source: ByteSource) throws(VoiceNoteError) -> Bool {
        try source.seek(to: 0)
        let magic = try source.readPrefix(count: 4)
        guard !magic.isEmpty else { throw VoiceNoteError(.format, "\(source.name) is empty") }
        return magic == Array("OggS".utf8)
    }
}
