import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Stream's `loadAsset` rules, locations, resume positions and hints.
@Suite struct PlayerRulesTests {
    /// A player on a file speaker and a 2 s tone file, and the player's log.
    struct Setup {
        let directory: String
        let path: String
        let speaker: FileSpeaker
        let player: Player
        let log: PlayerLog

        init(seconds: Double = 2) throws {
            directory = try Fixtures.temporaryDirectory()
            path = try writeWAV(tone(440, seconds: seconds), in: directory)
            speaker = try FileSpeaker.appending(directory: directory)
            player = try makePlayer(speaker.selection)
            log = try PlayerLog(player)
        }
    }

    @Test func samePathPausedPlaysAndStoppedPlaysFromTheStart() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        var mark = log.all.count
        try player.load(.file(setup.path))  // paused → plays
        #expect(log.waitFinished())
        #expect(!log.all.dropFirst(mark).contains { if case .context(let c) = $0 { c.state == .loading } else { false } })
        mark = log.all.count
        try player.load(.file(setup.path))  // stopped → plays from the start
        #expect(log.wait(seconds: 20) { $0.dropFirst(mark).contains { if case .finished = $0 { true } else { false } } })
        #expect(log.finishedCount == 2)
        let written = try setup.speaker.samples().count
        #expect(written == 2 * 96_000, "\(written) frames; states \(log.states)")
    }

    @Test func aPathAndItsFileURLAreOneLocation() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        let mark = log.all.count
        let url = "file://" + setup.path.replacingOccurrences(of: "/", with: "/./")
            .addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "t")))!
        try player.load(.file(url))
        #expect(log.waitFinished())
        #expect(!log.all.dropFirst(mark).contains { if case .context(let c) = $0 { c.state == .loading } else { false } })
        // Relative to the working directory, it is the same file too.
        let relative = String(repeating: "../", count: 20) + String(setup.path.dropFirst())
        try player.load(.file(relative))
        #expect(log.wait { $0.filter { if case .finished = $0 { true } else { false } }.count == 2 })
    }

    @Test func playingAndLoadingIgnoreALoadOfTheSameLocation() throws {
        let directory = try Fixtures.temporaryDirectory()
        let path = try writeOpus(tone(440, seconds: 30), in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        let log = try PlayerLog(player)
        // Loading: the source holds every read at its first byte.
        let loading = try GatedSource(path: path, gate: 0)
        defer { loading.open(); player.close() }
        try player.load(.source(loading), durationHint: 7.5)
        #expect(eventually { loading.isWaiting })
        try player.load(.source(loading))
        let hinted = player.context
        #expect(hinted.state == .loading)
        #expect(hinted.duration == 7.5 && hinted.durationIsEstimate)
        #expect(log.wait { _ in log.contexts.contains { $0.state == .loading } })  // events arrive on their thread
        #expect(log.contexts.filter { $0.state == .loading }.count == 1)
        loading.open()
        #expect(log.wait(for: .playing) != nil)
        #expect(abs(player.context.duration - 30) < 0.001 && !player.context.durationIsEstimate)
        #expect(log.waitFinished())

        // Playing: once loaded, the source lets a third of the file through, then holds the reads.
        let playing = try GatedSource(path: path, gate: Int.max - 1)
        defer { playing.open() }
        let mark = log.all.count
        try player.load(.source(playing), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused })
        playing.allow(playing.bytes.count / 3)
        try player.play()
        #expect(eventually { playing.isWaiting })
        #expect(player.context.state == .playing)
        try player.load(.source(playing))
        #expect(player.context.state == .playing)
        let loadings = log.contexts.suffix(from: 0).filter { $0.state == .loading }.count
        #expect(loadings == 2, "one for the first source, one for this one")
        _ = mark
        playing.open()
        #expect(log.wait { $0.dropFirst(mark).contains { if case .finished = $0 { true } else { false } } })
    }

    @Test func anotherLocationStopsTheCurrentOneWhichReportsStopped() throws {
        let setup = try Setup()
        let other = try writeWAV(tone(660, seconds: 1), in: setup.directory, name: "other.wav")
        let held = try GatedSource(path: try writeOpus(tone(440, seconds: 30), in: setup.directory), gate: Int.max - 1)
        defer { held.open(); setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.load(.source(held), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused })
        held.allow(held.bytes.count / 3)
        try player.play()
        #expect(eventually { held.isWaiting })
        #expect(player.context.state == .playing)
        try player.load(.file(other))
        #expect(log.waitFinished())
        // The stopped context follows finished; wait for it rather than read the log at once.
        #expect(log.wait { _ in log.contexts.last.map { $0.location == other && $0.state == .stopped } ?? false })
        var sequence: [String] = []
        for context in log.contexts where context.state != .notLoaded && context.state != .loading || context.location == other {
            let name = "\(context.location == other ? "other" : "held"):\(context.state)"
            if sequence.last != name { sequence.append(name) }
        }
        sequence.removeFirst(sequence.firstIndex(of: "held:playing") ?? 0)
        #expect(sequence == ["held:playing", "held:stopped", "other:loading", "other:playing", "other:stopped"])
    }

    @Test func aFailedLoadIsAnEventWithTheLocationKept() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        let missing = setup.directory + "/missing.ogg"
        try player.load(.file(missing))  // returns at once
        #expect(log.waitFailure()?.status == .notFound)
        let context = try #require(log.wait(for: .notLoaded, after: 2))
        #expect(context.location == missing && context.duration == 0)
        #expect(player.context.lastError?.status == .notFound)
        expectError(.misuse) { try player.play() }
        // Loading it again tries again.
        try player.load(.file(missing))
        #expect(log.wait { $0.filter { if case .failed = $0 { true } else { false } }.count == 2 })
    }

    @Test func resumePositionsAreKeptPerLocationAndAFinishedItemStartsAtZero() throws {
        let setup = try Setup(seconds: 3)
        let other = try writeWAV(tone(660, seconds: 1), in: setup.directory, name: "other.wav")
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.seek(to: 1.25)
        #expect(log.wait { _ in !player.context.isSeeking })
        try player.load(.file(other))
        #expect(log.waitFinished())
        try player.load(.file(setup.path), autoplay: false)
        let resumed = try #require(log.wait(for: .paused, after: log.all.count - 1))
        #expect(resumed.location == setup.path)
        #expect(abs(player.context.currentTime - 1.25) < 1e-9)
        try player.play()
        #expect(log.wait { $0.filter { if case .finished = $0 { true } else { false } }.count == 2 })
        try player.load(.file(other), autoplay: false)
        #expect(log.wait { _ in player.context.location == other && player.context.state == .paused })
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait { _ in player.context.location == setup.path && player.context.state == .paused })
        #expect(player.context.currentTime == 0)
    }

    @Test func stopKeepsTheItemAndForgetsItsPosition() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.seek(to: 1)
        try player.stop()
        let stopped = player.context
        #expect(stopped.state == .stopped && stopped.currentTime == 0 && abs(stopped.duration - 2) < 0.001)
        try player.play()
        #expect(log.waitFinished())
        #expect(try setup.speaker.samples().count == 96_000)
    }

    /// A seek while the note is still loading (its bytes held back) is not lost: once loaded, the paused context
    /// is at 1 s, and playing gives the note from 1 s to its end.
    @Test func aSeekWhileLoadingIsCarriedOut() throws {
        let setup = try Setup(seconds: 3)
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        let held = GatedSource(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: setup.path))), gate: 0)
        defer { held.open() }
        try player.load(.source(held), autoplay: false)
        #expect(eventually { held.isWaiting })
        #expect(player.context.state == .loading)
        try player.seek(to: 1)
        held.open()
        let paused = try #require(log.wait(for: .paused))
        #expect(abs(paused.currentTime - 1) < 0.001, "paused at \(paused.currentTime)")
        try player.play()
        #expect(log.waitFinished())
        #expect(try setup.speaker.samples().count == 2 * 48_000)
    }

    /// A pause or a seek restarts the time-stretcher; the rate must survive it: at 2x, a 4 s note from 1 s gives
    /// (4 − 1) s × 48000 / 2 frames, and played with a pause in between, 4 s × 48000 / 2 (± 2 %). A rate lost on the
    /// restart would give twice as many.
    @Test(arguments: ["seek", "pause"])
    func theRateSurvivesARestart(restart: String) throws {
        let setup = try Setup(seconds: 4)
        defer { setup.player.close() }
        let (player, log) = (setup.player, setup.log)
        try player.setRate(2)
        try player.load(.file(setup.path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        let playedSeconds: Double
        if restart == "seek" {
            try player.seek(to: 1)
            #expect(log.wait { _ in !player.context.isSeeking })
            playedSeconds = 3
        } else {
            try player.play()
            try player.pause()
            playedSeconds = 4
        }
        try player.play()
        #expect(log.waitFinished())
        let expected = playedSeconds * 48_000 / 2
        let frames = Double(try setup.speaker.samples().count)
        #expect(abs(frames - expected) <= 0.02 * expected, "\(frames) frames, \(expected) expected at 2x")
        #expect(player.context.rate == 2)
    }

    @Test func settingsAreKeptInEveryStateAndCheckTheirRange() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        let player = setup.player
        try player.setRate(2)
        try player.setVolume(0.25)
        player.setSkipsSilence(true)
        for bad in [0, 3, .nan, .infinity, 0.49, 2.51] { expectError(.invalidArgument) { try player.setRate(bad) } }
        for bad in [-0.1, 1.01, .nan] { expectError(.invalidArgument) { try player.setVolume(bad) } }
        expectError(.invalidArgument) { try player.load(.file(setup.path), durationHint: .nan) }
        expectError(.invalidArgument) { try player.load(.file(setup.path), durationHint: -1) }
        expectError(.invalidArgument) { try player.load(.file("")) }
        expectError(.unsupported) { try player.load(.file("gopher://example.org/a.ogg")) }
        expectError(.invalidArgument) { try player.load(.file("file://elsewhere/a.ogg")) }
        expectError(.misuse) { try player.seek(to: 1) }
        let context = player.context
        #expect(context.rate == 2 && context.volume == 0.25 && context.skipsSilence && context.state == .notLoaded)
        try player.load(.file(setup.path), autoplay: false)
        #expect(setup.log.wait(for: .paused) != nil)
        expectError(.invalidArgument) { try player.seek(to: .nan) }
        try player.seek(to: -5)
        #expect(player.context.currentTime == 0)
        try player.seek(to: 99)
        #expect(abs(player.context.currentTime - 2) < 0.001)
        try player.setRate(1.5)
        #expect(player.context.state == .paused && player.context.rate == 1.5)
    }

    @Test func subscribingDeliversTheCurrentContextFirst() throws {
        let setup = try Setup()
        defer { setup.player.close() }
        try setup.player.setRate(1.5)
        let late = try PlayerLog(setup.player)
        #expect(late.wait { !$0.isEmpty })
        guard case .context(let first) = late.all.first else { Issue.record("no context first"); return }
        #expect(first.rate == 1.5 && first.state == .notLoaded)
    }

    /// Loading the next item while one plays keeps the session (and the device, whose format is the same) from one
    /// item to the next: one activation, one deactivation after the last item.
    @Test func theNextItemLoadedWhilePlayingKeepsTheSession() throws {
        let directory = try Fixtures.temporaryDirectory()
        let first = try writeOpus(tone(440, seconds: 30), in: directory)
        let second = try writeWAV(tone(660, seconds: 0.5), in: directory, name: "second.wav")
        let activations = Locked(0), deactivations = Locked(0)
        let hooks = SessionHooks(activate: { _ in activations.withLock { $0 += 1 }; return true },
                                 deactivate: { _ in deactivations.withLock { $0 += 1 } })
        let player = try makePlayer(FileSpeaker(directory: directory).selection, hooks: hooks)
        defer { player.close() }
        let log = try PlayerLog(player)
        let held = try GatedSource(path: first, gate: Int.max - 1)
        defer { held.open() }
        try player.load(.source(held), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused })
        held.allow(held.bytes.count / 3)
        try player.play()
        #expect(eventually { held.isWaiting })
        try player.load(.file(second))
        #expect(log.waitFinished())
        #expect(eventually { deactivations.withLock { $0 } == 1 })
        #expect(activations.withLock { $0 } == 1)
    }
}
