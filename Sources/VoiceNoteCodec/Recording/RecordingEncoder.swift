import VoiceNoteCore
import VoiceNoteSources

/// How a recording is encoded (docs/formats.md: 32 kbit/s, complexity 10, 20 ms frames).
public struct EncoderSettings: Sendable, Equatable {
    /// The bitrates a recording may be made at, in bits per second.
    public static let bitrates = 6_000...256_000
    /// The Opus complexities.
    public static let complexities = 0...10
    /// The Opus frame durations, in milliseconds.
    public static let frameDurations: [Double] = [2.5, 5, 10, 20, 40, 60]

    /// Target bitrate in bits per second: Opus VBR average, AAC (nearly constant) rate. In `bitrates`.
    public var bitrate: Int = 32_000
    /// Opus encoder complexity, 0 (fastest) ... 10 (best). AAC ignores it.
    public var complexity: Int = 10
    /// Opus frame duration in milliseconds: 2.5, 5, 10, 20, 40 or 60. AAC ignores it (1024-sample frames).
    public var frameMilliseconds: Double = 20

    /// Settings with the defaults of docs/formats.md unless given.
    public init(bitrate: Int = 32_000, complexity: Int = 10, frameMilliseconds: Double = 20) {
        self.bitrate = bitrate
        self.complexity = complexity
        self.frameMilliseconds = frameMilliseconds
    }

    /// Throws `.invalidArgument`, naming the allowed values, for settings no encoder accepts.
    public func check() throws(VoiceNoteError) {
        guard Self.bitrates.contains(bitrate) else {
            throw VoiceNoteError(.invalidArgument, "bitrate \(bitrate) is outside \(Self.bitrates.lowerBound)…\(Self.bitrates.upperBound) bit/s")
        }
        guard Self.complexities.contains(complexity) else {
            throw VoiceNoteError(.invalidArgument, "complexity \(complexity) is outside 0…10")
        }
        guard Self.frameDurations.contains(frameMilliseconds) else {
            throw VoiceNoteError(.invalidArgument, "frame duration \(frameMilliseconds) ms is not 2.5, 5, 10, 20, 40 or 60")
        }
    }
}

/// The formats a recording is written in (docs/formats.md).
public enum RecordingFormat: String, Sendable, CaseIterable {
    /// Ogg Opus (RFC 7845) through libopusenc: the default.
    case opus
    /// AAC-LC in ADTS through FFmpeg's native `aac` encoder: what Stream's own apps send.
    case aac

    /// The file extension, without the dot: "ogg" or "aac".
    public var fileExtension: String {
        switch self {
        case .opus: "ogg"
        case .aac: "aac"
        }
    }

    /// The MIME type: "audio/ogg" or "audio/aac".
    public var mimeType: String {
        switch self {
        case .opus: "audio/ogg"
        case .aac: "audio/aac"
        }
    }
}

/// An encoder writing one recording file with write(2) as it goes, so that what reached the disk is always a
/// decodable prefix of the take (docs/recorder.md, "why nothing captured is lost"). Used by one thread at a time (the recorder's
/// encoder thread); not for concurrent use.
///
/// Errors: a full disk or file-size limit (ENOSPC, EFBIG, EDQUOT) is `.noSpace`, any other write failure `.io`.
/// After such a failure the file is cut back to its last whole page or frame and nothing more is written: `write`
/// and `flush` throw the same error again, and `finish` closes the file as a finished recording of what fitted.
/// Deinitialising an encoder that was not finished closes the file as it is (a `.part` that
/// `RecordingRecovery` repairs).
public protocol RecordingEncoder: AnyObject {
    /// Encodes interleaved 16-bit samples at the input rate (`count` a multiple of the channel count; an empty
    /// buffer is fine). Ready pages or frames are written before it returns. `.misuse` after `finish`.
    func write(_ pcm: UnsafeBufferPointer<Int16>) throws(VoiceNoteError)
    /// For a pause: every packet encoded so far reaches the disk as a complete page or frame, and is synced.
    /// Input shorter than one codec frame stays buffered until the next write or `finish`.
    func flush() throws(VoiceNoteError)
    /// Ends the stream (end-of-stream page, last frames), syncs and closes the file. Idempotent: later calls
    /// return at once, whether the first one succeeded or threw. A take given no samples at all is finished as
    /// one sample of silence, so the file is still a stream every player opens.
    func finish() throws(VoiceNoteError)
    /// Bytes in the file: whole pages or frames written so far.
    var bytesWritten: Int64 { get }
    /// Input frames accepted by `write`.
    var framesWritten: Int64 { get }
}

/// Makes the encoder for a format.
public enum RecordingEncoders {
    /// Input rates accepted: libopusenc resamples any of them to 48 kHz itself; the file header keeps the real one.
    public static let inputRates = 8_000...192_000
    /// Bitrates accepted, bits per second.
    public static let bitrates = 500...512_000

