// VoiceMessage.qml — a voice note in a conversation (a ListView delegate): play/pause, its waveform, its time, the
// rate button (1x → 1.5x → 2x → 0.5x), a busy indicator while it loads and the failure after a failed load. A
// message without a waveform gets its note's, read off the GUI thread (a WaveformReader; a new location or the row's
// destruction cancels the read at once); a failed read is the row's failure too, and Retry reads again.
//
//     QueuePlayer { id: queue; locations: notes.map(note => note.location) }
//     ListView { model: notes; delegate: VoiceMessage { required property var modelData; required property int index
//                queue: queue; queueIndex: index; location: modelData.location; duration: modelData.duration
//                waveform: modelData.waveform } }
//
// The row follows its player only while its note is the player's item (the player's `location`, and with a queue
// its `currentIndex`); other rows show their note at rest. Rows sharing a QueuePlayer play from their index, so the
// next note plays by itself. The rate is the player's, kept across items: every row on one player shows the same.
// Every colour is the style's palette.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Voicenote

// An Item, not a Control: Qt 6.4's Control sets its own accessible role (none) over Accessible.role when
// accessibility comes on. The palette is the window's (an Item's palette follows its parent's).
Item {
    id: message

    /** The player the note plays on; with `queue` set, the queue is the player. */
    property VoicePlayer player
    /** A QueuePlayer the rows share: the row plays from `queueIndex`, the notes after it follow by themselves. */
    property QueuePlayer queue
    /** The row's index in the queue's `locations`. */
    property int queueIndex: -1
    /** The note (a path, a file:// or http(s) URL), as given to the player. */
    property string location
    /** The note's length in seconds as the message says, shown until the player knows it. */
    property real duration: 0
    /** The note's waveform as the message says (its `voiceRecording` payload), 0…1 each; empty: read from the note. */
    property list<real> waveform
    /** Request headers for reading an http(s) note's waveform, name → value, e.g. ({ "Authorization": "Bearer …" })
     *  (the player's or the queue's own `headers` are sent when it plays the note). None by default. */
    property var headers: ({})
    /** The failure's message while the note failed to load on the player or its waveform to read, "" otherwise. */
    property string failure
    /** Whether `failure` is the waveform read's: Retry reads again. */
    property bool readFailed: false

    readonly property VoicePlayer activePlayer: queue ? queue : player
    /** Whether the note is the player's item: the row shows the player's state. */
    readonly property bool current: activePlayer !== null && location !== "" && activePlayer.location === location
                                    && (queue === null || queue.currentIndex === queueIndex)
    readonly property int playerState: current ? activePlayer.state : VoicePlayer.NotLoaded
    readonly property bool playing: playerState === VoicePlayer.Playing
    /** The player loads the note, or its waveform is being read. */
    readonly property bool loading: playerState === VoicePlayer.Loading || reader.reading
    /** Under way: playing, or paused somewhere in the note. */
    readonly property bool underWay: playing || playerState === VoicePlayer.Paused
    readonly property real length: current && activePlayer.duration > 0 ? activePlayer.duration : duration
    /** Where the player is in the note while under way (0 otherwise, and once the player is gone). */
    readonly property real position: underWay && activePlayer ? activePlayer.position : 0
    readonly property real shownTime: underWay ? position : length

    implicitWidth: 320
    implicitHeight: row.implicitHeight

    Accessible.role: Accessible.Grouping
    Accessible.name: qsTr("Voice message, %1").arg(clock(length))
    Accessible.description: failure !== "" ? qsTr("Can't play this voice message: %1").arg(failure)
                          : playing ? qsTr("playing at %1").arg(clock(position))
                          : underWay ? qsTr("paused at %1").arg(clock(position))
                          : loading ? qsTr("loading") : ""

    /** m:ss of whole seconds, rounded down. */
    function clock(seconds) {
        const whole = Math.max(0, Math.floor(seconds))
        const rest = whole % 60
        return Math.floor(whole / 60) + ":" + (rest < 10 ? "0" : "") + rest
    }

    /** The rate after `rate`: 1 → 1.5 → 2 → 0.5 → 1 (any other rate steps to 1). */
    function nextRate(rate) {
        return rate === 1 ? 1.5 : rate === 1.5 ? 2 : rate === 2 ? 0.5 : 1
    }

    /** Play/pause: loads the note (from its index on a queue) unless it is the item, else pauses or plays. */
    function toggle() {
        if (readFailed) {
            failure = ""
            readFailed = false
            reader.reload()
            return
        }
        if (!activePlayer) return
        if (!current || failure !== "" || playerState === VoicePlayer.NotLoaded) {
            failure = ""
            if (queue) queue.playFrom(queueIndex)
            else player.load(location, true)
        } else if (playing) {
            activePlayer.pause()
        } else {
            activePlayer.play()
        }
    }

    onLocationChanged: {
        failure = ""
        readFailed = false
    }
    onWaveformChanged: if (readFailed) {  // the message's own waveform: the read's failure is forgotten
        failure = ""
        readFailed = false
    }

    WaveformReader {
        id: reader
        objectName: "reader"
        location: message.waveform.length === 0 ? message.location : ""
        headers: message.headers
        onReadingChanged: if (reading && message.readFailed) {  // read again (new headers, a retry): not failed now
            message.failure = ""
            message.readFailed = false
        }
        onFailed: (status, text) => {
            message.readFailed = true
            message.failure = text !== "" ? text : status
        }
    }

    Connections {
        target: message.activePlayer
        function onFailed(status: string, text: string) {
            if (message.current) message.failure = text !== "" ? text : status
        }
        function onStateChanged() {  // the note loaded there again: the failure is forgotten
            if (message.current && message.underWay) message.failure = ""
        }
    }

    RowLayout {  // a child, not the deferred contentItem: its items have ids
        id: row
        anchors.fill: parent
        spacing: 6

        ToolButton {
            id: playButton
            objectName: "playButton"
            enabled: message.activePlayer !== null
            text: message.failure !== "" ? qsTr("Retry") : message.playing ? qsTr("Pause") : qsTr("Play")
            Accessible.name: text
            onClicked: message.toggle()
        }
        BusyIndicator {
            objectName: "busyIndicator"
            visible: message.loading && message.failure === ""
            running: visible
            Layout.preferredWidth: 24
            Layout.preferredHeight: 24
            Accessible.name: qsTr("Loading")
        }
        Waveform {
            id: bars
            objectName: "bars"
            visible: message.failure === ""
            Layout.fillWidth: true
            Layout.preferredHeight: 32
            values: message.waveform.length > 0 ? message.waveform : reader.values
            progress: message.underWay && message.length > 0 ? message.position / message.length : 0
            Accessible.name: qsTr("Voice note position")
            onSeekRequested: (fraction) => {
                if (message.current && message.playerState !== VoicePlayer.Loading)
                    message.activePlayer.seek(fraction * message.length)
            }
        }
        Label {
            id: failureLabel
            objectName: "failureLabel"
            visible: message.failure !== ""
            Layout.fillWidth: true
            text: qsTr("Can't play this voice message")
            elide: Text.ElideRight
            ToolTip.visible: hovered.hovered
            ToolTip.text: message.failure
            HoverHandler { id: hovered }
        }
        Label {
            id: time
            objectName: "time"
            text: message.clock(message.shownTime)
            Accessible.ignored: true
        }
        ToolButton {
            id: rateButton
            objectName: "rateButton"
            enabled: message.activePlayer !== null
            readonly property real rate: message.activePlayer ? message.activePlayer.rate : 1
            //: A playback speed on its button; %1 is the number ("1.5", with a point in every language).
            text: qsTr("%1x").arg(rate)
            Accessible.name: qsTr("Playback speed %1").arg(text)
            onClicked: message.activePlayer.rate = message.nextRate(rate)
        }
    }
}
