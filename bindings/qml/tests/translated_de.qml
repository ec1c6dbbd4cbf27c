// The controls in German: run.sh runs this suite alone with LANGUAGE=de (not named tst_*.qml, so the runner's own
// scan, in the English run, leaves it out), and the module's plugin, not the test, loads
// the German catalogue (i18n/voicenote_qml_de.ts) when the engine imports Voicenote. The texts on the controls and
// what assistive technology reads are checked; nothing is recorded or played.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "Translated"
    when: windowShown
    visible: true  // a TestCase is hidden by default, and a hidden item takes no pointer events
    width: 600
    height: 300

    Component {
        id: flowComponent
        RecordingFlow {
            clock: ManualClock {}
            recorder: VoiceRecorder {
                directory: TestRig.directory + "/translated"
                device: "vn_mic"
                deviceConfiguration: TestRig.microphone
            }
            player: VoicePlayer {
                device: "vn_spk"
                deviceConfiguration: TestRig.speaker
            }
        }
    }
    Component {
        id: buttonComponent
        RecordButton { x: 250; y: 150 }
    }
    Component {
        id: composerComponent
        Composer { x: 40; y: 100; width: 440 }
    }
    Component {
        id: messageComponent
        VoiceMessage { x: 10; y: 10; width: 400 }
    }

    function makeFlow() {
        const flow = createTemporaryObject(flowComponent, suite)
        tryCompare(flow, "state", RecordingFlow.Idle, 5000)
        return flow
    }

    function test_record_button_in_german() {
        const flow = makeFlow()
        const button = createTemporaryObject(buttonComponent, suite, { flow: flow })
        compare(TestRig.accessible(button).name, "Sprachnachricht aufnehmen")
        compare(findChild(button, "slideHint").text, "‹ Zum Abbrechen wischen")
        mouseClick(button, 24, 24)  // a tap: the tip
        tryCompare(flow, "tipVisible", true, 5000)
        const tip = findChild(button, "tip")
        verify(tip.visible, "the tip is shown")
        compare(tip.text, "Zum Aufnehmen gedrückt halten, zum Senden loslassen")
    }

    function test_composer_in_german() {
        const composer = createTemporaryObject(composerComponent, suite, { flow: makeFlow() })
        compare(TestRig.accessible(composer).name, "Sprachnachricht verfassen")
        compare(findChild(composer, "sendButton").text, "Senden")
        compare(TestRig.accessible(findChild(composer, "sendButton")).name, "Sprachnachricht senden")
        compare(findChild(composer, "discardButton").text, "Verwerfen")
        compare(findChild(composer, "playButton").text, "Abspielen")
        compare(TestRig.accessible(composer.trimStartHandle).name, "Anfang kürzen")
        compare(TestRig.accessible(composer.trimEndHandle).name, "Ende kürzen")
        compare(TestRig.accessible(composer.recordButton).name, "Sprachnachricht aufnehmen")
    }

    function test_voice_message_in_german() {
        const message = createTemporaryObject(messageComponent, suite, { duration: 3 })
        compare(TestRig.accessible(message).name, "Sprachnachricht, 0:03")
        compare(findChild(message, "playButton").text, "Abspielen")
        compare(findChild(message, "rateButton").text, "1×")
        compare(TestRig.accessible(findChild(message, "rateButton")).name, "Wiedergabegeschwindigkeit 1×")
        compare(TestRig.accessible(findChild(message, "bars")).name, "Position in der Sprachnachricht")
    }
}