    /// Creates `path` (which must not exist: O_EXCL) and an encoder writing `format` into it from interleaved int16
    /// at `inputRate` with `channels` (1 or 2). `onWritten` sees the bytes of each unit (an Ogg page, ADTS frames)
    /// once it is on disk, on the thread that writes (from `write`, `flush` and `finish`).
    ///
    /// - Throws: `.invalidArgument` for channels, rate or settings out of range; for the file, the status of its
    ///   errno (`.notFound` for a missing directory, `.permission`, `.noSpace`, `.io` when it exists already);
    ///   `.internal` when the codec library refuses valid settings.
    public static func create(_ format: RecordingFormat, path: String, inputRate: Int, channels: Int,
                              settings: EncoderSettings,
                              onWritten: ((UnsafeRawBufferPointer) -> Void)? = nil) throws(VoiceNoteError) -> any RecordingEncoder {
        guard channels == 1 || channels == 2 else {
            throw VoiceNoteError(.invalidArgument, "recording channels must be 1 or 2, not \(channels)")
        }
        guard inputRates.contains(inputRate) else {
            throw VoiceNoteError(.invalidArgument, "recording input rate \(inputRate) Hz is outside \(inputRates)")
        }
        guard bitrates.contains(settings.bitrate) else {
            throw VoiceNoteError(.invalidArgument, "bitrate \(settings.bitrate) bit/s is outside \(bitrates)")
        }
        switch format {
        case .opus:
            let encoder = try OpusRecordingEncoder(path: path, inputRate: inputRate, channels: channels, settings: settings)
            encoder.file.onAppend = onWritten
            return encoder
        case .aac:
            let encoder = try AACRecordingEncoder(path: path, inputRate: inputRate, channels: channels, settings: settings)
            encoder.file.onAppend = onWritten
            return encoder
        }
    }
}

extension RecordingEncoders {
    /// Writes a new recording over `path` through a part file beside it (`<path><partSuffix>.<random>.part`, the name
    /// shortened to fit NAME_MAX when `path`'s own is near it; its own for
    /// each call, so two calls writing the same path never touch each other's part): `body` feeds the encoder; once
    /// it returns, the encoder is flushed (a write failure `body` did not pass on is thrown there), the file
    /// finished, synced and read back, and only then renamed over `path`. When anything throws, the part is removed
    /// and whatever was at `path` is untouched. A crash leaves the part, never a damaged `path`.
    /// - Returns: the new file's length in seconds, as `Decoders.info` reads it.
    public static func replace(_ path: String, partSuffix: String, format: RecordingFormat, inputRate: Int,
                               channels: Int, settings: EncoderSettings,
                               _ body: (any RecordingEncoder) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) -> Double {
        let part = partPath(for: path, suffix: "\(partSuffix).\(randomUUIDString().prefix(8)).part")
        let encoder = try create(format, path: part, inputRate: inputRate, channels: channels, settings: settings)
        do throws(VoiceNoteError) {
            try body(encoder)
            try encoder.flush()  // throws a failed write again: a truncated file is never renamed over `path`
            try encoder.finish()
            let duration = try Decoders.info(of: FileSource(path: part)).duration
            try FileSystem.rename(part, to: path)
            return duration
        } catch {
            try? encoder.finish()
            try? FileSystem.remove(part)
            throw error
        }
    }
}

/// `path` with `suffix` added to its last component, whose name is first cut (at a character) so that the whole
/// stays within NAME_MAX: an output named near the limit must not fail for its part file's name.
func partPath(for path: String, suffix: String) -> String {
    let nameMaximum = 255  // NAME_MAX on every Linux file system a note is written to
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    var name = Substring(path[slash...])
    while name.utf8.count + suffix.utf8.count > nameMaximum, !name.isEmpty { name.removeLast() }
    return path[..<slash] + name + suffix
}

/// The checks and the loop every encoder's `write` shares: throws `failure` (the encoder's stored codec or file
/// error) again, refuses a sample count that is not whole `channels`-sample frames, then hands `body` the frames
/// in pieces of at most `chunk` frames (pages are written between pieces, so a long buffer never piles up
/// output in memory).
func forEachChunk(of pcm: UnsafeBufferPointer<Int16>, channels: Int, chunk: Int, failure: VoiceNoteError?,
                  _ body: (UnsafePointer<Int16>, Int) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
    if let failure { throw failure }
    guard pcm.count % channels == 0 else {
        throw VoiceNoteError(.invalidArgument, "\(pcm.count) samples is not a whole number of \(channels)-channel frames")
    }
    guard let base = pcm.baseAddress else { return }
    let frames = pcm.count / channels
    var done = 0
    while done < frames {
        let count = min(frames - done, chunk)
        try body(base + done * channels, count)
        done += count
    }
}
