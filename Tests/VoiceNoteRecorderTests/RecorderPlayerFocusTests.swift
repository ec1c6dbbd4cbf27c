import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// Collects a player's contexts as they arrive on the event thread.
private final class PlayerStates: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [PlayerState] = []

    init(_ player: Player) throws {
        _ = try player.subscribe({ [self] event in
            if case .context(let context) = event { lock.withLock { states.append(context.state) } }
        })
    }

    var all: [PlayerState] { lock.withLock { states } }
}

/// A real player and a real recorder in one focus group: beginning a take pauses the group's playing player; a
/// player starting pauses the take, which stays whole and resumable; a recorder of another group is left alone.
@Suite struct RecorderPlayerFocusTests {
    /// What each test needs: a directory, a 30 s Opus note, and 60 s of raw PCM for a virtual microphone.
    private struct Fixture {
        let directory: String
        let note: String
        let microphoneInput: String
    }

    private func fixture() throws -> Fixture {
        let directory = try Fixtures.temporaryDirectory()
        let wav = directory + "/note.wav", note = directory + "/note.ogg", raw = directory + "/mic.raw"
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", wav, "synth", "30", "sine", "440", "vol", "0.5"])
        try Fixtures.run(["opusenc", "--quiet", "--bitrate", "64", wav, note])
        // A file microphone is unpaced: 60 s of input keeps a take recording for the length of a test.
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", raw,
                          "synth", "60", "sine", "300", "vol", "0.3"])
        return Fixture(directory: directory, note: note, microphoneInput: raw)
    }

    /// A player on an unpaced file speaker in `group`.
    private func player(in group: FocusGroup, directory: String) throws -> Player {
        var settings = PlayerConfiguration()
        settings.resumeStore = nil  // positions stay in this player: tests run in parallel
        settings.device = DeviceSelection(name: "vn_focus_spk", configuration:
            "pcm.vn_focus_spk { type file slave.pcm { type null } file \"\(directory)/heard.raw\" format raw perm 0644 }")
        settings.focusGroup = group
        return try Player(configuration: settings)
    }

    /// A recorder on the virtual microphone in `group`, with a maximum far beyond any test.
    private func recorder(in group: FocusGroup, _ fixture: Fixture) throws -> Recorder {
        var settings = configuration(directory: fixture.directory, device: fileMicrophone(infile: fixture.microphoneInput),
                                     maximum: 100_000)
        settings.focusGroup = group
        return try Recorder(configuration: settings)
    }

    /// Loads the held note paused (loading takes no focus).
    private func loadPaused(_ player: Player, _ fixture: Fixture) throws -> GatedSource {
        let source = try GatedSource(path: fixture.note, gate: Int.max - 1)
        try player.load(.source(source), autoplay: false)
        #expect(eventually(seconds: 20) { player.context.state == .paused })
        return source
    }

    /// Plays a third of the held note, then holds the player `playing` at the gate.
    private func playHeld(_ player: Player, _ source: GatedSource) throws {
        source.allow(source.bytes.count / 3)
        try player.play()
        #expect(eventually(seconds: 20) { source.isWaiting })
        #expect(player.context.state == .playing)
    }

    @Test func beginningATakePausesAPlayingPlayerOfTheGroup() throws {
        let fixture = try fixture()
        let group = FocusGroup()
        let player = try player(in: group, directory: fixture.directory)
        let recorder = try recorder(in: group, fixture)
        let states = try PlayerStates(player)
        let source = try loadPaused(player, fixture)
        defer { source.open(); player.close(); recorder.close() }
        try playHeld(player, source)

        try recorder.begin()
        #expect(recorder.context.state == .recording)
        #expect(player.context.state == .paused)
        #expect(eventually(seconds: 10) { states.all.last == .paused }, "player states: \(states.all)")
        #expect(player.context.lastError == nil)
        try recorder.stop()
        #expect(recorder.context.state == .stopped)
        #expect(group.memberCount == 2)
    }

    @Test func playingDuringATakePausesItAndTheResumedTakeIsKeptWhole() throws {
        let fixture = try fixture()
        let group = FocusGroup()
        let player = try player(in: group, directory: fixture.directory)
        let recorder = try recorder(in: group, fixture)
        let log = try EventLog(recorder)
        let source = try loadPaused(player, fixture)
        defer { source.open(); player.close(); recorder.close() }

        try recorder.begin()
        #expect(eventually(seconds: 20) { recorder.context.duration >= 0.5 })
        #expect(recorder.context.state == .recording)
        try playHeld(player, source)
        // The player took focus on this thread: the take paused before play() returned.
        #expect(recorder.context.state == .paused)
        #expect(log.wait(seconds: 10) { events in
            for case .context(let context) in events.reversed() { return context.state == .paused }
            return false
        })
        let paused = recorder.context.duration
        #expect(recorder.context.path.hasSuffix(".part"))
        #expect(try FileSystem.size(of: recorder.context.path) > 0)   // flushed: whole on disk while paused

        // The user resumes the take: the player yields in turn.
        try recorder.resume()
        #expect(recorder.context.state == .recording)
        #expect(player.context.state == .paused)
        #expect(eventually(seconds: 20) { recorder.context.duration >= paused + 0.5 })
        try recorder.stop()
        let result = try #require(log.finished())
        #expect(log.failures.isEmpty, "\(log.failures)")
        #expect(result.path.hasSuffix(".ogg") && !result.path.contains(".part"))
        #expect(result.duration >= paused + 0.5)
        #expect(result.size == (try FileSystem.size(of: result.path)))
        // What the file holds is exactly what was captured: the duration reported, frame for frame.
        let decoded = try decode(result.path)
        #expect(decoded.rate == 48_000)
        #expect(decoded.samples.count == Int((result.duration * 48_000).rounded()),
                "\(decoded.samples.count) samples decoded for \(result.duration) s")
        #expect(player.context.state == .paused)
    }

    @Test func aRecorderInAnotherGroupIsLeftAlone() throws {
        let fixture = try fixture()
        let group = FocusGroup(), other = FocusGroup()
        let player = try player(in: group, directory: fixture.directory)
        let recorder = try recorder(in: other, fixture)
        let log = try EventLog(recorder)
        let source = try loadPaused(player, fixture)
        defer { source.open(); player.close(); recorder.close() }

        // A take of another group does not pause a playing player...
        try playHeld(player, source)
        try recorder.begin()
        #expect(eventually(seconds: 20) { recorder.context.duration >= 0.5 })
        #expect(player.context.state == .playing)

        // ...and a player starting does not pause a take of another group.
        try player.pause()
        try player.play()
        #expect(player.context.state == .playing)
        #expect(recorder.context.state == .recording)
        let before = recorder.context.duration
        #expect(eventually(seconds: 20) { recorder.context.duration >= before + 0.5 }, "the take stopped growing")
        #expect(recorder.context.state == .recording)
        try recorder.stop()
        let result = try #require(log.finished())
        #expect(!log.all.contains { if case .context(let context) = $0 { context.state == .paused } else { false } })
        #expect(log.failures.isEmpty, "\(log.failures)")
        #expect(result.duration >= before + 0.5)
    }
}
