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
            let audio = directory + "/\(index).ogg"
            #expect(FileManager.default.createFile(atPath: audio, contents: Data([1, 2, 3])))
            try drafts.save(FlowDraft(key: key, path: audio, duration: Double(index) + 0.5))
        }
        for (index, key) in keys.enumerated() {
            #expect(try drafts.load(key: key) == FlowDraft(key: key, path: directory + "/\(index).ogg", duration: Double(index) + 0.5))
        }
        #expect(drafts.list().map(\.key) == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try FileSystem.entries(of: directory + "/drafts").allSatisfy { $0.hasSuffix(".json") && !$0.contains("/") })
        #expect(try drafts.load(key: "unknown") == nil)
        try drafts.clear(key: keys[1])
        #expect(try drafts.load(key: keys[1]) == nil && !FileManager.default.fileExists(atPath: directory + "/1.ogg"))
        try drafts.clear()
        #expect(drafts.list().isEmpty && !FileManager.default.fileExists(atPath: directory + "/0.ogg"))
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
        try drafts.save(FlowDraft(key: "a", path: "/x.ogg", duration: 1))
        try drafts.save(FlowDraft(key: "b", path: "/y.ogg", duration: 2))
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
}
