import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// A real-time microphone: a private PulseAudio server's null-sink monitor, captured through ALSA's pulse plugin
/// opened from configuration text, with speech played into the sink — and the same through libpulse itself, where a
/// stream role is asked for (the same contract either way). Serialized: each test runs its own server.
@Suite(.serialized) struct PulseCaptureTests {
    /// A started, warmed server and a capture device on its monitor.
    private func pulseMicrophone(role: String?) throws -> (PulseServer, CaptureDevice) {
        let server = try PulseServer()
        try server.warm()
        let selection = DeviceSelection(name: "vn_rt", configuration: server.alsaConfiguration(pcmName: "vn_rt"),
                                        role: role)
        let device = try CaptureDevice(selection)
        #expect(device.streamRole == role)
        return (server, device)
    }

    @Test(arguments: [nil, "phone"] as [String?]) func capturesPacedSpeechFromPulseAudio(role: String?) throws {
        let (server, device) = try pulseMicrophone(role: role)
        defer { device.close(); server.stop() }
        #expect(device.sampleRate == 48_000)
        #expect(device.channels == 1)
        #expect(device.bufferFrames >= 8 * device.periodFrames)

        try server.play(try Fixtures.path(.wav))
        let ring = try SampleRing(minimumSamples: 1 << 18)
        let start = monotonicNanoseconds()
        try device.start(into: ring)
        var samples: [Int16] = []
        let target = device.sampleRate * 3 / 2                               // 1.5 s
        collect(ring, from: device, into: &samples, count: target, timeout: 15)
        let elapsed = seconds(since: start)
        device.stop()

        #expect(samples.count >= target, "captured \(samples.count) of \(target) frames in \(elapsed) s")
        #expect(device.failure == nil)
        // Paced by the server's clock: about as many frames as wall time at the rate (a file device would deliver
        // 1.5 s of frames in a few milliseconds).
        let pace = Double(samples.count) / (elapsed * Double(device.sampleRate))
        #expect(pace > 0.5 && pace < 1.5, "\(samples.count) frames in \(elapsed) s: \(pace)x real time")
        // The monitor carries the speech played into the sink.
        #expect(peak(samples) > 3000, "peak \(peak(samples)): silent capture")
        #expect(device.overruns == 0)
    }

    /// Through libpulse, what the ring has no room for waits in libpulse's queue. PulseAudio's sine source posts two
    /// seconds at once (its fixed latency; Bluetooth and network sources post in large blocks too), more than a take's
    /// ring of about a second holds: a consumer that reads nothing until the ring is full, then reads on, still gets
    /// every frame — the sine comes out continuous, every half period 54 or 55 samples at 440 Hz and 48 kHz, where
    /// frames dropped at the full ring would break the phase where the next block begins. (Through ALSA the frames
    /// wait in the device's buffer only, for at most its length: `CaptureDevice`.)
    @Test func aSourcePostingSecondsAtOnceLosesNothingWhileTheRingIsFull() throws {
        let server = try PulseServer()
        defer { server.stop() }
        try server.warm()
        _ = try server.pactl(["load-module", "module-sine-source", "source_name=vn_sine", "frequency=440",
                              "rate=48000"])
        let selection = DeviceSelection(name: "vn_rt", configuration: server.alsaConfiguration(pcmName: "vn_rt",
                                                                                              device: "vn_sine"),
                                        role: "phone")
        let device = try CaptureDevice(selection)
        defer { device.close() }
        #expect(device.streamRole == "phone")
        let ring = try SampleRing(minimumSamples: device.sampleRate * device.channels)   // as a take's
        #expect(ring.capacity < device.sampleRate * 2)
        try device.start(into: ring)
        #expect(eventually(seconds: 20) { ring.available == ring.capacity }, "the ring never filled")
        var samples: [Int16] = []
        collect(ring, from: device, into: &samples, count: device.sampleRate * 3, timeout: 20)
        device.stop()
        #expect(samples.count >= device.sampleRate * 3)
        #expect(device.failure == nil)
        var crossings: [Int] = []
        for i in 1..<samples.count where (samples[i - 1] < 0) != (samples[i] < 0) { crossings.append(i) }
        let halfPeriods = zip(crossings, crossings.dropFirst()).map { $1 - $0 }
        let broken = halfPeriods.enumerated().filter { !(53...56).contains($0.element) }
        #expect(halfPeriods.count > 2000, "\(halfPeriods.count) half periods")
        #expect(broken.isEmpty, "the sine breaks at \(broken.prefix(5).map { "\(crossings[$0.offset]): \($0.element)" })")
        #expect(device.overruns == 0 && device.framesDropped == 0)
    }

