import VoiceNoteRecorder

/// The states of the recording flow.
public enum FlowState: Int32, Sendable {
    /// Nothing happens; the record button waits.
    case idle = 0
    /// The button was tapped, not held: the tip ("hold to record, release to send") shows for a while.
    case showingTip = 1
    /// A take runs while the button is held (or, in toggle mode, until the next press).
    case recording = 2
    /// A take runs with no finger on the button; the view offers discard, stop and send.
    case locked = 3
    /// The finished take waits: it can be played, trimmed, discarded or sent.
    case preview = 4
}

/// A finished take as the flow holds it (the recorder module's: its editor makes them).
public typealias FlowTake = RecordedTake

/// Everything a view draws for the flow, as of one event.
public struct FlowView: Equatable, Sendable {
    public var state = FlowState.idle
    /// Seconds recorded so far (recording, locked) or the take's length (preview); 0 otherwise.
    public var duration = 0.0
    /// The last live levels of the running take, oldest first, 0…1.
    public var levels: [Float] = []
    /// The "slide to cancel" label's alpha: 1 at the press point, 0 at the cancel distance.
    public var slideToCancelAlpha = 1.0
    /// The lock's padding in pixels above its resting place, and the chevron's alpha above it.
    public var lockPadding = SlideGesture.minimumLockPadding
    public var chevronAlpha = 1.0
    /// Whether the tip shows.
    public var tipVisible = false
    /// In preview: where the player is in the take, and whether it plays.
    public var previewPosition = 0.0
    public var previewPlaying = false
    /// In preview: the take's waveform.
    public var waveform: [Float] = []
    /// In preview: the part of the take that will be sent (0…duration unless trimmed).
    public var trimStart = 0.0
    public var trimEnd = 0.0
    /// Whether the take was started in toggle mode (locked at once; the next press stops it).
    public var toggled = false
    /// What a screen reader says for this view.
    public var accessibleDescription = FlowView.describe(state: .idle, duration: 0, toggled: false, position: 0, playing: false)

    public init() {}

    /// The accessible description of a view: the state, the time, and what the user can do.
    static func describe(state: FlowState, duration: Double, toggled: Bool, position: Double, playing: Bool) -> String {
        switch state {
        case .idle: "Record a voice message: hold to record"
        case .showingTip: "Hold to record, release to send"
        case .recording where toggled: "Recording, \(clock(duration)), press again to stop"
        case .recording: "Recording, \(clock(duration)), slide left to cancel, slide up to lock"
        case .locked where toggled: "Recording, \(clock(duration)), press again to stop; discard or send"
        case .locked: "Recording locked, \(clock(duration)); stop, discard or send"
        case .preview where playing: "Voice message, \(clock(duration)), playing at \(clock(position))"
        case .preview: "Voice message, \(clock(duration)), ready to send; play, trim, discard or send"
        }
    }

    /// Seconds as m:ss (0:07, 12:30), rounded down.
    static func clock(_ seconds: Double) -> String {
        let whole = seconds.isFinite ? Int(max(0, seconds)) : 0
        let remainder = whole % 60
        return "\(whole / 60):\(remainder < 10 ? "0" : "")\(remainder)"
    }
}
