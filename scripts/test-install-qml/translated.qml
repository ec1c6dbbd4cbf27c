// The installed module's controls in the user's language (the host run with LANGUAGE=de): exits 0 when the record
// button's accessible name is German, else 1 (the name printed). `note` and the device are the host's arguments,
// unused here.
import QtQuick
import Voicenote

Item {
    required property string note
    required property string device
    required property string deviceConfiguration

    RecordButton {
        id: button
    }
    Component.onCompleted: {
        const name = button.Accessible.name
        if (name !== "Sprachnachricht aufnehmen")
            console.error("the record button's name:", name)
        Qt.callLater(() => Qt.exit(name === "Sprachnachricht aufnehmen" ? 0 : 1))  // once the event loop runs
    }
}
