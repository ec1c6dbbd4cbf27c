#if canImport(Glibc)
import Glibc
#endif

/// An errno from a POSIX call, thrown by `FileDescriptor`; callers map it to a status for their context (a failed
/// write of a recording is `.noSpace` or `.io`, a failed read of a source by `VoiceNoteError.fromErrno`).
public struct Errno: Error, Equatable, Sendable {
    /// The errno value.
    public let code: Int32

    /// Wraps an errno value.
    public init(_ code: Int32) { self.code = code }

    /// The calling thread's current errno.
    public static var current: Errno { Errno(errno) }
}

/// One open file descriptor: the one place voicenote does POSIX file I/O (as swift-system's `FileDescriptor`).
/// Every call retries EINTR, reads and writes loop until done, and the descriptor is closed exactly once (by
/// `close()` or when the object goes). Used by one thread at a time, except that positioned reads and writes
/// (`read(at:into:)`, `write(at:_:)`) may run on two threads at once.
public final class FileDescriptor {
    private var raw: Int32

    /// Opens `path` with open(2) `flags` (O_CLOEXEC is added) and `mode` for a created file.
    public init(opening path: String, flags: Int32, mode: mode_t = 0o644) throws(Errno) {
        let fd = retrying { open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw Errno.current }
        raw = fd
    }

    /// The one checked open of a file voicenote reads or writes in place (a note, a cache entry, a CA file, an
    /// upload): `flags` plus O_NONBLOCK, so open(2) of a FIFO returns at once instead of waiting for a writer for
    /// ever, then fstat(2): anything but a regular file (a FIFO, socket, device or directory: no size, no
    /// seeking, maybe no end) is refused, and O_NONBLOCK is cleared again. Returns the descriptor and its status.
    /// - Throws: `.notFound`, `.permission` or `.io` from open(2); `.invalidArgument` naming what the path is, or
    ///   for a NUL byte in it (open(2) would see a shorter path).
    public static func openRegularFile(_ path: String, flags: Int32) throws(VoiceNoteError) -> (FileDescriptor, stat) {
        let file: FileDescriptor
        let status: stat
        guard !path.utf8.contains(0) else { throw VoiceNoteError(.invalidArgument, "a path holds a NUL byte") }
        do throws(Errno) {
            file = try FileDescriptor(opening: path, flags: flags | O_NONBLOCK | O_NOCTTY)
            status = try file.status()
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "open \(path)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VoiceNoteError(.invalidArgument, "\(path) is \(kind(of: status.st_mode)), not a regular file")
        }
        try? file.setNonBlocking(false)
        return (file, status)
    }

    /// Opens (creating it, mode 0600) a lock file that only flock(2) uses: O_NOFOLLOW and O_NONBLOCK, so a planted
    /// symlink or FIFO is refused instead of followed or waited on, and anything but a regular file is refused.
    /// - Throws: `.invalidArgument` for what is not a regular file; else the status of the errno.
    public static func openLockFile(_ path: String) throws(VoiceNoteError) -> FileDescriptor {
        let file: FileDescriptor
        do throws(Errno) {
            file = try FileDescriptor(opening: path, flags: O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: 0o600)
        } catch {
            if error.code == ELOOP { throw VoiceNoteError(.invalidArgument, "\(path) is a symbolic link, not a lock file") }
            throw VoiceNoteError.fromErrno(error.code, "open \(path)")
        }
        guard let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG else {
            throw VoiceNoteError(.invalidArgument, "\(path) is not a regular file")
        }
        return file
    }

    /// Takes an exclusive flock(2), waiting at most `milliseconds` (looking again every millisecond, so a writer that
    /// takes the lock back to back does not starve this one) while another descriptor holds it: true when this
    /// descriptor holds it, false when the time ran out or flock failed. A lock guards a cache or a record, never
    /// something worth hanging a caller for.
    public func lockExclusively(within milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int64(deadline.tv_sec) * 1000 + Int64(deadline.tv_nsec) / 1_000_000 + Int64(milliseconds)
        while true {
            if flock(raw, LOCK_EX | LOCK_NB) == 0 { return true }
            guard errno == EWOULDBLOCK || errno == EINTR else { return false }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            guard Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 < end else { return false }
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            _ = nanosleep(&pause, nil)
        }
    }

