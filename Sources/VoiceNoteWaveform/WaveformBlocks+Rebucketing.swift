extension WaveformBlocks {
    /// The waveform of what was appended so far: exactly `samples` values in 0…1, bucket `i` covering frames
    /// `[⌊i·M/n⌋, ⌊(i+1)·M/n⌋)` of the M frames received (docs/waveform.md). Buckets without frames are 0; nothing
    /// appended gives `samples` zeros. May be called again later; appending more continues the same take.
    /// A trailing partial frame's samples count in the last bucket.
    /// - Throws: `VoiceNoteError(.invalidArgument)` unless `1 ≤ samples ≤ Waveform.maximumSampleCount`.
    public func finish(samples: Int) throws -> [Float] {
        try Waveform.checkSampleCount(samples)
        return rebucket(samples: samples)
    }

    /// `finish` without the argument check.
    func rebucket(samples buckets: Int) -> [Float] {
        let grid = BucketGrid(frames: frameCount, buckets: buckets)
        var values = [Float](repeating: 0, count: buckets)
        for bucket in 0..<buckets {
            let start = grid.start(bucket) * channels
            let end = bucket == buckets - 1 ? totalSamples : grid.start(bucket + 1) * channels
            guard start < end else { continue }
            values[bucket] = level(samples: start..<end)
        }
        return values
    }

    /// The level of a sample range: whole blocks add exactly, a block cut by the range adds the share of its sum
    /// that its samples inside the range make.
    private func level(samples range: Range<Int>) -> Float {
        var whole: Int64 = 0
        var shares = 0.0
        var position = range.lowerBound
        var block = position / blockSamples
        while position < range.upperBound {
            let blockStart = block * blockSamples
            let blockEnd = min(blockStart + blockSamples, totalSamples)
            let sum = block < sums.count ? sums[block] : current
            let end = min(blockEnd, range.upperBound)
            if position == blockStart && end == blockEnd {
                whole &+= sum
            } else {
                shares += Double(sum) * Double(end - position) / Double(blockEnd - blockStart)
            }
            position = end
            block += 1
        }
        // With one-frame blocks nothing is shared, `shares` stays 0 and the sum is the bucket's exact one.
        return BucketGrid.level(units: Double(whole) + shares, samples: range.count)
    }
}
