/// The bucket split of docs/waveform.md step 2: bucket `i` of `buckets` over `frames` frames holds frames
/// `[⌊i·frames/buckets⌋, ⌊(i+1)·frames/buckets⌋)`, so buckets differ in size by at most one frame and, when
/// `frames < buckets`, some hold none.
struct BucketGrid {
    /// N, the frames split.
    let frames: Int
    /// n, the number of buckets.
    let buckets: Int

    /// The first frame of bucket `index` (0…`buckets`; `start(buckets)` is `frames`).
    func start(_ index: Int) -> Int {
        // i·N can exceed Int for long inputs and large n; the quotient never exceeds N.
        let product = index.multipliedFullWidth(by: frames)
        return buckets.dividingFullWidth(product).quotient
    }

    /// The 0…1 value of a bucket whose samples' level units sum to `units` over `samples` samples: the mean of
    /// the clipped dB, normalised (docs/waveform.md steps 4–5). Every waveform type ends here, so equal sums give
    /// equal `Float`s.
    static func level(units: Double, samples: Int) -> Float {
        let meanDecibels = units / (Double(samples) * Double(DecibelTable.unitsPerDecibel))
        return Normaliser.normalise(Float(meanDecibels))
    }
}
