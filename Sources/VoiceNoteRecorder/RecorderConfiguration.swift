import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore

/// Everything a recorder can be configured with; the defaults are SPEC §1's.
public struct RecorderConfiguration: Sendable {
    /// Where takes are written (`<UUID>.ogg.part`, renamed on stop). Created when missing.
    public var directory = FileSystem.cacheDirectory("recordings")
    /// The capture device.
    public var device = DeviceSelection()
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
    /// The host's session hooks.
    public var sessionHooks = SessionHooks()

    /// The defaults.
    public init() {}

    /// Throws `.invalidArgument` for values no recorder can honour.
    public func check() throws(VoiceNoteError) {
        guard meterInterval > 0, meterInterval <= 10, durationInterval > 0, durationInterval <= 60 else {
            throw VoiceNoteError(.invalidArgument, "meter and duration intervals must be in (0, 10] and (0, 60] seconds")
        }
        guard maximumDuration >= 0, maximumDurationWarning >= 0, minimumDuration >= 0,
              maximumDuration.isFinite, minimumDuration.isFinite else {
            throw VoiceNoteError(.invalidArgument, "durations must be finite and not negative")
        }
        guard !directory.isEmpty else { throw VoiceNoteError(.invalidArgument, "the recordings directory is empty") }
    }
}
