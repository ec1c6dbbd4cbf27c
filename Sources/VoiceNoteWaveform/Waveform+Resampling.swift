extension Waveform {
    /// Stream's downsampling (docs/waveform.md, `Array+Sampling`), reproduced exactly: with r = count/m and P = ⌊r⌋,
    /// `out[i] = Σ_{p<P} values[i·P + p] / r`. Returns `values` unchanged when `count ≤ m` or `m ≤ 0`.
    ///
    /// When m does not divide the count this scales values by P/r and drops the tail (100 → 57 keeps the first
    /// 57 values, divided by ≈1.75); it is here for Stream parity. `resample(_:to:)` is the one to draw or send
    /// with.
    public static func downsample(_ values: [Float], to count: Int) -> [Float] {
        guard count > 0, values.count > count else { return values }
        let run = values.count / count
        return (0..<count).map { index in
            var sum = 0.0
            for offset in 0..<run {
                sum += Double(values[index * run + offset])
            }
            // Σ·m/count is Σ/r with the ratio not rounded first; in Double, the spec's decimals come out as the
            // nearest Float.
            return Float(sum * Double(count) / Double(values.count))
        }
    }

    /// Stream's upsampling (docs/waveform.md): value i is the linear interpolation at position `i·count/m`, the upper
    /// neighbour clamped to the last value. Returns `values` unchanged when `m ≤ count` or `values` is empty.
    public static func upsample(_ values: [Float], to count: Int) -> [Float] {
        guard !values.isEmpty, count > values.count else { return values }
        let last = values.count - 1
        return (0..<count).map { index in
            let position = Double(index) * Double(values.count) / Double(count)
            let lower = min(Int(position), last)
            let upper = min(lower + 1, last)
            let fraction = position - Double(lower)
            let low = Double(values[lower])
            return Float(low + (Double(values[upper]) - low) * fraction)
        }
    }

    /// Exactly `count` values for display or a wire format: when shrinking, value i is the mean of values
    /// `[⌊i·c/m⌋, ⌊(i+1)·c/m⌋)` (the waveform's bucket formula, so every value counts once and the scale is kept; equal
    /// to Stream's `downsample` when m divides the count); when growing, `upsample`. `[]` gives `count` zeros
    /// (no data draws as silence); `count ≤ 0` gives `[]`.
    public static func resample(_ values: [Float], to count: Int) -> [Float] {
        guard count > 0 else { return [] }
        guard !values.isEmpty else { return [Float](repeating: 0, count: count) }
        guard values.count > count else { return upsample(values, to: count) }
        let grid = BucketGrid(frames: values.count, buckets: count)
        return (0..<count).map { index in
            let range = grid.start(index)..<grid.start(index + 1)
            var sum = 0.0
            for value in values[range] {
                sum += Double(value)
            }
            return Float(sum / Double(range.count))
        }
    }
}
