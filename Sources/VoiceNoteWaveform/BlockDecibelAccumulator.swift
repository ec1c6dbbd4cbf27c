import VoiceNoteCore

/// The recorder's waveform of a take (docs/recorder.md, "the waveform of a take"): the clipped per-sample dB of the waveform algorithm summed
/// per 20 ms block as the encoder thread meters, bucketed into the `finished` event's values at stop, without
/// decoding the file again.
///
/// It is a `WaveformBlocks` whose blocks start at 20 ms: the same code, so the same bucket formula. Memory is
/// O(blocks) and capped: past `WaveformBlocks.defaultMaximumBlocks` blocks (21 min 50 s) pairs merge into 40 ms
/// blocks, and so on. A block that straddles a bucket boundary is shared in proportion, so the values match
/// the waveform algorithm on the captured PCM exactly when 20 ms blocks align with the buckets (a 2 s take at n = 100) and
/// closely otherwise.
/// Not thread-safe; the encoder thread feeds it.
public struct BlockDecibelAccumulator: Sendable {
    /// The block length the recorder sums over.
    public static let blockMilliseconds = 20

    /// Frames per second of the input.
    public let sampleRate: Int
    private var blocks: WaveformBlocks

    /// Makes an empty accumulator.
    /// - Parameters:
    ///   - sampleRate: frames per second, ≥ 1. A block is 20 ms of frames rounded to the nearest frame
    ///     (220 at 11025 Hz), at least one.
    ///   - channels: channels per interleaved frame (the recorder captures mono).
    /// - Throws: `VoiceNoteError(.invalidArgument)` when a parameter is out of range.
    public init(sampleRate: Int, channels: Int = 1) throws {
        guard sampleRate > 0, sampleRate <= 1_000_000 else {
            throw VoiceNoteError(.invalidArgument, "sample rate \(sampleRate) is outside 1…1000000")
        }
        self.sampleRate = sampleRate
        let framesPerBlock = max(1, (sampleRate * Self.blockMilliseconds + 500) / 1000)
        self.blocks = try WaveformBlocks(channels: channels, framesPerBlock: framesPerBlock)
    }

    /// Frames per block now: 20 ms of frames, doubled at each merge.
    public var framesPerBlock: Int { blocks.framesPerBlock }

    /// Frames accumulated: the take's length.
    public var frameCount: Int { blocks.frameCount }

    /// Adds captured 16-bit samples.
    public mutating func append(_ interleaved: UnsafeBufferPointer<Int16>) {
        blocks.append(interleaved)
    }

    /// Adds captured float samples (full scale 1.0).
    public mutating func append(_ interleaved: UnsafeBufferPointer<Float>) {
        blocks.append(interleaved)
    }

    /// The take's waveform so far: `samples` values in 0…1 by the bucket formula over the frames captured.
    /// - Throws: `VoiceNoteError(.invalidArgument)` unless `1 ≤ samples ≤ Waveform.maximumSampleCount`.
    public func waveform(samples: Int = Waveform.defaultSampleCount) throws -> [Float] {
        try blocks.finish(samples: samples)
    }
}
