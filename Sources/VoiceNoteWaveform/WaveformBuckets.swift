import VoiceNoteCore

/// A waveform of audio whose length N is known before decoding (Ogg Opus: the last granule position), computed
/// in one streaming pass (docs/waveform.md): bucket `i` of `n` holds frames `[⌊i·N/n⌋, ⌊(i+1)·N/n⌋)`, its value is the
/// normalised mean of the clipped dB of all its samples, every channel included; buckets without frames are 0.
///
/// Samples go straight into their bucket's integer sum, so the answer is exact at any length. Alongside, the
/// same runs feed a `WaveformBlocks` of about N/65536 frames per block, used only when the frames that arrive
/// are not N (see `finish()`).
///
/// Chunks may be of any size and need not hold whole frames: positions are counted in samples. A file decoded in
/// ranges on several threads (`WaveformAnalysis.analyse(_:samples:ranges:reopening:)`) fills one per range, each starting at its
/// range's first frame, and `combined` adds their integer sums: the same answer as one pass, exactly.
/// Not thread-safe; one thread feeds it (a value type, so copies are independent).
public struct WaveformBuckets: Sendable {
    /// N, the frames the caller expects.
    public let frameCount: Int
    /// Channels per frame of the interleaved input.
    public let channels: Int
    /// n, the number of values `finish()` returns.
    public let samples: Int

    private let grid: BucketGrid
    /// Level units per bucket.
    private var sums: [Int64]
    /// The bucket being filled; `samples` once past the last one.
    private var bucket = 0
    /// The sample position where the current bucket ends.
    private var bucketEnd = 0
    /// The fallback for a different frame count; also counts the samples received.
    private var blocks: WaveformBlocks
    /// The sample position of the first sample received (a range's first frame × channels).
    private let origin: Int

    /// Prepares the buckets.
    /// - Parameters:
    ///   - frameCount: N, frames expected, ≥ 0.
    ///   - channels: C, channels per interleaved frame, ≥ 1.
    ///   - samples: n, values wanted, 1…`Waveform.maximumSampleCount`.
    ///   - firstFrame: the frame the first sample appended belongs to, 0…N (a range's start; 0 for a whole file).
    /// - Throws: `VoiceNoteError(.invalidArgument)` when a parameter is out of range or N × C overflows.
    public init(frameCount: Int, channels: Int, samples: Int, startingAt firstFrame: Int = 0) throws {
        try Waveform.checkSampleCount(samples)
        guard frameCount >= 0 else {
            throw VoiceNoteError(.invalidArgument, "frame count \(frameCount) is negative")
        }
        guard channels > 0 else {
            throw VoiceNoteError(.invalidArgument, "channel count \(channels) must be at least 1")
        }
        guard !frameCount.multipliedReportingOverflow(by: channels).overflow else {
            throw VoiceNoteError(.invalidArgument, "\(frameCount) frames × \(channels) channels is too large")
        }
        guard (0...frameCount).contains(firstFrame) else {
            throw VoiceNoteError(.invalidArgument, "first frame \(firstFrame) is outside 0…\(frameCount)")
        }
        self.frameCount = frameCount
        self.channels = channels
        self.samples = samples
        self.grid = BucketGrid(frames: frameCount, buckets: samples)
        self.sums = [Int64](repeating: 0, count: samples)
        // Blocks of ⌈N / cap⌉ frames: at most the cap for N frames, so the fallback never merges before N.
        let cap = WaveformBlocks.defaultMaximumBlocks
        let framesPerBlock = max(1, frameCount / cap + (frameCount % cap == 0 ? 0 : 1))
        self.blocks = try WaveformBlocks(channels: channels, framesPerBlock: framesPerBlock, maximumBlocks: cap)
        self.bucketEnd = grid.start(1) * channels
        self.origin = firstFrame * channels
    }

    /// Whole frames received so far.
    public var framesReceived: Int { blocks.frameCount }

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

    /// Sums `count` samples in runs that cross neither a bucket nor a block boundary: per sample, only the
    /// table lookup and an add.
    private mutating func consume<Sample: DecibelSample>(
        _ base: UnsafePointer<Sample>, count: Int, lookup: UnsafePointer<Sample.Lookup>
    ) {
        var offset = 0
        while offset < count {
            let position = origin + blocks.totalSamples
            // Also steps over the empty buckets of N < n.
            while position >= bucketEnd {
                bucket += 1
                bucketEnd = bucket < samples ? grid.start(bucket + 1) * channels : Int.max
            }
            let take = min(count - offset, blocks.room(), bucketEnd - position)
            let units = Sample.sumUnits(base + offset, count: take, lookup: lookup)
            blocks.add(units: units, samples: take)
            if bucket < samples {
                sums[bucket] &+= units
            }
            offset += take
        }
    }

    /// The `samples` values in 0…1.
    ///
    /// When exactly N frames arrived, the exact buckets. Otherwise (a truncated file, a granule position that
    /// lied, a trailing partial frame) the answer is for the audio that arrived: the blocks re-bucketed over the
    /// M frames received, as `WaveformBlocks.finish` does — exact while both N and M are at most 65536 (one-frame
    /// blocks); beyond, blocks of ⌈N/65536⌉ frames that straddle a bucket boundary are shared in proportion, an
    /// error that shrinks as M/N grows (under 10⁻³ near M = N). Nothing received gives `samples` zeros.
    public func finish() -> [Float] {
        guard origin == 0, blocks.totalSamples == frameCount * channels else {
            return blocks.rebucket(samples: samples)
        }
        return values(of: sums)
    }

    /// The values of ranges that together received exactly the N frames, each its own range's: `parts` laid
    /// over one grid (same N, channels and n), their sums added. Nil when they do not share a grid.
    public static func combined(_ parts: [WaveformBuckets]) -> [Float]? {
        guard let first = parts.first, parts.allSatisfy({
            $0.frameCount == first.frameCount && $0.channels == first.channels && $0.samples == first.samples
        }) else { return nil }
        var sums = [Int64](repeating: 0, count: first.samples)
        for part in parts {
            for index in sums.indices { sums[index] &+= part.sums[index] }
        }
        return first.values(of: sums)
    }

    /// The values of the exact buckets whose level units sum to `sums`.
    private func values(of sums: [Int64]) -> [Float] {
        var values = [Float](repeating: 0, count: samples)
        for index in 0..<samples {
            let start = grid.start(index) * channels
            let end = grid.start(index + 1) * channels
            if start < end {
                values[index] = BucketGrid.level(units: Double(sums[index]), samples: end - start)
            }
        }
        return values
    }
}
