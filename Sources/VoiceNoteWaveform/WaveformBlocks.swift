import VoiceNoteCore

/// A waveform of audio whose length is not known in advance (ADTS, MP3, a growing download): docs/waveform.md with
/// the clipped-dB sums kept per fine block, re-bucketed into `n` values at the end.
///
/// Blocks hold `framesPerBlock` frames each. When `maximumBlocks` are full, adjacent pairs merge and the block
/// size doubles, so memory stays at most `maximumBlocks` × 8 bytes at any length. While the audio has at most
/// `maximumBlocks × framesPerBlock` frames and blocks are one frame, the result equals `WaveformBuckets` to the
/// last bit; beyond, a block that straddles a bucket boundary is shared in proportion to its samples in each,
/// which moves a value by well under 10⁻³ at the default cap.
///
/// Chunks may be of any size and need not hold whole frames: positions are counted in samples.
/// Not thread-safe; one thread feeds it (a value type, so copies are independent).
public struct WaveformBlocks: Sendable {
    /// The default cap on blocks: 512 KiB of sums, and one-frame blocks for the first 65536 frames.
    public static let defaultMaximumBlocks = 65536

    /// Channels per frame of the interleaved input.
    public let channels: Int
    /// The cap on blocks kept; reaching it merges pairs.
    public let maximumBlocks: Int
    /// Frames per block now; doubles at each merge.
    public private(set) var framesPerBlock: Int

    /// Sums of level units of the completed blocks.
    private(set) var sums: [Int64] = []
    /// Samples per block (`framesPerBlock × channels`).
    private(set) var blockSamples: Int
    /// Level units of the block being filled.
    private(set) var current: Int64 = 0
    /// Samples in the block being filled.
    private(set) var currentSamples = 0
    /// Samples received.
    private(set) var totalSamples = 0

    /// Makes an empty accumulator.
    /// - Parameters:
    ///   - channels: channels per interleaved frame, ≥ 1.
    ///   - framesPerBlock: the starting block size, ≥ 1. 1 gives the exact two-pass answer up to the cap.
    ///   - maximumBlocks: the cap, an even number ≥ 2.
    /// - Throws: `VoiceNoteError(.invalidArgument)` when a parameter is out of range.
    public init(channels: Int, framesPerBlock: Int = 1, maximumBlocks: Int = defaultMaximumBlocks) throws {
        guard channels > 0 else {
            throw VoiceNoteError(.invalidArgument, "channel count \(channels) must be at least 1")
        }
        guard framesPerBlock > 0 else {
            throw VoiceNoteError(.invalidArgument, "frames per block \(framesPerBlock) must be at least 1")
        }
        guard maximumBlocks >= 2, maximumBlocks % 2 == 0 else {
            throw VoiceNoteError(.invalidArgument, "block cap \(maximumBlocks) must be even and at least 2")
        }
        let (samples, overflow) = framesPerBlock.multipliedReportingOverflow(by: channels)
        guard !overflow else {
            throw VoiceNoteError(.invalidArgument, "block of \(framesPerBlock) × \(channels) samples is too large")
        }
        self.channels = channels
        self.framesPerBlock = framesPerBlock
        self.maximumBlocks = maximumBlocks
        self.blockSamples = samples
    }

    /// Whole frames received so far (a trailing partial frame is not counted).
    public var frameCount: Int { totalSamples / channels }

    /// Blocks held now, the one being filled included.
    public var blockCount: Int { sums.count + (currentSamples > 0 ? 1 : 0) }

    /// Adds interleaved 16-bit samples (full scale 32767).
    public mutating func append(_ interleaved: UnsafeBufferPointer<Int16>) {
        guard let base = interleaved.baseAddress, !interleaved.isEmpty else { return }
        Int16.withLookup { consume(base, count: interleaved.count, lookup: $0) }
    }

    /// Adds interleaved float samples (full scale 1.0; larger magnitudes count as 0 dB).
    public mutating func append(_ interleaved: UnsafeBufferPointer<Float>) {
        guard let base = interleaved.baseAddress, !interleaved.isEmpty else { return }
        Float.withLookup { consume(base, count: interleaved.count, lookup: $0) }
    }

    /// Sums `count` samples into blocks, one run per block.
    private mutating func consume<Sample: DecibelSample>(
        _ base: UnsafePointer<Sample>, count: Int, lookup: UnsafePointer<Sample.Lookup>
    ) {
        var offset = 0
        while offset < count {
            let take = min(room(), count - offset)
            add(units: Sample.sumUnits(base + offset, count: take, lookup: lookup), samples: take)
            offset += take
        }
    }

    /// Samples that fit in the current block; merges first when a new block would exceed the cap. Merging only
    /// when a block must start (not when one fills) keeps one-frame blocks for exactly `maximumBlocks` frames.
    mutating func room() -> Int {
        if currentSamples == 0 && sums.count == maximumBlocks {
            mergePairs()
        }
        return blockSamples - currentSamples
    }

    /// Adds the sum of a run of samples that fits in `room()`.
    mutating func add(units: Int64, samples: Int) {
        current &+= units
        currentSamples += samples
        totalSamples += samples
        if currentSamples == blockSamples {
            sums.append(current)
            current = 0
            currentSamples = 0
        }
    }

    /// Halves the block count by summing adjacent pairs; the block size doubles. The cap is even, so no block
    /// is left over.
    private mutating func mergePairs() {
        let half = sums.count / 2
        for index in 0..<half {
            sums[index] = sums[2 * index] &+ sums[2 * index + 1]
        }
        sums.removeLast(sums.count - half)
        framesPerBlock *= 2
        blockSamples *= 2
    }
}
