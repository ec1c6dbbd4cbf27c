import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNoteTestSupport

/// The drafts directory on its own: records written aside and renamed, read back exactly, listed, cleared; keys of
/// any text become safe file names; damaged records are refused, never taken for another key's.
@Suite struct FlowDraftsTests {
    @Test func recordsRoundTripByKeyAndClear() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory + "/drafts")
        let keys = ["!room:example.org", "../../etc/passwd", "messaging:général 🎙", String(repeating: "k", count: 100)]
        for (index, key) in keys.enumerated() {
            let audio = directory + "/drafts/\(index).ogg"
            try FileSystem.makeDirectories(directory + "/drafts")
            #expect(FileManager.default.createFile(atPath: audio, contents: Data([1, 2, 3])))
            try drafts.save(FlowDraft(key: key, path: audio, duration: Double(index) + 0.5))
        }
        for (index, key) in keys.enumerated() {
            #expect(try drafts.load(key: key) == FlowDraft(key: key, path: directory + "/drafts/\(index).ogg", duration: Double(index) + 0.5))
        }
        #expect(drafts.list().map(\.key) == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try FileSystem.entries(of: directory + "/drafts").allSatisfy { ($0.hasSuffix(".json") || $0.hasSuffix(".ogg")) && !$0.contains("/") })
        #expect(try drafts.load(key: "unknown") == nil)
        try drafts.clear(key: keys[1])
        #expect(try drafts.load(key: keys[1]) == nil && !FileManager.default.fileExists(atPath: directory + "/drafts/1.ogg"))
        try drafts.clear()
        #expect(drafts.list().isEmpty && !FileManager.default.fileExists(atPath: directory + "/drafts/0.ogg"))
    }

    @Test func keysAreChecked() throws {
        let drafts = FlowDrafts(directory: try Fixtures.temporaryDirectory())
        for key in ["", String(repeating: "x", count: 101), "a\u{0}b"] {
            #expect(throws: VoiceNoteError.self) { try drafts.load(key: key) }
        }
        var configuration = FlowConfiguration()
        configuration.draftKey = ""
        #expect(throws: VoiceNoteError.self) { try configuration.validate() }
    }

    @Test func damagedOrForeignRecordsAreFormatAndLeftOutOfTheList() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory)
        try drafts.save(FlowDraft(key: "a", path: directory + "/x.ogg", duration: 1))
        try drafts.save(FlowDraft(key: "b", path: directory + "/y.ogg", duration: 2))
        // "b"'s record copied over "a"'s: it names another key, so it is not "a"'s draft.
        let a = directory + "/61.json", b = directory + "/62.json"
        try FileManager.default.removeItem(atPath: a)
        try FileManager.default.copyItem(atPath: b, toPath: a)
        #expect(throws: VoiceNoteError.self) { try drafts.load(key: "a") }
        for garbage in ["", "{", "[1,2]", "{\"key\":\"a\"}", String(repeating: "[", count: 100_000)] {
            #expect(FileManager.default.createFile(atPath: a, contents: Data(garbage.utf8)))
            do {
                _ = try drafts.load(key: "a")
                Issue.record("\(garbage.prefix(20)) was read as a draft")
            } catch {
                #expect(error.status == .format || error.status == .tooLarge)
            }
        }
        #expect(drafts.list().map(\.key) == ["b"])
    }

    @Test func aMissingAudioFileForgetsTheDraft() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory)
        try drafts.save(FlowDraft(key: "gone", path: directory + "/gone.ogg", duration: 1))
        #expect(try drafts.restore(key: "gone") == nil)
        #expect(drafts.list().isEmpty)
    }

    /// A record names only a take in its own directory, by name: one naming any other file (planted, synced in,
    /// left by an older program) is not a draft, and neither restoring nor clearing it touches that file.
    @Test func aRecordNamesOnlyATakeInItsOwnDirectory() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory + "/drafts")
        try drafts.prepare()
        let outside = directory + "/thesis.ogg"
        #expect(FileManager.default.createFile(atPath: outside, contents: Data("years of work".utf8)))
        #expect(throws: VoiceNoteError.self) { try drafts.save(FlowDraft(key: "k", path: outside, duration: 1)) }
        for named in ["\"path\":\"\(outside)\"", "\"file\":\"../thesis.ogg\"", "\"file\":\"/etc/passwd\"",
                      "\"file\":\"6b.json\"", "\"file\":\".x.ogg\"", "\"file\":\"notes.txt\""] {
            let record = "{\"key\":\"k\",\(named),\"duration\":1}"
            #expect(FileManager.default.createFile(atPath: directory + "/drafts/6b.json", contents: Data(record.utf8)))
            #expect(throws: VoiceNoteError.self, "\(named)") { try drafts.restore(key: "k") }
            try drafts.clear(key: "k")
            #expect(!FileManager.default.fileExists(atPath: directory + "/drafts/6b.json"))
            #expect(FileManager.default.fileExists(atPath: outside), "\(named)")
        }
        // A symlink in the drafts directory named by a record is not followed.
        try FileManager.default.createSymbolicLink(atPath: directory + "/drafts/link.ogg", withDestinationPath: outside)
        #expect(FileManager.default.createFile(atPath: directory + "/drafts/6b.json",
                                               contents: Data("{\"key\":\"k\",\"file\":\"link.ogg\",\"duration\":1}".utf8)))
        #expect(throws: VoiceNoteError.self) { try drafts.restore(key: "k") }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "years of work")
    }

    /// A record that cannot be read — damaged, a FIFO, too large — is deleted by clearing its key or every draft
    /// (the error that refuses to restore it tells the user to clear it).
    @Test func unreadableRecordsCanBeCleared() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory)
        let record = directory + "/" + "room".utf8.map { String(format: "%02x", $0) }.joined() + ".json"
        for clearAll in [false, true] {
            for kind in ["damaged", "fifo", "large"] {
                switch kind {
                case "damaged": #expect(FileManager.default.createFile(atPath: record, contents: Data("{\"key\":\"room\",\"fi".utf8)))
                case "fifo": #expect(mkfifo(record, 0o600) == 0)
                default: #expect(FileManager.default.createFile(atPath: record, contents: Data(repeating: 0x20, count: 20_000)))
                }
                #expect(throws: VoiceNoteError.self) { try drafts.load(key: "room") }
                try drafts.clear(key: clearAll ? nil : "room")
                #expect(!FileManager.default.fileExists(atPath: record), "\(kind), clear all: \(clearAll)")
            }
        }
    }

    /// One flow at a time holds a key: a second claim (another window, here or in another process) is refused
    /// until the first lets go; a planted symlink or FIFO at the lock's name is refused, never followed or waited on.
    @Test func aKeyIsClaimedByOneFlowAtATime() throws {
        let directory = try Fixtures.temporaryDirectory()
        let drafts = FlowDrafts(directory: directory)
        let first = try #require(try drafts.claim(key: "room"))
        #expect(try drafts.claim(key: "room") == nil)
        #expect(try drafts.claim(key: "other") != nil)
        first.release()
        #expect(try drafts.claim(key: "room") != nil)
        let lock = directory + "/" + "fifo".utf8.map { String(format: "%02x", $0) }.joined() + ".lock"
        #expect(mkfifo(lock, 0o600) == 0)
        #expect(throws: VoiceNoteError.self) { try drafts.claim(key: "fifo") }
        let linked = directory + "/" + "link".utf8.map { String(format: "%02x", $0) }.joined() + ".lock"
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: directory + "/victim")
        #expect(throws: VoiceNoteError.self) { try drafts.claim(key: "link") }
        #expect(!FileManager.default.fileExists(atPath: directory + "/victim"))
    }

    /// A directory another user owns, or anyone may write, is refused: nothing is written aside there.
    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        #expect(chmod(directory, 0o777) == 0)
        let drafts = FlowDrafts(directory: directory)
        #expect(throws: VoiceNoteError.self) { try drafts.save(FlowDraft(key: "k", path: directory + "/a.ogg", duration: 1)) }
        #expect(throws: VoiceNoteError.self) { try drafts.claim(key: "k") }
        #expect(try FileSystem.entries(of: directory).isEmpty)
    }
}
