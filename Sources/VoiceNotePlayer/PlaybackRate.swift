import VoiceNoteCore

/// How fast a note plays: seconds of the note per second heard, with the pitch kept (libsonic, `TimeStretcher`).
/// Validated once, on the caller's thread, so the decoder thread only ever sees a rate it can use.
public struct PlaybackRate: Sendable, Hashable, CustomStringConvertible {
    /// The slowest rate: half speed.
    public static let minimum = 0.5
    /// The fastest rate: two and a half times as fast.
    public static let maximum = 2.5
    /// Normal speed: the stretcher passes audio through untouched.
    public static let normal = PlaybackRate(unchecked: 1)

    /// The rate, in `minimum…maximum`.
    public let value: Double

    /// Makes a rate.
    /// - Throws: `VoiceNoteError(.invalidArgument)` for NaN, infinities and rates outside 0.5…2.5.
    public init(_ value: Double) throws(VoiceNoteError) {
        guard value.isFinite, value >= Self.minimum, value <= Self.maximum else {
            throw VoiceNoteError(.invalidArgument, "playback rate \(value) is outside 0.5…2.5")
        }
        self.value = value
    }

    private init(unchecked value: Double) {
        self.value = value
    }

    /// `"1.5×"`.
    public var description: String { "\(value)×" }
}
