import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// The player against a real-time speaker: a private PulseAudio server's null sink, played through ALSA's pulse
/// plugin opened from configuration text. The sink takes frames at the pace of its clock, so items take as long as
/// they sound and the position follows wall time. Serialized, as every suite with a PulseServer: each test runs its
/// own server. Bounds are loose: the server, the event thread and the machine may all be slow.
@Suite(.serialized) struct PlayerRealtimeTests {
    /// A player's events, each with the wall time it arrived at (on the event thread).
    final class TimedLog: @unchecked Sendable {
        struct Entry {
            let time: ContinuousClock.Instant
            let event: PlayerEvent
        }
        private let lock = NSLock()
        private var entries: [Entry] = []

        init(_ player: Player) throws {
            _ = try player.subscribe({ [self] event in
                let now = ContinuousClock.now
                lock.withLock { entries.append(Entry(time: now, event: event)) }
            })
        }

        var all: [Entry] { lock.withLock { entries } }

        /// Waits (bounded) until `predicate` holds for the entries so far; returns whether it does.
        @discardableResult
        func wait(seconds: Double, until predicate: ([Entry]) -> Bool) -> Bool {
            eventually(seconds: seconds, pollMicroseconds: 1000) { predicate(all) }
        }

        /// The first entry matching `match`, waiting (bounded) for it.
        func first(within seconds: Double, after index: Int = 0, _ match: @escaping (PlayerEvent) -> Bool) -> (index: Int, entry: Entry)? {
            var found: (Int, Entry)?
            wait(seconds: seconds) { entries in
                guard let index = entries.indices.dropFirst(index).first(where: { match(entries[$0].event) }) else { return false }
                found = (index, entries[index])
                return true
            }
            return found
        }

        func firstFinished(within seconds: Double) -> Entry? {
            first(within: seconds) { if case .finished = $0 { true } else { false } }?.entry
        }

        func firstFailure(within seconds: Double) -> (error: VoiceNoteError, entry: Entry)? {
            guard let (_, entry) = first(within: seconds, { if case .failed = $0 { true } else { false } }),
                  case .failed(let error) = entry.event else { return nil }
            return (error, entry)
        }

        /// The first context in `state`, at or after entry `after`.
        func firstContext(_ state: PlayerState, within seconds: Double, after: Int = 0,
                          where condition: @escaping (PlayerContext) -> Bool = { _ in true }) -> (index: Int, context: PlayerContext, time: ContinuousClock.Instant)? {
            guard let (index, entry) = first(within: seconds, after: after, {
                if case .context(let context) = $0 { context.state == state && condition(context) } else { false }
            }), case .context(let context) = entry.event else { return nil }
            return (index, context, entry.time)
        }

        /// The contexts in arrival order, with their times and indices.
        var contexts: [(index: Int, context: PlayerContext, time: ContinuousClock.Instant)] {
            all.enumerated().compactMap { index, entry in
                if case .context(let context) = entry.event { (index, context, entry.time) } else { nil }
            }
        }

        var failures: [VoiceNoteError] { all.compactMap { if case .failed(let error) = $0.event { error } else { nil } } }
    }

