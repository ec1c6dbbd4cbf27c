
/// A note's loudness by EBU R128 / ITU-R BS.1770 (docs/loudness.md): what the player's levelling needs to play every
/// note at one loudness, measured by libebur128 in the waveform's decode pass (`LoudnessMeter`).
public struct Loudness: Sendable, Equatable, Hashable {
    /// Integrated (programme) loudness in LUFS, gated at −70 LUFS absolute and −10 LU relative;
    /// `-infinity` when nothing is above the absolute gate (a silent note).
    public var integrated: Double
    /// Loudness range in LU (the spread of the short-term loudness, 10th to 95th percentile); 0 for a note shorter
    /// than one 3 s window or a silent one.
    public var range: Double
    /// True peak in dBTP (the highest level between samples, 4× oversampled below 96 kHz); `-infinity` for digital
    /// silence.
    public var truePeak: Double

    /// The loudness of a note with nothing above the gate.
    public static let silent = Loudness(integrated: -.infinity, range: 0, truePeak: -.infinity)

    /// Makes a loudness from its three figures (unchecked: `check()` range-checks figures from outside).
    public init(integrated: Double, range: Double, truePeak: Double) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
    }

    /// Whether nothing of the note is above the −70 LUFS gate.
    public var isSilent: Bool { !integrated.isFinite }

    /// The plausible figures: integrated −70…+10 LUFS or `-infinity`, range 0…100 LU, true peak −200…+40 dBTP or
    /// `-infinity`. What a payload or a cache file carries is checked with it before it sets a gain.
    public static let integratedRange = -70.0...10.0
    /// See `integratedRange`.
    public static let rangeRange = 0.0...100.0
    /// See `integratedRange`.
    public static let truePeakRange = -200.0...40.0

    /// Whether every figure is plausible (`integratedRange`, `rangeRange`, `truePeakRange`; `-infinity` allowed for
    /// the integrated loudness and the true peak, never NaN or `+infinity`).
    public var isPlausible: Bool {
        (integrated == -.infinity || Self.integratedRange.contains(integrated))
            && Self.rangeRange.contains(range)
            && (truePeak == -.infinity || Self.truePeakRange.contains(truePeak))
    }
}
