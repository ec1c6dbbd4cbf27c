import VoiceNoteCore

/// Bytes in memory: a copy the source owns (a download the host already has, a decrypted attachment), or a buffer
/// the caller keeps valid while the source is read (a C caller's buffer during one call: no copy, so memory stays
/// independent of the file's length).
public final class MemorySource: ByteSource {
    /// A label for messages.
    public let name: String
    private let bytes: UnsafeRawBufferPointer
    /// The offset of the next read.
    public private(set) var position: Int64 = 0

    /// Wraps a copy of `bytes`.
    public init(bytes: [UInt8], name: String = "memory") {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        copy.copyBytes(from: bytes)
        self.bytes = UnsafeRawBufferPointer(copy)
        ownsAllocation = true
        self.name = name
    }

    /// Reads `bytes`, which must stay valid and unchanged while the source is used.
    public init(borrowing bytes: UnsafeRawBufferPointer, name: String = "memory") {
        self.bytes = bytes
        ownsAllocation = false
        self.name = name
    }

    /// Whether `bytes` is this source's own copy, freed with it.
    private let ownsAllocation: Bool

    deinit {
        if ownsAllocation { UnsafeMutableRawBufferPointer(mutating: bytes).deallocate() }
    }

    /// The buffer's length.
    public var size: Int64? { Int64(bytes.count) }

    /// Copies from the buffer at the current offset.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        let start = Int(min(position, Int64(bytes.count)))
        let count = min(buffer.count, bytes.count - start)
        guard count > 0 else { return 0 }
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]))
        position += Int64(count)
        return count
    }

    /// Seeks anywhere at or after 0 (reads past the end return 0).
    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "seek to negative offset \(offset)") }
        position = offset
    }
}
