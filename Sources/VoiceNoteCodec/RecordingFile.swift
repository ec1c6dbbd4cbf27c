#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// The file a recording encoder writes, and the one `RecordingRecovery` repairs: plain write(2)/pwrite(2) loops
/// (no stdio buffer between the encoder and the disk), whole units or nothing.
///
/// A unit (an Ogg page, a run of ADTS frames) that fails half-way is cut off again with ftruncate(2), so the file
/// always ends on a unit boundary; after the first failure nothing more is appended and the failure is kept.
/// While open, the file holds an exclusive flock(2), so recovery in this or another process leaves a take that is
/// still being written alone; the kernel drops the lock when the process dies.
final class RecordingFile {
    let path: String
    /// Bytes of whole units in the file.
    private(set) var size: Int64
    /// The first write failure (`.noSpace` or `.io`); nothing is appended after it.
    private(set) var failure: VoiceNoteError?
    /// Sees each unit once it is on disk (a recorder analysing its own output).
    var onAppend: ((UnsafeRawBufferPointer) -> Void)?
    private var descriptor: Int32

    /// Creates `path` for a new recording: O_EXCL, mode 0644. Errors map through `VoiceNoteError.fromErrno`.
    init(creating path: String) throws(VoiceNoteError) {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VoiceNoteError.fromErrno(errno, "create \(path)") }
        // A new file cannot be locked by anyone else; a filesystem without flock only loses the protection.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        self.path = path
        descriptor = fd
        size = 0
    }

    /// Opens an existing recording for repair: `.busy` while an encoder (here or in another process) still
    /// writes it, `.invalidArgument` for a directory, else the status of the errno.
    init(repairing path: String) throws(VoiceNoteError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw VoiceNoteError(.invalidArgument, "\(path) is a symbolic link; not repaired") }
            throw VoiceNoteError.fromErrno(errno, "open \(path)")
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let error = VoiceNoteError.fromErrno(errno, "stat \(path)")
            Glibc.close(fd)
            throw error
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw VoiceNoteError(.invalidArgument, "\(path) is not a regular file")
        }
        // Repairing rewrites the file in place: with another hard link, a file outside the recordings would change.
        guard status.st_nlink <= 1 else {
            Glibc.close(fd)
            throw VoiceNoteError(.invalidArgument, "\(path) has \(status.st_nlink) hard links; not repaired in place")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK {
            Glibc.close(fd)
            throw VoiceNoteError(.busy, "\(path) is still being recorded")
        }
        self.path = path
        descriptor = fd
        size = Int64(status.st_size)
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// Whether the file is still open.
    var isOpen: Bool { descriptor >= 0 }

    /// Appends one whole unit; returns 0, or the errno of the failure (then kept in `failure`, and the file cut
    /// back to its last whole unit). The form FFmpeg's AVIO write callback needs.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        if failure != nil { return lastErrno }
        guard descriptor >= 0 else { return fail(EBADF, "write") }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return 0 }
        var done = 0
        while done < bytes.count {
            let count = write(descriptor, base + done, bytes.count - done)
            if count > 0 {
                done += count
            } else if count == 0 {
                return fail(EIO, "write")  // a regular file never takes 0 bytes of a non-empty write
            } else if errno != EINTR {
                return fail(errno, "write")
            }
        }
        size += Int64(done)
        onAppend?(bytes)
        return 0
    }

    /// Appends one whole unit or throws (`.noSpace` for ENOSPC, EFBIG, EDQUOT; else `.io`).
    func appendOrThrow(_ bytes: UnsafeRawBufferPointer) throws(VoiceNoteError) {
        if append(bytes) != 0, let failure { throw failure }
    }

    /// Reads `count` bytes at `offset` (within the file).
    func read(at offset: Int64, count: Int) throws(VoiceNoteError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if got > 0 {
                done += got
            } else if got == 0 {
                throw VoiceNoteError(.format, "\(path) ended at \(offset + Int64(done)) while reading \(count) bytes at \(offset)")
            } else if errno != EINTR {
                throw VoiceNoteError.fromErrno(errno, "read \(path)")
            }
        }
        return bytes
    }

    /// Rewrites bytes that are already in the file (a page header's flags and CRC): needs no new space.
    func overwrite(at offset: Int64, _ bytes: [UInt8]) throws(VoiceNoteError) {
        guard offset + Int64(bytes.count) <= size else {
            throw VoiceNoteError(.internal, "overwrite past the end of \(path)")
        }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if count > 0 {
                done += count
            } else if count == 0 || errno != EINTR {
                throw Self.writeError(count == 0 ? EIO : errno, "write \(path)")
            }
        }
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws(VoiceNoteError) {
        while ftruncate(descriptor, off_t(length)) != 0 {
            if errno != EINTR { throw Self.writeError(errno, "truncate \(path)") }
        }
        size = length
    }

    /// fdatasync(2): what was written survives a crash of the machine, not only of the process.
    func sync() throws(VoiceNoteError) {
        guard descriptor >= 0 else { return }
        while fdatasync(descriptor) != 0 {
            if errno != EINTR { throw Self.writeError(errno, "sync \(path)") }
        }
    }

    /// fsync(2) and close(2); the first error is thrown, the descriptor is closed either way. Closing twice is fine.
    func close() throws(VoiceNoteError) {
        guard descriptor >= 0 else { return }
        var error: VoiceNoteError?
        while fsync(descriptor) != 0 {
            if errno != EINTR {
                error = Self.writeError(errno, "sync \(path)")
                break
            }
        }
        // Linux releases the descriptor even when close reports an error; never retry it.
        if Glibc.close(descriptor) != 0, error == nil, errno != EINTR {
            error = Self.writeError(errno, "close \(path)")
        }
        descriptor = -1
        if let error { throw error }
    }

    /// Closes and removes the file: for an encoder whose setup failed after the file was created.
    func discard() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
        unlink(path)
    }

    /// A write-side errno as docs/recorder.md wants it: `.noSpace` for a full disk or file-size limit, else `.io`.
    static func writeError(_ code: Int32, _ what: String) -> VoiceNoteError {
        let error = VoiceNoteError.fromErrno(code, what)
        return error.status == .noSpace ? error : VoiceNoteError(.io, error.message)
    }

    private var lastErrno: Int32 = 0

    /// Keeps the first failure and cuts off whatever part of the failed unit reached the file.
    private func fail(_ code: Int32, _ what: String) -> Int32 {
        lastErrno = code
        failure = Self.writeError(code, "\(what) \(path)")
        if descriptor >= 0 {
            while ftruncate(descriptor, off_t(size)) != 0 && errno == EINTR {}
            _ = lseek(descriptor, off_t(size), SEEK_SET)
        }
        return code
    }
}
