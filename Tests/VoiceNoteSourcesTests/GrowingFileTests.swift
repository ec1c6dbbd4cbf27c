import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport

/// A file read as its writer announces it: never past what was announced, `later` until more comes (with a wake),
/// the end once complete, the writer's reason once abandoned; a rename by the writer changes nothing.
@Suite struct GrowingFileTests {
    func read(_ file: GrowingFile, _ count: Int = 64) throws -> (GrowingFile.Read, [UInt8]) {
        var buffer = [UInt8](repeating: 0, count: count)
        let result = try buffer.withUnsafeMutableBytes { try file.readAvailable(into: $0) }
        if case .bytes(let n) = result { return (result, Array(buffer.prefix(n))) }
        return (result, [])
    }

    @Test func readsOnlyWhatWasAnnouncedThenEndsOnceComplete() throws {
        let path = try Fixtures.temporaryDirectory() + "/take.ogg.part"
        let handle = try #require(FileHandle(forWritingAtPath: { FileManager.default.createFile(atPath: path, contents: nil); return path }()))
        handle.write(Data([1, 2, 3, 4, 5, 6]))  // six on disk, four announced
        let file = try GrowingFile(path: path, bytes: 4)
        let wakes = Locked(0)
        file.setWake { wakes.withLock { $0 += 1 } }
        #expect(try read(file) == (.bytes(4), [1, 2, 3, 4]))
        #expect(try read(file).0 == .later)
        file.grow(to: 3)  // never backwards: no wake
        #expect(wakes.withLock { $0 } == 0)
        file.grow(to: 6)
        #expect(wakes.withLock { $0 } == 1)
        try FileManager.default.moveItem(atPath: path, toPath: String(path.dropLast(5)))  // the writer renames it
        handle.write(Data([7, 8]))
        #expect(try read(file, 1) == (.bytes(1), [5]))
        #expect(try read(file) == (.bytes(1), [6]))
        file.complete(size: 8)
        #expect(wakes.withLock { $0 } == 2)
        #expect(try read(file) == (.bytes(2), [7, 8]))
        #expect(try read(file).0 == .end)
        #expect(file.size == 8 && file.bytesRead == 8)
        file.abandon(VoiceNoteError(.cancelled, "too late"))  // after completion: nothing changes
        #expect(try read(file).0 == .end)
        handle.closeFile()
    }

    @Test func anAbandonedFileFailsItsNextRead() throws {
        let path = try Fixtures.temporaryDirectory() + "/take.ogg.part"
        FileManager.default.createFile(atPath: path, contents: Data([1, 2]))
        let file = try GrowingFile(path: path, bytes: 2)
        file.abandon(VoiceNoteError(.cancelled, "the take was cancelled"))
        #expect(throws: VoiceNoteError(.cancelled, "the take was cancelled")) { _ = try read(file) }
        file.complete(size: 2)  // after abandoning: still abandoned
        #expect(file.size == nil)
    }

    @Test func announcedBytesTheFileDoesNotHoldAreAnError() throws {
        let path = try Fixtures.temporaryDirectory() + "/take.ogg.part"
        FileManager.default.createFile(atPath: path, contents: Data([1, 2]))
        let file = try GrowingFile(path: path, bytes: 5)
        #expect(try read(file) == (.bytes(2), [1, 2]))
        #expect(throws: VoiceNoteError.self) { _ = try read(file) }
    }

    @Test func linksAndNegativeCountsAreRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        FileManager.default.createFile(atPath: directory + "/real", contents: Data([1]))
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/real")
        #expect(throws: VoiceNoteError.self) { _ = try GrowingFile(path: directory + "/link", bytes: 0) }
        #expect(throws: VoiceNoteError.self) { _ = try GrowingFile(path: directory + "/real", bytes: -1) }
        #expect(throws: VoiceNoteError.self) { _ = try GrowingFile(path: directory + "/missing", bytes: 0) }
    }
}
