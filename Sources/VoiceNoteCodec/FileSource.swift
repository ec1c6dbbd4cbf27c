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

    /// Opens `path` for reading: `.notFound` when missing, `.invalidArgument` for a directory,
    /// `.permission` when refused.
    public init(path: String) throws(VoiceNoteError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw VoiceNoteError.fromErrno(errno, "open \(path)") }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = VoiceNoteError.fromErrno(errno, "stat \(path)")
            close(fd)
            throw error
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            close(fd)
            throw VoiceNoteError(.invalidArgument, "\(path) is a directory, not a file")
        }
        name = path
        size = status.st_mode & S_IFMT == S_IFREG ? Int64(status.st_size) : nil
        descriptor = fd
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
