#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// A local file read with read(2) and lseek(2).
public final class FileSource: ByteSource {
    /// The path it was opened with.
    public let name: String
    /// The file size at open time.
    public let size: Int64?
    /// The offset of the next read.
    public private(set) var position: Int64 = 0
    private let descriptor: Int32

    /// Opens `path` for reading: `.notFound` when missing, `.permission` when refused, `.invalidArgument` for a
    /// directory or anything else that is not a regular file (a FIFO, socket or device: no size, no seeking, and a
    /// FIFO without a writer would never answer).
    public init(path: String) throws(VoiceNoteError) {
        // O_NONBLOCK: open(2) of a FIFO waits for a writer, forever if none comes; with it, it returns at once
        // and fstat says what the path is. Regular files ignore the flag; it is cleared anyway below.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw VoiceNoteError.fromErrno(errno, "open \(path)") }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = VoiceNoteError.fromErrno(errno, "stat \(path)")
            close(fd)
            throw error
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw VoiceNoteError(.invalidArgument, "\(path) is \(Self.kind(of: status.st_mode)), not a regular file")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        name = path
        size = Int64(status.st_size)
        descriptor = fd
    }

    /// What a path that is not a regular file is, for the message.
    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file"
        }
    }

    deinit { close(descriptor) }

    /// Reads at the current offset, retrying on EINTR.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = Glibc.read(descriptor, base, buffer.count)
            if count >= 0 {
                position += Int64(count)
                return count
            }
            if errno != EINTR { throw VoiceNoteError.fromErrno(errno, "read \(name)") }
        }
    }

    /// Seeks to an absolute offset.
    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "seek to negative offset \(offset)") }
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            throw VoiceNoteError.fromErrno(errno, "seek \(name)")
        }
        position = offset
    }
}
