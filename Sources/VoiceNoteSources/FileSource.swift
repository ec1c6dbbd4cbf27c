#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// A local file read with pread(2): a whole file by its path, or a window of an open file (a cache entry's media
/// past its header).
public final class FileSource: ByteSource {
    /// The path it was opened with, or the name it was given.
    public let name: String
    /// The file size at open time, or the window's.
    public let size: Int64?
    /// The offset of the next read.
    public private(set) var position: Int64 = 0
    /// Where the analysis of these bytes is kept: a media cache entry's (`RemoteMedia` sets it).
    public var keptAnalysis: KeptAnalysis?
    private let file: FileDescriptor
    /// Where offset 0 is in the file, and the window's end (nil: the file's end, wherever it is when read).
    private let base: Int64
    private let limit: Int64?

    /// Opens `path` for reading: `.notFound` when missing, `.permission` when refused, `.invalidArgument` for a
    /// directory or anything else that is not a regular file (a FIFO, socket or device: no size, no seeking, and a
    /// FIFO without a writer would never answer).
    /// `path` is a path, never a URL: a host's text is parsed first (`Location`).
    public init(path: String) throws(VoiceNoteError) {
        let (file, status) = try FileDescriptor.openRegularFile(path, flags: O_RDONLY)
        self.file = file
        name = path
        size = Int64(status.st_size)
        base = 0
        limit = nil
    }

    /// What names this file's bytes as they are now, for what is kept about them (a local note's transcript in the
    /// media cache): its device, inode, size and modification time; a rewritten file is another identity. Nil for a
    /// window (a cache entry already has its key) or when the file cannot be examined.
    public var identity: String? {
        guard base == 0, limit == nil, let status = try? file.status() else { return nil }
        return "local:\(status.st_dev):\(status.st_ino):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
    }

    /// The `size` bytes of `file` from `offset` on, as a source named `name`.
    public init(window file: FileDescriptor, offset: Int64, size: Int64, name: String) {
        self.file = file
        self.name = name
        self.size = size
        base = offset
        limit = size
    }

    /// Reads at the current offset (up to the window's end).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        let room = limit.map { min(Int64(buffer.count), max(0, $0 - position)) } ?? Int64(buffer.count)
        guard room > 0 else { return 0 }
        do throws(Errno) {
            let (start, overflow) = base.addingReportingOverflow(position)
            guard !overflow else { return 0 }
            let count = try file.read(at: start, into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(Int(room))))
            position += Int64(count)
            return count
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "read \(name)")
        }
    }

    /// Seeks to an absolute offset (past the end, reads return 0).
    public func seek(to offset: Int64) throws(VoiceNoteError) {
        guard offset >= 0 else { throw VoiceNoteError(.invalidArgument, "seek to negative offset \(offset)") }
        position = offset
    }
}
