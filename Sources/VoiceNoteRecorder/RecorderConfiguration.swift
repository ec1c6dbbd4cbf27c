import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore

/// Everything a recorder can be configured with; the defaults are those of docs/formats.md.
public struct RecorderConfiguration: Sendable {
    /// Where takes are written (`<UUID>.ogg.part`, renamed on stop). Created when missing. The default must be the
    /// user's own (`FileSystem.makeOwnedDirectory`: with no `HOME` it is under `/tmp`, where another user could have
    /// made it first); a directory the host names is the host's to choose.
    public var directory = RecorderConfiguration.defaultDirectory

    /// `$XDG_CACHE_HOME/voicenote/recordings` (else `~/.cache/voicenote/recordings`, else under `/tmp`).
    public static var defaultDirectory: String { FileSystem.cacheDirectory("recordings") }
    /// The capture device.
    public var device = DeviceSelection()
    /// Where a take goes on when its capture source is lost mid-take (a USB microphone unplugged, a Bluetooth headset
    /// gone): opened at the take's rate and channel count, into the same take, with a `sourceChanged` event; nil: a
    /// loss finishes the take cleanly with what was captured, as for a fixed device. Until set, it is the system's
    /// default device when `device` is the default too, else nil (a device the host chose is a fixed device). A
    /// fallback with no role of its own is opened with `device`'s.
    public var fallbackDevice: DeviceSelection? {
        get {
            chosenFallback ?? (device.name == "default" && device.configuration == nil
                ? DeviceSelection(role: device.role) : nil)
        }
        set { chosenFallback = .some(newValue) }
    }
    /// The host's own `fallbackDevice`: nil until set (then the default above applies).
    private var chosenFallback: DeviceSelection??
    /// Ogg Opus (default) or AAC-LC in ADTS.
    public var format = RecordingFormat.opus
    /// Encoder bitrate, complexity and frame size.
    public var encoder = EncoderSettings()
    /// Seconds of captured audio between meter steps (context events with levels).
    public var meterInterval = 0.1
    /// Seconds of captured audio between duration steps.
    public var durationInterval = 0.5
    /// Longest take in seconds; 0 = no limit. The take is stopped and finished at exactly this many frames.
    public var maximumDuration = 3600.0
    /// How long before the maximum the warning event comes, in seconds.
    public var maximumDurationWarning = 10.0
    /// Shorter takes are discarded with a `tooShort` event; 0 keeps everything.
    public var minimumDuration = 0.0
    /// Voice cleanup (docs/recorder.md, "Voice cleanup"): a high-pass against rumble, noise suppression and
    /// automatic gain for quiet voices, before the encoder, with speexdsp (loaded on first use). Off by default: a
    /// take is then the captured samples bit for bit, as before cleanup existed, and a host whose sound server already
    /// cleans the microphone (PipeWire's echo-cancel, a headset's own processing) does not clean twice.
    /// `Recorder.setVoiceCleanup` changes it between takes.
    public var voiceCleanup = false
    /// The host's session hooks.
    public var sessionHooks = SessionHooks()
    /// The audio-focus group the recorder joins (beginning a take pauses its players; a player starting pauses the
    /// take); nil joins none.
    public var focusGroup: FocusGroup? = .shared

    /// The defaults.
    public init() {}

    /// The longest duration any limit may name, in seconds (about 11.5 days): far beyond any voice message, small
    /// enough that its frame count fits an integer at every rate.
    public static let longestLimit = 1_000_000.0

    /// Throws `.invalidArgument`, naming the allowed range, for values no recorder can honour.
    public func check() throws(VoiceNoteError) {
        // Steps shorter than 10 ms would make an event and a kept level per handful of frames.
        guard (0.01...10).contains(meterInterval) else {
            throw VoiceNoteError(.invalidArgument, "meter interval \(meterInterval) s is outside 0.01…10 seconds")
        }
        guard (0.01...60).contains(durationInterval) else {
            throw VoiceNoteError(.invalidArgument, "duration interval \(durationInterval) s is outside 0.01…60 seconds")
        }
        let limits = 0...Self.longestLimit
        for (name, value) in [("maximum duration", maximumDuration), ("maximum-duration warning", maximumDurationWarning),
                              ("minimum duration", minimumDuration)] where !limits.contains(value) {
            throw VoiceNoteError(.invalidArgument, "\(name) \(value) s is outside 0…\(Int(Self.longestLimit)) seconds")
        }
        try encoder.check()
        guard !directory.isEmpty else { throw VoiceNoteError(.invalidArgument, "the recordings directory is empty") }
    }
}
