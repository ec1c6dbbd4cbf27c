import VoiceNoteCore

/// Bytes supplied by the host through callbacks (a Matrix client decrypting an attachment, its own HTTP stack).
/// The callbacks run synchronously on the decoding thread.
public final class CallbackSource: ByteSource {
    /// Reads up to `count` bytes into the buffer; returns bytes read, 0 at the end, or a negative value on failure.
    public typealias Read = (UnsafeMutableRawBufferPointer) -> Int
    /// Seeks to an absolute offset; returns false on failure. nil: the host cannot seek.
    public typealias Seek = (Int64) -> Bool

    /// The host's label.
    public let name: String
    /// The size the host reported, if any.
    public let size: Int64?
    /// The offset of the next read.
    public private(set) var position: Int64 = 0
    private let readBytes: Read
    private let seekBytes: Seek?

    /// Wraps host callbacks; `size` nil when the host does not know it.
    public init(name: String, size: Int64?, read: @escaping Read, seek: Seek?) {
        self.name = name
        self.size = size
        readBytes = read
        seekBytes = seek
    }

    /// Calls the host's read; a negative result is `.io`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        let count = readBytes(buffer)
        guard count >= 0, count <= buffer.count else {
            throw VoiceNoteError(.io, "the read callback of \(name) failed (returned \(count))")
        }
        position += Int64(count)
        return count
    }

    /// Calls the host's seek; `.unsupported` without one, `.io` when it fails.
    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard let seekBytes else { throw VoiceNoteError(.unsupported, "\(name) cannot seek") }
        guard offset >= 0, seekBytes(offset) else {
            throw VoiceNoteError(.io, "the seek callback of \(name) failed (offset \(offset))")
        }
        position = offset
    }
}
