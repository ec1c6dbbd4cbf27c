import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Players of one focus group do not sound at once; groups do not disturb each other.
@Suite struct PlayerFocusTests {
    /// A player held in `playing` by a source that lets a third of a 30 s note through after loading.
    private func heldPlaying(_ player: Player, _ log: PlayerLog, path: String) throws -> GatedSource {
        let source = try GatedSource(path: path, gate: Int.max - 1)
        try player.load(.source(source), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused })
        source.allow(source.bytes.count / 3)
        try player.play()
        #expect(eventually { source.isWaiting })
        return source
    }

    @Test func playingOnePausesTheOthersOfItsGroupOnly() throws {
        let directory = try Fixtures.temporaryDirectory()
        let long = try writeOpus(tone(440, seconds: 30), in: directory)
        let short = try writeWAV(tone(660, seconds: 0.5), in: directory, name: "short.wav")
        let group = FocusGroup(), elsewhere = FocusGroup()
        let first = try makePlayer(FileSpeaker(directory: directory, name: "vn_a").selection, group: group)
        let outsider = try makePlayer(FileSpeaker(directory: try Fixtures.temporaryDirectory(), name: "vn_c").selection, group: elsewhere)
        let second = try makePlayer(FileSpeaker(directory: try Fixtures.temporaryDirectory(), name: "vn_b").selection, group: group)
        let firstLog = try PlayerLog(first), outsiderLog = try PlayerLog(outsider), secondLog = try PlayerLog(second)
        let held = try heldPlaying(first, firstLog, path: long)
        let heldOutside = try heldPlaying(outsider, outsiderLog, path: long)
        defer {
            held.open(); heldOutside.open()
            first.close(); second.close(); outsider.close()
        }
        try second.load(.file(short))
        #expect(firstLog.wait { _ in first.context.state == .paused })
        #expect(secondLog.waitFinished())
        #expect(outsider.context.state == .playing)
        #expect(group.memberCount == 2)
    }
}
