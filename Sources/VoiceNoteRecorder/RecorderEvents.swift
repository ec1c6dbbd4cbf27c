import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform

/// Stream's `AudioRecordingState`.
public enum RecorderState: Int32, Sendable {
    /// Not recording (initial, and after stop or cancel).
    case stopped = 0
    /// Capturing.
    case recording = 1
    /// Paused: the device is closed to capture, the take is whole on disk.
    case paused = 2
}

/// Stream's `AudioRecordingContext`, plus peak power, overruns and the path being written.
public struct RecorderContext: Sendable, Equatable {
    /// The state.
    public var state = RecorderState.stopped
    /// Seconds captured in this take (frames / rate), paused time excluded.
    public var duration = 0.0
    /// RMS level of the last meter window, 0…1 (docs/waveform.md).
    public var averagePower: Float = 0
    /// Peak level of the last meter window, 0…1.
    public var peakPower: Float = 0
    /// ALSA overruns in this take (counted; they never end a take).
    public var overruns = 0
    /// The file being written (`.part` while recording); empty when none.
    public var path = ""
}

/// A finished take.
public struct RecordingResult: Sendable, Equatable {
    /// The final file (`<UUID>.ogg` or `.aac`).
    public var path: String
    /// Seconds of audio in it.
    public var duration: Double
    /// Bytes on disk.
    public var size: Int64
    /// The 100-value waveform (docs/recorder.md, "the waveform of a take").
    public var waveform: [Float]
    /// Its format.
    public var format: RecordingFormat
    /// Its loudness, measured as it was encoded; nil where it could not be.
    public var loudness: Loudness?

    /// Makes a result.
    public init(path: String, duration: Double, size: Int64, waveform: [Float], format: RecordingFormat,
                loudness: Loudness? = nil) {
        self.path = path
        self.duration = duration
        self.size = size
        self.waveform = waveform
        self.format = format
        self.loudness = loudness
    }
}

/// What a recorder tells its subscribers.
public enum RecorderEvent: Sendable, Equatable {
    /// A state change or a meter/duration step (steps coalesce for slow subscribers).
    case context(RecorderContext)
    /// A take was finished and kept.
    case finished(RecordingResult)
    /// Something failed; after a device loss or a full disk, `finished` came first with what was kept.
    case failed(VoiceNoteError)
    /// The take will reach its maximum length in `remaining` seconds.
    case maximumDurationWarning(remaining: Double)
    /// The take reached its maximum length; it is being finished (a `finished` event follows).
    case maximumDurationReached
    /// The take was shorter than the minimum and was discarded.
    case tooShort(duration: Double)
    /// The capture source was lost mid-take (`lost`: why) and the take goes on from `device`, the fallback source
    /// (`RecorderConfiguration.fallbackDevice`): nothing captured before is lost, and nothing after but the gap while
    /// the fallback opened.
    case sourceChanged(device: String, lost: VoiceNoteError)
}
