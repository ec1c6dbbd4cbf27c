import Foundation
import Synchronization
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// A player's side of focus, as the group sees it: it takes focus to play and pauses when asked.
final class FocusPlayer: FocusMember {
    let group: FocusGroup
    private let playing = Atomic<Bool>(false)

    init(_ group: FocusGroup) {
        self.group = group
        group.join(self, as: .playback)
    }

    var isPlaying: Bool { playing.load(ordering: .acquiring) }

    func play() {
        group.take(by: self, for: .playback)
        playing.store(true, ordering: .releasing)
    }

    func yieldFocus() { playing.store(false, ordering: .releasing) }
}

/// The recorder in its focus group: beginning a take pauses the group's players; a player starting pauses the take,
/// which stays whole and resumable; other groups are not disturbed.
@Suite struct RecorderFocusTests {
    func recorder(in group: FocusGroup) throws -> (Recorder, String) {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 0)
        settings.focusGroup = group
        return (try Recorder(configuration: settings), directory)
    }

    @Test func theDefaultGroupIsTheProcessOne() {
        #expect(RecorderConfiguration().focusGroup === FocusGroup.shared)
    }

    @Test func beginningATakePausesThePlayersOfItsGroup() throws {
        let group = FocusGroup(), other = FocusGroup()
        let player = FocusPlayer(group), elsewhere = FocusPlayer(other)
        player.play()
        elsewhere.play()
        let (recorder, _) = try recorder(in: group)
        defer { recorder.close() }
        try recorder.begin()
        #expect(!player.isPlaying && elsewhere.isPlaying)
        try recorder.stop()
    }

    @Test func playingDuringATakePausesTheTakeWhole() throws {
        let group = FocusGroup()
        let player = FocusPlayer(group)
        let (recorder, _) = try recorder(in: group)
        defer { recorder.close() }
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(eventually(seconds: 20) { recorder.context.duration >= 0.5 })
        player.play()
        #expect(recorder.context.state == .paused && player.isPlaying)
        let paused = recorder.context.duration
        try recorder.resume()  // the user resumes the take: the player yields in turn
        #expect(!player.isPlaying && recorder.context.state == .recording)
        try recorder.stop()
        let result = try #require(log.finished())
        #expect(result.duration >= paused)
        #expect(try decode(result.path).samples.count == Int((result.duration * 48_000).rounded()))
    }

    @Test func aClosedRecorderLeavesItsGroup() throws {
        let group = FocusGroup()
        let (recorder, _) = try recorder(in: group)
        #expect(group.memberCount == 1)
        recorder.close()
        #expect(group.memberCount == 0)
    }
}
