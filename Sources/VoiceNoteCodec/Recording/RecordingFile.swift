#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// The file a recording encoder writes, and the one `RecordingRecovery` repairs: plain write(2)/pwrite(2) through
/// `FileDescriptor` (no stdio buffer between the encoder and the disk), whole units or nothing.
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
    private let file: FileDescriptor

    /// Creates `path` for a new recording: O_EXCL | O_NOFOLLOW (nothing already there is opened), mode 0644.
    /// Errors map through `VoiceNoteError.fromErrno`.
    init(creating path: String) throws(VoiceNoteError) {
        do throws(Errno) {
            file = try FileDescriptor(opening: path, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o644)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "create \(path)")
        }
        // A new file cannot be locked by anyone else; a filesystem without flock only loses the protection.
        _ = file.lockExclusively()
        self.path = path
        size = 0
    }

    /// Opens an existing recording for repair: `.busy` while an encoder (here or in another process) still
    /// writes it; `.invalidArgument` for a symbolic link, anything but a regular file, or a file with other hard
    /// links; else the status of the errno.
    init(repairing path: String) throws(VoiceNoteError) {
        let status: stat
        do throws(Errno) {
            file = try FileDescriptor(opening: path, flags: O_RDWR | O_NOFOLLOW | O_NONBLOCK)
            status = try file.status()
        } catch where error.code == ELOOP {
            throw VoiceNoteError(.invalidArgument, "\(path) is a symbolic link; not repaired")
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "open \(path)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VoiceNoteError(.invalidArgument, "\(path) is not a regular file")
        }
        // Repairing rewrites the file in place: with another hard link, a file outside the recordings would change.
        guard status.st_nlink <= 1 else {
            throw VoiceNoteError(.invalidArgument, "\(path) has \(status.st_nlink) hard links; not repaired in place")
        }
        guard file.lockExclusively() else { throw VoiceNoteError(.busy, "\(path) is still being recorded") }
        self.path = path
        size = Int64(status.st_size)
    }

    /// Whether the file is still open.
    var isOpen: Bool { file.isOpen }

    /// Appends one whole unit; returns 0, or the errno of the failure (then kept in `failure`, and the file cut
    /// back to its last whole unit). The form FFmpeg's AVIO write callback needs.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        if failure != nil { return lastErrno }
        guard file.isOpen else { return fail(EBADF, "write") }
        guard bytes.count > 0 else { return 0 }
        do throws(Errno) {
            try file.write(bytes)
        } catch {
            return fail(error.code, "write")
        }
        size += Int64(bytes.count)
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
        let result = bytes.withUnsafeMutableBytes { buffer in Result { () throws(Errno) in try file.read(at: offset, into: buffer) } }
        let got: Int
        switch result {
        case .success(let count): got = count
        case .failure(let error): throw VoiceNoteError.fromErrno(error.code, "read \(path)")
        }
        guard got == count else {
            throw VoiceNoteError(.format, "\(path) ended at \(offset + Int64(got)) while reading \(count) bytes at \(offset)")
        }
        return bytes
    }

    /// Rewrites bytes that are already in the file (a page header's flags and CRC): needs no new space.
    func overwrite(at offset: Int64, _ bytes: [UInt8]) throws(VoiceNoteError) {
        guard offset + Int64(bytes.count) <= size else {
            throw VoiceNoteError(.internal, "overwrite past the end of \(path)")
        }
        let result = bytes.withUnsafeBytes { buffer in Result { () throws(Errno) in try file.write(at: offset, buffer) } }
        if case .failure(let error) = result { throw Self.writeError(error.code, "write \(path)") }
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws(VoiceNoteError) {
        do throws(Errno) {
            try file.truncate(to: length)
        } catch {
            throw Self.writeError(error.code, "truncate \(path)")
        }
        size = length
    }

    /// fdatasync(2): what was written survives a crash of the machine, not only of the process.
    func sync() throws(VoiceNoteError) {
        guard file.isOpen else { return }
        do throws(Errno) {
            try file.syncData()
        } catch {
            throw Self.writeError(error.code, "sync \(path)")
        }
    }

    /// fsync(2) and close(2); the first error is thrown, the descriptor is closed either way. Closing twice is fine.
    func close() throws(VoiceNoteError) {
        guard file.isOpen else { return }
        var failure: VoiceNoteError?
        do throws(Errno) { try file.sync() } catch { failure = Self.writeError(error.code, "sync \(path)") }
        do throws(Errno) { try file.close() } catch { failure = failure ?? Self.writeError(error.code, "close \(path)") }
        if let failure { throw failure }
    }

    /// Closes and removes the file: for an encoder whose setup failed after the file was created.
    func discard() {
        try? file.close()
        try? FileSystem.remove(path)
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
        if file.isOpen {
            try? file.truncate(to: size)
            try? file.seek(to: size)
        }
        return code
    }
}
