/// A finished take as an editor hands it on: its file, length, waveform and `voiceRecording` payload.
public struct RecordedTake: Equatable, Sendable {
    /// The file.
    public var path: String
    /// Seconds of audio.
    public var duration: Double
    /// Its waveform (as many values as asked for, 0…1).
    public var waveform: [Float]
    /// Stream's `voiceRecording` payload of the file before upload (`asset_url` its `file://` URL), as JSON; empty
    /// when the file could not be read back.
    public var payloadJSON: String

    /// A take with these values.
    public init(path: String, duration: Double, waveform: [Float], payloadJSON: String = "") {
        self.path = path
        self.duration = duration
        self.waveform = waveform
        self.payloadJSON = payloadJSON
    }
}
