import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// The recorder against a microphone that fails on cue (Tests/Devices/pcm_vnfault.c, a real ALSA plugin): overruns
/// and suspends are recovered and counted without ending the take (docs/recorder.md); a device that is gone or will not
/// recover ends the take with everything captured kept, then `failed` with `.device` — and never makes the capture
/// loop spin. Every case runs twice: with the error coming from `snd_pcm_readi` and from `snd_pcm_wait` (POLLERR,
/// as kernel drivers report it).
@Suite struct DeviceFaultRecorderTests {
    /// A recorder on a fault microphone playing the speech input, and that input.
    private func recorder(_ faults: [FaultMicrophone.Fault], pollErrors: Bool, canResume: Bool = true,
                          lost: Int = 0, seconds: Double) throws -> (Recorder, EventLog, [Int16]) {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: faults,
                                                     canResume: canResume, pollErrors: pollErrors, lost: lost)
        let recorder = try Recorder(configuration: configuration(
            directory: directory, device: DeviceSelection(name: "vn_fault", configuration: text), maximum: seconds))
        return (recorder, try EventLog(recorder), input.samples)
    }

    /// Records until the take ends by itself (bounded); returns the log and the input.
    private func record(_ faults: [FaultMicrophone.Fault], pollErrors: Bool, canResume: Bool = true, lost: Int = 0,
                        seconds: Double = 3) throws -> (log: EventLog, input: [Int16]) {
        let (recorder, log, input) = try self.recorder(faults, pollErrors: pollErrors, canResume: canResume,
                                                       lost: lost, seconds: seconds)
        try recorder.begin()
        #expect(log.wait(seconds: 10) { _ in log.stopped }, "the take did not end by itself")
        recorder.close()
        return (log, input)
    }

    /// The highest overrun count any context reported.
    private func overruns(_ log: EventLog) -> Int {
        log.all.compactMap { if case .context(let context) = $0 { context.overruns } else { nil } }.max() ?? 0
    }

    @Test(arguments: [false, true])
    func overrunsAreCountedAndNeverEndATake(pollErrors: Bool) throws {
        // Each overrun loses one period of input (960 frames), as a real one does: the take goes on with the audio
        // that follows, neither repeating nor skipping more.
        let (log, input) = try record([.xrun(at: 48_000), .xrun(at: 96_000)], pollErrors: pollErrors, lost: 960)
        let result = try #require(log.finished())
        #expect(result.duration == 3)
        #expect(log.failures.isEmpty)
        #expect(overruns(log) >= 2)  // ≥: a consumer stalled for a whole device buffer would add dropped periods
        let decoded = try decode(result.path).samples
        #expect(decoded.count == 3 * 48_000)
        let after = Array(decoded[110_000..<140_000]), source = Array(input[(110_000 + 1920)..<(140_000 + 1920)])
        #expect(bestCorrelation(after, source) >= 0.9)
    }

    @Test(arguments: [false, true])
    func aResumableSuspendIsResumedWithoutRestarting(pollErrors: Bool) throws {
        // `dead` makes every prepare fail from the same moment: only snd_pcm_resume can bring this device back.
        let (log, _) = try record([.suspend(at: 48_000), .dead(at: 48_000)], pollErrors: pollErrors)
        let result = try #require(log.finished())
        #expect(result.duration == 3)
        #expect(log.failures.isEmpty)
        #expect(try decode(result.path).samples.count == 3 * 48_000)
    }

    @Test(arguments: [false, true])
    func aDeviceThatCannotResumeIsRestarted(pollErrors: Bool) throws {
        // snd_pcm_resume answers 0 but the PCM stays suspended: prepare + start bring it back.
        let (log, _) = try record([.suspend(at: 48_000), .suspend(at: 100_000)], pollErrors: pollErrors,
                                  canResume: false)
        let result = try #require(log.finished())
        #expect(result.duration == 3)
        #expect(log.failures.isEmpty)
        #expect(try decode(result.path).samples.count == 3 * 48_000)
    }

    @Test(arguments: [(FaultMicrophone.Fault.unplug(at: 48_000), -ENODEV), (.broken(at: 48_000), -EIO),
                      (.stuck(at: 48_000), -EPIPE)], [false, true])
    func aDeviceThatIsGoneEndsTheTakeKeepingItThenFails(fault: (FaultMicrophone.Fault, Int32), pollErrors: Bool) throws {
        let (log, _) = try record([fault.0], pollErrors: pollErrors, seconds: 10)
        let result = try #require(log.finished(seconds: 1))
        #expect(result.duration >= 1 && result.duration < 10, "\(fault.0): \(result.duration) s")
        #expect(try decode(result.path).samples.count == Int((result.duration * 48_000).rounded()))
        #expect(log.failures.map(\.status) == [.device], "\(fault.0)")
        // The error that ended capture: proves which path ended the take (stuck: the bound on recoveries).
        #expect(log.failures.first?.message.contains("(error \(fault.1))") == true, "\(log.failures)")
        let order = log.all.compactMap { event -> String? in
            switch event { case .finished: "finished"; case .failed: "failed"; default: nil }
        }
        #expect(order == ["finished", "failed"])
    }

    @Test(arguments: [false, true])
    func aLostSourceGoesOnFromTheFallbackLosingOnlyTheGap(pollErrors: Bool) throws {
        // The microphone (the speech input) is unplugged at 1 s; the fallback is a second microphone playing a
        // 880 Hz tone: the take holds the speech's first second, then the tone, with `sourceChanged` between.
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: [.unplug(at: 48_000)],
                                                     pollErrors: pollErrors)
        let tone = directory + "/tone.raw"
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", tone,
                          "synth", "10", "sine", "880", "vol", "0.5"])
        var settings = configuration(directory: directory, device: DeviceSelection(name: "vn_fault", configuration: text),
                                     maximum: 3)
        #expect(settings.fallbackDevice == nil, "a device the host chose is fixed by default")
        settings.fallbackDevice = fileMicrophone(infile: tone)
        let recorder = try Recorder(configuration: settings)
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(log.wait(seconds: 10) { _ in log.stopped }, "the take did not end at its maximum")
        recorder.close()
        let changes = log.all.compactMap { event -> (String, VoiceNoteError)? in
            if case .sourceChanged(let device, let lost) = event { (device, lost) } else { nil }
        }
        #expect(changes.count == 1 && changes.first?.0 == "vn_mic" && changes.first?.1.status == .device, "\(changes)")
        #expect(log.failures.isEmpty, "\(log.failures)")
        let result = try #require(log.finished())
        #expect(result.duration == 3)  // the maximum: the take went on
        let decoded = try decode(result.path).samples
        // The speech's first second is there (0.88 measured through Opus at the default bitrate, against about 0 for
        // anything else), then the tone (its zero crossings: 880 Hz).
        #expect(bestCorrelation(Array(decoded[10_000..<40_000]), Array(input.samples[10_000..<40_000])) >= 0.8)
        let tail = decoded[96_000..<144_000]
        let crossings = zip(tail, tail.dropFirst()).filter { ($0.0 < 0) != ($0.1 < 0) }.count
        #expect(abs(Double(crossings) / 2 - 880) < 20, "\(crossings / 2) Hz in the last second")
    }

    @Test func aLostSourceWithoutAFallbackEndsTheTakeAsToday() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: [.unplug(at: 48_000)])
        var settings = configuration(directory: directory, device: DeviceSelection(name: "vn_fault", configuration: text),
                                     maximum: 10)
        settings.fallbackDevice = fileMicrophone(infile: directory + "/missing.raw")  // a fallback that will not open
        let recorder = try Recorder(configuration: settings)
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(log.wait(seconds: 10) { _ in log.stopped })
        recorder.close()
        #expect(log.failures.map(\.status) == [.device])
        #expect(!log.all.contains { if case .sourceChanged = $0 { true } else { false } })
        var defaults = RecorderConfiguration()
        #expect(defaults.fallbackDevice == DeviceSelection(), "the default device falls back to the default")
        defaults.fallbackDevice = nil
        #expect(defaults.fallbackDevice == nil, "an explicit none is kept")
    }

    @Test func aDeviceThatCannotRestartFailsResumeAndKeepsThePausedTake() throws {
        let (recorder, log, _) = try recorder([.dead(at: 24_000)], pollErrors: false, seconds: 3600)
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

    @Test(arguments: [(Int32(-EACCES), Int32(0), Status.permission), (-EPERM, 0, .permission), (-ENOENT, 0, .device),
                      (0, -EIO, .device), (0, -EBUSY, .device)])
    func aDeviceThatWillNotOpenOrStartFailsBeginAndLeavesNoFile(failure: (open: Int32, start: Int32, status: Status)) throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let takes = directory + "/takes"
        let text = try FaultMicrophone.configuration(name: "vn_fault", infile: input.path, faults: [],
                                                     openError: failure.open, startError: failure.start)
        let recorder = try Recorder(configuration: configuration(
            directory: takes, device: DeviceSelection(name: "vn_fault", configuration: text)))
        #expect(status { try recorder.begin() } == failure.status, "\(failure)")
        #expect(recorder.context.state == .stopped)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: takes))?.isEmpty ?? true)
        recorder.close()
    }

    @Test func aTakeWithNoFrameIsNeverAFinishedFileEvenWithNoMinimum() throws {
        // The minimum is 0 ("keep everything"), but a device lost before its first frame leaves nothing to keep:
        // `tooShort` with duration 0, then the device failure; no file, no `.part`.
        let (log, _) = try record([.unplug(at: 0)], pollErrors: false)
        #expect(log.all.contains(.tooShort(duration: 0)))
        #expect(!log.all.contains { if case .finished = $0 { true } else { false } })
        #expect(log.failures.map(\.status) == [.device])
        for case .context(let context) in log.all where !context.path.isEmpty {
            let directory = (context.path as NSString).deletingLastPathComponent
            #expect(try FileSystem.entries(of: directory).allSatisfy { !$0.hasSuffix(".ogg") && !$0.hasSuffix(".part") })
            break
        }
    }
}
