import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// A real-time speaker: a private PulseAudio server's null sink, played through ALSA's pulse plugin opened from
/// configuration text. It takes frames at the pace of the sink's clock, so the device holds frames not yet heard:
/// the position (written − dropped − delay) follows wall time, a stop drops what the device held, and the end of a
/// stream takes as long as it sounds — through ALSA's plugin, and through libpulse itself where a stream role is
/// asked for (the same contract either way). Serialized: each test runs its own server.
@Suite(.serialized) struct PulsePlaybackTests {
    @Test(arguments: [nil, "phone"] as [String?])
    func thePositionIsWhatTheListenerHearsThroughStopAndDrain(role: String?) throws {
        let server = try PulseServer()
        defer { server.stop() }
        try server.warm()   // else the idle null sink takes its first frames ~1.8 s late
        let selection = DeviceSelection(name: "vn_out", configuration: server.alsaConfiguration(pcmName: "vn_out",
                                                                                               device: server.sinkName),
                                        role: role)
        let device = try PlaybackDevice(selection)
        defer { device.close() }
        #expect(device.streamRole == role)
        #expect(device.sampleRate == 48_000)
        #expect(device.channels == 1)
        let rate = Double(device.sampleRate)

        // 1.2 s of audio, all of it in the ring at once: the device, not the producer, sets the pace.
        let input = sine(frequency: 440, rate: device.sampleRate, frames: 57_600)
        let ring = try SampleRing(minimumSamples: input.count)
        #expect(input.withUnsafeBufferPointer { ring.write($0) } == input.count)
        let started = monotonicNanoseconds()
        try device.start(from: ring)

        // Playing: the device holds frames not heard yet, and what is heard keeps to wall time.
        #expect(eventually(seconds: 5) { device.position.framesPlayed >= 14_400 })       // 0.3 s heard
        let playing = device.position
        let elapsed = seconds(since: started)
        #expect(playing.delayFrames > 0)
        #expect(playing.framesWritten > playing.framesPlayed)
        #expect(Double(playing.framesPlayed) <= elapsed * rate + Double(device.periodFrames),
                "\(playing.framesPlayed) frames heard \(elapsed) s after start: faster than real time")
        #expect(elapsed < 2, "0.3 s took \(elapsed) s to be heard")

        // Stop: at once, and what the device held is dropped, not counted as heard.
        let stopping = monotonicNanoseconds()
        device.stop()
        #expect(seconds(since: stopping) < 0.1)
        let stopped = device.position
        #expect(stopped.delayFrames == 0)
        #expect(stopped.framesDropped > 0)
        // Measured twice (the thread's last look, then the delay at the stop): equal to within the server's jitter.
        #expect(stopped.framesPlayed + Int64(device.periodFrames) >= playing.framesPlayed)
        #expect(stopped.framesPlayed + stopped.framesDropped == stopped.framesWritten)

        // The rest plays out: the drain lasts about as long as the rest sounds, and then all written is heard
        // but for what the stop dropped.
        let rest = Double(ring.available) / rate
        let draining = monotonicNanoseconds()
        try device.start(from: ring)
        #expect(try device.drain(timeoutMilliseconds: 10_000))
        let drained = seconds(since: draining)
        #expect(drained >= rest * 0.8 && drained < rest + 1.5, "\(rest) s of audio drained in \(drained) s")
        let end = device.position
        #expect(ring.available == 0)
        // Every frame of the ring reached the device, but for a write the stop may have cut short.
        #expect(end.framesWritten <= Int64(input.count) && end.framesWritten > Int64(input.count - device.periodFrames))
        #expect(end.delayFrames == 0)
        #expect(end.framesDropped == stopped.framesDropped)
        #expect(end.framesPlayed == end.framesWritten - stopped.framesDropped)
        #expect(device.failure == nil)
    }
}
