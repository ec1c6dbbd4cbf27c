// RecordButton.qml over a real RecordingFlow (virtual microphone and speaker, a ManualClock for its timers), driven
// by real pointer events at the flow's gesture numbers (held 0.5 s, 75 px left cancels, 50 px up locks) and by keys;
// a screenshot of each look (not blank) and what assistive technology reads.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "RecordButton"
    when: windowShown
    visible: true  // a TestCase is hidden by default, and a hidden item takes no pointer events
    width: 400
    height: 300

    Component {
        id: flowComponent
        RecordingFlow {
            property var failures: []
            clock: ManualClock {}
            recorder: VoiceRecorder {
                directory: TestRig.directory + "/button"
                device: "vn_mic"
                deviceConfiguration: TestRig.microphone
            }
            player: VoicePlayer {
                device: "vn_spk"
                deviceConfiguration: TestRig.speaker
            }
            onFailed: (status, message) => failures.push(status + ": " + message)
        }
    }

    Component {
        id: buttonComponent
        RecordButton {
            x: 250  // room left for the hint and above for the lock
            y: 150
        }
    }

    /** A button over a flow of its own (`keyInputs`: the keys as the flow's keys, else as the button). */
    function makeButton(keyInputs) {
        const flow = createTemporaryObject(flowComponent, suite, { keyInputs: keyInputs === true })
        const button = createTemporaryObject(buttonComponent, suite, { flow: flow })
        verify(button !== null, "the button was made")
        tryCompare(button.flow, "state", RecordingFlow.Idle, 5000)
        return button
    }

    /** Holds the flow's clock just short of the minimum press (0.5 s), checks no take began, then to it, and waits
     *  for the take. */
    function holdUntilRecording(flow) {
        flow.clock.advance(0.49)
        wait(0)  // the events queued so far are dispatched
        compare(flow.state, RecordingFlow.Idle, "no take before the minimum press")
        flow.clock.advance(0.01)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
    }

    /** Presses the button's middle and holds it until a take runs. */
    function pressUntilRecording(button) {
        mousePress(button, 24, 24)
        holdUntilRecording(button.flow)
    }

    function test_hold_then_slide_left_cancels() {
        const button = makeButton()
        const flow = button.flow
        const ready = spy(flow, "attachmentReady")
        screenshot(suite, "record-button-idle")  // the hint and the lock are drawn outside the button
        pressUntilRecording(button)
        verify(button.holding && button.held && button.down)
        screenshot(suite, "record-button-recording")  // the hint and the lock are drawn outside the button
        mouseMove(button, 24 - 30, 24)
        tryVerify(() => Math.abs(flow.slideToCancelAlpha - 45 / 75) < 0.02, 5000,
                  "alpha (75 - 30) / 75: " + flow.slideToCancelAlpha)
        const read = TestRig.accessible(button)
        compare(read.role, "Button")
        compare(read.name, "Record voice message")
        compare(read.description, flow.accessibleDescription)
        verify(read.description.indexOf("Recording") >= 0, read.description)
        mouseMove(button, 24 - 76, 24)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        mouseRelease(button, 24 - 76, 24)
        verify(!button.held)
        compare(ready.count, 0, "a cancelled take is not sent")
        compare(flow.failures, [])
    }

    function test_slide_up_locks_and_a_press_stops() {
        const button = makeButton()
        const flow = button.flow
        pressUntilRecording(button)
        mouseMove(button, 24, 24 - 30)
        tryVerify(() => flow.lockPadding === 30 && Math.abs(flow.chevronAlpha - 0.4) < 0.02, 5000,
                  "padding 30, chevron (50 - 30) / 50: " + flow.lockPadding + ", " + flow.chevronAlpha)
        mouseMove(button, 24, 24 - 51)
        tryCompare(flow, "state", RecordingFlow.Locked, 5000)
        mouseRelease(button, 24, 24 - 51)
        compare(flow.state, RecordingFlow.Locked, "a locked take runs on without a finger")
        verify(button.stopLook && !button.holding)
        screenshot(suite, "record-button-locked")  // the hint and the lock are drawn outside the button
        mouseClick(button, 24, 24)  // the stop button now
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        flow.discard()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.failures, [])
    }

    function test_release_sends_and_a_tap_shows_the_tip() {
        const button = makeButton()
        const flow = button.flow
        const ready = spy(flow, "attachmentReady")
        pressUntilRecording(button)
        tryVerify(() => flow.duration >= 0.2, 10000, "recorded while held")
        mouseRelease(button, 24, 24)
        ready.wait(10000)
        verify(TestRig.fileSize(ready.signalArguments[0][0]) > 0, "the take is on disk")
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        mouseClick(button, 24, 24)
        tryCompare(flow, "tipVisible", true, 5000)
        compare(flow.state, RecordingFlow.ShowingTip)
        screenshot(suite.Window.window.contentItem, "record-button-tip")  // the tip is in the window's overlay
        flow.clock.advance(2)  // the tip's 2 s
        tryCompare(flow, "tipVisible", false, 5000)
    }

    function test_keys_hold_and_escape() {
        const button = makeButton()
        const flow = button.flow
        const ready = spy(flow, "attachmentReady")
        button.forceActiveFocus()
        verify(button.activeFocus)
        keyPress(Qt.Key_Space)
        holdUntilRecording(flow)
        tryVerify(() => flow.duration >= 0.2, 10000, "recorded while the key is held")
        keyRelease(Qt.Key_Space)
        ready.wait(10000)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        keyPress(Qt.Key_Return)
        holdUntilRecording(flow)
        mouseMove(button, 24, 24 - 60)  // the pointer does not steer a take the key holds
        compare(flow.state, RecordingFlow.Recording)
        flow.cancel()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        keyRelease(Qt.Key_Return)
        compare(ready.count, 1)
        compare(flow.failures, [])
    }

    function test_flow_keys_record_and_escape_cancels() {
        const button = makeButton(true)
        const flow = button.flow
        const ready = spy(flow, "attachmentReady")
        button.forceActiveFocus()
        keyPress(Qt.Key_Space)
        holdUntilRecording(flow)
        keyPress(Qt.Key_Escape)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        keyRelease(Qt.Key_Escape)
        keyRelease(Qt.Key_Space)
        compare(ready.count, 0, "an escaped take is not sent")
        compare(flow.failures, [])
    }
}
