// Waveform: the scene-graph bars grabbed from the window (Xvfb, Mesa's OpenGL) and their colours counted; seeks
// asked by pointer and keys; its accessible slider.
import QtQuick
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "Waveform"
    when: windowShown
    visible: true  // a TestCase is hidden by default; a hidden item is neither drawn nor given events
    width: 400
    height: 200

    readonly property var bars: Array.from({ length: 50 }, (_, i) => 0.2 + 0.8 * Math.abs(Math.sin(i / 5)))

    Component {
        id: waveformComponent
        Waveform {
            x: 10
            y: 10
            width: 200
            height: 40
        }
    }

    /** A waveform with `properties`; `values` set after it is made: Qt 6.4 does not convert a JavaScript array
     *  given among createObject()'s initial properties to a list of reals (it is refused). */
    function makeWaveform(properties, values) {
        const waveform = createTemporaryObject(waveformComponent, suite, properties)
        waveform.values = values
        return waveform
    }

    function test_draws_played_and_unplayed_bars() {
        const waveform = makeWaveform({ progress: 0.5, color: "#ff0000", playedColor: "#0000ff" }, bars)
        const unplayed = grab(waveform, "waveform-half-played", "#ff0000")
        compare(unplayed.width, 200)
        verify(unplayed.colours > 1, "not blank: " + JSON.stringify(unplayed))
        verify(unplayed.matching > 500, "the bars to play are drawn: " + JSON.stringify(unplayed))
        const played = grab(waveform, "waveform-half-played", "#0000ff")
        verify(played.matching > 500, "the played bars are drawn: " + JSON.stringify(played))
        waveform.progress = 0
        compare(grab(waveform, "waveform-unplayed", "#0000ff").matching, 0, "nothing played at 0")
        waveform.progress = 1
        compare(grab(waveform, "waveform-played", "#ff0000").matching, 0, "everything played at 1")
    }

    function test_blank_without_values() {
        const waveform = makeWaveform({ color: "#ff0000" }, [])
        const picture = grab(waveform, "waveform-empty", "#ff0000")
        compare(picture.colours, 1, "nothing drawn")
        compare(picture.matching, 0)
    }

    function test_colours_default_to_the_palette() {
        const waveform = makeWaveform({ progress: 0.5 }, bars)
        verify(Qt.colorEqual(waveform.playedColor, waveform.playedColor) && waveform.playedColor.a > 0,
               "a palette colour: " + waveform.playedColor)
        const played = grab(waveform, "waveform-palette", waveform.playedColor.toString())
        verify(played.matching > 500, "drawn in the palette's highlight: " + JSON.stringify(played))
        waveform.playedColor = "#00ff00"
        compare(waveform.playedColor, Qt.color("#00ff00"))
        waveform.playedColor = undefined  // reset: the palette again
        verify(!Qt.colorEqual(waveform.playedColor, "#00ff00"))
    }

    function test_keys_and_pointer_ask_for_seeks() {
        const waveform = makeWaveform({ progress: 0.5 }, bars)
        const seeks = spy(waveform, "seekRequested")
        waveform.forceActiveFocus()
        verify(waveform.activeFocus)
        keyClick(Qt.Key_Right)
        fuzzyCompare(seeks.signalArguments[0][0], 0.55, 1e-9)
        keyClick(Qt.Key_Left)
        fuzzyCompare(seeks.signalArguments[1][0], 0.45, 1e-9)
        keyClick(Qt.Key_Home)
        compare(seeks.signalArguments[2][0], 0)
        keyClick(Qt.Key_End)
        compare(seeks.signalArguments[3][0], 1)
        compare(waveform.progress, 0.5, "the owner moves the progress, not the item")
        seeks.clear()
        mouseClick(waveform, 50, 20)
        compare(seeks.count, 1)
        fuzzyCompare(seeks.signalArguments[0][0], 0.25, 0.01)
        seeks.clear()
        mousePress(waveform, 20, 20)
        mouseMove(waveform, 100, 20)
        mouseMove(waveform, 300, 20)  // past the end: clamped
        mouseRelease(waveform, 300, 20)
        verify(seeks.count >= 3, "a seek per motion: " + seeks.count)
        fuzzyCompare(seeks.signalArguments[0][0], 0.1, 0.01)
        fuzzyCompare(seeks.signalArguments[1][0], 0.5, 0.01)
        compare(seeks.signalArguments[seeks.count - 1][0], 1)
    }

    function test_accessible_as_a_slider() {
        const waveform = makeWaveform({ progress: 0.25 }, bars)
        compare(waveform.Accessible.role, Accessible.Slider)
        verify(waveform.Accessible.name.length > 0, "a name")
        compare(waveform.value, 0.25)
        compare(waveform.minimumValue, 0)
        compare(waveform.maximumValue, 1)
        compare(waveform.stepSize, 0.05)
        waveform.progress = 2  // clamped
        compare(waveform.value, 1)
    }
}
