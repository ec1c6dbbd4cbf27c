import VoiceNoteCore
import VoiceNoteSources

/// A long file split into ranges that decode independently, so that one analysis can use several threads.
///
/// Range `i` covers the output frames `[cuts[i], cuts[i + 1])` of what `Decoders.open(_, purpose: .analysis)`
/// outputs from the whole file. Its decoder, on a source of its own over the same bytes, starts at or before
/// `cuts[i]`, early enough for the codec's state to converge by the cut (Opus: at least 80 ms before it, from a
/// page that begins a packet, as RFC 7845 asks of a seek; FFmpeg's codecs: a second before, from a sample-exact
/// seek), and says which frame it starts at; the frames before the cut are the caller's to drop.
public struct DecodingRanges: Sendable {
    /// N: the frames the analysis decoder outputs in all.
    public let frameCount: Int64
    /// The rate of the decoded frames.
    public let outputRate: Int
    /// Channels of the decoded frames.
    public let channels: Int
    /// The ranges' first frames, ascending from 0, then `frameCount`.
    public let cuts: [Int64]
    private let starts: [Start]
    private let kind: Kind

    /// Where a range's decoder starts.
    enum Start: Sendable {
        /// The file's start, as the whole-file decoder does.
        case beginning
        /// An Ogg page at `offset` whose first packet's first frame is output frame `frame`.
        case page(offset: Int64, frame: Int64)
        /// FFmpeg's seek to `frame`.
        case seek(frame: Int64)
    }

    enum Kind: Sendable {
        case opus(OpusProbe)
        case ffmpeg
    }

    /// The number of ranges.
    public var count: Int { cuts.count - 1 }

    init(frameCount: Int64, outputRate: Int, channels: Int, cuts: [Int64], starts: [Start], kind: Kind) {
        self.frameCount = frameCount
        self.outputRate = outputRate
        self.channels = channels
        self.cuts = cuts
        self.starts = starts
        self.kind = kind
    }

    /// A decoder for range `index` reading `source` (a source of its own over the same bytes, any position), and
    /// the output frame its first decoded frame is (at most `cuts[index]`).
    public func decoder(for index: Int, source: ByteSource) throws(VoiceNoteError) -> (decoder: any AudioDecoder, firstFrame: Int64) {
        precondition(starts.indices.contains(index), "range \(index) of \(count)")
        switch (kind, starts[index]) {
        case (.opus(let probe), .beginning):
            return (try OpusAnalysisDecoder(source: source, probe: probe), 0)
        case (.opus(let probe), .page(let offset, let frame)):
            return (try OpusRangeDecoder(source: source, probe: probe, pageOffset: offset, firstFrame: frame), frame)
        case (.ffmpeg, .beginning):
            return (try FFmpegDecoder(source: source), 0)
        case (.ffmpeg, .seek(let frame)):
            let decoder = try FFmpegDecoder(source: source)
            try decoder.seek(toFrame: frame)
            return (decoder, frame)
        default:
            throw VoiceNoteError(.internal, "range \(index) has no start for its format")
        }
    }
}

extension Decoders {
    /// How `source` (read from its start) splits into at most `count` (2…256) ranges of at least `minimumSeconds` each for
    /// an analysis on several threads; nil when it does not split: too short, a length not known exactly in
    /// advance (then the ranges could not be laid out), or a format without exact starts inside it (Ogg Vorbis,
    /// chained or multichannel Opus; the FFmpeg formats but MP3, AAC, FLAC and PCM). Reads the file's pages or
    /// frame headers, never decodes beyond a first frame. Failures to read the source are thrown.
    public static func ranges(of source: ByteSource, count: Int, minimumSeconds: Double) throws(VoiceNoteError) -> DecodingRanges? {
        guard (2...256).contains(count), minimumSeconds > 0, minimumSeconds.isFinite else { return nil }
        try source.seek(to: 0)
        if try isOgg(source) {
            guard let probe = try OpusProbe(source: source), probe.header.mappingFamily == 0, !probe.hasOtherStreams else {
                return nil
            }
            return try OpusRangePlan.ranges(of: source, probe: probe, count: count, minimumSeconds: minimumSeconds)
        }
        let decoder: FFmpegDecoder
        do throws(VoiceNoteError) {
            decoder = try FFmpegDecoder(source: source)
        } catch where error.status == .format || error.status == .unsupported {
            return nil  // the whole-file analysis says what is wrong
        }
        guard decoder.seeksExactly, let total = decoder.knownFrameCount else { return nil }
        let rate = decoder.outputRate
        let ranges = min(Int64(count), total / max(1, Int64((minimumSeconds * Double(rate)).rounded(.up))))
        guard ranges >= 2 else { return nil }
        let cuts = (0...ranges).map { ranges.dividingFullWidth($0.multipliedFullWidth(by: total)).quotient }
        let starts = cuts.dropLast().map { cut -> DecodingRanges.Start in
            cut == 0 ? .beginning : .seek(frame: max(0, cut - Int64(rate)))  // a second of pre-roll
        }
        return DecodingRanges(frameCount: total, outputRate: rate, channels: decoder.outputChannels, cuts: cuts,
                              starts: starts, kind: .ffmpeg)
    }
}
