#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteSources

/// A `ByteSource` behind a C library's `void *opaque` (opusfile, FFmpeg's AVIOContext), with stdio-style read and
/// seek, that keeps the first source failure so the decoder can rethrow it with its real status.
final class SourceBox {
    let source: ByteSource
    private var failure: VoiceNoteError?
    /// Where the library's view of the source ends (reads stop there, the size says so), when it is shown less than
    /// all of it (`WAVEExtent`).
    var end: Int64?

    /// The size the library is told: the source's, or `end` when that is smaller.
    var size: Int64? {
        guard let end else { return source.size }
        return min(end, source.size ?? end)
    }

    init(_ source: ByteSource) { self.source = source }

    /// The box behind an opaque pointer made with `Unmanaged.passRetained(box).toOpaque()`.
    static func from(_ opaque: UnsafeMutableRawPointer) -> SourceBox {
        Unmanaged<SourceBox>.fromOpaque(opaque).takeUnretainedValue()
    }

    /// The first failure since the last call, which forgets it: after an interrupted read (`.cancelled`) or a
    /// network failure the decoder goes on once the caller repositions it.
    func takeFailure() -> VoiceNoteError? {
        defer { failure = nil }
        return failure
    }

    /// Reads up to `count` bytes (0 at `end`); -1 on failure (recorded).
    func read(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        let count = end.map { Int(max(0, min(Int64(count), $0 - source.position))) } ?? count
        guard count > 0 else { return 0 }
        do {
            return try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
        } catch {
            failure = failure ?? error
            return -1
        }
    }

    /// stdio-style seek (SEEK_SET, SEEK_CUR, SEEK_END); the new offset, or -1.
    func seek(_ offset: Int64, whence: Int32) -> Int64 {
        let base: Int64? = switch whence {
        case SEEK_SET: 0
        case SEEK_CUR: source.position
        case SEEK_END: size
        default: nil
        }
        guard let base else { return -1 }
        do {
            try source.seek(to: base + offset)
            return base + offset
        } catch {
            return -1
        }
    }
}