    /// A started, warmed server and a player (in a focus group of its own) whose device is the server's null sink.
    private func pulsePlayer() throws -> (PulseServer, Player) {
        let server = try PulseServer()
        do {
            try server.warm()   // else the idle null sink takes its first frames ~1.8 s late
            let selection = DeviceSelection(name: "vn_rt_out", configuration: server.alsaConfiguration(pcmName: "vn_rt_out",
                                                                                                       device: server.sinkName))
            return (server, try makePlayer(selection))
        } catch {
            server.stop()
            throw error
        }
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    @Test func aToneTakesAsLongAsItSoundsAndItsPositionFollowsWallTime() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 2), in: directory)
        let (server, player) = try pulsePlayer()
        defer { player.close(); server.stop() }
        let log = try TimedLog(player)

        let loaded = ContinuousClock.now
        try player.load(.file(path))
        let finished = try #require(log.firstFinished(within: 15), "no finished event; server log:\n\(server.log)")
        let elapsed = seconds(finished.time - loaded)
        #expect((1.6...5).contains(elapsed), "a 2 s tone took \(elapsed) s from load to finished")
        #expect(log.failures.isEmpty, "\(log.failures)")

        let contexts = log.contexts
        let firstPlaying = try #require(contexts.first { $0.context.state == .playing })
        let finishedIndex = try #require(log.all.firstIndex { if case .finished = $0.event { true } else { false } })
        // Progress steps: the playing contexts after the state change, up to the end.
        let steps = contexts.filter { $0.index > firstPlaying.index && $0.index < finishedIndex && $0.context.state == .playing }
        #expect((10...40).contains(steps.count), "\(steps.count) progress contexts over a 2 s tone")
        let times = steps.map(\.context.currentTime)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "currentTime not increasing: \(times)")
        #expect((times.last ?? 0) <= 2.0 + 1e-9 && (times.last ?? 0) >= 1.5, "last progress at \(times.last ?? -1) s")
        // At 1x the position keeps to wall time since the item began to play.
        for step in steps {
            let wall = seconds(step.time - firstPlaying.time)
            #expect(abs(step.context.currentTime - wall) <= 0.5,
                    "currentTime \(step.context.currentTime) s at \(wall) s of wall time since playing began")
        }
        #expect(player.context.state == .stopped && player.context.currentTime == 0)
    }

    @Test func aQueueOfThreeNotesSoundsBackToBackWithAtMostFiftyMillisecondsOfSilence() throws {
        let directory = try Fixtures.temporaryDirectory()
        let paths = try [440.0, 660, 880].enumerated().map { index, frequency in
            try writeWAV(tone(frequency, seconds: 1), in: directory, name: "note\(index).wav")
        }
        let server = try PulseServer()
        defer { server.stop() }
        let recording = directory + "/sink.raw"
        try server.record(to: recording)  // what the sink plays, in real time
        let selection = DeviceSelection(name: "vn_rt_out", configuration: server.alsaConfiguration(pcmName: "vn_rt_out",
                                                                                                   device: server.sinkName))
        let player = try makePlayer(selection)
        defer { player.close() }
        player.setDataSource { item in
            guard let index = paths.firstIndex(of: item.key), index + 1 < paths.count else { return nil }
            return .file(paths[index + 1])
        }
        let log = try TimedLog(player)
        try player.load(.file(paths[0]))
        #expect(log.wait(seconds: 20) { entries in
            entries.filter { if case .finished = $0.event { true } else { false } }.count == 3
        }, "server log:\n\(server.log)")
        #expect(log.failures.isEmpty, "\(log.failures)")
        // The sink's recording holds the three notes; between them at most 50 ms of silence (a sine is quiet for a
        // sample or two at its zero crossings only).
        var heard: [Int16] = []
        #expect(eventually(seconds: 10) {
            heard = (try? FileSpeaker(outfile: recording).samples()) ?? []
            return PlayerQueueTests.loudSamples(heard) >= 3 * 48_000 - 2400
        }, "the sink played \(PlayerQueueTests.loudSamples(heard)) loud samples")
        let silence = PlayerQueueTests.longestInnerSilence(heard)
        #expect(silence <= 48 * 50, "\(Double(silence) / 48) ms of silence between the notes")
    }

    @Test func atRateTwoAThreeSecondToneTakesAboutHalfItsLength() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 3), in: directory)
        let (server, player) = try pulsePlayer()
        defer { player.close(); server.stop() }
        let log = try TimedLog(player)
        try player.setRate(2)

        let loaded = ContinuousClock.now
        try player.load(.file(path))
        let finished = try #require(log.firstFinished(within: 15), "no finished event; server log:\n\(server.log)")
        let elapsed = seconds(finished.time - loaded)
        #expect((1.2...4).contains(elapsed), "a 3 s tone at 2x took \(elapsed) s from load to finished")
        #expect(log.failures.isEmpty, "\(log.failures)")
        let times = log.contexts.filter { $0.context.state == .playing }.map(\.context.currentTime)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "currentTime went backwards: \(times)")
        #expect(player.context.rate == 2)
    }

    @Test func killingTheServerMidPlayFailsWithADeviceErrorAndPausesWhereTheListenerWas() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 6), in: directory)
        let (server, player) = try pulsePlayer()
        defer { player.close(); server.stop() }
        let log = try TimedLog(player)
        try player.load(.file(path))
        let heard = try #require(log.firstContext(.playing, within: 15, where: { $0.currentTime >= 0.5 }),
                                 "never reached 0.5 s; server log:\n\(server.log)")
        #expect(heard.context.duration == 6)

        let killedAt = ContinuousClock.now
        #expect(server.kill())
        let failure = try #require(log.firstFailure(within: 10), "no failed event within 10 s of the kill")
        #expect(failure.error.status == .device, "\(failure.error)")
        #expect(seconds(failure.entry.time - killedAt) <= 10)
        let paused = try #require(log.firstContext(.paused, within: 5, after: heard.index))
        #expect(paused.context.currentTime > 0 && paused.context.currentTime < paused.context.duration,
                "paused at \(paused.context.currentTime) s of \(paused.context.duration) s")
        #expect(paused.context.currentTime >= heard.context.currentTime - 0.3,
                "paused at \(paused.context.currentTime) s after \(heard.context.currentTime) s was heard")
        #expect(player.context.state == .paused)
        #expect(player.context.lastError?.status == .device)
        #expect(!log.all.contains { if case .finished = $0.event { true } else { false } })
    }

    @Test func pausingAtOneSecondKeepsThePositionAndPlayResumesToTheEnd() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeWAV(tone(440, seconds: 3), in: directory)
        let (server, player) = try pulsePlayer()
        defer { player.close(); server.stop() }
        let log = try TimedLog(player)
        try player.load(.file(path))
        let reached = try #require(log.firstContext(.playing, within: 15, where: { $0.currentTime >= 1.0 }),
                                   "never reached 1 s; server log:\n\(server.log)")
        try player.pause()
        #expect(player.context.state == .paused)

        let paused = try #require(log.firstContext(.paused, within: 5, after: reached.index))
        let lastProgress = try #require(log.contexts.last { $0.index < paused.index && $0.context.state == .playing })
        #expect(abs(paused.context.currentTime - lastProgress.context.currentTime) <= 0.3,
                "paused at \(paused.context.currentTime) s, last progress at \(lastProgress.context.currentTime) s")
        #expect(paused.context.currentTime >= 0.9 && paused.context.currentTime < 3)

        try player.play()
        let finished = try #require(log.first(within: 15, after: paused.index) { if case .finished = $0 { true } else { false } })
        #expect(log.failures.isEmpty, "\(log.failures)")
        // Resumed where it paused, not from the start: the steps after resuming start near the paused position.
        let resumed = log.contexts.filter { $0.index > paused.index && $0.index < finished.index && $0.context.state == .playing }
        #expect(!resumed.isEmpty)
        if let first = resumed.first {
            #expect(first.context.currentTime >= paused.context.currentTime - 0.05, "resumed at \(first.context.currentTime) s")
        }
        let remaining = 3 - paused.context.currentTime
        let took = seconds(finished.entry.time - paused.time)
        #expect(took >= remaining * 0.8 - 0.1, "the remaining \(remaining) s played in \(took) s")
        #expect(player.context.state == .stopped)
    }
}
