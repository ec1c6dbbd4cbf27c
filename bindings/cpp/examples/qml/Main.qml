// The chat window: the conversation's voice notes (VoiceMessage rows on one QueuePlayer: the next note plays by
// itself, the ones sent here too) over the composer (Composer: hold to record, slide left to cancel, slide up to lock;
// stop, trim, play, discard, send; Space or Enter held records). A note sent is added to the list.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Voicenote

ApplicationWindow {
    id: window

    /** The conversation's notes, oldest first: {sender, text, location, duration, waveform}. */
    required property var notes
    /** Who sends from here. */
    required property string userId
    required property string micDevice
    required property string micConfig
    required property string speakerDevice
    required property string speakerConfig
    /** Where takes are written. */
    required property string recordings
    /** The test's event log (Report: write(event)); writes nothing without --report. */
    required property var report

    /** The player every row shares: the next note plays by itself. */
    readonly property QueuePlayer player: notesQueue

    width: 560
    height: 640
    visible: true
    title: qsTr("Voice notes")

    /** Where `item` is in the window: {x, y, width, height}. */
    function place(item) {
        const at = item.mapToItem(null, 0, 0)
        return { x: at.x, y: at.y, width: item.width, height: item.height }
    }

    QueuePlayer {
        id: notesQueue
        device: window.speakerDevice
        deviceConfiguration: window.speakerConfig
        locations: window.notes.map(note => note.location)
        onItemChanged: (index) => window.report.write({ event: "item", index: index,
                                                        location: window.notes[index].location })
        onEnded: window.report.write({ event: "ended" })
        onFailed: (status, message) => window.report.write({ event: "failed", what: "player", status: status,
                                                             message: message })
    }

    RecordingFlow {
        id: flow
        confirmationRequired: false  // a release sends, as in the Widgets client
        recorder: VoiceRecorder {
            directory: window.recordings
            device: window.micDevice
            deviceConfiguration: window.micConfig
        }
        player: VoicePlayer {
            device: window.speakerDevice
            deviceConfiguration: window.speakerConfig
        }
        onViewChanged: window.report.write({ event: "view", state: state, duration: duration,
                                             description: accessibleDescription })
        onPublish: (path, duration, waveform) => {
            window.notes = window.notes.concat([{ sender: window.userId, text: "", location: path,
                                                  duration: duration, waveform: waveform }])
            window.report.write({ event: "sent", path: path, duration: duration, rows: conversation.count })
        }
        onTooShort: (duration) => window.report.write({ event: "too short", duration: duration })
        onFailed: (status, message) => window.report.write({ event: "failed", what: "flow", status: status,
                                                             message: message })
    }

    ColumnLayout {
        anchors.fill: parent
        anchors.margins: 12
        spacing: 8

        ListView {
            id: conversation
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 8
            model: window.notes
            delegate: ColumnLayout {
                id: row
                required property var modelData
                required property int index
                width: ListView.view.width
                spacing: 2
                Label {
                    text: row.modelData.sender + (row.modelData.text ? ": " + row.modelData.text : "")
                    font.bold: true
                }
                VoiceMessage {  // children[1]: the test clicks its play button
                    Layout.fillWidth: true
                    // The window's id from a delegate: Qt 6.5's `pragma ComponentBehavior: Bound` tells qmllint it is
                    // bound; Qt 6.4 has no such pragma, so this one line is exempted.
                    queue: window.player  // qmllint disable unqualified
                    queueIndex: row.index
                    location: row.modelData.location
                    duration: row.modelData.duration
                    waveform: row.modelData.waveform
                }
            }
        }

        Composer {
            id: composer
            Layout.fillWidth: true
            Layout.topMargin: 70  // room for the record button's lock
            flow: flow
        }
    }

    // The window's first frame: where the controls a test drives are, in the window's pixels.
    Connections {
        target: window
        function onFrameSwapped() {
            if (window.shown) return
            window.shown = true
            composer.recordButton.forceActiveFocus()
            const first = conversation.itemAtIndex(0) as Item
            window.report.write({ event: "shown", rows: conversation.count,
                                  recordButton: window.place(composer.recordButton),
                                  composer: window.place(composer),
                                  firstMessage: first ? window.place(first.children[1]) : null })
        }
    }
    property bool shown: false
}
