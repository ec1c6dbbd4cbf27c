import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// The waveform algorithm (docs/waveform.md) on encoded audio: decode with the content-chosen analysis decoder and bucket in one streaming pass.
/// Memory stays independent of the length: the decoder streams, the buckets are O(n), the fallback blocks O(65536).
public enum WaveformAnalysis {
    /// The waveform of `source` (read from its start): exactly `samples` values in 0…1.
    /// `.format` when it is not audio or yields no audio at all; source failures keep their status.
    public static func waveform(of source: ByteSource, samples: Int = Waveform.defaultSampleCount) throws(VoiceNoteError) -> [Float] {
        try VoiceNoteError.rethrowing { () throws -> [Float] in
            try Waveform.checkSampleCount(samples)
            let decoder = try Decoders.open(source, purpose: .analysis)
            if let frames = decoder.exactFrameCount {
                var buckets = try WaveformBuckets(frameCount: Int(frames), channels: decoder.outputChannels, samples: samples)
                try decodeEverything(decoder, source: source) { buckets.append($0.samples) }
                return buckets.finish()
            }
            var blocks = try WaveformBlocks(channels: decoder.outputChannels)
            try decodeEverything(decoder, source: source) { blocks.append($0.samples) }
            return try blocks.finish(samples: samples)
        }
    }

    /// Feeds every decoded chunk to `consume`; `.format` when the stream holds no audio.
    private static func decodeEverything(_ decoder: any AudioDecoder, source: ByteSource, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) {
        var frames = 0
        while try decoder.decodeNext({ chunk in
            frames += chunk.frames
            consume(chunk)
        }) {}
        guard frames > 0 else { throw VoiceNoteError(.format, "\(source.name): no audio could be decoded") }
    }
}
