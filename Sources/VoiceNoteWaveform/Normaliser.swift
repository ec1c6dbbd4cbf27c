/// Maps decibels to the 0…1 levels every waveform and meter value is expressed in (docs/waveform.md, Stream
/// `AudioValuePercentageNormaliser`): −50 dB and below → 0, 0 dB and above → 1, linear in between.
public enum Normaliser {
    /// The level that maps to 0; the floor per-sample dB are clipped to (docs/waveform.md step 3).
    public static let floorDecibels: Float = -50

    /// The level that maps to 1.
    public static let ceilingDecibels: Float = 0

    /// `(dB + 50) / 50`, clamped to 0…1. NaN maps to 0, so no NaN ever reaches a waveform.
    public static func normalise(_ decibels: Float) -> Float {
        // `!(x > floor)` is true for NaN too.
        guard decibels > floorDecibels else { return 0 }
        guard decibels < ceilingDecibels else { return 1 }
        return (decibels - floorDecibels) / (ceilingDecibels - floorDecibels)
    }

    /// `normalise` applied to each value; `[]` gives `[]`.
    public static func normalise(_ decibels: [Float]) -> [Float] {
        decibels.map { normalise($0) }
    }
}
