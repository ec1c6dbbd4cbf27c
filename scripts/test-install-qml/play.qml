// Plays `note` once through a VoicePlayer of the module Voicenote and exits: 0 once it finished after playing, 1 on
// a failure (printed).
import QtQuick
import Voicenote

VoicePlayer {
    id: player

    required property string note
    property bool played: false

    onStateChanged: {
        if (state === VoicePlayer.Playing)
            played = true
    }
    onFinished: Qt.exit(played ? 0 : 1)
    onFailed: (status, message) => {
        console.error(status, message)
        Qt.exit(1)
    }
    Component.onCompleted: load(note, true)
}
