// VoiceRecorder: a take from the virtual microphone (a 440 Hz tone read unpaced), its properties and signals.
import QtQuick
import VoicenoteTest
import Voicenote

VoicenoteTestCase {
    name: "VoiceRecorder"

    Component {
        id: recorderComponent
        VoiceRecorder {
            property var states: []
            property var threads: []
            directory: TestRig.directory + "/takes"
            device: "vn_mic"
            deviceConfiguration: TestRig.microphone
            onStateChanged: { states.push(state); threads.push(TestRig.onGuiThread()) }
            onLevelsChanged: threads.push(TestRig.onGuiThread())
            onFinished: threads.push(TestRig.onGuiThread())
            onFailed: threads.push(TestRig.onGuiThread())
        }
    }

    function test_initial_properties() {
        const recorder = createTemporaryObject(recorderComponent, this)
        compare(recorder.state, VoiceRecorder.Stopped)
        compare(recorder.duration, 0)
        compare(recorder.averagePower, 0)
        compare(recorder.levels, [])
        compare(recorder.levelCount, 40)
        compare(recorder.path, "")
        compare(recorder.pauseOtherPlayers, false)
        compare(recorder.streamRole, "")
        const failed = spy(recorder, "failed")
        recorder.pauseOtherPlayers = true  // read when the recorder was made (at completion)
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_MISUSE")
        recorder.streamRole = "phone"
        compare(failed.count, 2)
        compare(recorder.streamRole, "")
    }

    function test_take_with_pause_is_kept() {
        const recorder = createTemporaryObject(recorderComponent, this)
        const finished = spy(recorder, "finished")
        const durations = spy(recorder, "durationChanged")
        const powers = spy(recorder, "averagePowerChanged")
        recorder.begin()
        tryCompare(recorder, "state", VoiceRecorder.Recording, 5000)
        tryVerify(() => recorder.levels.length > 3, 10000, "live levels came")
        verify(recorder.levels.length <= recorder.levelCount)
        verify(recorder.levels.every(level => level >= 0 && level <= 1))
        verify(powers.count > 0 && recorder.averagePower > 0, "the tone was heard")
        verify(recorder.path.endsWith(".part"), recorder.path)
        recorder.pause()
        tryCompare(recorder, "state", VoiceRecorder.Paused, 5000)
        recorder.resume()
        tryCompare(recorder, "state", VoiceRecorder.Recording, 5000)
        tryVerify(() => recorder.duration > 0.5, 10000, "half a second captured")
        recorder.stop()
        finished.wait(10000)
        const [path, duration, waveform] = finished.signalArguments[0]
        verify(path.endsWith(".ogg"), path)
        verify(TestRig.fileSize(path) > 0, "the take is on disk")
        verify(duration > 0.5, "its length: " + duration)
        verify(waveform.length > 0 && waveform.every(v => v >= 0 && v <= 1), "its waveform")
        verify(durations.count > 0)
        tryCompare(recorder, "state", VoiceRecorder.Stopped, 5000)
        compare(recorder.path, path)
        verify(recorder.states.indexOf(VoiceRecorder.Paused) >= 0, "paused between: " + recorder.states)
        verifyAllOnGuiThread(recorder.threads)
    }

    function test_cancelled_take_is_deleted() {
        const recorder = createTemporaryObject(recorderComponent, this)
        const finished = spy(recorder, "finished")
        recorder.begin()
        tryVerify(() => recorder.path.endsWith(".part"), 5000, "the take's file is named")
        const part = recorder.path
        verify(TestRig.fileSize(part) >= 0, "the take's file exists while recording")
        recorder.cancel()
        tryCompare(recorder, "state", VoiceRecorder.Stopped, 5000)
        tryVerify(() => TestRig.fileSize(part) === -1, 5000, "the take's file is gone")
        compare(finished.count, 0)
    }

    function test_refusals_become_failed() {
        const recorder = createTemporaryObject(recorderComponent, this)
        const failed = spy(recorder, "failed")
        recorder.stop()  // no take
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_MISUSE")
        recorder.levelCount = 0
        compare(failed.count, 2)
        compare(failed.signalArguments[1][0], "VN_E_INVALID_ARG")
        compare(recorder.levelCount, 40)
        recorder.directory = TestRig.directory  // read when the recorder was made
        compare(failed.count, 3)
        compare(failed.signalArguments[2][0], "VN_E_MISUSE")
    }

    function test_missing_device_fails() {
        const recorder = createTemporaryObject(recorderComponent, this, { device: "vn_nothing" })
        const failed = spy(recorder, "failed")
        recorder.begin()
        compare(failed.count, 1)
        compare(failed.signalArguments[0][0], "VN_E_DEVICE")
        compare(recorder.state, VoiceRecorder.Stopped)
    }
}
