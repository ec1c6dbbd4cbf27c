import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteTestSupport

/// The core's file-system operations that guard against races with other processes.
@Suite struct FileSystemTests {
    @Test func aRenameNeverReplacesAFileThatExists() throws {
        let directory = try Fixtures.temporaryDirectory()
        let from = directory + "/take.ogg.part", to = directory + "/take.ogg"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: from))
        try Data([7]).write(to: URL(fileURLWithPath: to))  // made by someone else in the meantime
        #expect(throws: VoiceNoteError(.io, "\(to) exists already")) { try FileSystem.renameWithoutReplacing(from, to: to) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: to)) == Data([7]))
        #expect(try Data(contentsOf: URL(fileURLWithPath: from)) == Data([1, 2, 3]))
        try FileManager.default.removeItem(atPath: to)
        try FileSystem.renameWithoutReplacing(from, to: to)
        #expect(try Data(contentsOf: URL(fileURLWithPath: to)) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: from))
        #expect(throws: VoiceNoteError.self) { try FileSystem.renameWithoutReplacing(from, to: to + ".again") }
    }

    /// Every file written aside gets a fresh name opened with O_EXCL | O_NOFOLLOW: whatever another process planted at
    /// a name it could guess — a symlink to a victim, a FIFO — is neither written through nor waited on, the target is
    /// replaced whole (a symlink at the target itself is replaced, not followed), and no part is left.
    @Test func replacingWritesAsideToAFreshNameAndNeverFollowsWhatWasPlanted() throws {
        let directory = try Fixtures.temporaryDirectory()
        let target = directory + "/record.json", victim = directory + "/victim"
        try Data("VICTIM".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: target + ".new", withDestinationPath: victim)
        #expect(mkfifo(target + ".part", 0o600) == 0)
        try FileSystem.replace(target, with: Array("one".utf8), sync: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/linked.json", withDestinationPath: victim)
        try FileSystem.replace(directory + "/linked.json", with: Array("two".utf8), sync: false)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "one")
        #expect(try String(contentsOfFile: directory + "/linked.json", encoding: .utf8) == "two")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "VICTIM")
        let names = try FileSystem.entries(of: directory)
        #expect(names == ["linked.json", "record.json", "record.json.new", "record.json.part", "victim"], "\(names)")
        let (first, firstName) = try FileSystem.createAside(beside: target)
        let (second, secondName) = try FileSystem.createAside(beside: target)
        #expect(firstName != secondName && firstName.hasPrefix(directory + "/.") && first.isOpen && second.isOpen)
        // Beside a name as long as a file system allows, the aside name still fits.
        let long = directory + "/" + String(repeating: "n", count: 255)
        try FileSystem.replace(long, with: [1], sync: false)
        #expect(try FileSystem.size(of: long) == 1)
    }

    /// A store's directory must be the user's own: created 0700; one that others may write, that is a symlink, or
    /// whose parent anyone may write without the sticky bit, is refused.
    @Test func onlyADirectoryNoOneElseCanChangeIsTrusted() throws {
        let directory = try Fixtures.temporaryDirectory()
        try FileSystem.makeOwnedDirectory(directory + "/a/b")
        var status = stat()
        #expect(stat(directory + "/a/b", &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(mkdir(directory + "/open", 0o700) == 0 && chmod(directory + "/open", 0o777) == 0)
        #expect(throws: VoiceNoteError.self) { try FileSystem.makeOwnedDirectory(directory + "/open") }
        #expect(throws: VoiceNoteError.self) { try FileSystem.makeOwnedDirectory(directory + "/open/inside") }
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/a")
        #expect(throws: VoiceNoteError.self) { try FileSystem.checkOwnedDirectory(directory + "/link") }
        #expect(chmod(directory + "/open", 0o1777) == 0)  // sticky, as /tmp: a parent may be
        try FileSystem.makeOwnedDirectory(directory + "/open/mine")
        if geteuid() == 0 {
            #expect(mkdir(directory + "/theirs", 0o700) == 0 && chown(directory + "/theirs", 65534, 65534) == 0)
            #expect(throws: VoiceNoteError.self) { try FileSystem.makeOwnedDirectory(directory + "/theirs") }
        } else {
            print("FileSystemTests: another user's directory is checked only as root (CI runs as root)")
        }
    }

    /// A lock guarding a cache is waited for a bounded time; a planted symlink or FIFO at its name is refused.
    @Test func lockFilesAreWaitedForBrieflyAndNeverFollowed() throws {
        let directory = try Fixtures.temporaryDirectory()
        let holder = try FileDescriptor.openLockFile(directory + "/store.lock")
        #expect(holder.lockExclusively(within: 0))
        let other = try FileDescriptor.openLockFile(directory + "/store.lock")
        #expect(!other.lockExclusively(within: 20))
        try holder.close()
        #expect(other.lockExclusively(within: 20))
        #expect(mkfifo(directory + "/fifo.lock", 0o600) == 0)
        #expect(throws: VoiceNoteError.self) { try FileDescriptor.openLockFile(directory + "/fifo.lock") }
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.lock", withDestinationPath: directory + "/victim")
        #expect(throws: VoiceNoteError.self) { try FileDescriptor.openLockFile(directory + "/link.lock") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/victim"))
    }
}