    /// What a path that is not a regular file is, for messages.
    public static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file"
        }
    }

    /// Takes ownership of an open descriptor (from mkostemp(3), pipe(2), ...).
    public init(adopting descriptor: Int32) {
        raw = descriptor
    }

    deinit { _ = try? close() }

    /// Whether the descriptor is still open.
    public var isOpen: Bool { raw >= 0 }

    /// fstat(2).
    public func status() throws(Errno) -> stat {
        var status = stat()
        guard fstat(raw, &status) == 0 else { throw Errno.current }
        return status
    }

    /// Sets or clears O_NONBLOCK.
    public func setNonBlocking(_ enabled: Bool) throws(Errno) {
        let flags = fcntl(raw, F_GETFL)
        guard flags >= 0, fcntl(raw, F_SETFL, enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) >= 0 else {
            throw Errno.current
        }
    }

    /// flock(2) without waiting; false when another descriptor holds the lock (EWOULDBLOCK). A filesystem
    /// without locks counts as locked by us.
    public func lockExclusively() -> Bool {
        flock(raw, LOCK_EX | LOCK_NB) == 0 || errno != EWOULDBLOCK
    }

    /// Takes an exclusive flock(2) without waiting: true when this descriptor now holds it, false when another
    /// holds it (or flock failed).
    public func tryLockExclusively() -> Bool {
        flock(raw, LOCK_EX | LOCK_NB) == 0
    }

    /// Sets the file's access and modification times to now (futimens); false when refused.
    @discardableResult
    public func touch() -> Bool {
        futimens(raw, nil) == 0
    }

    /// read(2) at the current offset: the bytes read, 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = retrying { Glibc.read(raw, base, buffer.count) }
        guard count >= 0 else { throw Errno.current }
        return count
    }

    /// pread(2) until `buffer` is full or the file ends: the bytes read.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let count = retrying { pread(raw, base + done, buffer.count - done, off_t(offset) + off_t(done)) }
            guard count >= 0 else { throw Errno.current }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// write(2) of all of `bytes` at the current offset (EIO for a write that takes nothing).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = retrying { Glibc.write(raw, base + done, bytes.count - done) }
            guard count >= 0 else { throw Errno.current }
            guard count > 0 else { throw Errno(EIO) }
            done += count
        }
    }

    /// pwrite(2) of all of `bytes` at `offset` (EIO for a write that takes nothing).
    public func write(at offset: Int64, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = retrying { pwrite(raw, base + done, bytes.count - done, off_t(offset) + off_t(done)) }
            guard count >= 0 else { throw Errno.current }
            guard count > 0 else { throw Errno(EIO) }
            done += count
        }
    }

    /// lseek(2) to an absolute offset.
    public func seek(to offset: Int64) throws(Errno) {
        guard lseek(raw, off_t(offset), SEEK_SET) >= 0 else { throw Errno.current }
    }

    /// ftruncate(2).
    public func truncate(to length: Int64) throws(Errno) {
        guard retrying({ ftruncate(raw, off_t(length)) }) == 0 else { throw Errno.current }
    }

    /// fdatasync(2): the data survives a crash of the machine.
    public func syncData() throws(Errno) {
        guard retrying({ fdatasync(raw) }) == 0 else { throw Errno.current }
    }

    /// fsync(2).
    public func sync() throws(Errno) {
        guard retrying({ fsync(raw) }) == 0 else { throw Errno.current }
    }

    /// close(2), once; later calls do nothing. Linux releases the descriptor even when close reports an error,
    /// so it is never retried (an EINTR there is not a failure).
    public func close() throws(Errno) {
        guard raw >= 0 else { return }
        let result = Glibc.close(raw)
        let code = errno
        raw = -1
        if result != 0 && code != EINTR { throw Errno(code) }
    }

}

/// Runs a system call again while it fails with EINTR.
private func retrying<T: BinaryInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}
