/// The noise floor of one note, estimated from the note itself as it streams: the 10th percentile of the RMS
/// levels of its 20 ms blocks seen so far, kept as a histogram of 0.5 dB bins from −100 to 0 dBFS (fixed
/// memory, whatever the length).
///
/// Speech leaves gaps between words and phrases, at the room's level: in a voice note they are well over a tenth
/// of the blocks, so the 10th percentile is the room, not the voice, while a few clicks or dropouts cannot move
/// it. Blocks below −100 dBFS (digital silence, encoder padding) are left out: a note that starts with zeros and
/// pauses at −60 dBFS has its floor at −60. Early in a note the estimate rests on few blocks and sits near their
/// minimum, which is the safe side (less is called silence, not more).
struct NoiseFloor: Sendable {
    /// The lowest level counted, in dBFS.
    static let lowestDecibels: Float = -100
    /// The histogram's resolution, in dB.
    static let binWidth: Float = 0.5
    /// The share of blocks at or below the floor.
    static let percentile = 0.10

    private var counts = [Int](repeating: 0, count: Int(-lowestDecibels / binWidth))
    /// Blocks counted.
    private(set) var blocks = 0

    /// Counts one block's RMS level (dBFS; −∞ for digital silence, which is not counted).
    mutating func add(_ decibels: Float) {
        guard decibels >= Self.lowestDecibels else { return }
        let bin = min(counts.count - 1, Int((decibels - Self.lowestDecibels) / Self.binWidth))
        counts[bin] += 1
        blocks += 1
    }

    /// The floor in dBFS (the centre of the percentile's bin), or nil before any block above −100 dBFS.
    var decibels: Float? {
        guard blocks > 0 else { return nil }
        let rank = max(1, Int((Double(blocks) * Self.percentile).rounded(.up)))
        var seen = 0
        for (bin, count) in counts.enumerated() {
            seen += count
            if seen >= rank { return Self.lowestDecibels + (Float(bin) + 0.5) * Self.binWidth }
        }
        return nil
    }
}
