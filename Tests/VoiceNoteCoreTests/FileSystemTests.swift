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
}
