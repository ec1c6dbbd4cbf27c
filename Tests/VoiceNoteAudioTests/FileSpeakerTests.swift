import Testing
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// Playback through ALSA's `file` plugin, opened from configuration text: a speaker that takes frames as fast as they
/// are written (not paced) and keeps them in a file, so every frame can be compared.
@Suite struct FileSpeakerTests {
    /// A speaker writing to a new file; returns the device and the file's path.
    private func speaker(rate: Int = 48_000, channels: Int = 1) throws -> (PlaybackDevice, String) {
        let outfile = try Fixtures.temporaryDirectory() + "/out.raw"
        let device = try PlaybackDevice(DeviceSelection(name: "vn_spk", configuration: fileSpeaker("vn_spk", outfile: outfile)),
                                        rate: rate, channels: channels)
        return (device, outfile)
    }

    @Test func playsEveryFrameGivenByteExact() throws {
        let (device, outfile) = try speaker()
        #expect(device.sampleRate == 48_000)
        #expect(device.channels == 1)
        #expect(device.periodFrames == 960)
        #expect(device.bufferFrames >= 8 * device.periodFrames)

        // 2.5 s through a ring of 0.17 s: the producer waits for room again and again.
        let input = noise(samples: 120_000)
        let ring = try SampleRing(minimumSamples: 8192)
        try device.start(from: ring)
        #expect(feed(input, into: ring, of: device) == input.count)
        #expect(try device.drain(timeoutMilliseconds: 10_000))
        #expect(!device.isRunning)
        #expect(device.playedToEnd)
        #expect(device.failure == nil)
        #expect(device.framesWritten == Int64(input.count))
        #expect(device.underruns == 0)
        let position = device.position
        #expect(position == PlaybackPosition(framesWritten: Int64(input.count), framesDropped: 0, delayFrames: 0))
        #expect(position.framesPlayed == Int64(input.count))
        device.close()

        let written = try writtenSamples(outfile)
        #expect(written.count == input.count)
        let difference = firstDifference(written, input)
        #expect(difference == nil, "first different sample: \(difference ?? -1)")
    }

    /// The producer marks the end and the loop plays it out and ends by itself, waking the producer; the device
    /// stays open for the next stream, whose frames follow in the same file.
    @Test func endOfStreamEndsTheLoopByItselfAndTheDeviceStaysOpenForTheNext() throws {
        let (device, outfile) = try speaker(channels: 2)
        defer { device.close() }
        #expect(device.channels == 2)
        let first = noise(samples: 2 * 30_000, seed: 1), second = noise(samples: 2 * 500, seed: 2)
        let ring = try SampleRing(minimumSamples: 4096)
        for stream in [first, second] {
            try device.start(from: ring)
            #expect(feed(stream, into: ring, of: device) == stream.count)
            device.endOfStream()
            // Woken by the thread's progress and by its end: no sleeping.
            #expect(eventually(seconds: 10) { _ = device.waitForProgress(timeoutMilliseconds: 50); return !device.isRunning })
            #expect(device.playedToEnd)
            #expect(device.failure == nil)
        }
        #expect(device.framesWritten == Int64((first.count + second.count) / 2))
        device.close()
        // Each run ends with its last period completed by silence (frames are counted without it).
        let written = try writtenSamples(outfile)
        let period = device.periodFrames * 2
        let firstPadding = (period - first.count % period) % period
        #expect(Array(written.prefix(first.count)) == first)
        #expect(withoutEndPadding(Array(written.dropFirst(first.count + firstPadding)), count: second.count, periodSamples: period) == second)
    }

    /// A stream shorter than the device's buffer is played too: the device is started when the end comes (or the
    /// ring stays dry), not only once its buffer is full.
    @Test func aStreamShorterThanTheBufferIsPlayed() throws {
        let (device, outfile) = try speaker()
        let input = noise(samples: 100)
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(from: ring)
        #expect(feed(input, into: ring, of: device) == input.count)
        #expect(try device.drain(timeoutMilliseconds: 5_000))
        device.close()
        #expect(withoutEndPadding(try writtenSamples(outfile), count: input.count, periodSamples: device.periodFrames * device.channels) == input)
    }

