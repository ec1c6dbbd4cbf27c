/// The byte ranges of a file that have arrived: sorted, disjoint, adjacent ones merged.
struct ByteRanges: Sendable, Equatable {
    private(set) var ranges: [Range<Int64>] = []

    /// Adds `range` (merging with what it touches).
    mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || existing.lowerBound > merged.upperBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound)..<max(existing.upperBound, merged.upperBound)
            }
        }
        let index = kept.firstIndex { $0.lowerBound > merged.lowerBound } ?? kept.endIndex
        kept.insert(merged, at: index)
        ranges = kept
    }

    /// The end of the arrived run that holds `offset`, or nil when `offset` has not arrived.
    func end(ofRunHolding offset: Int64) -> Int64? {
        ranges.first { $0.contains(offset) }?.upperBound
    }

    /// The start of the first arrived run after `offset`, or nil.
    func start(ofRunAfter offset: Int64) -> Int64? {
        ranges.first { $0.lowerBound > offset }?.lowerBound
    }

    /// The first byte below `total` that has not arrived, or nil when all have.
    func firstMissing(below total: Int64) -> Int64? {
        var offset: Int64 = 0
        for range in ranges {
            if range.lowerBound > offset { break }
            offset = max(offset, range.upperBound)
        }
        return offset < total ? offset : nil
    }

    /// Bytes arrived in all.
    var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }
}
