import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// The waveform algorithm (docs/waveform.md) on encoded audio: decode with the content-chosen analysis decoder and bucket in one streaming pass.
/// Memory stays independent of the length: the decoder streams, the buckets are O(n), the fallback blocks O(65536).
public enum WaveformAnalysis {
    /// A waveform with the length of the audio it was computed from.
    public struct Result: Sendable, Equatable {
        /// The values, 0…1.
        public var values: [Float]
        /// The decoded audio's length in seconds.
        public var duration: Double
        /// How many ranges of the file were decoded in parallel for it (`analyse(_:samples:ranges:reopening:)`); 1 for
        /// one pass.
        public var ranges: Int
        /// The audio's loudness, measured in the same pass; nil where it was not measured.
        public var loudness: Loudness?

        /// Makes a result.
        public init(values: [Float], duration: Double, ranges: Int = 1, loudness: Loudness? = nil) {
            self.values = values
            self.duration = duration
            self.ranges = ranges
            self.loudness = loudness
        }
    }

    /// The waveform of `source` (read from its start): exactly `samples` values in 0…1.
    /// `.format` when it is not audio or yields no audio at all; source failures keep their status.
    public static func waveform(of source: ByteSource, samples: Int = Waveform.defaultSampleCount) throws(VoiceNoteError) -> [Float] {
        try analyse(source, samples: samples, loudness: false).values
    }

    /// The waveform of `source`, the length of its audio and its loudness, in one decoding pass (see
    /// `waveform(of:samples:)`). `loudness` false leaves the loudness unmeasured (nil), for callers that only draw.
    /// `.cancelled` at the next packet once `cancellation` is set. A source whose analysis is kept (a URL's, beside
    /// its media cache entry: `ByteSource.keptAnalysis`) is answered from there without decoding, and a fresh
    /// analysis is kept there.
    public static func analyse(_ source: ByteSource, samples: Int = Waveform.defaultSampleCount, loudness: Bool = true,
                               cancellation: CancellationFlag? = nil) throws(VoiceNoteError) -> Result {
        try Waveform.checkSampleCount(samples)
        if let kept = kept(for: source, samples: samples, loudness: loudness) { return kept }
        let result = try decodeAndAnalyse(source, samples: samples, loudness: loudness, cancellation: cancellation)
        keep(result, for: source)
        return result
    }

    /// `analyse` without what is kept: one decoding pass (`samples` already checked).
    private static func decodeAndAnalyse(_ source: ByteSource, samples: Int, loudness: Bool,
                                         cancellation: CancellationFlag?) throws(VoiceNoteError) -> Result {
        try VoiceNoteError.rethrowing { () throws -> Result in
            let decoder = try Decoders.open(source, purpose: .analysis)
            let seconds = { (frames: Int) in Double(frames) / Double(max(decoder.outputRate, 1)) }
            let meter = loudness ? try LoudnessMeter(sampleRate: decoder.outputRate, channels: decoder.outputChannels,
                                                     order: decoder.channelOrder) : nil
            if let frames = decoder.knownFrameCount {
                var buckets = try WaveformBuckets(frameCount: Int(frames), channels: decoder.outputChannels, samples: samples)
                let decoded = try decodeEverything(decoder, source: source, cancellation) {
                    buckets.append($0.samples)
                    meter?.append($0.samples)
                }
                return Result(values: buckets.finish(), duration: seconds(decoded), loudness: meter?.loudness)
            }
            var blocks = try WaveformBlocks(channels: decoder.outputChannels)
            let decoded = try decodeEverything(decoder, source: source, cancellation) {
                blocks.append($0.samples)
                meter?.append($0.samples)
            }
            return Result(values: try blocks.finish(samples: samples), duration: seconds(decoded), loudness: meter?.loudness)
        }
    }

    /// Feeds every decoded chunk to `consume`; returns the frames decoded. `.format` when the stream holds no audio;
    /// `.cancelled` once `cancellation` is set (checked after each packet).
    private static func decodeEverything(_ decoder: any AudioDecoder, source: ByteSource, _ cancellation: CancellationFlag?,
                                         _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Int {
        var frames = 0
        while try decoder.decodeNext({ chunk in
            frames += chunk.frames
            consume(chunk)
        }) {
            try cancellation?.check("the waveform of \(source.name)")
        }
        guard frames > 0 else { throw VoiceNoteError(.format, "\(source.name): no audio could be decoded") }
        return frames
    }
}
