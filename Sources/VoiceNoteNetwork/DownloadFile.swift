import VoiceNoteCore

/// Where a download's bytes are kept while it runs: an unnamed file (created 0600 and unlinked at once, so
/// nothing is left behind, even by a crash) written at the offsets the bytes belong to.
final class DownloadFile: @unchecked Sendable {
    private let file: FileDescriptor

    /// Makes the file in `$TMPDIR` (else /tmp). - Throws: `.io`, `.noSpace` or `.permission` from the file system.
    init() throws(VoiceNoteError) {
        let directory = FileSystem.environment("TMPDIR") ?? "/tmp"
        let (made, path) = try FileSystem.createTemporary(in: directory, prefix: "voicenote-download-")
        try? FileSystem.remove(path)
        file = made
    }

    /// Writes `bytes` at `offset`. - Throws: `.noSpace` on a full disk, else `.io`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(VoiceNoteError) {
        do throws(Errno) {
            try file.write(at: offset, bytes)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "write the download")
        }
    }

    /// Gives the file's disk space back (truncated to nothing; the download's bytes are gone). Best effort.
    func release() {
        try? file.truncate(to: 0)
    }

    /// Reads into `buffer` at `offset`; returns the bytes read. - Throws: `.io`.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        do throws(Errno) {
            return try file.read(at: offset, into: buffer)
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "read the download")
        }
    }
}
