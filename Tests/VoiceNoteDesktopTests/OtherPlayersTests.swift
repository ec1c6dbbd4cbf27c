import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNoteTestSupport

/// Other players on a private session bus (fake MPRIS players, Tests/Servers/fake_mpris.py): a hold pauses exactly the
/// ones playing, the release resumes exactly those; one that never answers costs the bounded wait and nothing else;
/// nested holds pause once.
extension DesktopTests {
@Suite struct OtherPlayersTests {
    private var bus: SessionBusDaemon? { DesktopTests.bus }

    @Test func aHoldPausesThePlayingOnesAndTheReleaseResumesExactlyThose() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let players = try FakeMPRISPlayers(on: bus, ["music:Playing", "podcast:Paused", "video:Playing"], directory: directory)
        defer { players.stop() }
        let others = OtherPlayers()
        defer { others.close() }
        others.hold()
        #expect(others.waitForRounds(1, seconds: 10))
        #expect(Set(others.paused) == ["org.mpris.MediaPlayer2.music", "org.mpris.MediaPlayer2.video"])
        #expect(eventually(seconds: 10) { Set(players.calls()) == ["music Pause", "video Pause"] }, "\(players.calls())")
        // A second hold (a note playing during the take) pauses nothing more; its release resumes nothing yet.
        others.hold()
        others.release()
        #expect(others.waitForRounds(3, seconds: 10))
        #expect(players.calls().count == 2)
        others.release()
        #expect(others.waitForRounds(4, seconds: 10))
        #expect(eventually(seconds: 10) { players.calls().count == 4 })
        #expect(Set(players.calls().suffix(2)) == ["music Play", "video Play"], "the paused podcast was resumed: \(players.calls())")
        #expect(others.paused.isEmpty)
        others.release()  // more releases than holds: nothing
        #expect(others.waitForRounds(5, seconds: 10))
        #expect(players.calls().count == 4)
    }

    @Test func aPlayerThatNeverAnswersCostsTheBoundedWaitOnly() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let hung = try FakeMPRISPlayers(on: bus, ["stuck:Playing"], directory: directory)
        defer { hung.stop() }
        let players = try FakeMPRISPlayers(on: bus, ["radio:Playing"], directory: directory)
        defer { players.stop() }
        hung.hang()
        let others = OtherPlayers()
        defer { others.close() }
        let started = monotonicNanoseconds()
        others.hold()
        #expect(others.waitForRounds(1, seconds: 10))
        let seconds = Double(monotonicNanoseconds() - started) / 1e9
        #expect(seconds < OtherPlayers.callTimeout + 1, "the round took \(seconds) s")
        #expect(others.paused == ["org.mpris.MediaPlayer2.radio"])
        #expect(eventually(seconds: 10) { players.calls() == ["radio Pause"] })
        others.release()
        #expect(others.waitForRounds(2, seconds: 10))
        #expect(eventually(seconds: 10) { players.calls() == ["radio Pause", "radio Play"] })
    }

    @Test func closeResumesWhatAHoldPaused() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let players = try FakeMPRISPlayers(on: bus, ["tunes:Playing"], directory: directory)
        defer { players.stop() }
        let others = OtherPlayers()
        others.hold()
        #expect(others.waitForRounds(1, seconds: 10))
        others.close()
        #expect(eventually(seconds: 10) { players.calls() == ["tunes Pause", "tunes Play"] }, "\(players.calls())")
    }
}
}
