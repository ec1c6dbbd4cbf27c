// VoiceMessage.qml given no waveform: it reads its note's (a WaveformReader off the GUI thread). A local note's bars
// (rising, as its tone does); a URL the test server trickles: the busy indicator and "loading" until the bars come,
// and while the player loads the note; a corrupt note: the failed state, Retry reads again; a new location and the
// row's destruction cancel the read in flight (the server sees the download stop; nothing is delivered after).
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    id: suite
    name: "VoiceMessageReading"
    when: windowShown
    visible: true
    width: 500
    height: 200

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

    /** A row on `location` (on `player`, if given) with no waveform. */
    function row(location, player) {
        const message = createTemporaryObject(messageComponent, suite, { location: location, player: player || null })
        verify(message !== null)
        return message
    }

    /** Checks that `values` are the crescendo note's: 100 of them, not all equal, rising from the start to the end. */
    function verifyRising(values) {
        compare(values.length, 100)
        const lowest = Math.min(...values), highest = Math.max(...values)
        verify(highest - lowest > 0.3, "the bars differ: " + lowest + "…" + highest)
        verify(values[values.length - 1] > values[0] + 0.3, "the bars rise: " + values[0] + " → " + values[99])
    }

    function test_a_row_without_values_reads_its_note() {
        const message = row(TestRig.crescendoNote)
        const bars = child(message, "bars")
        const reader = child(message, "reader")
        const threads = []
        reader.valuesChanged.connect(() => threads.push(TestRig.onGuiThread()))
        tryVerify(() => bars.values.length > 0, 5000, "the bars were read")
        verifyRising(bars.values)
        verifyAllOnGuiThread(threads)
        verify(!message.loading && !child(message, "busyIndicator").visible, "no longer busy")
        compare(TestRig.accessible(message).description, "")
        compare(message.failure, "")
        screenshot(message, "voice-message-read")

        message.waveform = [0.5, 0.25]  // the message's own waveform wins
        compare(Array.from(bars.values), [0.5, 0.25])
        compare(reader.location, "")
    }

    function test_a_slow_url_is_busy_until_the_bars_come() {
        const sent = UploadServer.notesSent
        const url = UploadServer.noteUrl(TestRig.crescendoNote, "slow")
        const started = Date.now()
        const message = row(url)
        const busy = child(message, "busyIndicator")
        const bars = child(message, "bars")
        const busyWhenBarsCame = []
        bars.valuesChanged.connect(() => busyWhenBarsCame.push(busy.visible))
        tryVerify(() => UploadServer.notesSending > 0, 5000, "the server trickles the note")
        verify(message.loading && busy.visible && busy.running, "busy while the note trickles")
        compare(TestRig.accessible(message).description, "loading")
        screenshot(message, "voice-message-reading")
        tryVerify(() => bars.values.length > 0, 10000, "the bars came")
        const readMs = Date.now() - started
        compare(UploadServer.notesSent, sent + 1, "the whole note came before the bars")
        compare(busyWhenBarsCame, [true], "the busy indicator showed until the bars came")
        verifyRising(bars.values)
        verify(!busy.visible && !message.loading, "not busy once read")
        compare(TestRig.accessible(message).description, "")
        console.log("the slow URL's bars came after", readMs, "ms")

        // The player loading a slow URL: busy while it loads (the row's waveform given: no read).
        const player = createTemporaryObject(playerComponent, suite)
        const playing = createTemporaryObject(messageComponent, suite, { player: player })
        playing.waveform = [0.5, 0.5]  // (Qt 6.4 drops a list<real> given as an initial property)
        playing.location = UploadServer.noteUrl(TestRig.note, "slow")
        const playingBusy = child(playing, "busyIndicator")
        verify(!playingBusy.visible, "not busy at rest")
        mouseClick(child(playing, "playButton"))
        tryVerify(() => player.state === VoicePlayer.Loading && playingBusy.visible, 5000, "busy while it loads")
        compare(TestRig.accessible(playing).description, "loading")
        tryVerify(() => playing.underWay || player.state === VoicePlayer.Stopped, 10000, "loaded")
        verify(!playingBusy.visible, "not busy once loaded")
    }

    function test_a_corrupt_note_shows_the_failed_state() {
        const message = row(TestRig.corruptNote, createTemporaryObject(playerComponent, suite))
        const reader = child(message, "reader")
        const failed = spy(reader, "failed")
        tryVerify(() => message.failure !== "", 5000, "the read failed")
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_FORMAT")
        verify(message.readFailed)
        verify(child(message, "failureLabel").visible && !child(message, "bars").visible, "the failure in its place")
        verify(!child(message, "busyIndicator").visible, "not busy once failed")
        const button = child(message, "playButton")
        compare(button.text, "Retry")
        verify(TestRig.accessible(message).description.startsWith("Can't play this voice message: "))
        screenshot(message, "voice-message-read-failed")

        const reading = spy(reader, "readingChanged")
        mouseClick(button)  // reads again (not the player), and fails again
        tryCompare(failed, "count", 2, 5000)
        compare(reading.count, 2, "read again: reading, then not")
        verify(message.failure !== "" && message.readFailed)
        compare(message.activePlayer.state, VoicePlayer.NotLoaded, "Retry read the waveform only")
        message.waveform = [0.5, 0.25]  // the message's own waveform: the read's failure is forgotten
        compare(message.failure, "")
        verify(child(message, "bars").visible && !child(message, "failureLabel").visible)
    }

    function test_a_new_location_cancels_the_read_in_flight() {
        const closed = UploadServer.notesClosedEarly
        const message = row(UploadServer.noteUrl(TestRig.crescendoNote, "stalled"))
        const reader = child(message, "reader")
        const failed = spy(reader, "failed")
        const changed = spy(reader, "valuesChanged")
        tryVerify(() => UploadServer.notesSending > 0, 5000, "the read waits for the stalled note")
        verify(reader.reading)
        const started = Date.now()
        message.location = TestRig.crescendoNote
        tryCompare(UploadServer, "notesClosedEarly", closed + 1, 5000)
        const closedMs = Date.now() - started
        tryVerify(() => !reader.reading, 5000, "the new note was read")
        verifyRising(reader.values)
        compare(changed.count, 1, "the new note's values only")
        compare(failed.count, 0, "the cancelled read delivered nothing")
        console.log("the stalled download stopped", closedMs, "ms after the new location")
        verify(closedMs < 2000, closedMs + " ms")
    }

    function test_destroyed_while_reading_cancels_the_read() {
        failOnWarning(/./)  // a delivery to the destroyed row would warn (a TypeError) or crash
        const closed = UploadServer.notesClosedEarly
        const message = row(UploadServer.noteUrl(TestRig.crescendoNote, "stalled"))
        const reader = child(message, "reader")
        const deliveries = []
        reader.valuesChanged.connect(() => deliveries.push("values"))
        reader.failed.connect((status) => deliveries.push(status))
        tryVerify(() => UploadServer.notesSending > 0, 5000, "the read waits for the stalled note")
        verify(reader.reading && child(message, "busyIndicator").visible)
        const started = Date.now()
        message.destroy()
        tryCompare(UploadServer, "notesClosedEarly", closed + 1, 5000)
        const closedMs = Date.now() - started
        wait(0)  // the read's delivery, posted before its download stopped, is handled (and dropped)
        compare(deliveries, [], "nothing delivered after the destruction")
        console.log("the stalled download stopped", closedMs, "ms after the row's destruction")
        verify(closedMs < 2000, closedMs + " ms")
    }

    // A note at a URL that needs a header: its bars read with the row's `headers`, and without them the read fails.
    function test_a_private_note_is_read_with_the_rows_headers() {
        const url = UploadServer.noteUrl(TestRig.crescendoNote, "private")
        const refusedBefore = UploadServer.notesRefused
        const bare = row(url)
        tryCompare(bare, "readFailed", true, 10000)
        verify(UploadServer.notesRefused > refusedBefore, "the server refused the GET without the header")
        verify(bare.failure !== "", "the row says why")

        const message = createTemporaryObject(messageComponent, suite,
                                              { location: url, headers: { "Authorization": UploadServer.privateAuthorization } })
        const bars = child(message, "bars")
        tryVerify(() => bars.values.length > 0, 10000, "the bars were read with the header")
        verifyRising(bars.values)
        compare(message.readFailed, false)

        bare.headers = { "Authorization": UploadServer.privateAuthorization }  // a row given them later reads again
        tryVerify(() => child(bare, "bars").values.length > 0, 10000, "read again with the header")
        compare(bare.readFailed, false)
    }
}
