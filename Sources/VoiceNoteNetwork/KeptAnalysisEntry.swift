#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// The analysis kept beside a media cache entry (docs/player.md, "The media cache"): a file named as the entry with
/// `.vna` for `.vnc`, holding `VNANALY1`, the key's length (4 bytes, little-endian), the key and the analysis's
/// text (at most `largestText` bytes of UTF-8). Like the media entry it is written aside and renamed into place, and
/// a file for another key, cut short or too large is never served.
enum KeptAnalysisEntry {
    static let magic = Array("VNANALY1".utf8)
    static let suffix = ".vna"
    /// The largest text kept: far more than any analysis's record needs.
    static let largestText = 64 * 1024

    /// The file name of `key`'s analysis.
    static func fileName(for key: String) -> String {
        String(CacheEntry.fileName(for: key).dropLast(CacheEntry.suffix.count)) + suffix
    }

    /// The bytes before the text.
    static func header(key: String) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        let count = UInt32(truncatingIfNeeded: keyBytes.count)
        return magic + (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) } + keyBytes
    }

    /// The text kept for `key` in `path`, or nil (missing, another key, too large, not UTF-8).
    static func read(_ path: String, key: String) -> String? {
        guard let (file, status) = try? FileDescriptor.openRegularFile(path, flags: O_RDONLY | O_NOFOLLOW) else { return nil }
        let expected = header(key: key)
        let size = Int(status.st_size)
        guard size > expected.count, size <= expected.count + largestText else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ try? file.read(at: 0, into: $0) }) == size,
              Array(bytes[0..<expected.count]) == expected else { return nil }
        return String(validating: bytes[expected.count...], as: UTF8.self)
    }
}

extension MediaCache {
    /// Where the analysis of `key`'s media is kept: read and written beside its entry. Reading finds nothing when
    /// the cache is off.
    public func keptAnalysis(for key: String) -> KeptAnalysis {
        KeptAnalysis(read: { [self] in
            guard limit > 0 else { return nil }
            return KeptAnalysisEntry.read(directory + "/" + KeptAnalysisEntry.fileName(for: key), key: key)
        }, write: { [self] text in
            let bytes = Array(text.utf8)
            guard bytes.count <= KeptAnalysisEntry.largestText else { return }
            keep(KeptAnalysisEntry.fileName(for: key)) { (file) throws(VoiceNoteError) in
                try Self.write(KeptAnalysisEntry.header(key: key) + bytes, to: file, at: 0)
            }
        })
    }
}
