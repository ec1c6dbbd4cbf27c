import VoiceNoteCore

/// A source whose bytes are still arriving (an HTTP download): decoders that can start before the end (Ogg Opus
/// playback) ask it what has arrived, so they neither wait for the whole file nor read past what is there when
/// they need not. Every other source is complete from the start.
public protocol ArrivingSource: ByteSource {
    /// Bytes from offset 0 that have arrived without a gap: reads below this never wait.
    var contiguousBytes: Int64 { get }
    /// Whether every byte has arrived.
    var isComplete: Bool { get }
    /// The share of the resource that has arrived, 0…1 (0 while the size is unknown, 1 once complete).
    var arrivedFraction: Double { get }
    /// Whether a read far ahead of the download is fetched at once with a range request (false: it waits for the
    /// download to get there). Waits for the response headers, like `size`.
    var seeksByRange: Bool { get }
}
