/// Where two signals line up best, by normalised cross-correlation over a range of lags: for the tests that find a
/// known sound in what the code under test made (a recorder's take, the silence skipper's output).
public enum Correlation {
    /// The lag in `lags` at which `a` correlates best with `b` when sample `i + lag` of `a` is set against sample `i`
    /// of `b` over their overlap, and that correlation (1 when the stretches are identical up to scale; 0 where
    /// either is silent). The first of equals wins; a lag whose overlap is shorter than `minimumOverlap` samples is
    /// passed over, and `nil` says every lag was.
    ///
    /// Each lag costs one product per overlapping sample: the two energies come from running sums made once (exact:
    /// sums of squared 16-bit samples stay far below 2^53). Searches of hundreds of lags over seconds of audio, three
    /// products a sample through array slices, were the costliest parts of their suites in instrumented builds.
    public static func best(_ a: [Int16], _ b: [Int16], lags: some Sequence<Int>,
                            minimumOverlap: Int = 1) -> (lag: Int, value: Double)? {
        let x = a.map(Double.init), y = b.map(Double.init)
        let xx = runningSquares(x), yy = runningSquares(y)
        var best: (lag: Int, value: Double)?
        x.withUnsafeBufferPointer { x in
            y.withUnsafeBufferPointer { y in
                for lag in lags {
                    let first = max(0, -lag), end = min(y.count, x.count - lag)
                    guard end - first >= max(minimumOverlap, 1) else { continue }
                    var xy = 0.0
                    for i in first..<end { xy += x[i + lag] * y[i] }
                    let energy = (xx[end + lag] - xx[first + lag]) * (yy[end] - yy[first])
                    let value = energy > 0 ? xy / energy.squareRoot() : 0
                    if best.map({ value > $0.value }) ?? true { best = (lag, value) }
                }
            }
        }
        return best
    }

    /// `sums[k]` is the sum of the squares of `samples[0..<k]`.
    private static func runningSquares(_ samples: [Double]) -> [Double] {
        var sums = [Double](repeating: 0, count: samples.count + 1)
        for (index, sample) in samples.enumerated() { sums[index + 1] = sums[index] + sample * sample }
        return sums
    }
}
