import VoiceNoteCore

/// Random-access bytes a decoder reads: a file, a memory buffer, host callbacks, and (with the player) HTTP.
/// Decoders never know where bytes come from.
///
/// The read contract every source keeps: `read` returns only when it has data, reaches the end, fails, or is
/// cancelled. It returns 0 **only at the end** — libopusfile and FFmpeg both take a 0-byte read as the end of the
/// stream, so "no data yet" (a download still running) must block, never return 0. A source whose reads can wait
/// (HTTP) wakes a blocked read within 100 ms of `cancel()` (called by a destroy, a seek or a new load on another
/// thread), which then throws `.cancelled`. One reader at a time: a source is read by one thread, the one that
/// decodes; only `cancel()` may come from another.
public protocol ByteSource: AnyObject {
    /// A name for messages and for the player's context: a path, a URL or the host's label.
    var name: String { get }
    /// Total size in bytes, or nil when unknown (a stream whose length is not known yet).
    var size: Int64? { get }
    /// The offset of the next `read`.
    var position: Int64 { get }
    /// Reads up to `buffer.count` bytes at `position` and advances it; blocks until there is at least one byte;
    /// returns 0 only at the end; `.cancelled` after `cancel()`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int
    /// Moves `position` to an absolute offset; `.unsupported` when the source cannot seek.
    func seek(to offset: Int64) throws(VoiceNoteError)
    /// Makes a read that waits, on another thread, return within 100 ms with `.cancelled`. Sources whose reads
    /// never wait (a file, memory, host callbacks, which are the host's to bound) do nothing.
    func cancel()
    /// Where the analysis of these bytes is kept (a media cache's), or nil.
    var keptAnalysis: KeptAnalysis? { get }
}

extension ByteSource {
    /// Reads of a file, memory or host callbacks never wait on another thread: nothing to wake.
    public func cancel() {}

    /// Most sources' analyses are kept nowhere.
    public var keptAnalysis: KeptAnalysis? { nil }

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
