import VoiceNoteCore

/// The player's software volume: a gain in 0…1 applied to the samples (`Gain`), never the device's mixer.
public struct Volume: Sendable, Hashable, CustomStringConvertible {
    /// Full volume: samples pass unchanged.
    public static let full = Volume(unchecked: 1)
    /// Silence.
    public static let mute = Volume(unchecked: 0)

    /// The gain, in 0…1.
    public let value: Double

    /// Makes a volume.
    /// - Throws: `VoiceNoteError(.invalidArgument)` for NaN, infinities and values outside 0…1.
    public init(_ value: Double) throws(VoiceNoteError) {
        guard value.isFinite, value >= 0, value <= 1 else {
            throw VoiceNoteError(.invalidArgument, "volume \(value) is outside 0…1")
        }
        self.value = value
    }

    private init(unchecked value: Double) {
        self.value = value
    }

    /// `"0.5"`.
    public var description: String { "\(value)" }
}
