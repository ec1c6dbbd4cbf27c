import VoiceNoteCore
import VoiceNoteSources

/// Where the audio of an MP3 or ADTS file ends: tag editors append ID3v1 (`TAG`, 128 bytes), APEv2 (an `APETAGEX`
/// footer, with or without its header), Lyrics3 (v1 `LYRICSEND`, v2 `LYRICS200`) and ID3v2 tags with a `3DI` footer
/// after the last frame, in any order. They are peeled off from the end, so a length counted from the frames
/// stops where the audio does.
enum TrailingTags {
    /// The most tags peeled off one file (a hostile file cannot make this loop long).
    private static let maximumTags = 8
    /// How far before `LYRICSEND` a Lyrics3 v1 tag may begin (its specified maximum).
    private static let lyrics3v1Bytes: Int64 = 5100 + 20

    /// The offset where the tags after the audio begin (`size` when there are none); never below `audioStart`.
    static func start(of source: ByteSource, size: Int64, audioStart: Int64) throws(VoiceNoteError) -> Int64 {
        var end = size
        for _ in 0..<maximumTags {
            guard let tagStart = try tag(endingAt: end, in: source), tagStart >= audioStart, tagStart < end else { break }
            end = tagStart
        }
        return end
    }

    /// The start of the tag that ends at `end`, or nil when none does.
    private static func tag(endingAt end: Int64, in source: ByteSource) throws(VoiceNoteError) -> Int64? {
        if end >= 32, let footer = try read(source, at: end - 32, count: 32), text(footer, 0, 8) == "APETAGEX" {
            let size = Int64(littleEndian(footer, 12))       // items and footer
            let hasHeader = footer[23] & 0x80 != 0           // flags bit 31
            return end - size - (hasHeader ? 32 : 0)
        }
        if end >= 10, let footer = try read(source, at: end - 10, count: 10), text(footer, 0, 3) == "3DI" {
            return end - 20 - syncsafe(footer, 6)
        }
        if end >= 15, let footer = try read(source, at: end - 15, count: 15), text(footer, 6, 9) == "LYRICS200",
           let size = Int64(text(footer, 0, 6)) {
            let start = end - 15 - size
            guard start >= 0, let begin = try read(source, at: start, count: 11), text(begin, 0, 11) == "LYRICSBEGIN" else {
                return nil
            }
            return start
        }
        if end >= 9, let footer = try read(source, at: end - 9, count: 9), text(footer, 0, 9) == "LYRICSEND" {
            let from = max(0, end - lyrics3v1Bytes)
            guard let window = try read(source, at: from, count: Int(end - from)) else { return nil }
            let marker = Array("LYRICSBEGIN".utf8)
            guard window.count >= marker.count else { return nil }
            for index in stride(from: window.count - marker.count, through: 0, by: -1)
            where window[index..<index + marker.count].elementsEqual(marker) {
                return from + Int64(index)
            }
            return nil
        }
        if end >= 128, let tag = try read(source, at: end - 128, count: 3), text(tag, 0, 3) == "TAG" {
            return end - 128
        }
        return nil
    }

    /// The size of an ID3v2 tag at the start of `bytes` (header, body and footer), or 0 when none starts there.
    static func id3v2Size(_ bytes: ArraySlice<UInt8>) -> Int64 {
        let b = Array(bytes.prefix(10))
        guard b.count == 10, b[0] == 0x49, b[1] == 0x44, b[2] == 0x33 else { return 0 }  // "ID3"
        return 10 + syncsafe(b, 6) + (b[5] & 0x10 != 0 ? 10 : 0)
    }

    /// A "syncsafe" size: four bytes of seven bits each.
    private static func syncsafe(_ bytes: [UInt8], _ offset: Int) -> Int64 {
        bytes[offset..<offset + 4].reduce(Int64(0)) { $0 << 7 | Int64($1 & 0x7F) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func text(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> String {
        String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }

    /// Exactly `count` bytes at `offset`, or nil when the source has fewer there.
    private static func read(_ source: ByteSource, at offset: Int64, count: Int) throws(VoiceNoteError) -> [UInt8]? {
        try source.seek(to: offset)
        let bytes = try source.readPrefix(count: count)
        return bytes.count == count ? bytes : nil
    }
}