    /// Stop mid-way: the thread ends at once and takes nothing more from the ring; what the ring holds stays there,
    /// and a new start plays it on.
    @Test func stopMidWayTakesNothingMoreAndStartGoesOn() throws {
        let (device, outfile) = try speaker()
        let input = noise(samples: 48_000)
        let ring = try SampleRing(minimumSamples: 1 << 16)
        try device.start(from: ring)
        #expect(feed(Array(input[..<24_000]), into: ring, of: device) == 24_000)
        #expect(eventually { device.framesWritten == 24_000 })
        let stoppedAt = monotonicNanoseconds()
        device.stop()
        #expect(seconds(since: stoppedAt) < 0.1)   // it was waiting on the ring: woken, not timed out
        #expect(!device.isRunning)
        #expect(!device.playedToEnd)

        // Nothing takes from the ring while stopped.
        #expect(Array(input[24_000...]).withUnsafeBufferPointer { ring.write($0) } == 24_000)
        #expect(ring.available == 24_000)
        #expect(device.framesWritten == 24_000)

        try device.start(from: ring)
        #expect(try device.drain(timeoutMilliseconds: 5_000))
        #expect(device.framesWritten == 48_000)
        #expect(device.position.framesPlayed == 48_000)   // an unpaced device holds nothing to drop
        device.close()
        #expect(try writtenSamples(outfile) == input)
    }

    /// With nothing to play, the loop sleeps on the ring: at most one wake-up per period, and none of them writes.
    @Test func theLoopWaitsOnAnEmptyRingWithoutSpinning() throws {
        let (device, _) = try speaker()
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(from: ring)
        let before = device.loopIterations
        let start = monotonicNanoseconds()
        #expect(!eventually(seconds: 0.3) { device.framesWritten > 0 })   // the bounded window: nothing to write
        let elapsed = seconds(since: start)
        var iterations = device.loopIterations - before
        var allowed = UInt64(elapsed / 0.02) * 2 + 10
        #expect(iterations <= allowed, "\(iterations) loop iterations in \(elapsed) s with an empty ring")
        #expect(device.isRunning)

        // Again after some frames were played: the ring is dry again, the device holds frames or has run out.
        #expect(feed(noise(samples: 3000), into: ring, of: device) == 3000)
        #expect(eventually { device.framesWritten == 3000 })
        let after = device.loopIterations
        let second = monotonicNanoseconds()
        #expect(!eventually(seconds: 0.3) { device.framesWritten > 3000 })
        let secondElapsed = seconds(since: second)
        iterations = device.loopIterations - after
        allowed = UInt64(secondElapsed / 0.02) * 2 + 10
        #expect(iterations <= allowed, "\(iterations) loop iterations in \(secondElapsed) s with a dry ring")
        #expect(device.isRunning)
        #expect(device.failure == nil)
    }

    /// The `file` plugin opens its file at its first write: a file that cannot be created fails the device while it
    /// plays. The loop ends with the error and wakes the producer.
    @Test func aSpeakerWhoseFileCannotBeWrittenFailsWhilePlaying() throws {
        let outfile = try Fixtures.temporaryDirectory() + "/no/such/directory/out.raw"
        let device = try PlaybackDevice(DeviceSelection(name: "vn_spk", configuration: fileSpeaker("vn_spk", outfile: outfile)))
        defer { device.close() }
        let ring = try SampleRing(minimumSamples: 8192)
        try device.start(from: ring)
        #expect(feed(noise(samples: 48_000), into: ring, of: device) < 48_000)
        #expect(!device.isRunning)
        let failure = try #require(device.failure)
        #expect(failure.status == .device)
        #expect(failure.message.contains("playback device \"vn_spk\""), "\(failure.message)")
        #expect(failure.message.contains("(error -5)"), "\(failure.message)")     // -EIO
    }

