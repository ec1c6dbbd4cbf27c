// Every type of the module used as a client would, for qmllint (run.sh lints it before the suites, any warning
// failing): the .qmltypes must describe the types, their bases (QueuePlayer's VoicePlayer, Waveform's Item),
// properties, enums and signals' parameters. Not a test suite itself (no tst_ prefix).
import QtQuick
import Voicenote

Item {
    id: root

    property string lastPayload

    VoicePlayer {
        id: player
        rate: 1.5
        headers: ({ "Authorization": "Bearer token" })
        mprisIdentity: "Chat"
        mprisDesktopEntry: "org.example.Chat"
        pauseOtherPlayers: true
        onFinished: (location) => console.log(location, player.state === VoicePlayer.Stopped)
        onListened: (location, key) => player.setMetadata(key, "Voice message", "Alice", "file:///a.png")
        onFailed: (status, message) => console.log(status, message)
    }
    QueuePlayer {
        id: queue
        locations: ["/notes/a.ogg", "/notes/b.ogg"]
        onItemChanged: (index) => console.log(index, queue.currentIndex, queue.count, queue.position)
        skipListened: true
        onEnded: queue.playFrom(0)
    }
    WaveformReader {
        id: reader
        location: "/notes/a.ogg"
        samples: 50
        headers: player.headers
        onReadingChanged: console.log(reader.reading, reader.values.length)
        onFailed: (status, message) => reader.reload()
    }
    Waveform {
        width: 200
        height: 32
        values: reader.values.length > 0 ? reader.values : [0.1, 0.5, 0.9]
        progress: player.duration > 0 ? player.position / player.duration : 0
        spacing: 1
        onSeekRequested: (fraction) => player.seek(fraction * player.duration)
    }
    RecordingFlow {
        id: flow
        minimumPress: 0.3
        keyInputs: true
        draftKey: "!room:example.org"
        clock: ManualClock {
            onElapsedChanged: console.log("the flow's clock at", elapsed)
            onFailed: (status, message) => console.log(status, message)
        }
        recorder: VoiceRecorder {
            levelCount: 30
            pauseOtherPlayers: true
            onFinished: (path, duration, waveform) => console.log(path, duration, waveform.length)
        }
        player: VoicePlayer {}
        onAttachmentReady: (path, duration, waveform, payloadJson) => root.lastPayload = payloadJson
        onTrimmed: (status, path, duration) => console.log(status, path, duration, flow.state === RecordingFlow.Preview)
        onParked: (path, duration) => console.log("kept as the draft", path, duration, flow.drafts().length)
        Component.onCompleted: flow.keyDown(RecordingFlow.RecordKey)
        Component.onDestruction: flow.park()
    }
    Uploader {
        mode: Uploader.Raw
        headers: ({ "Authorization": "Bearer token" })
        onUploaded: (payloadJson) => root.lastPayload = payloadJson
    }
}
