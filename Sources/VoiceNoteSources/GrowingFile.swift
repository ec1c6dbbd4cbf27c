#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// A file still being written by someone else in this process (a take the recorder encodes), read as it grows: the
/// writer says how many bytes from the start are whole and written (`grow`), then that the file is complete
/// (`complete`) or abandoned (`abandon`); a reader takes what is there without ever waiting (`readAvailable`) and is
/// told when more comes (`setWake`). The file is opened when this is made, so the writer may rename it meanwhile
/// (a take's `.part` becoming its final name); bytes past what the writer announced are never read.
public final class GrowingFile: @unchecked Sendable {
    /// What a non-blocking read found.
    public enum Read: Equatable, Sendable {
        /// This many bytes were read (at least one).
        case bytes(Int)
        /// Nothing new yet: the writer has not announced more; `setWake`'s closure runs when it does.
        case later
        /// Every byte of the complete file was read.
        case end
    }

    /// The path it was opened with, for messages.
    public let name: String
    private let file: FileDescriptor
    private let monitor = Monitor()
    private var announced: Int64
    private var finalSize: Int64?
    private var failure: VoiceNoteError?
    private var position: Int64 = 0
    private var wake: (@Sendable () -> Void)?
    private var interrupted = false

    /// Opens `path` (a regular file, never a link) with `bytes` already whole and written.
    /// - Throws: `.notFound`, `.permission`, `.invalidArgument` as `FileSource` does; `.invalidArgument` for a
    ///   negative count.
    public init(path: String, bytes: Int64) throws(VoiceNoteError) {
        guard bytes >= 0 else { throw VoiceNoteError(.invalidArgument, "a growing file cannot start at \(bytes) bytes") }
        (file, _) = try FileDescriptor.openRegularFile(path, flags: O_RDONLY | O_NOFOLLOW)
        name = path
        announced = bytes
    }

    /// Writer: the file now holds `total` whole bytes from its start (never fewer than announced before).
    public func grow(to total: Int64) {
        let wakeUp = monitor.locked { () -> (@Sendable () -> Void)? in
            guard finalSize == nil, failure == nil, total > announced else { return nil }
            announced = total
            monitor.broadcast()
            return wake
        }
        wakeUp?()
    }

    /// Writer: the file is complete at `size` bytes (at least what was announced; reads end there).
    public func complete(size: Int64) {
        let wakeUp = monitor.locked { () -> (@Sendable () -> Void)? in
            guard finalSize == nil, failure == nil else { return nil }
            announced = max(announced, size)
            finalSize = announced
            monitor.broadcast()
            return wake
        }
        wakeUp?()
    }

    /// Writer: the file will not be completed (the take was cancelled, or rewritten after a failed write): the next
    /// read throws `error`.
    public func abandon(_ error: VoiceNoteError) {
        let wakeUp = monitor.locked { () -> (@Sendable () -> Void)? in
            guard finalSize == nil, failure == nil else { return nil }
            failure = error
            monitor.broadcast()
            return wake
        }
        wakeUp?()
    }

    /// Reader: `wake` runs (on the writer's thread, without a lock of ours held) each time more bytes are
    /// announced, the file completes or is abandoned; nil removes it. It must not block.
    public func setWake(_ wake: (@Sendable () -> Void)?) { monitor.locked { self.wake = wake } }

    /// The size once complete; nil while it grows.
    public var size: Int64? { monitor.locked { finalSize } }

    /// Waits until the file is complete (a server that needs the length first is sent it then) and returns its
    /// size, or until `interrupt()`. Waits as long as the writer writes: the writer's end (a take stopped,
    /// cancelled, failed) always comes. - Throws: the abandoning error; `.cancelled` after `interrupt()`.
    public func waitUntilComplete() throws(VoiceNoteError) -> Int64 {
        try monitor.locked { () throws(VoiceNoteError) -> Int64 in
            while true {
                if let failure { throw failure }
                if let finalSize { return finalSize }
                if interrupted { throw VoiceNoteError(.cancelled, "the wait for \(name) was cancelled") }
                monitor.wait()
            }
        }
    }

    /// Waits until more than `offset` bytes are announced or the file is complete, and returns what is announced
    /// and whether that is all; or until `interrupt()`. - Throws: the abandoning error; `.cancelled` after
    /// `interrupt()`.
    public func waitForBytes(beyond offset: Int64) throws(VoiceNoteError) -> (announced: Int64, complete: Bool) {
        try monitor.locked { () throws(VoiceNoteError) -> (Int64, Bool) in
            while true {
                if let failure { throw failure }
                if announced > offset || finalSize != nil { return (announced, finalSize != nil) }
                if interrupted { throw VoiceNoteError(.cancelled, "the wait for \(name) was cancelled") }
                monitor.wait()
            }
        }
    }

    /// The announced bytes `start..<end` as a source (a window of the descriptor opened at the start).
    /// - Throws: `.invalidArgument` for a range outside what was announced.
    public func window(_ range: Range<Int64>) throws(VoiceNoteError) -> FileSource {
        let limit = monitor.locked { announced }
        guard range.lowerBound >= 0, range.upperBound <= limit else {
            throw VoiceNoteError(.invalidArgument, "\(range) is outside the \(limit) bytes written to \(name)")
        }
        return FileSource(window: file, offset: range.lowerBound, size: range.upperBound - range.lowerBound, name: name)
    }

    /// Ends a `waitUntilComplete` or `waitForBytes` on another thread (it throws `.cancelled`), now and from now on.
    /// Any thread.
    public func interrupt() {
        monitor.locked {
            interrupted = true
            monitor.broadcast()
        }
    }

    /// The complete file as a source from its start (read through the descriptor opened at the start, whatever the
    /// file is called now). - Throws: `.misuse` while it grows; the abandoning error.
    public func completeSource() throws(VoiceNoteError) -> FileSource {
        let size = try monitor.locked { () throws(VoiceNoteError) -> Int64 in
            if let failure { throw failure }
            guard let finalSize else { throw VoiceNoteError(.misuse, "\(name) is still being written") }
            return finalSize
        }
        return FileSource(window: file, offset: 0, size: size, name: name)
    }

    /// Bytes read so far.
    public var bytesRead: Int64 { monitor.locked { position } }

    /// Reader: reads up to `buffer.count` of the announced bytes past the last read; never waits for the writer.
    /// - Throws: the abandoning error; the read's errors (`.io` and the like).
    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Read {
        let (offset, room, done) = try monitor.locked { () throws(VoiceNoteError) -> (Int64, Int, Bool) in
            if let failure { throw failure }
            let room = Int(min(Int64(buffer.count), announced - position))
            return (position, room, finalSize != nil)
        }
        guard room > 0 else { return done ? .end : .later }
        let count: Int
        do throws(Errno) {
            count = try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(room)))
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "read \(name)")
        }
        guard count > 0 else {
            throw VoiceNoteError(.io, "\(name) holds fewer bytes than were written to it (\(offset) read, more announced)")
        }
        monitor.locked { position += Int64(count) }
        return .bytes(count)
    }
}
