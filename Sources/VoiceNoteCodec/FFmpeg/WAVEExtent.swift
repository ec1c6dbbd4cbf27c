import VoiceNoteCore
import VoiceNoteSources

/// How much of a RIFF/WAVE file FFmpeg is shown: up to the end of its data chunk and `trailingBytes` after it.
///
/// FFmpeg's WAV demuxer looks for metadata chunks after the audio, to the end of the file, and steps through
/// zeros 8 bytes at a time (each reads as a chunk of size 0): a 1 GiB file with 1 s of audio and a sparse tail took
/// 32 s to open. The audio ends where the data chunk says; past `trailingBytes` nothing it reads matters to a note.
enum WAVEExtent {
    /// Bytes after the data chunk still shown: room for the LIST and id3 chunks encoders write there.
    static let trailingBytes: Int64 = 64 * 1024
    /// Chunks before the data chunk walked at most (fmt, fact, LIST, JUNK… are a handful).
    static let maximumChunks = 64

    /// Where FFmpeg's view of `source` ends: the data chunk's end plus `trailingBytes`, or nil when the whole source
    /// is shown (not RIFF/WAVE, RF64, a data chunk of unknown size, or none within `maximumChunks`). Reads from the
    /// start and puts `source` back where it was.
    static func end(of source: ByteSource) throws(VoiceNoteError) -> Int64? {
        let resume = source.position
        defer { try? source.seek(to: resume) }
        try source.seek(to: 0)
        let header = try source.readPrefix(count: 12)
        guard header.count == 12, header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8) else {
            return nil
        }
        var offset: Int64 = 12
        for _ in 0..<maximumChunks {
            try source.seek(to: offset)
            let chunk = try source.readPrefix(count: 8)
            guard chunk.count == 8 else { return nil }
            let size = Int64(chunk[4..<8].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if chunk[0..<4].elementsEqual("data".utf8) {
                // 0 and 0xFFFFFFFF: a stream written without knowing its length, whose audio runs to the end.
                return size == 0 || size == 0xFFFF_FFFF ? nil : offset + 8 + size + trailingBytes
            }
            offset += 8 + size + size % 2
        }
        return nil
    }
}
