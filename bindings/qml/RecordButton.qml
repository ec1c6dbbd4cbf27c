// RecordButton.qml — the hold-to-record button over a RecordingFlow: the pointer's press, moves and release and the
// keys forwarded to the flow, and the flow's view drawn (microphone, slide-to-cancel hint, lock, stop look, tip).
//
//     RecordButton { flow: RecordingFlow { recorder: VoiceRecorder {}; player: VoicePlayer {} } }
//
// A press while a take is locked (or toggled) is the stop button. Space and Enter held act as the button (as the
// flow's record key with `keyInputs`), Escape cancels with `keyInputs`. The hint is drawn left of the button (about
// 150 px) and the lock above it (about 70 px), as Telegram's and Stream's buttons do over the text field: leave
// that room. Every colour is the style's palette.
import QtQuick
import QtQuick.Controls
import Voicenote

// An AbstractButton for its accessible role: Qt 6.4's Control sets its own role (none) over Accessible.role when
// accessibility comes on. Its own press handling gets nothing: the MouseArea and the Keys handlers take the input.
AbstractButton {
    id: button

    /** The flow the button drives (required). */
    property RecordingFlow flow
    /** Whether the pointer or a key holds the button down now. */
    readonly property bool held: pointerHeld || keyHeld !== 0
    /** Whether a take runs while held: the hint and the lock show. */
    readonly property bool holding: flow !== null && flow.state === RecordingFlow.Recording && !flow.toggled
    /** Whether the button is the take's stop button (locked, or started in toggle mode). */
    readonly property bool stopLook: flow !== null && (flow.state === RecordingFlow.Locked
                                                       || (flow.state === RecordingFlow.Recording && flow.toggled))

    property bool pointerHeld: false
    property int keyHeld: 0

    implicitWidth: 48
    implicitHeight: 48
    focusPolicy: Qt.StrongFocus
    hoverEnabled: true

    Accessible.role: Accessible.Button
    Accessible.name: qsTr("Record voice message")
    Accessible.description: flow ? flow.accessibleDescription : ""
    Accessible.focusable: true
    down: held
    // Only assistive technology's press action (and click()) clicks it: a press and a release at once, the stop of
    // a locked take; in toggle mode a take's start or stop; else the tip, which says to hold.
    onClicked: if (flow && buttonDown(width / 2, height / 2, false)) buttonUp(false)

    /** The button went down at (x, y), by the pointer or (`asKey`) the record key. */
    function buttonDown(x, y, asKey) {
        if (flow.state === RecordingFlow.Locked && !flow.toggled) {  // no finger follows a locked take: this stops it
            flow.stop()
            return false
        }
        if (asKey) flow.keyDown(RecordingFlow.RecordKey)
        else flow.press(x, y)
        return true
    }

    /** The button went up. */
    function buttonUp(asKey) {
        if (asKey) flow.keyUp(RecordingFlow.RecordKey)
        else flow.release()
    }

    function isRecordKey(key) {
        return key === Qt.Key_Space || key === Qt.Key_Return || key === Qt.Key_Enter
    }

    Keys.onPressed: (event) => {
        if (!flow) return
        if (event.key === Qt.Key_Escape) {
            if (!flow.keyInputs) return  // left to the window (a dialog closes)
            event.accepted = true
            flow.keyDown(RecordingFlow.EscapeKey)
            return
        }
        if (!isRecordKey(event.key)) return
        event.accepted = true
        if (event.isAutoRepeat || held) return
        if (buttonDown(width / 2, height / 2, flow.keyInputs)) keyHeld = event.key
    }
    Keys.onReleased: (event) => {
        if (!flow || event.isAutoRepeat) return
        if (event.key === Qt.Key_Escape && flow.keyInputs) {
            event.accepted = true
            flow.keyUp(RecordingFlow.EscapeKey)
        } else if (event.key === keyHeld) {
            event.accepted = true
            keyHeld = 0
            buttonUp(flow.keyInputs)
        }
    }

    // A MouseArea, not a PointHandler or DragHandler: it takes the press's exclusive grab at once and keeps it
    // (preventStealing), so a Flickable or ListView around the composer cannot take a held take's drag over, and
    // the moves keep coming when the finger leaves the button (left to cancel, up to lock).
    MouseArea {
        id: pointer
        anchors.fill: parent
        preventStealing: true
        enabled: button.flow !== null && button.keyHeld === 0
        onPressed: (mouse) => {
            if (button.focusPolicy & Qt.ClickFocus) button.forceActiveFocus(Qt.MouseFocusReason)
            button.pointerHeld = button.buttonDown(mouse.x, mouse.y, false)
        }
        onPositionChanged: (mouse) => { if (button.pointerHeld) button.flow.move(mouse.x, mouse.y) }
        onReleased: button.endPointer()
        // The grab taken away: no finger on the button any more, as a release; but when the button was hidden the
        // take stops into preview instead (onVisibleChanged), so nothing is sent by a page left.
        onCanceled: button.visible ? button.endPointer() : button.hidden()
    }

    /** Forgets the press and the key it holds, without a release to the flow (the button was hidden: the flow was
     *  deactivated, or is told by the one who hid it). */
    function forget() {
        pointerHeld = false
        keyHeld = 0
    }

    /** Hidden while held: the press and the key are forgotten and the flow deactivated (a held take stops into
     *  preview and is kept; a press not yet a take is dropped). */
    function hidden() {
        if (!flow || !held) return
        forget()
        flow.deactivate()
    }

    onVisibleChanged: if (!visible) hidden()

    function endPointer() {
        if (!pointerHeld) return
        pointerHeld = false
        buttonUp(false)
    }

    background: Rectangle {
        radius: width / 2
        color: button.holding || button.stopLook ? button.palette.highlight
             : button.held ? button.palette.mid
             : button.hovered ? button.palette.midlight : button.palette.button
        border.width: button.visualFocus ? 2 : 1
        border.color: button.visualFocus ? button.palette.highlight : button.palette.mid
    }

    /** The icons' colour, on the face's. */
    readonly property color ink: holding || stopLook ? palette.highlightedText : palette.buttonText

    contentItem: Item {
        // The microphone: a capsule over a stand.
        Item {
            visible: !button.stopLook
            anchors.centerIn: parent
            width: 14
            height: 22
            Rectangle {
                x: 3; width: 8; height: 13
                radius: 4
                color: button.ink
            }
            Rectangle {
                x: 0; y: 7; width: 14; height: 9
                radius: 7
                color: "transparent"
                border.width: 2
                border.color: button.ink
            }
            Rectangle { x: 6; y: 16; width: 2; height: 4; color: button.ink }
            Rectangle { x: 3; y: 20; width: 8; height: 2; color: button.ink }
        }
        // The stop look: a square.
        Rectangle {
            visible: button.stopLook
            anchors.centerIn: parent
            width: 14
            height: 14
            radius: 2
            color: button.ink
        }
    }

    // "Slide to cancel", left of the button, fading as the finger slides left.
    Label {
        id: slideHint
        objectName: "slideHint"
        visible: button.holding
        opacity: button.flow ? button.flow.slideToCancelAlpha : 0
        anchors.right: button.left
        anchors.rightMargin: 12
        anchors.verticalCenter: button.verticalCenter
        text: qsTr("‹ Slide to cancel")
        Accessible.ignored: true
    }

    // The lock above the button, raised by the lock padding, its chevron fading as the finger slides up.
    Item {
        id: lock
        visible: button.holding
        width: 24
        height: 44
        anchors.horizontalCenter: button.horizontalCenter
        y: -height - 8 - (button.flow ? button.flow.lockPadding : 0)
        Accessible.ignored: true
        Rectangle {
            anchors.fill: parent
            radius: width / 2
            color: button.palette.window
            border.color: button.palette.mid
        }
        Label {
            anchors.horizontalCenter: parent.horizontalCenter
            y: 2
            text: "^"
            opacity: button.flow ? button.flow.chevronAlpha : 0
        }
        Rectangle {  // the shackle
            x: 8; y: 20; width: 8; height: 10
            radius: 4
            color: "transparent"
            border.width: 2
            border.color: button.palette.windowText
        }
        Rectangle { x: 6; y: 26; width: 12; height: 10; radius: 2; color: button.palette.windowText }  // the body
    }

    ToolTip {
        objectName: "tip"
        visible: button.flow !== null && button.flow.tipVisible
        text: qsTr("Hold to record, release to send")
        timeout: -1  // the flow hides it after its tip duration
    }
}
