#if canImport(Glibc)
import Glibc
#endif
import CShims

/// The few file-system operations the library needs, without Foundation (58 MB of ICU).
public enum FileSystem {
    /// `$XDG_CACHE_HOME/voicenote/<leaf>`, else `$HOME/.cache/voicenote/<leaf>`, else `/tmp/voicenote-<uid>/<leaf>`.
    public static func cacheDirectory(_ leaf: String) -> String {
        if let xdg = environment("XDG_CACHE_HOME"), xdg.hasPrefix("/") { return "\(xdg)/voicenote/\(leaf)" }
        if let home = environment("HOME"), !home.isEmpty { return "\(home)/.cache/voicenote/\(leaf)" }
        return "/tmp/voicenote-\(getuid())/\(leaf)"
    }

    /// `$XDG_DATA_HOME/voicenote/<leaf>` (else `~/.local/share/voicenote/<leaf>`): what the user would miss if it
    /// went, unlike a cache.
    public static func dataDirectory(_ leaf: String) -> String {
        if let xdg = environment("XDG_DATA_HOME"), xdg.hasPrefix("/") { return "\(xdg)/voicenote/\(leaf)" }
        if let home = environment("HOME"), !home.isEmpty { return "\(home)/.local/share/voicenote/\(leaf)" }
        return "/tmp/voicenote-\(getuid())/\(leaf)"
    }

    /// An environment variable, or nil when unset or empty.
    public static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The working directory ("/" when it cannot be read, e.g. it was deleted).
    public static func currentDirectory() -> String {
        guard let buffer = getcwd(nil, 0) else { return "/" }
        defer { free(buffer) }
        return String(cString: buffer)
    }

    /// Creates `path` and its missing parents (mode 0700 for new ones); fine when it exists as a directory.
    /// `.notFound` naming the link when a component is a symbolic link to nothing (mkdir(2) creates no target).
    public static func makeDirectories(_ path: String) throws(VoiceNoteError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw VoiceNoteError.fromErrno(errno, "mkdir \(prefix)") }
            var status = stat()
            if stat(prefix, &status) != 0 && errno == ENOENT {
                throw VoiceNoteError(.notFound, "\(prefix) is a symbolic link to \(linkTarget(prefix)), which does not exist")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0 else { throw VoiceNoteError.fromErrno(errno, "stat \(path)") }
        guard status.st_mode & S_IFMT == S_IFDIR else { throw VoiceNoteError(.invalidArgument, "\(path) is not a directory") }
    }

    /// Creates `path` and its missing parents (mode 0700 for new ones), then checks that it can be trusted with the
    /// files we write aside and rename: a directory (not a symlink) that the effective user owns and nobody else
    /// may write, whose every ancestor is owned by that user or root and, when others may write it, sticky (/tmp),
    /// with no symlink in a directory others may write. Another local user's `/tmp/voicenote-<uid>` is refused.
    /// - Throws: `.permission` naming the directory that cannot be trusted and why; file statuses.
    public static func makeOwnedDirectory(_ path: String) throws(VoiceNoteError) {
        try makeDirectories(path)
        try checkOwnedDirectory(path)
    }

