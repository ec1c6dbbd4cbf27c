// Composer.qml — the voice part of a chat composer over a RecordingFlow: the record button, the live bars and the
// timer while a take runs, discard and send once it is locked, and the preview: play/pause, the take's waveform
// with two trim handles (dragged, or Left/Right/Home/End on a focused handle) that trim it, discard, send.
//
//     Composer {
//         flow: RecordingFlow { recorder: VoiceRecorder {}; player: VoicePlayer {}
//                               onAttachmentReady: (path, duration, waveform, payloadJson) => ... }
//     }
//
// Give it about 400 px and 70 px above for the record button's lock. A handle's release trims (unless the range is
// the view's already); while that trim runs the handles stay where they were left and the trim area and play are
// disabled (the flow refuses play, seek and trim meanwhile), until `trimmed`. Every colour is the style's palette.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Voicenote

// An Item, not a Control: Qt 6.4's Control sets its own accessible role (none) over Accessible.role when
// accessibility comes on. The palette is the window's (an Item's palette follows its parent's).
Item {
    id: composer

    /** The flow the composer shows and drives (required). */
    property RecordingFlow flow
    /** The record button (the same item the composer shows). */
    readonly property RecordButton recordButton: button
    /** The preview's waveform (the take's). */
    readonly property Waveform previewWaveform: preview
    /** The trim handles. */
    readonly property Item trimStartHandle: startHandle
    readonly property Item trimEndHandle: endHandle
    /** Whether a trim this composer asked for runs (until the flow's `trimmed`). */
    property bool trimming: false
    /** The handles' places, 0…1 of the take; the view's while no handle is moved. */
    property real startFraction: 0
    property real endFraction: 1
    /** The least part of the take the handles keep between them. */
    readonly property real minimumKept: 0.05

    readonly property int flowState: flow ? flow.state : RecordingFlow.Idle
    readonly property bool taking: flowState === RecordingFlow.Recording || flowState === RecordingFlow.Locked
    readonly property bool previewing: flowState === RecordingFlow.Preview

    implicitWidth: 400
    implicitHeight: Math.max(button.implicitHeight, row.implicitHeight)

    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Voice message composer")
    Accessible.description: flow ? flow.accessibleDescription : ""

    /** m:ss of whole seconds, rounded down. */
    function clock(seconds) {
        const whole = Math.max(0, Math.floor(seconds))
        const rest = whole % 60
        return Math.floor(whole / 60) + ":" + (rest < 10 ? "0" : "") + rest
    }

    /** The handles show the view's trim range (unless one is moved or a trim runs). */
    function showView() {
        if (!flow || trimming || startHandle.moving || endHandle.moving) return
        const length = flow.duration
        startFraction = length > 0 ? flow.trimStart / length : 0
        endFraction = length > 0 ? flow.trimEnd / length : 1
    }

    /** Moves a handle to `fraction`, kept `minimumKept` from the other one. */
    function moveHandle(isStart, fraction) {
        if (isStart) startFraction = Math.max(0, Math.min(fraction, endFraction - minimumKept))
        else endFraction = Math.min(1, Math.max(fraction, startFraction + minimumKept))
    }

    /** A handle was let go: trims to the handles' range unless it is the view's already. */
    function commitTrim() {
        if (!flow || !previewing) return
        const length = flow.duration
        const start = startFraction * length
        const end = endFraction * length
        if (Math.abs(start - flow.trimStart) < 0.001 && Math.abs(end - flow.trimEnd) < 0.001) return
        trimming = true
        flow.trim(start, end)
    }

    // Hidden while a take runs or the preview plays (a page left, a window hidden): the take stops into preview and
    // is kept, the preview pauses. The record button forgets a press it holds: its release goes elsewhere.
    onVisibleChanged: {
        if (visible || !flow) return
        button.forget()
        if (taking || flow.previewPlaying) flow.deactivate()
    }

    Connections {
        target: composer.flow
        function onViewChanged() { composer.showView() }
        function onTrimmed() {
            composer.trimming = false
            composer.showView()
        }
        function onFailed() {  // a refused trim ends it too
            if (composer.trimming && composer.previewing) {
                composer.trimming = false
                composer.showView()
            }
        }
    }

    RowLayout {  // a child, not the deferred contentItem: its items have ids
        id: row
        anchors.fill: parent
        spacing: 6

        ToolButton {
            id: discardButton
            objectName: "discardButton"
            visible: composer.flowState === RecordingFlow.Locked || composer.previewing
            text: qsTr("Discard")
            Accessible.name: text
            onClicked: composer.flow.discard()
        }
        ToolButton {
            id: playButton
            objectName: "playButton"
            visible: composer.previewing
            enabled: !composer.trimming
            text: composer.flow && composer.flow.previewPlaying ? qsTr("Pause") : qsTr("Play")
            Accessible.name: text
            onClicked: composer.flow.previewPlaying ? composer.flow.pause() : composer.flow.play()
        }
        // The live bars: the view's levels; not focusable, no scrubbing while recording (the description says it).
        Waveform {
            id: live
            objectName: "live"
            visible: composer.taking
            Layout.fillWidth: true
            Layout.preferredHeight: 32
            values: composer.flow ? composer.flow.levels : []
            progress: 0
            enabled: false
            activeFocusOnTab: false
            Accessible.ignored: true
        }
        // The trim area: the take's waveform with two handles over it; the parts cut away dimmed.
        Item {
            id: trimArea
            objectName: "trimArea"
            visible: composer.previewing
            enabled: !composer.trimming
            Layout.fillWidth: true
            Layout.preferredHeight: 36
            Waveform {
                id: preview
                anchors.fill: parent
                anchors.margins: 2
                values: composer.flow ? composer.flow.waveform : []
                progress: composer.flow && composer.flow.duration > 0
                          ? composer.flow.previewPosition / composer.flow.duration : 0
                Accessible.name: qsTr("Voice note position")
                onSeekRequested: (fraction) => composer.flow.seek(fraction * composer.flow.duration)
            }
            Rectangle {  // cut away before the start
                x: 0
                width: startHandle.x
                height: parent.height
                color: composer.palette.window
                opacity: 0.6
            }
            Rectangle {  // cut away after the end
                x: endHandle.x + endHandle.width
                width: Math.max(0, trimArea.width - x)
                height: parent.height
                color: composer.palette.window
                opacity: 0.6
            }
            TrimHandle {
                id: startHandle
                fraction: composer.startFraction
                length: composer.flow ? composer.flow.duration : 0
                travel: trimArea.width - 2 * width
                timeText: composer.clock(value)
                x: fraction * travel
                height: trimArea.height
                color: composer.palette.highlight
                border.color: composer.palette.highlightedText
                Accessible.name: qsTr("Trim start")
                onMoved: (fraction) => composer.moveHandle(true, fraction)
                onLetGo: composer.commitTrim()
            }
            TrimHandle {
                id: endHandle
                fraction: composer.endFraction
                length: composer.flow ? composer.flow.duration : 0
                travel: trimArea.width - 2 * width
                timeText: composer.clock(value)
                x: width + fraction * travel
                height: trimArea.height
                color: composer.palette.highlight
                border.color: composer.palette.highlightedText
                Accessible.name: qsTr("Trim end")
                onMoved: (fraction) => composer.moveHandle(false, fraction)
                onLetGo: composer.commitTrim()
            }
        }
        Label {
            id: timer
            objectName: "timer"
            visible: composer.taking || composer.previewing
            Layout.rightMargin: button.holding ? 150 : 0
            text: !composer.flow ? "0:00"
                : composer.previewing && (composer.flow.previewPlaying || composer.flow.previewPosition > 0)
                  ? composer.clock(composer.flow.previewPosition) : composer.clock(composer.flow.duration)
            Accessible.ignored: true
        }
        Item {  // idle (and the tip): the room before the record button, which stays at the end in every state
            visible: !live.visible && !trimArea.visible
            Layout.fillWidth: true
        }
        Button {
            id: sendButton
            objectName: "sendButton"
            visible: composer.flowState === RecordingFlow.Locked || composer.previewing
            highlighted: true
            text: qsTr("Send")
            Accessible.name: qsTr("Send voice message")
            onClicked: composer.flow.send()
        }
        RecordButton {
            id: button
            visible: !composer.previewing
            flow: composer.flow
        }
    }

    /** A trim handle: dragged along the trim area, or moved by Left/Right (5 % steps) and Home/End when focused;
     *  `moved` asks for a place, `letGo` trims. For assistive technology a slider in seconds of the take. */
    component TrimHandle: Rectangle {
        id: handle
        /** Its place, 0…1 of the take. */
        required property real fraction
        /** The take's length in seconds. */
        required property real length
        /** The pixels it travels over from 0 to 1. */
        required property real travel
        /** The clock text of a time, for its description. */
        required property string timeText
        /** Whether a drag or a key moves it now. */
        readonly property bool moving: drag.active || keyMoving
        property bool keyMoving: false
        property real dragOrigin: 0
        // Read by Qt's accessible slider.
        readonly property real value: fraction * length
        readonly property real minimumValue: 0
        readonly property real maximumValue: length

        /** Asks to move it to `fraction`. */
        signal moved(real fraction)
        /** The drag or key ended. */
        signal letGo()

        width: 8
        radius: 4
        border.width: activeFocus ? 2 : 0
        activeFocusOnTab: true
        Accessible.role: Accessible.Slider
        Accessible.focusable: true
        Accessible.description: timeText

        DragHandler {
            id: drag
            target: null
            yAxis.enabled: false
            onActiveChanged: {
                if (active) {
                    handle.forceActiveFocus(Qt.MouseFocusReason)
                    handle.dragOrigin = handle.fraction
                } else {
                    handle.letGo()
                }
            }
            onTranslationChanged: if (active) handle.moved(handle.dragOrigin + translation.x / Math.max(1, handle.travel))
        }
        Keys.onPressed: (event) => {
            if (event.key === Qt.Key_Left) moved(fraction - 0.05)
            else if (event.key === Qt.Key_Right) moved(fraction + 0.05)
            else if (event.key === Qt.Key_Home) moved(0)
            else if (event.key === Qt.Key_End) moved(1)
            else return
            event.accepted = true
            keyMoving = true
        }
        Keys.onReleased: (event) => {
            if (!keyMoving || event.isAutoRepeat) return
            event.accepted = true
            keyMoving = false
            letGo()
        }
    }
}
