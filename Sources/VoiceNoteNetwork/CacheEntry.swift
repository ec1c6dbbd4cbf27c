#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// One media cache file: a header naming the key it holds and the length of the media, then the media's bytes.
/// The key is in the file (its name is only a hash of it), so a hash collision or another process's file can never
/// serve the wrong media; the length is in it too, so a file cut short is never served.
///
///     "VNCACHE1" | key length (UInt32 LE) | key (UTF-8) | media length (UInt64 LE) | media
enum CacheEntry {
    static let magic = Array("VNCACHE1".utf8)
    /// The suffix of entry files: only these count, are evicted and are cleared.
    static let suffix = ".vnc"

    /// The file name of `key`'s entry: two 64-bit FNV-1a hashes in hex (the key itself may be any text).
    static func fileName(for key: String) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325, second: UInt64 = 0x84222325_cbf29ce4
        for byte in key.utf8 {
            first = (first ^ UInt64(byte)) &* 0x100_0000_01b3
            second = (second &* 0x100_0000_01b3) ^ UInt64(byte)
        }
        return hex(first) + hex(second) + suffix
    }

    private static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }

    /// The header of `key`'s entry holding `length` media bytes.
    static func header(key: String, length: Int64) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        return magic + littleEndian(UInt64(keyBytes.count), bytes: 4) + keyBytes + littleEndian(UInt64(length), bytes: 8)
    }

    private static func littleEndian(_ value: UInt64, bytes: Int) -> [UInt8] {
        (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Opens the entry at `path` when it holds `key` whole: the media as a source named `name`, or nil (missing,
    /// another key, cut short, unreadable). The entry becomes the most recently used.
    static func open(_ path: String, key: String, name: String) -> FileSource? {
        // The checked open: a FIFO planted under the entry's name must not block the lookup for ever.
        guard let (file, status) = try? FileDescriptor.openRegularFile(path, flags: O_RDONLY | O_NOFOLLOW) else { return nil }
        let expected = header(key: key, length: 0)
        var found = [UInt8](repeating: 0, count: expected.count)
        let read = found.withUnsafeMutableBytes { try? file.read(at: 0, into: $0) }
        guard read == expected.count, Array(found[0..<(expected.count - 8)]) == Array(expected.dropLast(8)) else { return nil }
        let length = found.suffix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let offset = Int64(expected.count)
        guard length <= UInt64(Int64.max - offset), Int64(status.st_size) == offset + Int64(length) else { return nil }
        file.touch()  // its modification time orders the evictions
        return FileSource(window: file, offset: offset, size: Int64(length), name: name)
    }
}
