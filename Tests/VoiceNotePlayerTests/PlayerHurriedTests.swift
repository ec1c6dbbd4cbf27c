import Foundation
import Testing
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Control calls in every order with no pause between them: never a crash or a hang, only OK or a documented error,
/// and the player still plays afterwards. Runs under TSan and ASan with the rest.
@Suite struct PlayerHurriedTests {
    enum Call: CaseIterable {
        case loadFirst, loadSecond, loadPaused, play, pause, stop, seek, rate, volume, skip

        func run(on player: Player, first: String, second: String) throws(VoiceNoteError) {
            switch self {
            case .loadFirst: try player.load(.file(first))
            case .loadSecond: try player.load(.file(second))
            case .loadPaused: try player.load(.file(first), autoplay: false)
            case .play: try player.play()
            case .pause: try player.pause()
            case .stop: try player.stop()
            case .seek: try player.seek(to: 0.3)
            case .rate: try player.setRate(player.rate == 1 ? 2 : 1)
            case .volume: try player.setVolume(0.5)
            case .skip: player.setSkipsSilence(!player.context.skipsSilence)
            }
        }

        /// The statuses a call may answer besides OK.
        var allowed: Set<Status> {
            switch self {
            case .play, .seek: [.misuse]
            default: []
            }
        }
    }

    @Test func everyOrderOfThreeCallsThenPlaysToTheEnd() throws {
        let directory = try Fixtures.temporaryDirectory()
        let first = try writeWAV(tone(440, seconds: 0.6), in: directory, name: "first.wav")
        let second = try writeOpus(tone(660, seconds: 0.6), in: directory, name: "second.ogg")
        let speaker = FileSpeaker(directory: directory)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<120 {
            let player = try makePlayer(speaker.selection)
            let log = try PlayerLog(player)
            let calls = (0..<3).map { _ in Call.allCases.randomElement(using: &generator)! }
            for call in calls {
                do throws(VoiceNoteError) {
                    try call.run(on: player, first: first, second: second)
                } catch {
                    #expect(call.allowed.contains(error.status), "round \(round) \(calls): \(call) → \(error)")
                }
            }
            if round % 3 == 0 {
                player.close()  // at once, whatever is under way
                continue
            }
            // Whatever happened, a fresh location plays to its end.
            let fresh = round % 2 == 0 ? first : second
            try player.stop()
            try player.load(.file(fresh))
            if player.context.location == fresh && player.context.state != .loading && player.context.state != .playing {
                try player.play()
            }
            #expect(log.waitFinished(seconds: 20), "round \(round) \(calls): \(log.states) \(log.failures)")
            player.close()
        }
    }

    @Test func seeksWhileScrubbingCoalesceAndTheLastOneWins() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = (0..<96_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        for step in 0..<200 { try player.seek(to: Double(step) * 0.005) }
        #expect(log.wait { _ in !player.context.isSeeking })
        #expect(abs(player.context.currentTime - 0.995) < 1e-9)
        try player.play()
        #expect(log.waitFinished())
        // The last period is completed with silence (at most 20 ms, the player's period, at 48 kHz mono).
        #expect(withoutEndPadding(try speaker.samples(), count: input.count - 47_760, periodSamples: 960) == Array(input[47_760...]))
    }
}
