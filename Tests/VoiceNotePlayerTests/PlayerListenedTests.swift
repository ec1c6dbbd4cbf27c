import Foundation
import Testing
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// What was heard (docs/player.md, "Listened"): a note heard to 90 % or to its end is listened, once, before its
/// `finished`; kept in the store for every later player; "play unplayed" passes over the listened ones in a queue.
@Suite struct PlayerListenedTests {
    /// The `listened` keys and `finished` locations in order.
    private func listenedEvents(_ log: PlayerLog) -> [String] {
        log.all.compactMap { event in
            switch event {
            case .listened(let location, let key): "listened:\(location)|\(key)"
            case .finished(let location): "finished:" + location
            default: nil
            }
        }
    }

    @Test func aNoteHeardToItsEndIsListenedOnceBeforeFinishedAndRememberedByTheStore() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 0.5), in: directory)
        let store = ResumeStore(directory: directory + "/store")
        let player = try makePlayer(FileSpeaker(directory: directory).selection, store: store)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFinished())
        #expect(listenedEvents(log) == ["listened:\(path)|\(path)", "finished:\(path)"])
        #expect(store.isListened(path) && ResumeStore(directory: directory + "/store").isListened(path))
        // Heard again, by this player or another over the same store: no second event.
        try player.play()
        #expect(log.wait { _ in log.finishedCount == 2 })
        let other = try makePlayer(FileSpeaker(directory: directory, name: "vn_player_spk2").selection, store: store)
        defer { other.close() }
        let otherLog = try PlayerLog(other)
        try other.load(.file(path))
        #expect(otherLog.waitFinished())
        #expect(listenedEvents(log).filter { $0.hasPrefix("listened:") }.count == 1)
        #expect(listenedEvents(otherLog) == ["finished:\(path)"])
    }

    @Test func ninetyPercentHeardIsListenedAndLessIsNot() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 10), in: directory)
        let store = ResumeStore(directory: directory + "/store")
        let player = try makePlayer(FileSpeaker(directory: directory).selection, store: store)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused })
        // From 8 s the unpaced speaker reaches 9 s (90 %) soon; the pause comes once the event is there, before the end.
        try player.seek(to: 8)
        try player.play()
        #expect(log.wait { $0.contains { if case .listened = $0 { true } else { false } } })
        try player.pause()
        #expect(store.isListened(path))
        let heard = player.context.currentTime
        #expect(heard >= 9 || log.finishedCount == 1, "listened at \(heard) s")

        // A second note heard to 50 % only, then stopped: not listened.
        let half = try writeWAV(tone(660, seconds: 10), in: directory, name: "half.wav")
        try player.load(.file(half), autoplay: false)
        #expect(log.wait { _ in player.context.location == half && player.context.state == .paused })
        try player.seek(to: 2)
        try player.play()
        #expect(log.wait { _ in player.context.currentTime >= 5 })
        try player.stop()
        #expect(!store.isListened(half))
        #expect(listenedEvents(log).filter { $0.hasPrefix("listened:") } == ["listened:\(path)|\(path)"])
    }

    @Test func playUnplayedPassesOverTheListenedNotesOfAQueue() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try (0..<5).map { try writeWAV(tone(440 + 110 * Double($0), seconds: 0.2), in: directory, name: "n\($0).wav") }
        let store = ResumeStore(directory: directory + "/store")
        store.setListened(true, for: paths[1])
        store.setListened(true, for: paths[2])
        store.setListened(true, for: paths[4])
        let player = try makePlayer(FileSpeaker(directory: directory).selection, store: store)
        defer { player.close() }
        #expect(!player.skipsListened)
        player.setSkipsListened(true)
        #expect(player.skipsListened)
        let asked = Locked<[String]>([])
        player.setDataSource { item in
            asked.withLock { $0.append(item.key) }
            guard let index = paths.firstIndex(of: item.key), index + 1 < paths.count else { return nil }
            return .file(paths[index + 1])
        }
        let log = try PlayerLog(player)
        try player.load(.file(paths[0]))
        #expect(log.wait { _ in log.finishedCount == 2 && player.context.state == .stopped })
        let changed = log.all.compactMap { if case .itemChanged(_, let key) = $0 { key } else { nil } }
        #expect(changed == [paths[0], paths[3]], "\(changed)")
        // Asked again after each listened answer: 0 → 1, 1 → 2, 2 → 3 … 3 → 4, 4 → nil; the queue ended after 3.
        #expect(asked.withLock { $0 }.contains(paths[2]) && asked.withLock { $0 }.contains(paths[4]))
        #expect(store.isListened(paths[0]) && store.isListened(paths[3]))

        // A data source that answers only listened notes, in a loop, ends the queue instead of spinning.
        let looping = try makePlayer(FileSpeaker(directory: directory, name: "vn_player_spk3").selection, store: store)
        defer { looping.close() }
        looping.setSkipsListened(true)
        looping.setDataSource { item in .file(item.key == paths[1] ? paths[2] : paths[1]) }
        let loopLog = try PlayerLog(looping)
        try looping.load(.file(paths[3]))
        #expect(loopLog.wait { _ in loopLog.finishedCount == 1 && looping.context.state == .stopped })
        #expect(looping.context.location == paths[3])
    }
}
