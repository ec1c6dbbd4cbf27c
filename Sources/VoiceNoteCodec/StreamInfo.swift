import VoiceNoteCore

/// Facts about an audio stream, read without decoding it all where the format allows.
public struct StreamInfo: Sendable, Equatable {
    /// Codec name as FFmpeg names it: "opus", "aac", "mp3", "pcm_s16le", "flac", "vorbis", ...
    public var codec: String
    /// The stream's sample rate in Hz (48000 for Opus, whatever the encoder's input was).
    public var sampleRate: Int
    /// Channels in the stream.
    public var channels: Int
    /// Duration in seconds; 0 when unknown.
    public var duration: Double
    /// Whether `duration` is an estimate (ADTS, MP3 without a Xing header: from the bitrate).
    public var durationIsEstimate: Bool
    /// Average bitrate in bits per second; 0 when unknown.
    public var bitrate: Int

    /// Makes stream facts.
    public init(codec: String, sampleRate: Int, channels: Int, duration: Double, durationIsEstimate: Bool, bitrate: Int) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
        self.duration = duration
        self.durationIsEstimate = durationIsEstimate
        self.bitrate = bitrate
    }
}
