import VoiceNoteCore
import VoiceNoteSources

/// The exact length of a stream of self-describing frames (ADTS AAC, MPEG audio without a Xing tag), counted from
/// their headers without decoding: each header gives the frame's length in bytes and its samples, so walking from
/// header to header sums every sample the decoder will output. FFmpeg's demuxers only estimate these lengths from
/// the bitrate (9.91 s for an ADTS note that decodes to 10.03 s; tags after the audio add to the estimate), and
/// the estimate would reach every receiver through the payload's `duration`.
///
/// The walk reads the source in 64 KiB pieces (bounded memory, whatever the file's size), skips an ID3v2 tag in
/// front and the tags after the audio (`TrailingTags`), and must land exactly where the audio ends; a frame cut
/// short by the end of the file counts as its format's decoder treats it. Anything else (bytes that are not a
/// header between frames, a change of rate) means the length is not known exactly: nil, and FFmpeg's estimate stands.
struct FrameCount: Equatable {
    /// Samples per channel the frames hold.
    let samples: Int64
    /// The sample rate the headers state.
    let sampleRate: Int
    /// The bytes of the frames counted; 0 when the length was not counted from frames (an MP3's length tag).
    var bytes: Int64 = 0

    /// One frame, as its header describes it.
    struct Frame {
        /// The frame's length in bytes, header included.
        let bytes: Int64
        /// Samples per channel it decodes to.
        let samples: Int64
        let sampleRate: Int
    }

    private static let pieceBytes = 64 * 1024

    /// Counts the frames of `source` from its start, then puts its position back.
    /// - Parameters:
    ///   - headerBytes: the bytes `parse` needs.
    ///   - cutFrameDecodes: whether the decoder outputs a last frame the end of the file cuts short (MP3's does,
    ///     AAC's drops it).
    ///   - parse: the frame a header describes, or nil when the bytes are not a header.
    static func count(_ source: ByteSource, headerBytes: Int, cutFrameDecodes: Bool,
                      parse: ([UInt8]) -> Frame?) throws(VoiceNoteError) -> FrameCount? {
        guard let size = source.size else { return nil }
        let resume = source.position
        defer { try? source.seek(to: resume) }
        var reader = Reader(source: source)
        guard let head = try reader.bytes(at: 0, count: 10) else { return nil }
        var offset = TrailingTags.id3v2Size(head[...])
        let audioEnd = try TrailingTags.start(of: source, size: size, audioStart: offset)
        var samples: Int64 = 0
        var bytes: Int64 = 0
        var rate: Int?
        while offset < audioEnd {
            guard let header = try reader.bytes(at: offset, count: headerBytes), header.count == headerBytes,
                  let frame = parse(header), frame.bytes > 0, rate == nil || rate == frame.sampleRate else { return nil }
            rate = frame.sampleRate
            if offset + frame.bytes > audioEnd {
                guard audioEnd == size else { return nil }  // a frame running into a tag
                if cutFrameDecodes {
                    samples += frame.samples
                    bytes += audioEnd - offset
                }
                break
            }
            samples += frame.samples
            bytes += frame.bytes
            offset += frame.bytes
        }
        guard let rate, samples > 0 else { return nil }
        return FrameCount(samples: samples, sampleRate: rate, bytes: bytes)
    }

    /// Reads a source forward through one reused piece of `pieceBytes`.
    private struct Reader {
        let source: ByteSource
        var piece: [UInt8] = []
        var pieceStart: Int64 = 0

        init(source: ByteSource) { self.source = source }

        /// `count` bytes at `offset` (fewer at the end; nil past it).
        mutating func bytes(at offset: Int64, count: Int) throws(VoiceNoteError) -> [UInt8]? {
            if offset < pieceStart || offset + Int64(count) > pieceStart + Int64(piece.count) {
                try source.seek(to: offset)
                piece = try source.readPrefix(count: max(count, FrameCount.pieceBytes))
                pieceStart = offset
            }
            let start = Int(offset - pieceStart)
            guard start < piece.count else { return nil }
            return Array(piece[start..<min(piece.count, start + count)])
        }
    }
}
