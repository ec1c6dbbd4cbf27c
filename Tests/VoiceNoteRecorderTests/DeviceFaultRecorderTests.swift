import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// The recorder against a microphone that fails on cue (Tests/Devices/pcm_vnfault.c, a real ALSA plugin): overruns
/// and suspends are recovered and counted without ending the take (SPEC §2); a device that is gone or will not
/// recover ends the take with everything captured kept, then `failed` with `.device` — and never makes the capture
/// loop spin.
@Suite struct DeviceFaultRecorderTests {
    /// Records from a fault microphone until the take ends by itself (maximum `seconds`); returns the log.
    private func record(_ faults: [FaultMicrophone.Fault], canResume: Bool = true, seconds: Double = 3) throws
        -> (log: EventLog, directory: String) {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: faults,
                                                     canResume: canResume)
        let recorder = try Recorder(configuration: configuration(
            directory: directory, device: DeviceSelection(name: "vn_fault", configuration: text), maximum: seconds))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(log.wait { _ in log.stopped }, "the take did not end by itself")
        recorder.close()
        return (log, directory)
    }

    /// The highest overrun count any context reported.
    private func overruns(_ log: EventLog) -> Int {
        log.all.compactMap { if case .context(let context) = $0 { context.overruns } else { nil } }.max() ?? 0
    }

    @Test func overrunsAreCountedAndNeverEndATake() throws {
        let (log, _) = try record([.xrun(at: 48_000), .xrun(at: 96_000)])
        let result = try #require(log.finished())
        #expect(result.duration == 3)
        #expect(log.failures.isEmpty)
        #expect(overruns(log) == 2)
        #expect(try decode(result.path).samples.count == 3 * 48_000)
    }

    @Test(arguments: [true, false])
    func aSuspendedDeviceIsResumedOrRestarted(canResume: Bool) throws {
        // canResume false: snd_pcm_resume answers 0 but the PCM stays suspended; only prepare + start bring it back.
        let (log, _) = try record([.suspend(at: 48_000), .suspend(at: 100_000)], canResume: canResume)
        let result = try #require(log.finished())
        #expect(result.duration == 3)
        #expect(log.failures.isEmpty)
        #expect(overruns(log) == 0)
        #expect(try decode(result.path).samples.count == 3 * 48_000)
    }

    @Test(arguments: [FaultMicrophone.Fault.unplug(at: 48_000), .broken(at: 48_000), .stuck(at: 48_000)])
    func aDeviceThatIsGoneEndsTheTakeKeepingItThenFails(fault: FaultMicrophone.Fault) throws {
        let (log, _) = try record([fault], seconds: 10)
        let result = try #require(log.finished(seconds: 1))
        #expect(result.duration >= 1 && result.duration < 10, "\(fault): \(result.duration) s")
        #expect(try decode(result.path).samples.count == Int((result.duration * 48_000).rounded()))
        #expect(log.failures.map(\.status) == [.device], "\(fault)")
        let order = log.all.compactMap { event -> String? in
            switch event { case .finished: "finished"; case .failed: "failed"; default: nil }
        }
        #expect(order == ["finished", "failed"])
        #expect(overruns(log) <= 9, "\(fault): the loop must give up, not spin")
    }

    @Test func aDeviceThatCannotRestartFailsResumeAndKeepsThePausedTake() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: [.dead(at: 24_000)])
        let recorder = try Recorder(configuration: configuration(
            directory: directory, device: DeviceSelection(name: "vn_fault", configuration: text), maximum: 60))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(eventually { recorder.context.duration >= 1 })
        try recorder.pause()
        let paused = recorder.context
        #expect(paused.state == .paused)
        #expect(status { try recorder.resume() } == .device)
        #expect(recorder.context.state == .paused && recorder.context.duration == paused.duration)
        try recorder.stop()
        let result = try #require(log.finished())
        #expect(result.duration == paused.duration)
        #expect(try decode(result.path).samples.count == Int((paused.duration * 48_000).rounded()))
        #expect(log.failures.isEmpty)
        recorder.close()
    }
}
