// VoicePlayer: its properties and signals, playing the rig's note on the virtual speaker (unpaced: it plays as
// fast as it decodes).
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    name: "VoicePlayer"

    Component {
        id: playerComponent
        VoicePlayer {
            property var states: []
            property var threads: []
            property var failures: []
            device: "vn_spk"
            deviceConfiguration: TestRig.speaker
            onStateChanged: { states.push(state); threads.push(TestRig.onGuiThread()) }
            onPositionChanged: threads.push(TestRig.onGuiThread())
            onFinished: threads.push(TestRig.onGuiThread())
            onFailed: (status, message) => { failures.push(status); threads.push(TestRig.onGuiThread()) }
        }
    }

    function makePlayer() {
        return createTemporaryObject(playerComponent, this)
    }

    function test_initial_properties() {
        const player = makePlayer()
        compare(player.state, VoicePlayer.NotLoaded)
        compare(player.duration, 0)
        compare(player.position, 0)
        compare(player.rate, 1)
        compare(player.location, "")
        compare(player.device, "vn_spk")
    }

    function test_plays_to_the_end_on_the_gui_thread() {
        const player = makePlayer()
        const finished = spy(player, "finished")
        const positions = spy(player, "positionChanged")
        const durations = spy(player, "durationChanged")
        const locations = spy(player, "locationChanged")
        player.load(TestRig.note, true)
        finished.wait(15000)
        compare(finished.signalArguments[0][0], TestRig.note)
        compare(player.location, TestRig.note)
        verify(locations.count >= 1)
        verify(durations.count >= 1)
        fuzzyCompare(player.duration, TestRig.noteSeconds, 0.05)
        verify(positions.count > 0, "the position moved")
        tryCompare(player, "state", VoicePlayer.Stopped, 5000)
        verify(player.states.indexOf(VoicePlayer.Playing) >= 0, "it played: " + player.states)
        compare(player.failures, [])
        verify(TestRig.fileSize(TestRig.speakerOutput) > 0, "the speaker received sound")
        verifyAllOnGuiThread(player.threads)
    }

    function test_load_paused_seek_and_stop() {
        const player = makePlayer()
        player.load(TestRig.note)
        tryCompare(player, "state", VoicePlayer.Paused, 10000)
        player.seek(0.75)
        tryVerify(() => Math.abs(player.position - 0.75) < 0.05, 5000, "the position moved to 0.75 s")
        compare(player.state, VoicePlayer.Paused)
        player.stop()
        tryCompare(player, "state", VoicePlayer.Stopped, 5000)
        tryCompare(player, "position", 0, 5000)
        compare(player.failures, [])
    }

    function test_rate_in_range_and_refused_outside() {
        const player = makePlayer()
        const rates = spy(player, "rateChanged")
        player.rate = 2
        tryCompare(player, "rate", 2, 5000)
        verify(rates.count >= 1)
        const failed = spy(player, "failed")
        player.rate = 3
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_INVALID_ARG")
        verify(failed.signalArguments[0][1].length > 0, "a message")
        compare(player.rate, 2)
    }

    function test_missing_file_fails_with_its_status() {
        const player = makePlayer()
        const failed = spy(player, "failed")
        player.load(TestRig.directory + "/missing.ogg", true)
        failed.wait(10000)
        compare(failed.signalArguments[0][0], "VN_E_NOT_FOUND")
        tryCompare(player, "state", VoicePlayer.NotLoaded, 5000)
        verifyAllOnGuiThread(player.threads)
    }

    function test_refusals_become_failed() {
        const player = makePlayer()
        const failed = spy(player, "failed")
        player.play()  // nothing loaded
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_MISUSE")
        player.device = "another"  // read when the player was made
        compare(failed.count, 2)
        compare(failed.signalArguments[1][0], "VN_E_MISUSE")
        compare(player.device, "vn_spk")
    }

    // MPRIS: read when the player is made (a change afterwards is refused), metadata taken; an empty key refused.
    // (What a desktop sees of a loaded note is the C and Python suites', on a private session bus.)
    Component {
        id: mprisComponent
        VoicePlayer {
            device: "vn_spk"
            deviceConfiguration: TestRig.speaker
            mprisIdentity: "Chat"
            mprisDesktopEntry: "org.example.Chat"
            streamRole: "phone"
        }
    }

    function test_mpris_identity_and_metadata() {
        const player = createTemporaryObject(mprisComponent, this)
        const failed = spy(player, "failed")
        compare(player.mprisIdentity, "Chat")
        compare(player.streamRole, "phone")  // taken (what a role does on a sound server: the Swift and Python suites)
        player.setMetadata(TestRig.note, "Voice message", "Alice")
        compare(failed.count, 0)
        player.setMetadata("", "Voice message")
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_INVALID_ARG")
        player.mprisIdentity = "Other"  // read when the player was made
        compare(failed.count, 2)
        compare(player.mprisIdentity, "Chat")
    }

    // A URL that needs a header: refused without it, played with the player's `headers`.
    function test_headers_reach_a_private_url() {
        const url = UploadServer.noteUrl(TestRig.note, "private")
        const refusedBefore = UploadServer.notesRefused
        const bare = makePlayer()
        const failed = spy(bare, "failed")
        bare.load(url, true)
        failed.wait(15000)
        verify(UploadServer.notesRefused > refusedBefore, "the server refused the GET without the header")
        compare(bare.state, VoicePlayer.NotLoaded)

        const player = makePlayer()
        player.headers = { "Authorization": UploadServer.privateAuthorization }
        compare(player.headers.Authorization, UploadServer.privateAuthorization)
        const finished = spy(player, "finished")
        const sentBefore = UploadServer.notesSent
        player.load(url, true)
        finished.wait(15000)
        compare(finished.signalArguments[0][0], url)
        compare(player.failures, [])
        verify(UploadServer.notesSent > sentBefore, "the note was sent whole")
    }
}
