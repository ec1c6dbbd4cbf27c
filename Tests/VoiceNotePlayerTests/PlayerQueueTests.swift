import Foundation
import Testing
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteQueue
import VoiceNoteTestSupport

/// The queue mode (docs/queue.md) through the virtual speaker: back to back, the data source's answers, failures,
/// hooks that call into the player, the built-in provider over messages.
@Suite struct PlayerQueueTests {
    /// Three tones of different pitch, `seconds` long each, as WAV files.
    private func notes(_ directory: String, seconds: Double = 1, frequencies: [Double] = [440, 660, 880]) throws -> [String] {
        try frequencies.enumerated().map { index, frequency in
            try writeWAV(tone(frequency, seconds: seconds), in: directory, name: "note\(index).wav")
        }
    }

    /// A data source playing `paths` in order, counting its calls.
    final class ListSource: @unchecked Sendable {
        let paths: [String]
        private let lock = NSLock()
        private var asked: [String] = []
        init(_ paths: [String]) { self.paths = paths }
        var calls: [String] { lock.withLock { asked } }
        func next(_ item: QueueItem) -> PlayerLocation? {
            lock.withLock { asked.append(item.key) }
            guard let index = paths.firstIndex(of: item.key), index + 1 < paths.count else { return nil }
            return .file(paths[index + 1])
        }
    }

    @Test func failedLoadsInARowBackOffOnThePlayersClockThenStopTheQueue() throws {
        let directory = try Fixtures.temporaryDirectory()
        let clock = ManualClock()
        var configuration = PlayerConfiguration()
        configuration.device = FileSpeaker(directory: directory).selection
        configuration.focusGroup = nil
        configuration.mediaCache = try testCache()
        configuration.resumeStore = nil
        configuration.clock = clock
        let player = try Player(configuration: configuration)
        defer { player.close() }
        let log = try PlayerLog(player)
        let asked = Locked(0)
        player.setDataSource { _ in
            let count = asked.withLock { count in
                count += 1
                return count
            }
            return .file(directory + "/missing-\(count).ogg")
        }
        try player.load(.file(directory + "/missing-0.ogg"))
        // The first failure: 0.25 s on the clock before the data source is asked.
        #expect(eventually(seconds: 10) { clock.nextDeadline == 0.25 }, "no back-off after the first failure")
        try clock.advance(0.24)
        #expect(asked.withLock { $0 } == 0, "asked before the back-off ended")
        try clock.advance(0.01)
        // The second failure: 0.5 s more.
        #expect(eventually(seconds: 10) { clock.nextDeadline == 0.75 }, "no back-off after the second failure")
        #expect(asked.withLock { $0 } == 1)
        // The failure events come through the player's event delivery, after the back-off is set (a loaded run under
        // ThreadSanitizer saw the deadline before the second event).
        #expect(eventually(seconds: 10) { log.failures.count == 2 }, "the second failure was not delivered")
        try clock.advance(0.49)
        #expect(asked.withLock { $0 } == 1, "asked before the second back-off ended")
        try clock.advance(0.01)
        // The third failure ends the queue at once, saying why.
        #expect(log.wait { $0.contains { if case .failed(let error) = $0 { error.message.contains("in a row") } else { false } } })
        #expect(asked.withLock { $0 } == 2 && log.failures.count == 4 && clock.nextDeadline == nil)
        #expect(log.failures.last?.message.hasPrefix("the queue stopped: 3 notes in a row failed to load") == true)
    }

    /// The `itemChanged` keys and `finished` locations in order, as "changed:KEY" and "finished:LOCATION".
    private func itemEvents(_ log: PlayerLog) -> [String] {
        log.all.compactMap { event in
            switch event {
            case .itemChanged(_, let key): "changed:" + key
            case .finished(let location): "finished:" + location
            case .failed(let error): "failed:\(error.status)"
            case .context, .listened: nil
            }
        }
    }

    /// How many samples between the first and the last loud one (at least `threshold`) there are.
    static func loudSamples(_ samples: [Int16], threshold: Int16 = 300) -> Int {
        guard let first = samples.firstIndex(where: { abs(Int32($0)) >= threshold }),
              let last = samples.lastIndex(where: { abs(Int32($0)) >= threshold }) else { return 0 }
        return last - first + 1
    }

