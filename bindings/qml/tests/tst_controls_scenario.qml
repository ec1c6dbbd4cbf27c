// Composer.qml and VoiceMessage.qml as a chat uses them, through real pointer events and keys: hold → lock → stop
// → trim (a handle dragged, then a handle's key) → send; the note sent and a received one in a conversation list
// sharing a QueuePlayer: the sent one played at 2x, the received one plays by itself after it. A failed row. A
// screenshot of each state (not blank) and what assistive technology reads.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "ControlsScenario"
    when: windowShown
    visible: true  // a TestCase is hidden by default, and a hidden item takes no pointer events
    width: 500
    height: 400

    Component {
        id: composerComponent
        Composer {
            x: 40
            y: 100  // room above for the record button's lock
            width: 440
            flow: RecordingFlow {
                property var failures: []
                property bool previewPlayed: false
                confirmationRequired: false
                recorder: VoiceRecorder {
                    directory: TestRig.directory + "/composer"
                    device: "vn_mic"
                    deviceConfiguration: TestRig.microphone
                }
                player: VoicePlayer {
                    device: "vn_spk"
                    deviceConfiguration: TestRig.speaker
                }
                onViewChanged: if (previewPlaying) previewPlayed = true
                onFailed: (status, message) => failures.push(status + ": " + message)
            }
        }
    }

    Component {
        id: queueComponent
        QueuePlayer {
            property var items: []
            device: "vn_spk"
            deviceConfiguration: TestRig.speaker
            onItemChanged: (index) => items.push(index)
        }
    }

    Component {
        id: conversationComponent
        ListView {
            id: list
            property QueuePlayer queue
            property var notes: []
            x: 10
            y: 200
            width: 480
            height: 120
            spacing: 4
            model: notes
            delegate: VoiceMessage {
                required property var modelData
                required property int index
                width: ListView.view.width
                // The view's id from a delegate: Qt 6.5's `pragma ComponentBehavior: Bound` tells qmllint it is bound;
                // Qt 6.4 has no such pragma, so this one line is exempted.
                queue: list.queue  // qmllint disable unqualified
                queueIndex: index
                location: modelData.location
                duration: modelData.duration
                waveform: modelData.waveform
            }
        }
    }

    Component {
        id: messageComponent
        VoiceMessage {
            x: 10
            y: 10
            width: 400
        }
    }

    Component {
        id: playerComponent
        VoicePlayer {
            device: "vn_spk"
            deviceConfiguration: TestRig.speaker
        }
    }

    /** The child of `item` named `name`, checked found. */
    function child(item, name) {
        const found = findChild(item, name)
        verify(found !== null, name + " in " + item)
        return found
    }

    /** Clicks `item`'s middle. */
    function click(item) {
        mouseClick(item, item.width / 2, item.height / 2)
    }

    function test_hold_lock_stop_trim_send_then_play_the_conversation() {
        const composer = createTemporaryObject(composerComponent, suite)
        const flow = composer.flow
        const button = composer.recordButton
        const ready = spy(flow, "attachmentReady")
        const published = spy(flow, "publish")
        const trimmed = spy(flow, "trimmed")
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        verify(!child(composer, "sendButton").visible && !child(composer, "timer").visible, "idle: the button only")
        screenshot(suite, "composer-idle")

        // Hold, then slide up to lock.
        mousePress(button, 24, 24)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
        verify(child(composer, "live").visible && child(composer, "timer").visible)
        mouseMove(button, 24, 24 - 51)
        tryCompare(flow, "state", RecordingFlow.Locked, 5000)
        mouseRelease(button, 24, 24 - 51)
        tryVerify(() => flow.duration >= 1.0 && flow.levels.length > 0, 10000, "a second recorded, live levels")
        verify(child(composer, "discardButton").visible && child(composer, "sendButton").visible)
        verify(child(composer, "timer").text.match(/^\d+:\d\d$/), child(composer, "timer").text)
        screenshot(suite, "composer-locked")
        let read = TestRig.accessible(composer)
        compare(read.name, "Voice message composer")
        compare(read.description, flow.accessibleDescription)
        compare(TestRig.accessible(child(composer, "sendButton")).name, "Send voice message")

        // Stop: the record button is the stop button.
        click(button)
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        tryVerify(() => flow.waveform.length > 0, 5000, "the take's waveform")
        verify(!button.visible && child(composer, "trimArea").visible)
        const length = flow.duration
        screenshot(suite, "composer-preview")
        read = TestRig.accessible(composer.trimStartHandle)
        compare(read.role, "Slider")
        compare(read.name, "Trim start")
        compare(read.value, 0)
        compare(TestRig.accessible(composer.trimEndHandle).value, length)

        // Trim: the start handle dragged a fifth of the way.
        // Pointer positions in the trim area's pixels: the handle itself moves under the pointer.
        const area = child(composer, "trimArea")
        const handle = composer.trimStartHandle
        const travel = area.width - 2 * handle.width
        const from = handle.x + handle.width / 2
        mousePress(area, from, area.height / 2)
        for (let step = 1; step <= 4; ++step)
            mouseMove(area, from + travel * 0.05 * step, area.height / 2)
        fuzzyCompare(composer.startFraction, 0.2, 0.01)  // the handle follows the pointer (whole pixels)
        mouseRelease(area, from + travel * 0.2, area.height / 2)
        trimmed.wait(10000)
        compare(trimmed.signalArguments[0][0], "VN_OK")
        fuzzyCompare(trimmed.signalArguments[0][2], length * 0.8, 0.1)
        tryVerify(() => !composer.trimming && composer.startFraction === 0, 5000, "the handles at the ends again")
        const afterDrag = flow.duration
        // Then the end handle by a key: 5 % off the end.
        composer.trimEndHandle.forceActiveFocus()
        keyClick(Qt.Key_Left)
        trimmed.wait(10000)
        compare(trimmed.signalArguments[1][0], "VN_OK")
        fuzzyCompare(trimmed.signalArguments[1][2], afterDrag * 0.95, 0.1)
        tryCompare(composer, "trimming", false, 5000)

        click(child(composer, "playButton"))
        tryVerify(() => flow.previewPlayed, 5000, "the preview played")
        screenshot(suite, "composer-preview-trimmed")

        click(child(composer, "sendButton"))
        published.wait(10000)
        compare(ready.count, 1)
        const [path, duration, waveform] = published.signalArguments[0]
        verify(TestRig.fileSize(path) > 0, "the take is on disk: " + path)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.failures, [])

        // The conversation: the note sent, then one received; one queue, rows from their index.
        const queue = createTemporaryObject(queueComponent, suite)
        queue.locations = [path, TestRig.note]
        const list = createTemporaryObject(conversationComponent, suite, { queue: queue })
        list.notes = [{ location: path, duration: duration, waveform: waveform },
                      { location: TestRig.note, duration: TestRig.noteSeconds, waveform: [0.3, 0.9, 0.5, 0.7, 0.2] }]
        tryCompare(list, "count", 2, 5000)
        const sent = list.itemAtIndex(0)
        const received = list.itemAtIndex(1)
        verify(sent !== null && received !== null, "both rows made")
        compare(TestRig.accessible(sent).name, "Voice message, " + sent.clock(duration))
        compare(TestRig.accessible(sent).role, "Grouping")
        screenshot(list, "conversation-at-rest")

        // The rate 1x → 1.5x → 2x on the sent row: the queue's, so both rows show it.
        const rate = child(sent, "rateButton")
        compare(rate.text, "1x")
        click(rate)
        tryCompare(queue, "rate", 1.5, 5000)  // the player's rate follows its event
        compare(rate.text, "1.5x")
        click(rate)
        tryCompare(queue, "rate", 2, 5000)
        compare(rate.text, "2x")
        compare(child(received, "rateButton").text, "2x")
        compare(TestRig.accessible(rate).name, "Playback speed 2x")

        const ended = spy(queue, "ended")
        const descriptions = []
        sent.Accessible.descriptionChanged.connect(() => descriptions.push(sent.Accessible.description))
        click(child(sent, "playButton"))
        ended.wait(20000)
        compare(queue.items, [0, 1], "the sent note loaded, then the received one by itself")
        verify(received.current && !sent.current, "the received row follows the queue")
        compare(queue.rate, 2, "the rate kept across items")
        verify(descriptions.some(text => text.startsWith("playing at")), "the sent row said it played: " + descriptions)
        compare(child(received, "time").text, received.clock(TestRig.noteSeconds))
        screenshot(list, "conversation-played")
    }

    function test_a_failed_row_says_so_and_retries() {
        const player = createTemporaryObject(playerComponent, suite)
        const message = createTemporaryObject(messageComponent, suite,
                                              { player: player, location: TestRig.directory + "/missing.ogg", duration: 3 })
        message.waveform = [0.5, 0.5]
        compare(child(message, "time").text, "0:03", "the message's duration until the player knows it")
        compare(child(message, "rateButton").text, "1x")
        click(child(message, "playButton"))
        tryVerify(() => message.failure !== "", 10000, "the load failed")
        const button = child(message, "playButton")
        compare(button.text, "Retry")
        verify(child(message, "failureLabel").visible && !child(message, "bars").visible)
        const read = TestRig.accessible(message)
        verify(read.description.startsWith("Can't play this voice message: "), read.description)
        compare(TestRig.accessible(button).name, "Retry")
        screenshot(message, "voice-message-failed")
        message.location = TestRig.note  // a new location forgets the failure
        compare(message.failure, "")
        const finished = spy(player, "finished")
        click(button)
        finished.wait(10000)
        verify(message.current, "the row follows its note")
        compare(message.failure, "")
        compare(button.text, "Play")
    }

    function test_hidden_mid_take_keeps_it_in_preview() {
        const composer = createTemporaryObject(composerComponent, suite)
        const flow = composer.flow
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        const button = composer.recordButton
        mousePress(button, 24, 24)
        tryCompare(flow, "state", RecordingFlow.Recording, 5000)
        tryVerify(() => flow.duration >= 0.2, 10000, "recorded while held")
        composer.visible = false  // a page left with the finger still down
        tryCompare(flow, "state", RecordingFlow.Preview, 10000)
        verify(!button.held, "the press is forgotten")
        mouseRelease(button, 24, 24)  // goes nowhere: the take stays in preview
        compare(flow.state, RecordingFlow.Preview)
        verify(flow.duration >= 0.2)
        composer.visible = true
        flow.discard()
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        compare(flow.failures, [])
    }
}
