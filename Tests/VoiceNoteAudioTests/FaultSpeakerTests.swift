import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

#if canImport(Glibc)
import Glibc
#endif

/// Playback against a speaker that fails on cue (Tests/Devices/pcm_vnfault.c, a real ALSA plugin, unpaced):
/// underruns are counted and recovered, suspends resumed, and a lost device ends the loop with the error, wakes the
/// producer and never makes the loop spin.
@Suite struct FaultSpeakerTests {
    /// A fault speaker writing to a new file; returns the device and the file's path.
    private func speaker(_ faults: [FaultMicrophone.Fault], canResume: Bool = true,
                         startError: Int32 = 0) throws -> (PlaybackDevice, String) {
        let outfile = try Fixtures.temporaryDirectory() + "/out.raw"
        let text = try FaultMicrophone.speakerConfiguration(name: "vn_fault_spk", outfile: outfile, faults: faults,
                                                            canResume: canResume, startError: startError)
        return (try PlaybackDevice(DeviceSelection(name: "vn_fault_spk", configuration: text)), outfile)
    }

    /// Plays `input` to the end (bounded); returns whether it played out.
    private func play(_ input: [Int16], on device: PlaybackDevice) throws -> Bool {
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(from: ring)
        feed(input, into: ring, of: device)
        return try device.drain(timeoutMilliseconds: 10_000)
    }

    @Test func underrunsAreCountedRecoveredAndLoseNothing() throws {
        let (device, outfile) = try speaker([.xrun(at: 9_600), .xrun(at: 19_200)])
        let input = noise(samples: 48_000)
        #expect(try play(input, on: device))
        #expect(device.underruns == 2)
        #expect(device.recoveries == 2)
        #expect(device.failure == nil)
        #expect(device.framesWritten == 48_000)
        device.close()
        // The frames an underrun refused were written again after the recovery: nothing lost, nothing repeated
        // (then the last period, counted from the recovery, completed with silence).
        let written = withoutEndPadding(try writtenSamples(outfile), count: input.count, periodSamples: device.periodFrames)
        let difference = firstDifference(written, input)
        #expect(difference == nil, "first different sample: \(difference ?? -1) of \(written.count)")
    }

    @Test(arguments: [true, false])
    func aSuspendIsResumedOrPreparedAgain(canResume: Bool) throws {
        // Without resume, only prepare brings the device back (snd_pcm_resume does nothing).
        let (device, outfile) = try speaker([.suspend(at: 9_600)], canResume: canResume)
        let input = noise(samples: 48_000)
        #expect(try play(input, on: device))
        #expect(device.recoveries == 1)
        #expect(device.underruns == 0)
        #expect(device.failure == nil)
        device.close()
        #expect(withoutEndPadding(try writtenSamples(outfile), count: input.count, periodSamples: device.periodFrames * device.channels) == input)
    }

    @Test(arguments: [(FaultMicrophone.Fault.unplug(at: 9_600), -ENODEV), (.broken(at: 9_600), -EIO),
                      (.stuck(at: 9_600), -EPIPE)])
    func aLostDeviceEndsTheLoopWithTheErrorAndWakesTheProducer(fault: (FaultMicrophone.Fault, Int32)) throws {
        let (device, _) = try speaker([fault.0])
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(from: ring)
        // The producer has more than the device will ever take: it waits for room until the loop ends.
        let given = feed(noise(samples: 48_000), into: ring, of: device, timeout: 10)
        #expect(given < 48_000)
        #expect(!device.isRunning)
        #expect(!device.playedToEnd)
        let failure = try #require(device.failure)
        #expect(failure.status == .device)
        #expect(failure.message.contains("\"vn_fault_spk\""))
        #expect(failure.message.contains("(error \(fault.1))"), "\(failure.message)")
        // The fault fires at the first look at the device after 9,600 frames were played: within one write.
        #expect(device.framesWritten >= 9_600 && device.framesWritten < 9_600 + Int64(device.periodFrames))
        // Recovery is bounded: a stuck device is given up after 8 recoveries without a frame written.
        #expect(device.recoveries <= 9)
        #expect(device.loopIterations < 200)
        // What the device held is not counted as heard (the position stops where the device did).
        #expect(device.position.framesPlayed <= device.framesWritten)
        #expect(device.position.delayFrames == 0)

        // Starting a lost device again fails with the same status (a stuck one prepares, then fails again).
        if case .stuck = fault.0 { return }
        let restart = #expect(throws: VoiceNoteError.self) { try device.start(from: ring) }
        #expect(restart?.status == .device)
    }

    /// A device that will not start fails the run: the loop ends with the error rather than retrying forever.
    @Test func aDeviceThatWillNotStartEndsTheLoop() throws {
        let (device, _) = try speaker([], startError: -EIO)
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 1 << 16)
        try device.start(from: ring)
        feed(noise(samples: 20_000), into: ring, of: device)
        #expect(eventually(seconds: 10) { !device.isRunning })
        #expect(device.failure?.status == .device)
        #expect(device.framesWritten <= Int64(device.bufferFrames))
    }

    /// A device that refuses access at open is a permission error, as for capture.
    @Test func refusedAccessIsAPermissionError() throws {
        let text = try FaultMicrophone.speakerConfiguration(name: "vn_fault_spk", faults: [], openError: -EACCES)
        let error = #expect(throws: VoiceNoteError.self) {
            _ = try PlaybackDevice(DeviceSelection(name: "vn_fault_spk", configuration: text))
        }
        #expect(error?.status == .permission)
        #expect(error?.message.contains("playback device \"vn_fault_spk\"") == true)
    }

    /// A device that offers one rate only, without a resampler: its rate is used and reported (the player converts).
    @Test func aDeviceWithoutAResamplerReportsItsOwnRate() throws {
        let text = try FaultMicrophone.speakerConfiguration(name: "vn_fault_spk", rate: 44_100, faults: [])
        let device = try PlaybackDevice(DeviceSelection(name: "vn_fault_spk", configuration: text), rate: 48_000,
                                        channels: 2)
        defer { device.close() }
        #expect(device.sampleRate == 44_100)
        #expect(device.channels == 1)
        #expect(device.periodFrames == 882)
    }
}
