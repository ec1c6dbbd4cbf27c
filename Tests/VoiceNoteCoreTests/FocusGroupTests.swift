import Synchronization
import Testing
@testable import VoiceNoteCore

/// A member that only records what the group asked of it: the group's contract, before any device is involved.
final class SoundingMember: FocusMember {
    let group: FocusGroup
    let kind: FocusGroup.Activity
    private let sounding = Atomic<Bool>(false)
    private let yields = Atomic<Int>(0)

    init(_ group: FocusGroup, _ kind: FocusGroup.Activity) {
        self.group = group
        self.kind = kind
        group.join(self, as: kind)
    }

    var isSounding: Bool { sounding.load(ordering: .acquiring) }
    var yieldCount: Int { yields.load(ordering: .acquiring) }

    func start() {
        group.take(by: self, for: kind)
        sounding.store(true, ordering: .releasing)
    }

    func yieldFocus() {
        yields.add(1, ordering: .acquiringAndReleasing)
        sounding.store(false, ordering: .releasing)
    }
}

@Suite struct FocusGroupTests {
    @Test func playingOnePausesTheOthersInItsGroupOnly() {
        let group = FocusGroup(), other = FocusGroup()
        let a = SoundingMember(group, .playback), b = SoundingMember(group, .playback)
        let elsewhere = SoundingMember(other, .playback)
        a.start()
        elsewhere.start()
        b.start()
        #expect(!a.isSounding && b.isSounding && elsewhere.isSounding)
        // Every other member of the group is asked (one that is silent ignores it); none of another group is.
        #expect(a.yieldCount == 1 && b.yieldCount == 1 && elsewhere.yieldCount == 0)
    }

    @Test func recordingPausesPlayersAndPlayingPausesRecording() {
        let group = FocusGroup()
        let player = SoundingMember(group, .playback)
        let recorder = SoundingMember(group, .recording), secondRecorder = SoundingMember(group, .recording)
        player.start()
        recorder.start()
        #expect(!player.isSounding && recorder.isSounding)
        secondRecorder.start()
        #expect(recorder.isSounding && secondRecorder.isSounding, "recorders do not pause each other")
        player.start()
        #expect(player.isSounding && !recorder.isSounding && !secondRecorder.isSounding)
    }

    @Test func membersLeaveAndAreHeldWeakly() {
        let group = FocusGroup()
        let kept = SoundingMember(group, .playback)
        var gone: SoundingMember? = SoundingMember(group, .playback)
        #expect(group.memberCount == 2)
        gone = nil
        #expect(group.memberCount == 1)
        group.leave(kept)
        #expect(group.memberCount == 0)
        _ = gone
    }
}
