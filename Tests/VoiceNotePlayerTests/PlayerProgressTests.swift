import Foundation
import Testing
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Progress steps are counted in played audio and coalesce for a slow subscriber.
@Suite struct PlayerProgressTests {
    @Test func stepsComeEveryTenthOfASecondOfOutputEvenOnAnUnpacedSpeaker() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 6), in: directory)
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFinished())
        #expect(log.wait(for: .stopped) != nil)
        let steps = log.contexts.filter { $0.state == .playing }
        // At most one per 0.1 s of the 6 s played (and one for the state change); never backwards.
        #expect(steps.count <= 62, "\(steps.count) playing contexts")
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.currentTime <= $1.currentTime })
        #expect((steps.last?.currentTime ?? 0) <= 6)
    }

    @Test func aSlowSubscriberGetsTheLatestStepInsteadOfABacklog() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 6), in: directory)
        var configuration = PlayerConfiguration()
        configuration.resumeStore = nil  // positions stay in this player: tests run in parallel
        configuration.device = FileSpeaker(directory: directory).selection
        configuration.focusGroup = FocusGroup()
        let loop = try EventLoop()
        defer { loop.close() }
        let player = try Player(configuration: configuration, dispatcher: loop)
        defer { player.close() }
        let events = Locked<[PlayerEvent]>([])
        _ = try player.subscribe({ event in events.withLock { $0.append(event) } })
        try player.load(.file(path))
        // Nothing is delivered until the host dispatches: the whole item plays meanwhile.
        #expect(eventually { player.context.state == .stopped })
        _ = try loop.dispatch()
        let delivered = events.withLock { $0 }
        let playing = delivered.filter { if case .context(let context) = $0 { context.state == .playing } else { false } }
        // The state change's, then the latest step before the `listened` event (at 90 %: an event keeps its place among
        // the steps, so the steps before it coalesce apart from those after it), and the latest after it.
        #expect(playing.count <= 3, "\(playing.count) playing contexts queued for a subscriber that did not keep up")
        #expect(delivered.contains { if case .listened = $0 { true } else { false } })
        #expect(delivered.contains { if case .finished = $0 { true } else { false } })
    }
}