    /// A rate the device does not run at: ALSA's `plug` resamples, so the device takes the rate asked for and the
    /// file holds the same second of audio at the slave's rate.
    @Test func aPlugResamplesToTheRateAskedFor() throws {
        let outfile = try Fixtures.temporaryDirectory() + "/out.raw"
        let selection = DeviceSelection(name: "vn_spk44", configuration: fixedRateSpeaker("vn_spk44", outfile: outfile, rate: 44_100))
        let device = try PlaybackDevice(selection, rate: 48_000, channels: 1)
        #expect(device.sampleRate == 48_000)
        let input = sine(frequency: 1000, rate: 48_000, frames: 48_000)
        let ring = try SampleRing(minimumSamples: 8192)
        try device.start(from: ring)
        #expect(feed(input, into: ring, of: device) == input.count)
        #expect(try device.drain(timeoutMilliseconds: 10_000))
        #expect(device.framesWritten == 48_000)
        device.close()
        let written = try writtenSamples(outfile)
        #expect(abs(written.count - 44_100) <= 2 * 882, "\(written.count) frames at 44.1 kHz for 1 s")
        let frequency = crossingsPerSecond(Array(written.dropFirst(100).dropLast(100)), rate: 44_100)
        #expect(abs(frequency - 1000) < 10, "a 1 kHz sine resampled to 44.1 kHz reads as \(frequency) Hz")
    }

    /// ALSA's `null` PCM from the system configuration takes anything and plays it out at once.
    @Test func theNullDeviceWorks() throws {
        let device = try PlaybackDevice(DeviceSelection(name: "null"), rate: 44_100, channels: 2)
        defer { device.close() }
        #expect(device.sampleRate == 44_100)
        #expect(device.channels == 2)
        let ring = try SampleRing(minimumSamples: 8192)
        try device.start(from: ring)
        let input = noise(samples: 2 * 44_100)
        #expect(feed(input, into: ring, of: device) == input.count)
        #expect(try device.drain(timeoutMilliseconds: 5_000))
        #expect(device.framesWritten == 44_100)
        #expect(device.position.framesPlayed == 44_100)
        #expect(device.underruns == 0)
    }

    @Test func startStopAndCloseAreSafeInAnyOrder() throws {
        let (device, _) = try speaker()
        device.stop()
        #expect(!device.isRunning)
        #expect(try device.drain(timeoutMilliseconds: 0) == false)   // nothing was playing
        let ring = try SampleRing(minimumSamples: 4096)
        try device.start(from: ring)
        let twice = #expect(throws: VoiceNoteError.self) { try device.start(from: ring) }
        #expect(twice?.status == .misuse)
        let badTimeout = #expect(throws: VoiceNoteError.self) { try device.drain(timeoutMilliseconds: -1) }
        #expect(badTimeout?.status == .invalidArgument)
        device.stop()
        device.stop()
        device.close()
        device.close()
        device.stop()
        device.endOfStream()
        #expect(!device.isRunning)
        let afterClose = #expect(throws: VoiceNoteError.self) { try device.start(from: ring) }
        #expect(afterClose?.status == .misuse)
    }

    @Test func deinitClosesARunningDevice() throws {
        let ring = try SampleRing(minimumSamples: 4096)
        do {
            let (device, _) = try speaker()
            try device.start(from: ring)
            #expect(feed(noise(samples: 2000), into: ring, of: device) == 2000)
        }
        // The thread is joined: nothing reads the ring any more.
        let left = ring.available
        #expect(noise(samples: 100).withUnsafeBufferPointer { ring.write($0) } == 100)
        #expect(ring.available == left + 100)
    }
}
