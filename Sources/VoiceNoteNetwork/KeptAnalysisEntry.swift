#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// A record kept beside a media cache entry (docs/player.md, "The media cache"): a file named as the entry with
/// `.vna` (the analysis) or `.vnt` (a transcript) for `.vnc`, holding `VNANALY1`, the key's length (4 bytes,
/// little-endian), the key and the record's text (at most `largestText(of:)` bytes of UTF-8). Like the media entry
/// it is written aside and renamed into place, and a file for another key, cut short or too large is never served.
enum KeptAnalysisEntry {
    static let magic = Array("VNANALY1".utf8)
    /// The suffixes of every kind of record.
    static let suffixes = KeptRecord.allCases.map { suffix(of: $0) }

    /// The suffix of `record`'s files.
    static func suffix(of record: KeptRecord) -> String {
        switch record {
        case .analysis: ".vna"
        case .transcript: ".vnt"
        }
    }

    /// The largest text kept: far more than any analysis's record needs, and a transcript of hours.
    static func largestText(of record: KeptRecord) -> Int {
        switch record {
        case .analysis: 64 * 1024
        case .transcript: 4 * 1024 * 1024
        }
    }

    /// The file name of `key`'s `record`.
    static func fileName(for key: String, _ record: KeptRecord = .analysis) -> String {
        String(CacheEntry.fileName(for: key).dropLast(CacheEntry.suffix.count)) + suffix(of: record)
    }

    /// The bytes before the text.
    static func header(key: String) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let count = UInt32(truncatingIfNeeded: keyBytes.count)
        return magic + (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } + keyBytes
    }

    /// The text kept for `key` in `path`, or nil (missing, another key, too large, not UTF-8).
    static func read(_ path: String, key: String, largest: Int) -> String? {
        guard let (file, status) = try? FileDescriptor.openRegularFile(path, flags: O_RDONLY | O_NOFOLLOW) else { return nil }
        let expected = header(key: key)
        let size = Int(status.st_size)
        guard size > expected.count, size <= expected.count + largest else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ try? file.read(at: 0, into: $0) }) == size,
              Array(bytes[0..<expected.count]) == expected else { return nil }
        return String(validating: bytes[expected.count...], as: UTF8.self)
    }
}

extension MediaCache {
    /// Where the analyses of `key`'s media are kept: read and written beside its entry. Reading finds nothing when
    /// the cache is off.
    public func keptAnalysis(for key: String) -> KeptAnalysis {
        KeptAnalysis(read: { [self] record in
            guard limit > 0 else { return nil }
            return KeptAnalysisEntry.read(directory + "/" + KeptAnalysisEntry.fileName(for: key, record), key: key,
                                          largest: KeptAnalysisEntry.largestText(of: record))
        }, write: { [self] record, text in
            let bytes = Array(text.utf8)
            guard bytes.count <= KeptAnalysisEntry.largestText(of: record) else { return }
            keep(KeptAnalysisEntry.fileName(for: key, record)) { (file) throws(VoiceNoteError) in
                try Self.write(KeptAnalysisEntry.header(key: key) + bytes, to: file, at: 0)
            }
        })
    }
}
