import VoiceNoteCore
import VoiceNoteSources

/// The exact length of an ADTS AAC stream, counted from its frame headers without decoding: each header gives the
/// frame's length in bytes and its raw data blocks of 1024 samples, so walking from header to header sums every
/// sample the decoder will output. FFmpeg's demuxer only estimates it from the bitrate (9.91 s for a note that
/// decodes to 10.03 s), and that estimate would reach every receiver through the payload's `duration`.
///
/// The walk reads the source in 64 KiB pieces (bounded memory, whatever the file's size), skips an ID3v2 tag in
/// front, and stops at the first bytes that are not a valid header (tags after the audio: ID3v1, APEv2, Lyrics3),
/// or at a frame cut short by the end of the file (its samples are not counted: the decoder drops it too).
struct ADTSLength: Equatable {
    /// Samples per channel the frames hold.
    let samples: Int64
    /// The sample rate the first header states.
    let sampleRate: Int

    /// The rates of ADTS's sampling-frequency index.
    private static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
    private static let pieceBytes = 64 * 1024

    /// Counts the frames of `source` from its start, then puts its position back; nil when it does not start
    /// (after an ID3v2 tag) with an ADTS header, or when a header changes the rate.
    static func count(_ source: ByteSource) throws(VoiceNoteError) -> ADTSLength? {
        let resume = source.position
        defer { try? source.seek(to: resume) }
        try source.seek(to: 0)
        var reader = Reader(source: source)
        guard let head = try reader.bytes(at: 0, count: 10) else { return nil }
        var offset: Int64 = 0
        if head.count == 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 {  // "ID3": skip the tag
            let size = head[6...9].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
            offset = 10 + size + (head[5] & 0x10 != 0 ? 10 : 0)
        }
        var samples: Int64 = 0
        var rate: Int?
        while let header = try reader.bytes(at: offset, count: 7), header.count == 7 {
            guard header[0] == 0xFF, header[1] & 0xF6 == 0xF0 else { break }  // sync, layer 0
            let rateIndex = Int(header[2] >> 2 & 0x0F)
            guard rateIndex < rates.count else { break }
            if let rate, rate != rates[rateIndex] { return nil }
            rate = rates[rateIndex]
            let length = Int64(header[3] & 0x03) << 11 | Int64(header[4]) << 3 | Int64(header[5] >> 5)
            let protectionBytes: Int64 = header[1] & 0x01 == 0 ? 9 : 7
            guard length >= protectionBytes else { break }
            guard let end = try reader.bytes(at: offset + length - 1, count: 1), end.count == 1 else { break }  // cut
            samples += Int64(header[6] & 0x03 + 1) * 1024
            offset += length
        }
        guard let rate, samples > 0 else { return nil }
        return ADTSLength(samples: samples, sampleRate: rate)
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
                piece = try source.readPrefix(count: max(count, ADTSLength.pieceBytes))
                pieceStart = offset
            }
            let start = Int(offset - pieceStart)
            guard start < piece.count else { return nil }
            return Array(piece[start..<min(piece.count, start + count)])
        }
    }
}
