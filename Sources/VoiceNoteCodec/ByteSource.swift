import VoiceNoteCore

/// Random-access bytes a decoder reads: a file, a memory buffer, host callbacks, and (with the player) HTTP.
/// One reader at a time: a source is used by one thread, the one that decodes.
public protocol ByteSource: AnyObject {
    /// A name for messages and for the player's context: a path, a URL or the host's label.
    var name: String { get }
    /// Total size in bytes, or nil when unknown (a stream whose length is not known yet).
    var size: Int64? { get }
    /// The offset of the next `read`.
    var position: Int64 { get }
    /// Reads up to `buffer.count` bytes at `position` and advances it; returns 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int
    /// Moves `position` to an absolute offset; `.unsupported` when the source cannot seek.
    func seek(to offset: Int64) throws(VoiceNoteError)
}

extension ByteSource {
    /// Reads until `buffer` is full or the source ends; returns the bytes read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Reads up to `count` bytes from the current position into a new array (shorter at the end).
    public func readPrefix(count: Int) throws(VoiceNoteError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        let filled = try readFully(into: buffer)
        return Array(buffer.prefix(filled))
    }
}
