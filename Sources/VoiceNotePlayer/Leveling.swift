import Glibc
import VoiceNoteCore
import VoiceNoteWaveform

/// Levelled playback (docs/loudness.md): every note played at one loudness, `target` LUFS plus the host's `offset`
/// (the "louder for this contact" knob), its peaks held under −1 dBTP by a true-peak limiter.
///
/// A note's gain is `target − integrated loudness + offset`, at most +30 dB, known before its first frame: from the
/// loudness the host gave with the load (a payload's, which the sender measured), else from a pre-pass over the
/// note's first `preScanSeconds` (decoded once: those frames then play). It stays for the note: levelling never moves
/// the level mid-note (a change of the settings ramps over 50 ms). A silent note, or one with nothing above the
/// −70 LUFS gate in its first seconds, gets the offset alone: no gain explosion.
public struct Leveling: Sendable, Equatable {
    /// The default target, −19 LUFS: what the AES streaming recommendation (TD1004) and podcast practice give mono
    /// speech — a mono note comes out of both speakers, so it sounds as loud as a −16 LUFS stereo programme — and it
    /// leaves the limiter 3 dB less to do on speech, whose peaks stand some 20 dB above its loudness (at −16 the
    /// limiter took up to 1.2 LU off espeak-ng's notes).
    public static let defaultTarget = -19.0
    /// The targets accepted, LUFS.
    public static let targetRange = -30.0 ... -10.0
    /// The offsets accepted, dB.
    public static let offsetRange = -12.0...12.0
    /// The most gain levelling gives a quiet note, dB (a −49 LUFS whisper reaches −19 LUFS).
    public static let maximumGain = 30.0
    /// The true peak the output stays under, dBTP.
    public static let ceiling = -1.0
    /// The limiter's own ceiling, 0.5 dB under `ceiling`: room for the time stretcher and the device's resampler.
    public static let limiterCeiling = -1.5
    /// How much of a note whose loudness was not given is measured before it plays, seconds.
    public static let preScanSeconds = 3.0

    /// Whether levelling is on.
    public var enabled: Bool
    /// The loudness every note is played at, LUFS (`targetRange`).
    public var target: Double
    /// Added to every note's gain, dB (`offsetRange`).
    public var offset: Double

    /// Levelling off: notes play as recorded (the default; bit-exact to a player without levelling).
    public static let off = Leveling(enabled: false)

    /// Makes settings (unchecked: `check()` refuses values out of range).
    public init(enabled: Bool = true, target: Double = Self.defaultTarget, offset: Double = 0) {
        self.enabled = enabled
        self.target = target
        self.offset = offset
    }

    /// Throws `.invalidArgument`, naming the range, for a target or offset out of range (or not a number).
    public func check() throws(VoiceNoteError) {
        guard Self.targetRange.contains(target) else {
            throw VoiceNoteError(.invalidArgument, "levelling target \(target) LUFS is outside -30…-10")
        }
        guard Self.offsetRange.contains(offset) else {
            throw VoiceNoteError(.invalidArgument, "levelling offset \(offset) dB is outside -12…12")
        }
    }

    /// The gain for a note of `loudness`, dB: target − integrated + offset, at most `maximumGain`; the offset alone
    /// for a silent or unknown note.
    public func gain(for loudness: Loudness?) -> Double {
        guard let loudness, !loudness.isSilent, loudness.integrated.isFinite else { return offset }
        return min(Self.maximumGain, target - loudness.integrated + offset)
    }

    /// `10^(decibels/20)`.
    static func amplitude(ofDecibels decibels: Double) -> Double { exp(decibels / 20 * 2.302585092994046) }
}
