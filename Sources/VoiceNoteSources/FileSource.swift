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
    private let file: FileDescriptor

    /// Opens `path` for reading: `.notFound` when missing, `.permission` when refused, `.invalidArgument` for a
    /// directory or anything else that is not a regular file (a FIFO, socket or device: no size, no seeking, and a
    /// FIFO without a writer would never answer).
    public init(path: String) throws(VoiceNoteError) {
        do throws(Errno) {
            // O_NONBLOCK: open(2) of a FIFO waits for a writer, forever if none comes; with it, it returns at once
            // and fstat says what the path is. Regular files ignore the flag; it is cleared anyway below.
            file = try FileDescriptor(opening: path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "open \(path)")
        }
        let status: stat
        do throws(Errno) {
            status = try file.status()
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "stat \(path)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VoiceNoteError(.invalidArgument, "\(path) is \(Self.kind(of: status.st_mode)), not a regular file")
        }
        try? file.setNonBlocking(false)
        name = path
        size = Int64(status.st_size)
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

    /// Reads at the current offset.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        do throws(Errno) {
            let count = try file.read(into: buffer)
            position += Int64(count)
            return count
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "read \(name)")
        }
    }

    /// Seeks to an absolute offset.
    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "seek to negative offset \(offset)") }
        do throws(Errno) {
            try file.seek(to: offset)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "seek \(name)")
        }
        position = offset
    }
}