    /// The checks of `makeOwnedDirectory`, on a directory that exists.
    public static func checkOwnedDirectory(_ path: String) throws(VoiceNoteError) {
        let user = geteuid()
        let absolute = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
        var prefix = ""
        var parentWritableByOthers = false
        let components = absolute.split(separator: "/")
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            var status = stat()
            // A symlink in a directory others may write could be anyone's: not followed there.
            let final = index == components.count - 1
            let result = final || parentWritableByOthers ? lstat(prefix, &status) : stat(prefix, &status)
            guard result == 0 else { throw VoiceNoteError.fromErrno(errno, "stat \(prefix)") }
            let mode = status.st_mode
            func refuse(_ why: String) -> VoiceNoteError {
                VoiceNoteError(.permission, "\(prefix) \(why): voicenote keeps its files only in a directory no one else can change")
            }
            guard mode & S_IFMT == S_IFDIR else { throw refuse("is \(FileDescriptor.kind(of: mode))") }
            if final {
                guard status.st_uid == user else { throw refuse("belongs to user \(status.st_uid), not \(user)") }
                guard mode & 0o022 == 0 else { throw refuse("may be written by others (mode \(String(mode & 0o777, radix: 8)))") }
            } else {
                guard status.st_uid == user || status.st_uid == 0 else {
                    throw refuse("belongs to user \(status.st_uid)")
                }
                if mode & 0o002 != 0 && mode & S_ISVTX == 0 { throw refuse("may be written by anyone and is not sticky") }
            }
            parentWritableByOthers = mode & 0o022 != 0
        }
    }

    /// What the symbolic link `path` points to, quoted; "nothing readable" when it cannot be read.
    private static func linkTarget(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "nothing readable" }
        return "'" + String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) + "'"
    }

    /// Renames a file (same file system), atomically.
    public static func rename(_ from: String, to: String) throws(VoiceNoteError) {
        guard Glibc.rename(from, to) == 0 else { throw VoiceNoteError.fromErrno(errno, "rename \(from)") }
    }

    /// Renames `from` to `to` unless `to` exists, atomically: renameat2(RENAME_NOREPLACE), or where the file system
    /// lacks it (EINVAL, ENOSYS) link(2) then unlink(2), which refuse an existing target just as well. A check with
    /// stat(2) first would leave a moment in which a file created at `to` is overwritten.
    /// - Throws: `.io` naming `to` when it exists; else the status of the errno.
    public static func renameWithoutReplacing(_ from: String, to: String) throws(VoiceNoteError) {
        var result = vnshim_rename_noreplace(from, to)
        if result != 0 && (errno == EINVAL || errno == ENOSYS) {
            result = link(from, to)
            if result == 0 { _ = unlink(from) }
        }
        guard result == 0 else {
            if errno == EEXIST { throw VoiceNoteError(.io, "\(to) exists already") }
            throw VoiceNoteError.fromErrno(errno, "rename \(from)")
        }
    }

    /// Deletes a file; a missing file is fine.
    public static func remove(_ path: String) throws(VoiceNoteError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw VoiceNoteError.fromErrno(errno, "delete \(path)") }
    }

    /// The whole of a small regular file, or nil when there is none.
    /// - Throws: `.tooLarge` over `limit` bytes; `.invalidArgument` for anything but a regular file; file statuses.
    public static func contents(of path: String, atMost limit: Int) throws(VoiceNoteError) -> [UInt8]? {
        let file: FileDescriptor
        let status: stat
        do {
            (file, status) = try FileDescriptor.openRegularFile(path, flags: O_RDONLY)
        } catch {
            if error.status == .notFound { return nil }
            throw error
        }
        guard status.st_size <= limit else { throw VoiceNoteError(.tooLarge, "\(path) is over \(limit) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        do throws(Errno) {
            let count = try bytes.withUnsafeMutableBytes { buffer in Result { () throws(Errno) in try file.read(into: buffer) } }.get()
            return Array(bytes[..<count])
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "read \(path)")
        }
    }

    /// Replaces `path` with `bytes`: written to a fresh file beside it (`createAside`), synced to disk when `sync`,
    /// then renamed over it, so a crash leaves the old file or the new one, never a part; a planted symlink or FIFO
    /// at any name we use is never written through or waited on.
    public static func replace(_ path: String, with bytes: [UInt8], sync: Bool) throws(VoiceNoteError) {
        let (file, aside) = try createAside(beside: path)
        do throws(Errno) {
            try bytes.withUnsafeBytes { buffer in Result { () throws(Errno) in try file.write(buffer) } }.get()
            if sync { try file.syncData() }
            try file.close()
        } catch {
            try? remove(aside)
            throw VoiceNoteError.fromErrno(error.code, "write \(aside)")
        }
        do {
            try rename(aside, to: path)
        } catch {
            try? remove(aside)
            throw error
        }
        if sync { syncDirectory(of: path) }
    }

    /// A new file in `target`'s directory, to be renamed over `target` once whole: a fresh name
    /// (`.<random>.new`, short whatever `target`'s length), opened with O_EXCL | O_NOFOLLOW (mode 0600), so nothing
    /// another process put there — a symlink, a FIFO, an old file — is opened. Returns the descriptor and the name.
    /// - Throws: the status of the errno (`.noSpace`, `.permission`, `.io`...).
    public static func createAside(beside target: String) throws(VoiceNoteError) -> (FileDescriptor, String) {
        let directory = target.lastIndex(of: "/").map { String(target[..<$0]) } ?? "."
        var lastError: Errno = Errno(EEXIST)
        for _ in 0..<8 {
            let aside = (directory.isEmpty ? "" : directory) + "/." + randomHex() + ".new"
            do throws(Errno) {
                let file = try FileDescriptor(opening: aside, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK,
                                              mode: 0o600)
                return (file, aside)
            } catch {
                lastError = error
                if error.code != EEXIST { break }
            }
        }
        throw VoiceNoteError.fromErrno(lastError.code, "create a file beside \(target)")
    }

    /// fsync(2) of `path`'s directory, so a rename in it survives a crash of the machine. Best effort.
    public static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard let file = try? FileDescriptor(opening: directory.isEmpty ? "/" : directory,
                                             flags: O_RDONLY | O_DIRECTORY | O_NONBLOCK) else { return }
        try? file.sync()
    }

    /// The size of a file in bytes.
    public static func size(of path: String) throws(VoiceNoteError) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { throw VoiceNoteError.fromErrno(errno, "stat \(path)") }
        return Int64(status.st_size)
    }

    /// The names of the entries of a directory (no "." or ".."), sorted.
    public static func entries(of directory: String) throws(VoiceNoteError) -> [String] {
        try scan(directory) { _, _ in true }
    }

    /// The names of the regular files in a directory, sorted; symbolic links, directories and the like are left
    /// out (a link is not followed).
    public static func regularFiles(in directory: String) throws(VoiceNoteError) -> [String] {
        try scan(directory) { name, type in
            if type == UInt8(DT_REG) { return true }
            guard type == UInt8(DT_UNKNOWN) else { return false }  // a file system that does not say: lstat(2)
            var status = stat()
            let path = (directory.hasSuffix("/") ? directory : directory + "/") + name
            return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
        }
    }

    /// The sorted names (no "." or "..") of `directory`'s entries that `keep` takes, given the name and d_type.
    private static func scan(_ directory: String, keep: (String, UInt8) -> Bool) throws(VoiceNoteError) -> [String] {
        guard let handle = opendir(directory) else { throw VoiceNoteError.fromErrno(errno, "open directory \(directory)") }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." && keep(name, entry.pointee.d_type) { names.append(name) }
        }
        return names.sorted()
    }

    /// Whether something (a file, a directory, a link that leads somewhere) exists at `path`.
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// A new file with a fresh name `<directory>/<prefix>XXXXXX` (mkstemp(3): mode 0600, O_EXCL; close-on-exec).
    /// Returns the descriptor and the name.
    /// - Throws: the status of the errno (`.noSpace`, `.permission`, `.notFound`...), naming the directory.
    public static func createTemporary(in directory: String, prefix: String) throws(VoiceNoteError) -> (FileDescriptor, String) {
        var template = Array("\(directory)/\(prefix)XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw VoiceNoteError.fromErrno(errno, "create a file in \(directory)") }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (FileDescriptor(adopting: descriptor), path)
    }
}
