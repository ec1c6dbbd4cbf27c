import Foundation
import Testing
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// The store behind listening that remembers, on its own and under two players: what is kept comes back in another
/// store over the same directory (another process), writers never lose each other's positions, the size stays
/// bounded, and a damaged file reads as empty and is replaced.
@Suite struct ResumeStoreTests {
    @Test func positionsComeBackInAnotherStoreOverTheSameDirectory() throws {
        let directory = try Fixtures.temporaryDirectory()
        let first = ResumeStore(directory: directory)
        first.keep(12.5, for: "/notes/a.ogg")
        first.keep(3.25, for: "message-7/0")
        let second = ResumeStore(directory: directory)
        #expect(second.position(of: "/notes/a.ogg") == 12.5 && second.position(of: "message-7/0") == 3.25)
        #expect(try second.position(of: .file("file:///notes/a.ogg")) == 12.5)
        #expect(try second.position(of: .url("https://cdn/x.ogg?sig=1", key: "message-7/0")) == 3.25)
        second.forget("/notes/a.ogg")
        first.keep(0, for: "message-7/0")  // 0 forgets
        #expect(first.position(of: "/notes/a.ogg") == nil && first.position(of: "message-7/0") == nil)
    }

    @Test func twoWritersAtOnceLoseNothing() throws {
        let directory = try Fixtures.temporaryDirectory()
        let stores = [ResumeStore(directory: directory), ResumeStore(directory: directory)]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            for note in 0..<100 { stores[index].keep(Double(note + 1), for: "/w\(index)/\(note).ogg") }
        }
        for index in 0..<2 {
            for note in 0..<100 { #expect(stores[1 - index].position(of: "/w\(index)/\(note).ogg") == Double(note + 1)) }
        }
    }

    @Test func theMostRecentlyUsedStayWithinTheLimit() throws {
        let directory = try Fixtures.temporaryDirectory()
        let store = ResumeStore(directory: directory, limit: 20)
        for note in 0..<25 { store.keep(1, for: "/n/\(note).ogg") }
        #expect((0..<5).allSatisfy { store.position(of: "/n/\($0).ogg") == nil })
        #expect((5..<25).allSatisfy { store.position(of: "/n/\($0).ogg") == 1 })
        store.keep(1, for: String(repeating: "k", count: ResumeStore.maximumKeyBytes + 1))  // not kept, no failure
        #expect(store.position(of: String(repeating: "k", count: ResumeStore.maximumKeyBytes + 1)) == nil)
    }

    @Test func aDamagedFileReadsAsEmptyAndIsReplaced() throws {
        let directory = try Fixtures.temporaryDirectory()
        for garbage in ["", "{", "[1]", "{\"/a\": \"x\"}", "{\"/a\": [NaN, 1]}", String(repeating: "[", count: 50_000)] {
            #expect(FileManager.default.createFile(atPath: directory + "/resume-positions.json", contents: Data(garbage.utf8)))
            let store = ResumeStore(directory: directory)
            #expect(store.position(of: "/a") == nil)
            store.keep(2, for: "/b")
            #expect(store.position(of: "/b") == 2)
        }
        try ResumeStore(directory: directory).clear()
        #expect(ResumeStore(directory: directory).position(of: "/b") == nil)
        try ResumeStore(directory: directory).clear()  // nothing to clear: fine
    }

    @Test func listenedMarksComeBackInAnotherStoreAndStayApartFromPositions() throws {
        let directory = try Fixtures.temporaryDirectory()
        let first = ResumeStore(directory: directory, listenedLimit: 20)
        #expect(!first.isListened("/notes/a.ogg"))
        first.setListened(true, for: "/notes/a.ogg")
        try first.setListened(true, for: .url("https://cdn/x.ogg?sig=1", key: "message-7/0"))
        first.keep(4, for: "/notes/a.ogg")
        let second = ResumeStore(directory: directory)
        #expect(second.isListened("/notes/a.ogg") && second.isListened("message-7/0"))
        #expect(try second.isListened(.file("file:///notes/a.ogg")))
        // Forgetting the position (the note's end) keeps the mark; clearing positions keeps it too.
        second.forget("/notes/a.ogg")
        try second.clear()
        #expect(first.isListened("/notes/a.ogg") && first.position(of: "/notes/a.ogg") == nil)
        second.setListened(false, for: "/notes/a.ogg")  // "mark as unplayed"
        #expect(!first.isListened("/notes/a.ogg") && first.isListened("message-7/0"))
        // Bounded: the most recently heard stay.
        for note in 0..<25 { first.setListened(true, for: "/n/\(note).ogg") }
        #expect((0..<5).allSatisfy { !first.isListened("/n/\($0).ogg") })
        #expect((5..<25).allSatisfy { first.isListened("/n/\($0).ogg") })
        // A damaged file reads as nothing listened and is replaced by the next mark.
        #expect(FileManager.default.createFile(atPath: directory + "/listened.json", contents: Data("{\"/z\": [1, 2]}".utf8)))
        #expect(!first.isListened("/z"))
        first.setListened(true, for: "/y")
        #expect(first.isListened("/y") && !first.isListened("/z"))
        try first.clearListened()
        #expect(!second.isListened("/y"))
    }
}