    @Test(arguments: [nil, "phone"] as [String?]) func killedServerEndsCaptureWithADeviceErrorWithoutSpinning(role: String?) throws {
        let (server, device) = try pulseMicrophone(role: role)
        defer { device.close(); server.stop() }
        try server.play(try Fixtures.path(.wav))
        let ring = try SampleRing(minimumSamples: 1 << 18)
        try device.start(into: ring)
        var samples: [Int16] = []
        collect(ring, from: device, into: &samples, count: device.sampleRate / 5, timeout: 15)   // 0.2 s
        #expect(samples.count >= device.sampleRate / 5)
        #expect(device.isRunning)

        let iterationsBefore = device.loopIterations
        let killedAt = monotonicNanoseconds()
        let (killed, printed) = try capturingStandardError { () -> Bool in
            let killed = server.kill()
            // The consumer waits on the ring, which the capture thread notifies when it ends.
            collect(ring, from: device, into: &samples, count: Int.max, timeout: 5)
            return killed
        }
        let detection = seconds(since: killedAt)
        #expect(killed)
        #expect(!printed.contains("ALSA lib"), "ALSA printed: \(printed)")
        let iterationsAfter = device.loopIterations - iterationsBefore

        #expect(!device.isRunning, "capture still running \(detection) s after the server was killed")
        #expect(device.failure?.status == .device)
        #expect(device.failure?.message.contains("\"vn_rt\"") == true)
        // Waiting, not spinning: one device wait per period at most, plus a few recovery attempts.
        let allowed = UInt64(detection / 0.02) * 2 + 20
        #expect(iterationsAfter <= allowed, "\(iterationsAfter) loop iterations in \(detection) s after the kill")

        // Restarting a lost device fails with the same status; stop and close stay harmless.
        let restart = #expect(throws: VoiceNoteError.self) { try device.start(into: ring) }
        #expect(restart?.status == .device)
        device.stop()
        device.close()
        device.close()
    }

    @Test(arguments: [nil, "phone"] as [String?]) func pauseStopsCaptureWithinAPeriodAndResumeContinues(role: String?) throws {
        let (server, device) = try pulseMicrophone(role: role)
        defer { device.close(); server.stop() }
        try server.play(try Fixtures.path(.wav))
        let ring = try SampleRing(minimumSamples: 1 << 18)
        try device.start(into: ring)
        var samples: [Int16] = []
        collect(ring, from: device, into: &samples, count: device.sampleRate / 4, timeout: 15)
        #expect(samples.count >= device.sampleRate / 4)

        let stopStart = monotonicNanoseconds()
        device.stop()
        let stopTime = seconds(since: stopStart)
        // Within a period and the capture thread's wake-up: 0.1 s; under a sanitizer's instrumentation (the capture
        // loop is instrumented C) that wake-up and unwinding run slower on a busy machine (0.13 s seen under ASan).
        let stopBound = Sanitizers.address || Sanitizers.thread ? 0.25 : 0.1
        #expect(stopTime < stopBound, "stop took \(stopTime) s")
        #expect(!device.isRunning)
        drain(ring)
        let pausedAt = device.framesCaptured
        // Paused: nothing is written for well over a period (the ring would wake us at the first write).
        #expect(!ring.wait(timeoutMilliseconds: 200))
        #expect(device.framesCaptured == pausedAt)

        try device.start(into: ring)
        var resumed: [Int16] = []
        let resumeStart = monotonicNanoseconds()
        collect(ring, from: device, into: &resumed, count: device.sampleRate / 2, timeout: 15)
        let elapsed = seconds(since: resumeStart)
        device.stop()
        #expect(resumed.count >= device.sampleRate / 2)
        #expect(device.framesCaptured >= pausedAt + Int64(device.sampleRate / 2))
        let pace = Double(resumed.count) / (elapsed * Double(device.sampleRate))
        #expect(pace > 0.5 && pace < 1.5, "\(resumed.count) frames in \(elapsed) s after resume")
        #expect(device.failure == nil)
    }
}