    /// The longest run of samples quieter than `threshold` between the first and the last loud one.
    static func longestInnerSilence(_ samples: [Int16], threshold: Int16 = 300) -> Int {
        guard let first = samples.firstIndex(where: { abs(Int32($0)) >= threshold }),
              let last = samples.lastIndex(where: { abs(Int32($0)) >= threshold }) else { return samples.count }
        var longest = 0, run = 0
        for sample in samples[first...last] {
            run = abs(Int32(sample)) < threshold ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }

    @Test func threeNotesPlayBackToBackOnOneOpenDeviceAndTheQueueStopsAfterTheLast() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try notes(directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let source = ListSource(paths)
        player.setDataSource { source.next($0) }
        let log = try PlayerLog(player)
        try player.load(.file(paths[0]))

        #expect(log.wait { _ in log.finishedCount == 3 && player.context.state == .stopped }, "\(itemEvents(log))")
        #expect(itemEvents(log) == [
            "changed:" + paths[0], "finished:" + paths[0], "changed:" + paths[1], "finished:" + paths[1],
            "changed:" + paths[2], "finished:" + paths[2],
        ])
        #expect(log.failures.isEmpty)
        #expect(player.context.location == paths[2] && player.context.currentTime == 0)
        // ALSA's file plugin truncates its file at every open: all three notes in it means one open device, and
        // no silence longer than a few samples (a zero crossing) between them.
        let heard = try speaker.samples()
        #expect(heard.count >= 3 * 48_000 && heard.count <= 3 * 48_000 + 4800, "\(heard.count) samples")
        let silence = Self.longestInnerSilence(heard)
        #expect(silence <= 48 * 50, "\(silence) silent samples between the notes")
        for (index, frequency) in [440.0, 660, 880].enumerated() {
            let middle = heard[(index * 48_000 + 12_000)..<(index * 48_000 + 36_000)]
            #expect(abs(measuredFrequency(middle, rate: 48_000) - frequency) < 5, "note \(index)")
        }
        // Stopped after the last: the data source said nothing follows, and nothing more happens.
        #expect(source.calls.last == paths[2])
    }

    @Test func aMissingFileFailsAndTheQueueGoesOnAndAFailingAnswerEndsIt() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try notes(directory, seconds: 0.3, frequencies: [440, 880])
        let missing = directory + "/missing.ogg"
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        // first → missing → second → missing again (which failed before? no: an item loaded since) → missing → missing.
        let order = [paths[0], missing, paths[1], missing]
        let asked = Locked<[String: Int]>([:])
        player.setDataSource { item in
            let count = asked.withLock { counts -> Int in
                counts[item.key, default: 0] += 1
                return counts[item.key]!
            }
            if item.key == missing { return count == 1 ? .file(paths[1]) : .file(missing) }
            guard let index = order.firstIndex(of: item.key), index + 1 < order.count else { return nil }
            return .file(order[index + 1])
        }
        let log = try PlayerLog(player)
        try player.load(.file(paths[0]))
        #expect(log.wait { _ in player.context.state == .notLoaded && log.failures.count == 2 })
        // The second failure's answer names the location that just failed: the queue ends, no loop.
        #expect(itemEvents(log) == [
            "changed:" + paths[0], "finished:" + paths[0], "changed:" + missing, "failed:notFound",
            "changed:" + paths[1], "finished:" + paths[1], "changed:" + missing, "failed:notFound",
        ], "\(itemEvents(log))")
        #expect(player.context.location == missing && player.context.lastError?.status == .notFound)
        #expect(asked.withLock { $0[missing] } == 2)
    }

    @Test func aHookThatCallsIntoThePlayerOrDestroysItDoesNotDeadlock() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try notes(directory, seconds: 0.3)
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        let log = try PlayerLog(player)
        player.setDataSource { [unowned player] item in
            _ = player.context
            try? player.setRate(1.5)
            if item.key == paths[1] {
                player.close()  // destroyed from inside its own hook
                return .file(paths[2])
            }
            return .file(paths[1])
        }
        try player.load(.file(paths[0]))
        #expect(log.wait { _ in log.finishedCount >= 1 && player.rate == 1.5 })
        #expect(eventually(seconds: 20) { (try? player.play()) == nil && (try? player.next()) == nil })
        #expect(throws: VoiceNoteError.self) { try player.load(.file(paths[2])) }
        #expect(!itemEvents(log).contains("changed:" + paths[2]), "\(itemEvents(log))")
        player.close()
    }

    @Test func nextSkipsNowAndStopsAtTheEnd() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = [try writeWAV(tone(440, seconds: 30), in: directory, name: "long.wav"),
                     try writeWAV(tone(660, seconds: 0.3), in: directory, name: "short.wav")]
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        #expect(throws: VoiceNoteError.self) { try player.next() }  // no data source
        let source = ListSource(paths)
        player.setDataSource { source.next($0) }
        #expect(throws: VoiceNoteError.self) { try player.next() }  // nothing loaded
        let log = try PlayerLog(player)
        try player.load(.file(paths[0]), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.next()
        #expect(log.wait { _ in log.finishedCount == 1 && player.context.state == .stopped })
        #expect(itemEvents(log) == ["changed:" + paths[0], "changed:" + paths[1], "finished:" + paths[1]], "\(itemEvents(log))")
        // At the end of the list, next stops the player.
        let before = log.all.count
        try player.play()
        #expect(log.wait(for: .playing, after: before) != nil)
        try player.next()
        #expect(log.wait { _ in player.context.state == .stopped && source.calls.count >= 3 })
    }

    /// Stream's next-item fixture, with its URLs turned into local files.
    private func fixtureMessages(_ directory: String) throws -> (ChannelMessages, [String: String]) {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let text = try String(contentsOf: here.appendingPathComponent("../Fixtures/messages/stream-next-item.json"), encoding: .utf8)
        let messages = try ChannelMessages(json: text)
        var files: [String: String] = [:]
        var json = text
        for (index, url) in Set(messages.messages.flatMap(\.voiceRecordings)).sorted().enumerated() {
            let path = try writeWAV(tone(300 + 50 * Double(index), seconds: 0.2), in: directory, name: "vr\(index).wav")
            files[url] = path
            json = json.replacingOccurrences(of: "\"\(url)\"", with: "\"\(path)\"")
        }
        return (try ChannelMessages(json: json), files)
    }

    @Test(arguments: [NextItemScope.subsequentMessagesFromUser, .consecutive])
    func theBuiltInProviderPlaysWhatItsScopeNames(scope: NextItemScope) throws {
        let directory = try Fixtures.temporaryDirectory()
        let (messages, files) = try fixtureMessages(directory)
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let user = try #require(Self.currentUser)
        player.useMessages(messages, currentUserID: user, scope: scope)
        let log = try PlayerLog(player)
        let first = try #require(files[Self.firstRecording])
        // What the provider itself says, item after item, is what the player plays.
        var expected: [String] = [first]
        while let next = messages.nextItem(after: expected.last!, currentUserID: user, scope: scope) { expected.append(next) }
        #expect(expected.count >= 3, "\(expected)")
        try player.load(.file(first))
        #expect(log.wait { _ in log.finishedCount == expected.count && player.context.state == .stopped }, "\(itemEvents(log))")
        let changed = itemEvents(log).filter { $0.hasPrefix("changed:") }
        #expect(changed == expected.map { "changed:" + $0 })
    }

    @Test func replacingTheMessagesWhileAnItemPlaysChangesWhatComesNext() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try notes(directory, seconds: 0.3)
        let long = try writeWAV(tone(330, seconds: 20), in: directory, name: "long.wav")
        func messages(_ recordings: [String]) throws -> ChannelMessages {
            ChannelMessages(recordings.map { .init(authorID: "friend", voiceRecordings: [$0]) })
        }
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        player.useMessages(try messages([long, paths[0]]), currentUserID: "me", scope: .consecutive)
        let log = try PlayerLog(player)
        try player.load(.file(long))
        #expect(log.wait(for: .playing) != nil)
        player.useMessages(try messages([long, paths[2], paths[1]]), currentUserID: "me", scope: .consecutive)
        try player.next()
        #expect(log.wait { _ in log.finishedCount == 2 && player.context.state == .stopped }, "\(itemEvents(log))")
        #expect(itemEvents(log).filter { $0.hasPrefix("changed:") } == ["changed:" + long, "changed:" + paths[2], "changed:" + paths[1]])
    }

    @Test func hurriedQueueCallsNeitherCrashNorHangAndNothingArrivesAfterClose() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try notes(directory, seconds: 0.2)
        let messages = ChannelMessages(paths.map { .init(authorID: "friend", voiceRecordings: [$0]) })
        let speaker = FileSpeaker(directory: directory)
        for round in 0..<40 {
            let player = try makePlayer(speaker.selection)
            let log = try PlayerLog(player)
            let source = ListSource(paths)
            player.setDataSource { source.next($0) }
            try player.load(.file(paths[round % 3]))
            try? player.next()
            if round % 2 == 0 { player.useMessages(messages, currentUserID: "me", scope: .consecutive) }
            try? player.next()
            if round % 3 == 0 { player.setDataSource(nil) }
            try? player.load(.file(paths[(round + 1) % 3]))
            try? player.seek(to: 0.1)
            try? player.next()
            player.close()
            let count = log.all.count
            #expect(throws: VoiceNoteError.self) { try player.next() }
            #expect(log.all.count == count, "round \(round): an event after close")
        }
    }

    static let currentUser: String? = "C"
    static let firstRecording = "https://cdn.example.com/vr1.ogg"
}
