import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// Capture through ALSA's `file` plugin, opened from configuration text: a microphone that delivers a known file
/// as fast as it is read (not paced), so every frame can be compared.
@Suite struct FileMicrophoneTests {
    @Test func capturesTheInputBytesInOrder() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechRaw(in: directory)
        let expected = try readSamples(input)
        let device = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: input)))
        defer { device.close() }
        #expect(device.sampleRate == 48_000)
        #expect(device.channels == 1)
        #expect(device.periodFrames == 960)
        #expect(device.bufferFrames >= 8 * device.periodFrames)

        // The ring is the take: smaller than the file, so all of it is real input (after EOF the plugin repeats).
        let ring = try SampleRing(minimumSamples: 1 << 17)
        #expect(ring.capacity < expected.count)
        try device.start(into: ring)
        #expect(waitOnRing(ring, timeout: 10) { ring.available == ring.capacity || !device.isRunning })
        device.stop()
        #expect(!device.isRunning)
        #expect(device.failure == nil)

        var captured = [Int16](repeating: 0, count: ring.capacity)
        #expect(captured.withUnsafeMutableBufferPointer { ring.read(into: $0) } == ring.capacity)
        #expect(device.framesCaptured == Int64(ring.capacity))
        let firstDifference = zip(captured, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first different sample: \(firstDifference ?? -1)")
    }

    /// A device faster than real time is read at the consumer's pace: a consumer that keeps up loses nothing,
    /// even through a ring much smaller than the take.
    @Test func aConsumerThatKeepsUpLosesNothing() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechRaw(in: directory)
        let expected = try readSamples(input)
        let device = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: input)))
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 8192)
        let count = expected.count - 2 * device.periodFrames           // all of the file, never past its end
        try device.start(into: ring)
        var captured: [Int16] = []
        collect(ring, from: device, into: &captured, count: count, timeout: 30)
        device.stop()
        #expect(captured.count >= count)
        #expect(device.overruns == 0)
        #expect(device.framesDropped == 0)
        let firstDifference = zip(captured.prefix(count), expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first different sample: \(firstDifference ?? -1)")
    }

    /// A consumer that stalls longer than the device's buffer is not waited for: the device's periods are read and
    /// dropped, counted as overruns, and what the ring already holds is intact.
    @Test func aStalledConsumerCostsDroppedPeriodsCountedAsOverruns() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechRaw(in: directory)
        let expected = try readSamples(input)
        let device = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: input)))
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(into: ring)
        // Nothing reads: after the buffer's length (160 ms) the thread drops periods. Polls the counter every 50 ms.
        #expect(waitOnRing(ring, timeout: 10) { device.overruns > 0 })
        #expect(device.isRunning)
        device.stop()
        #expect(device.framesDropped > 0)
        #expect(device.framesCaptured == Int64(ring.capacity))
        var captured = [Int16](repeating: 0, count: ring.capacity)
        #expect(captured.withUnsafeMutableBufferPointer { ring.read(into: $0) } == ring.capacity)
        #expect(Array(expected.prefix(ring.capacity)) == captured)
    }

    /// A device that does not offer 48 kHz: the nearest rate it offers is used and reported, and the audio is what
    /// the device delivered at that rate (a 1 kHz sine stays 1 kHz), never relabelled.
    @Test(arguments: [44_100, 16_000])
    func usesTheRateTheDeviceOffers(rate: Int) throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = directory + "/sine.raw"
        try Fixtures.run(["sox", "-n", "-r", String(rate), "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw",
                          input, "synth", "4", "sine", "1000", "vol", "0.5"])
        let expected = try readSamples(input)
        let selection = DeviceSelection(name: "vn_mic_fixed", configuration: fixedRateMicrophone("vn_mic_fixed", infile: input, rate: rate))
        let device = try CaptureDevice(selection, preferredRate: 48_000)
        defer { device.close() }
        #expect(device.sampleRate == rate)
        #expect(device.periodFrames == rate / 50)

        let ring = try SampleRing(minimumSamples: rate)   // at least 1 s, less than the 4 s file
        #expect(ring.capacity < expected.count)
        try device.start(into: ring)
        #expect(waitOnRing(ring, timeout: 10) { ring.available == ring.capacity || !device.isRunning })
        device.stop()
        var captured = [Int16](repeating: 0, count: ring.capacity)
        #expect(captured.withUnsafeMutableBufferPointer { ring.read(into: $0) } == ring.capacity)

        let frequency = crossingsPerSecond(captured, rate: device.sampleRate)
        #expect(abs(frequency - 1000) < 10, "a 1 kHz sine captured at \(device.sampleRate) Hz reads as \(frequency) Hz")
        #expect(Array(expected.prefix(captured.count)) == captured, "passed through unchanged")
    }

    @Test func pauseResumeAndCloseAreSafeInAnyOrder() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechRaw(in: directory)
        let device = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: input)))
        device.stop()                                   // not running: nothing happens
        #expect(!device.isRunning)

        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(into: ring)
        #expect(device.isRunning)
        let twice = #expect(throws: VoiceNoteError.self) { try device.start(into: ring) }
        #expect(twice?.status == .misuse)
        #expect(waitOnRing(ring, timeout: 10) { ring.available == ring.capacity })
        device.stop()
        #expect(!device.isRunning)
        #expect(device.framesCaptured == Int64(ring.capacity))
        device.stop()

        drain(ring)
        try device.start(into: ring)                    // resume
        #expect(device.isRunning)
        #expect(waitOnRing(ring, timeout: 10) { ring.available == ring.capacity })
        device.stop()
        #expect(device.framesCaptured == Int64(2 * ring.capacity))
        #expect(device.failure == nil)

        device.close()
        device.close()
        device.stop()
        #expect(!device.isRunning)
        #expect(device.framesCaptured == Int64(2 * ring.capacity))   // counters stay readable
        let afterClose = #expect(throws: VoiceNoteError.self) { try device.start(into: ring) }
        #expect(afterClose?.status == .misuse)
    }

    @Test func deinitClosesARunningDevice() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechRaw(in: directory)
        let ring = try SampleRing(minimumSamples: 1024)
        do {
            let device = try CaptureDevice(DeviceSelection(name: "vn_mic", configuration: fileMicrophone("vn_mic", infile: input)))
            try device.start(into: ring)
            #expect(waitOnRing(ring, timeout: 10) { ring.available == ring.capacity })
        }
        // The device is gone and its thread joined: nothing writes into the ring any more.
        drain(ring)
        #expect(!ring.wait(timeoutMilliseconds: 50))
        #expect(ring.available == 0)
    }
}
