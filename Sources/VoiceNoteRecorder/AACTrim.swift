#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// Cuts an AAC (ADTS) take to a range by decoding it and encoding the range again with the recorder's encoder: AAC
/// frames cannot be cut apart, and each depends on the one before. The range is cut sample-exact at the stream's
/// rate; the new file, like every AAC take, starts with the encoder's 1024-sample priming and ends on a whole frame,
/// so it decodes to that much more. It is written beside the take and renamed over it once complete and synced, so
/// a crash mid-trim leaves the original whole.
public enum AACTrim {
    /// Rewrites the AAC take at `path` to hold seconds `start` ..< `end` of its audio, encoded at `bitrate`.
    /// - Returns: the new file's length in seconds, as `Decoders.info` reads it (priming included).
    /// - Throws: `.invalidArgument` for a range that is not finite, empty or outside the take; `.format` for a file
    ///   that does not decode; `.cancelled` at the next decoded chunk once `cancellation` is set; file statuses (the
    ///   original is untouched then).
    @discardableResult
    public static func trim(_ path: String, start: Double, end: Double, bitrate: Int = 32_000,
                            cancellation: CancellationFlag? = nil) throws(VoiceNoteError) -> Double {
        guard start.isFinite, end.isFinite, start >= 0, end > start, end < 1e7 else {
            throw VoiceNoteError(.invalidArgument, "a trim range is 0 ≤ start < end, finite, in seconds; not \(start)…\(end)")
        }
        let decoder = try Decoders.open(try FileSource(path: path), purpose: .playback)
        let rate = decoder.outputRate, channels = decoder.outputChannels
        let first = Int64((start * Double(rate)).rounded()), last = Int64((end * Double(rate)).rounded())
        return try RecordingEncoders.replace(path, partSuffix: ".trim", format: .aac, inputRate: rate,
                                             channels: channels, settings: EncoderSettings(bitrate: bitrate)) { (encoder) throws(VoiceNoteError) in
            var position: Int64 = 0
            var kept: [Int16] = []
            while position < last {
                try cancellation?.check("the trim of \(path)")
                kept.removeAll(keepingCapacity: true)
                let more = try decoder.decodeNext { chunk in
                    let frames = Int64(chunk.frames)
                    let from = max(first, position), to = min(last, position + frames)
                    if from < to {
                        kept.append(contentsOf: chunk.samples[Int(from - position) * channels ..< Int(to - position) * channels])
                    }
                    position += frames
                }
                try kept.withUnsafeBufferPointer { samples throws(VoiceNoteError) in try encoder.write(samples) }
                if !more { break }
            }
            guard position > first else {
                throw VoiceNoteError(.invalidArgument, "\(path) holds \(Double(position) / Double(rate)) s; the trim starts at \(start) s")
            }
        }
    }
}
