import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteNetwork

/// Everything a player can be configured with; the defaults are those of docs/player.md.
public struct PlayerConfiguration: Sendable {
    /// The playback device.
    public var device = DeviceSelection()
    /// The host's session hooks: `activate(.playback)` before the player starts sounding (it may refuse: `.busy`),
    /// `deactivate(.playback)` after it stopped sounding and closed the device.
    public var sessionHooks = SessionHooks()
    /// The audio-focus group the player joins (playing pauses the group's other players and a take that is
    /// recording; beginning a take pauses this player); nil joins none.
    public var focusGroup: FocusGroup? = .shared
    /// Seconds of played (output) audio between progress steps.
    public var progressInterval = 0.1
    /// How many locations' resume positions are kept (least recently used go first); 0 keeps none.
    public var resumePositionLimit = 256
    /// Where positions are also kept across players and processes (by default `ResumeStore.shared`, under the
    /// cache directory): written as the player pauses, leaves an item or is destroyed, forgotten at a stop or the
    /// end, read when a location loads. Nil keeps them in this player only.
    public var resumeStore: ResumeStore? = .shared
    /// A queue player's return (Element's rule): when a load interrupts a playing item and the loaded one plays to
    /// its end, the interrupted item plays again from where it was left, before the queue goes on.
    public var returnsToInterrupted = true
    /// The media cache URLs are played through.
    public var mediaCache = MediaCache.shared
    /// What a queue's back-off between failed loads is measured on (a `ManualClock` ends it inside `advance`).
    /// Audio is paced by the device, never by this clock.
    public var clock: any VoiceNoteClock = MonotonicClock.shared

    /// The defaults.
    public init() {}

    /// Throws `.invalidArgument`, naming the allowed range, for values no player can honour.
    public func check() throws(VoiceNoteError) {
        guard (0.01...10).contains(progressInterval) else {
            throw VoiceNoteError(.invalidArgument, "progress interval \(progressInterval) s is outside 0.01…10 seconds")
        }
        guard (0...100_000).contains(resumePositionLimit) else {
            throw VoiceNoteError(.invalidArgument, "resume-position limit \(resumePositionLimit) is outside 0…100000")
        }
    }
}
