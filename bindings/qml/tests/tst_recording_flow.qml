// RecordingFlow over a VoiceRecorder (virtual microphone) and a VoicePlayer (virtual speaker): every input, the
// view's properties and the flow's signals; the press/slide/release from real pointer events on a MouseArea.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "RecordingFlow"
    when: windowShown
    visible: true  // a TestCase is hidden by default, and a hidden item takes no pointer events
    width: 300
    height: 300

    Component {
        id: flowComponent
        RecordingFlow {
            property var states: []
            property var threads: []
            property var failures: []
            property bool previewPlayed: false
            minimumPress: 0.05
            confirmationRequired: false
            keyInputs: true
            recorder: VoiceRecorder {
                directory: TestRig.directory + "/flow"
                device: "vn_mic"
                deviceConfiguration: TestRig.microphone
            }
            player: VoicePlayer {
                device: "vn_spk"
                deviceConfiguration: TestRig.speaker
            }
            onViewChanged: {
                if (states[states.length - 1] !== state) states.push(state)
                if (previewPlaying) previewPlayed = true
                threads.push(TestRig.onGuiThread())
            }
            onAttachmentReady: threads.push(TestRig.onGuiThread())
            onPublish: threads.push(TestRig.onGuiThread())
            onTrimmed: threads.push(TestRig.onGuiThread())
            onFailed: (status, message) => { failures.push(status + ": " + message); threads.push(TestRig.onGuiThread()) }
        }
    }

    // A record button as a client would write one: the flow's gesture from the pointer, in the button's pixels.
    Component {
        id: buttonComponent
        MouseArea {
            property RecordingFlow flow
            x: 100
            y: 150
            width: 60
            height: 60
            property int presses: 0
            onPressed: (mouse) => { presses++; flow.press(mouse.x, mouse.y) }
            onPositionChanged: (mouse) => flow.move(mouse.x, mouse.y)
            onReleased: flow.release()
        }
    }

    function makeFlow() {
        return createTemporaryObject(flowComponent, suite)
    }

    /** Holds the button (by the invokables) until a take records for `seconds`. */
    function holdUntilRecorded(flow, seconds) {
        flow.press(0, 0)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
        tryVerify(() => flow.duration >= seconds, 10000, seconds + " s recorded")
    }

    function test_initial_view() {
        const flow = makeFlow()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.duration, 0)
        compare(flow.levels, [])
        compare(flow.waveform, [])
        compare(flow.tipVisible, false)
        compare(flow.previewPlaying, false)
        compare(flow.toggled, false)
        compare(flow.minimumPress, 0.05)
        compare(flow.cancelDistance, 75)
        compare(flow.lockDistance, 50)
    }

    function test_hold_lock_stop_trim_play_send() {
        const flow = makeFlow()
        const trimmed = spy(flow, "trimmed")
        const ready = spy(flow, "attachmentReady")
        const published = spy(flow, "publish")
        holdUntilRecorded(flow, 0.2)
        tryVerify(() => flow.levels.length > 0, 5000, "live levels")
        verify(flow.accessibleDescription.indexOf("Recording") >= 0, flow.accessibleDescription)
        verify(flow.slideToCancelAlpha > 0.9, "the label shows at the press point")
        flow.move(0, -60)
        tryCompare(flow, "state", RecordingFlow.Locked, 5000)
        flow.release()  // a locked take keeps running
        tryVerify(() => flow.duration >= 1.0, 10000, "a second recorded")
        compare(flow.state, RecordingFlow.Locked)
        flow.stop()
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        tryVerify(() => flow.waveform.length > 0, 5000, "the take's waveform")
        const length = flow.duration
        verify(length >= 1.0, "the take's length: " + length)
        fuzzyCompare(flow.trimEnd, length, 0.01)
        compare(flow.trimStart, 0)
        flow.trim(0.2, length - 0.2)
        trimmed.wait(10000)
        compare(trimmed.signalArguments[0][0], "VN_OK")
        fuzzyCompare(trimmed.signalArguments[0][2], length - 0.4, 0.05)
        tryCompare(flow, "state", RecordingFlow.Preview, 5000)
        flow.play()
        tryVerify(() => flow.previewPlayed, 5000, "the preview played")
        flow.send()
        ready.wait(10000)
        published.wait(10000)
        const [path, duration, waveform, payloadJson] = ready.signalArguments[0]
        verify(TestRig.fileSize(path) > 0, "the take is on disk: " + path)
        fuzzyCompare(duration, length - 0.4, 0.05)
        verify(waveform.length > 0)
        const payload = JSON.parse(payloadJson)
        verify(payload.asset_url.startsWith("file://"), payloadJson)
        compare(published.signalArguments[0][0], path)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        for (const state of [RecordingFlow.Recording, RecordingFlow.Locked, RecordingFlow.Preview])
            verify(flow.states.indexOf(state) >= 0, "went through " + state + ": " + flow.states)
        compare(flow.failures, [])
        verifyAllOnGuiThread(flow.threads)
    }

    function test_slide_left_cancels() {
        const flow = makeFlow()
        const ready = spy(flow, "attachmentReady")
        holdUntilRecorded(flow, 0.1)
        flow.move(-40, 0)
        tryVerify(() => flow.slideToCancelAlpha > 0 && flow.slideToCancelAlpha < 0.7, 5000, "the label fades")
        flow.move(-80, 0)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        flow.release()
        compare(ready.count, 0)
        compare(flow.failures, [])
    }

    function test_tap_shows_the_tip() {
        const flow = makeFlow()
        flow.press(0, 0)
        flow.release()
        tryCompare(flow, "tipVisible", true, 5000)
        compare(flow.state, RecordingFlow.ShowingTip)
    }

    function test_keys_record_and_escape_cancels() {
        const flow = makeFlow()
        flow.keyDown(RecordingFlow.RecordKey)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
        flow.keyDown(RecordingFlow.EscapeKey)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        flow.keyUp(RecordingFlow.RecordKey)
        compare(flow.failures, [])
    }

    function test_preview_discarded() {
        const flow = makeFlow()
        holdUntilRecorded(flow, 0.3)
        flow.stop()
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        flow.discard()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.waveform, [])
    }

    function test_pointer_press_slide_up_locks() {
        const flow = makeFlow()
        const button = createTemporaryObject(buttonComponent, suite, { flow: flow })
        mousePress(button, 30, 30)
        compare(button.presses, 1)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
        mouseMove(button, 30, 0)
        tryVerify(() => flow.lockPadding > 0 || flow.chevronAlpha !== 0, 5000, "the lock moves as the finger slides up")
        mouseMove(button, 30, -30)
        tryCompare(flow, "state", RecordingFlow.Locked, 5000)
        mouseRelease(button, 30, -30)
        compare(flow.state, RecordingFlow.Locked)
        flow.stop()
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        flow.discard()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.failures, [])
    }

    function test_pointer_release_sends() {
        const flow = makeFlow()
        const ready = spy(flow, "attachmentReady")
        const button = createTemporaryObject(buttonComponent, suite, { flow: flow })
        mousePress(button, 30, 30)
        tryVerify(() => flow.state === RecordingFlow.Recording && flow.duration >= 0.3, 10000, "recording while held")
        mouseRelease(button, 30, 30)
        ready.wait(10000)
        verify(TestRig.fileSize(ready.signalArguments[0][0]) > 0)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
    }

    function test_recorder_and_player_objects_may_go_first() {
        const flow = makeFlow()
        holdUntilRecorded(flow, 0.2)
        flow.recorder.destroy()  // the flow keeps the library recorder and player it uses
        flow.player.destroy()
        tryVerify(() => flow.recorder === null && flow.player === null, 5000, "both objects gone")
        flow.stop()
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        verify(flow.duration >= 0.2)
        flow.play()
        tryVerify(() => flow.previewPlayed, 5000, "the preview plays on the library player")
        flow.discard()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.failures, [])
    }

    function test_refusals_become_failed() {
        const flow = makeFlow()
        const failed = spy(flow, "failed")
        flow.lock()  // not recording
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_MISUSE")
        flow.trim(0, 1)  // not in preview
        compare(failed.count, 2)
        flow.toggleMode = true  // read when the flow was made
        compare(failed.count, 3)
        compare(flow.toggleMode, false)
    }

    Component {
        id: clockedFlowComponent
        RecordingFlow {
            clock: ManualClock {}
            recorder: VoiceRecorder {
                directory: TestRig.directory + "/clocked"
                device: "vn_mic"
                deviceConfiguration: TestRig.microphone
            }
            player: VoicePlayer {
                device: "vn_spk"
                deviceConfiguration: TestRig.speaker
            }
        }
    }

    function test_manual_clock_runs_the_timers() {
        const flow = createTemporaryObject(clockedFlowComponent, suite)
        const clock = flow.clock
        const failed = spy(clock, "failed")
        flow.press(0, 0)
        flow.release()
        tryCompare(flow, "tipVisible", true, 5000)
        clock.advance(1.99)
        compare(clock.elapsed, 1.99)
        wait(0)  // the events queued so far are dispatched
        compare(flow.tipVisible, true, "the tip shows 2 s on the flow's clock")
        clock.advance(0.01)
        tryCompare(flow, "tipVisible", false, 1000)  // well before 2 s of real time: the manual clock's timer
        compare(flow.state, RecordingFlow.Idle)
        clock.advance(-1)
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_INVALID_ARG")
        compare(clock.elapsed, 2)
        flow.clock = null  // read when the flow was made
        compare(flow.clock, clock)
    }

    // Drafts: a take parked in one conversation comes back, in Preview, in the next flow with its key.
    function test_a_parked_take_comes_back_in_the_next_flow_with_its_key() {
        const drafts = TestRig.directory + "/drafts"
        const first = createTemporaryObject(flowComponent, suite, { draftKey: "room-1", draftsDirectory: drafts })
        compare(first.draftKey, "room-1")
        const parked = spy(first, "parked")
        holdUntilRecorded(first, 0.5)
        first.park()
        parked.wait(10000)
        tryCompare(first, "state", RecordingFlow.Idle, 5000)
        const [path, duration, waveform, payloadJson] = parked.signalArguments[0]
        verify(path.startsWith(TestRig.canonicalPath(drafts) + "/") || path.startsWith(drafts + "/"),
               "the take stays in the drafts directory: " + path)
        verify(TestRig.fileSize(path) > 0, "the parked take is on disk")
        verify(duration >= 0.5, "its length: " + duration)
        verify(waveform.length > 0, "its waveform")
        compare(JSON.parse(payloadJson).type, "voiceRecording")
        compare(first.failures, [])
        const listed = first.drafts(drafts)
        compare(listed.length, 1)
        compare(listed[0].key, "room-1")
        compare(listed[0].path, path)
        fuzzyCompare(listed[0].duration, duration, 0.01)
        first.destroy()
        wait(0)

        const next = createTemporaryObject(flowComponent, suite, { draftKey: "room-1", draftsDirectory: drafts })
        tryCompare(next, "state", RecordingFlow.Preview, 10000)
        fuzzyCompare(next.duration, duration, 0.05)
        next.clearDrafts("room-1", drafts)
        compare(next.drafts(drafts), [])
        compare(TestRig.fileSize(path), -1, "clearing the draft deletes its audio")
        compare(next.failures, [])
    }

    function test_park_without_a_draft_key_is_refused_and_keys_are_read_when_made() {
        const flow = makeFlow()
        holdUntilRecorded(flow, 0.2)
        flow.park()
        compare(flow.failures.length, 1)
        verify(flow.failures[0].startsWith("VN_E_MISUSE"), flow.failures[0])
        compare(flow.state, RecordingFlow.Recording, "the take goes on")
        flow.draftKey = "late"  // read when the flow was made
        compare(flow.draftKey, "")
        compare(flow.failures.length, 2)
        flow.cancel()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
    }

    function test_a_draft_key_too_long_is_refused_when_the_flow_is_made() {
        const flow = createTemporaryObject(flowComponent, suite, { draftKey: "k".repeat(101) })
        verify(flow.failures.length >= 1, "the flow is not made")
        verify(flow.failures[0].startsWith("VN_E_INVALID_ARG"), flow.failures[0])
        flow.press(0, 0)
        compare(flow.state, RecordingFlow.Idle)
    }

    // Each view property notifies its own change: a binding on `state` is not re-evaluated by every levels update.
    function test_each_view_property_notifies_its_own_change() {
        const flow = makeFlow()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        const states = spy(flow, "stateChanged")
        const durations = spy(flow, "durationChanged")
        const levels = spy(flow, "levelsChanged")
        const views = spy(flow, "viewChanged")
        const trimEnds = spy(flow, "trimEndChanged")
        holdUntilRecorded(flow, 0.5)
        tryVerify(() => levels.count >= 3, 5000, "the levels moved")
        compare(states.count, 1, "Idle → Recording, once")
        verify(durations.count >= 3, "the timer moved: " + durations.count)
        verify(views.count > states.count + 2, "views: " + views.count)
        compare(trimEnds.count, 0, "nothing of the preview changed")
        flow.cancel()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(states.count, 2)
    }
}
