import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder
import VoiceNoteSources

/// Voice cleanup (docs/recorder.md, "Voice cleanup"): speexdsp's noise suppression and automatic gain and a
/// high-pass, between the capture and the encoder. The signal figures the bench measures with PESQ and STOI are
/// checked here only as far as a test can without them: noise-only stretches lower, a quiet voice raised, nothing
/// added to the timeline, and off bit for bit.
@Suite struct VoiceCleanupTests {
    static let rate = 48_000

    /// The speech fixture after `lead` seconds of pink noise, the noise going on under the speech (about 10 dB
    /// under it), at `speechDecibels` dBFS of speech; raw S16 mono at 48 kHz, and its samples.
    static func noisySpeech(in directory: String, lead: Double = 2, speechGain: Double = 1, name: String = "noisy")
        throws -> (path: String, samples: [Int16]) {
        let path = directory + "/\(name).raw", noise = directory + "/\(name)-noise.wav", speech = directory + "/\(name)-speech.wav"
        try Fixtures.run(["sox", "-R", try Fixtures.path(.wav), "-r", "48000", "-c", "1", "-b", "16", speech, "vol", String(speechGain),
                          "pad", String(lead)])
        try Fixtures.run(["sox", "-R", "-n", "-r", "48000", "-c", "1", "-b", "16", noise, "synth", String(lead + 6), "pinknoise",
                          "vol", String(0.03 * speechGain)])
        try Fixtures.run(["sox", "-R", "-m", speech, noise, "-t", "raw", "-e", "signed-integer", "-b", "16", "-L", path,
                          "trim", "0", String(lead + 5)])
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (path, data.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) })
    }

    /// `input` through a fresh cleanup in chunks of `chunk` frames (a varying size when nil), drained at the end.
    static func clean(_ input: [Int16], channels: Int = 1, chunk: Int? = nil) throws -> [Int16] {
        let cleanup = try VoiceCleanup(sampleRate: rate, channels: channels)
        var output: [Int16] = []
        var generator = SplitMix(seed: 7)
        var at = 0
        while at < input.count / channels {
            let frames = min(chunk ?? Int(generator.next() % 2000) + 1, input.count / channels - at)
            try input[(at * channels)..<((at + frames) * channels)].withUnsafeBufferPointer { part throws(VoiceNoteError) in
                try cleanup.process(part) { output.append(contentsOf: $0) }
            }
            at += frames
        }
        try cleanup.drain { output.append(contentsOf: $0) }
        return output
    }

    /// RMS level in dBFS of `samples[range]` (seconds).
    static func level(_ samples: [Int16], seconds: ClosedRange<Double>, channels: Int = 1, channel: Int = 0) -> Double {
        let from = Int(seconds.lowerBound * Double(rate)), to = min(samples.count / channels, Int(seconds.upperBound * Double(rate)))
        var sum = 0.0
        for frame in from..<to { let x = Double(samples[frame * channels + channel]); sum += x * x }
        return 10 * log10(sum / Double(max(1, to - from)) + 1e-9) - 20 * log10(32768)
    }

    /// Correlation of `a` against `b` delayed by `lag` frames, over `window` frames from `start`.
    static func correlation(_ a: [Int16], _ b: [Int16], lag: Int, start: Int, window: Int) -> Double {
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for index in start..<(start + window) {
            let p = Double(a[index + lag]), q = Double(b[index])
            sxy += p * q; sxx += p * p; syy += q * q
        }
        return sxy / (sxx * syy).squareRoot()
    }

    @Test func theCleanedSignalIsExactlyAsLongAsTheInputAndNotDelayed() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try Self.noisySpeech(in: directory).samples
        for chunk in [nil, 1, 480, 4096, 7919] as [Int?] {
            #expect(try Self.clean(input, chunk: chunk).count == input.count, "chunks of \(chunk.map(String.init) ?? "varying sizes")")
        }
        let output = try Self.clean(input)
        // The preprocessor answers a 10 ms frame late; that frame is taken out: the speech lines up with the input.
        let start = 3 * Self.rate, window = Self.rate / 2
        let aligned = Self.correlation(output, input, lag: 0, start: start, window: window)
        for lag in [-480, -240, -48, 48, 240, 480] {
            #expect(aligned > Self.correlation(output, input, lag: lag, start: start, window: window) + 0.05, "lag \(lag)")
        }
        #expect(aligned > 0.8, "the cleaned speech is the input's speech: correlation \(aligned)")
    }

    @Test func theOutputDoesNotDependOnHowTheCaptureIsChunked() throws {
        let input = try Self.noisySpeech(in: try Fixtures.temporaryDirectory()).samples
        let reference = try Self.clean(input, chunk: 4096)
        // Compared as one Bool: a failed comparison of the arrays themselves would have the test library diff them.
        for chunk in [1, nil] as [Int?] {
            let output = try Self.clean(input, chunk: chunk)
            let first = zip(output, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(output.count == reference.count && first == nil, "chunks of \(chunk ?? 0): first difference at \(first ?? -1)")
        }
    }

    @Test func noiseOnlyStretchesComeOutAtLeast15DecibelsLower() throws {
        let input = try Self.noisySpeech(in: try Fixtures.temporaryDirectory()).samples
        let output = try Self.clean(input)
        // The noise estimate settles within the first second; the second second is noise alone.
        let before = Self.level(input, seconds: 1...2), after = Self.level(output, seconds: 1...2)
        #expect(before - after >= 15, "noise-only: \(before) dBFS in, \(after) dBFS out")
        // The speech is still there: within a few dB of where it was (the gain keeps a normal voice near its level).
        let speechIn = Self.level(input, seconds: 2.5...4.5), speechOut = Self.level(output, seconds: 2.5...4.5)
        #expect(abs(speechIn - speechOut) <= 4, "speech: \(speechIn) dBFS in, \(speechOut) dBFS out")
    }

    @Test func aQuietVoiceComesOutAtTheLevelOfANormalOne() throws {
        let directory = try Fixtures.temporaryDirectory()
        let normal = try Self.noisySpeech(in: directory, lead: 0.5, speechGain: 1, name: "normal").samples
        let quiet = try Self.noisySpeech(in: directory, lead: 0.5, speechGain: 0.1, name: "quiet").samples  // −20 dB
        let speech = 1.5...5.0  // after the gain has settled
        let normalOut = Self.level(try Self.clean(normal), seconds: speech)
        let quietIn = Self.level(quiet, seconds: speech), quietOut = Self.level(try Self.clean(quiet), seconds: speech)
        #expect(Self.level(normal, seconds: speech) - quietIn >= 19)
        #expect(abs(quietOut - normalOut) <= 3, "quiet voice \(quietIn) → \(quietOut) dBFS; normal → \(normalOut) dBFS")
    }

    @Test func eachChannelIsCleanedAndTheFrameCountKept() throws {
        let mono = try Self.noisySpeech(in: try Fixtures.temporaryDirectory()).samples
        var stereo = [Int16](repeating: 0, count: mono.count * 2)
        for (index, sample) in mono.enumerated() { stereo[2 * index] = sample; stereo[2 * index + 1] = sample / 4 }
        let output = try Self.clean(stereo, channels: 2)
        #expect(output.count == stereo.count)
        for channel in 0..<2 {
            let before = Self.level(stereo, seconds: 1...2, channels: 2, channel: channel)
            let after = Self.level(output, seconds: 1...2, channels: 2, channel: channel)
            #expect(before - after >= 15, "channel \(channel): \(before) → \(after) dBFS")
        }
    }

    @Test func aDrainMidStreamHandsOutEverythingAndTheStreamGoesOn() throws {
        let input = try Self.noisySpeech(in: try Fixtures.temporaryDirectory()).samples
        let cleanup = try VoiceCleanup(sampleRate: Self.rate, channels: 1)
        var output: [Int16] = []
        // A pause after 1.2345 s and a part-frame, then more, then a drain at once (nothing new), then the end.
        for (from, to) in [(0, 59_256), (59_256, 59_300), (59_300, input.count)] {
            try input[from..<to].withUnsafeBufferPointer { part throws(VoiceNoteError) in
                try cleanup.process(part) { output.append(contentsOf: $0) }
            }
            try cleanup.drain { output.append(contentsOf: $0) }
            #expect(output.count == to)
            try cleanup.drain { output.append(contentsOf: $0) }
            #expect(output.count == to)
        }
    }

    @Test func aTakeShorterThanOneFrameIsKeptWhole() throws {
        let cleanup = try VoiceCleanup(sampleRate: 16_000, channels: 1)
        var output: [Int16] = []
        try [Int16](repeating: 1000, count: 37).withUnsafeBufferPointer { part throws(VoiceNoteError) in
            try cleanup.process(part) { output.append(contentsOf: $0) }
        }
        #expect(output.isEmpty)
        try cleanup.drain { output.append(contentsOf: $0) }
        #expect(output.count == 37)
    }

    /// Every capture rate a device may give (the plug converts to none of them): 10 ms frames of 80…960 frames,
    /// the frame count kept exactly, the noise taken down.
    @Test(arguments: [8_000, 16_000, 22_050, 44_100, 96_000])
    func everyRateKeepsItsLengthAndIsCleaned(_ rate: Int) throws {
        var generator = SplitMix(seed: UInt64(rate))
        let noise = (0..<(rate * 3)).map { _ in Int16(truncatingIfNeeded: Int64(generator.next() % 1000) - 500) }
        let cleanup = try VoiceCleanup(sampleRate: rate, channels: 1)
        var output: [Int16] = []
        for start in stride(from: 0, to: noise.count, by: 1234) {
            try noise[start..<min(noise.count, start + 1234)].withUnsafeBufferPointer { part throws(VoiceNoteError) in
                try cleanup.process(part) { output.append(contentsOf: $0) }
            }
        }
        try cleanup.drain { output.append(contentsOf: $0) }
        #expect(output.count == noise.count)
        func level(_ samples: ArraySlice<Int16>) -> Double {
            10 * log10(samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count) + 1e-9)
        }
        let lastSecond = (2 * rate)..<(3 * rate)
        #expect(level(noise[lastSecond]) - level(output[lastSecond]) >= 15, "at \(rate) Hz")
    }

    @Test func ratesWithoutA10MillisecondFrameAreRefused() {
        #expect(status { _ = try VoiceCleanup(sampleRate: 4_000, channels: 1) } == .invalidArgument)
        #expect(status { _ = try VoiceCleanup(sampleRate: 48_000, channels: 0) } == .invalidArgument)
    }
}

/// The recorder with cleanup: on, off and toggled between takes, through the file microphone.
@Suite struct RecorderVoiceCleanupTests {
    /// One take of `seconds` from `input` with cleanup `on` (set between takes on the same recorder), decoded.
    static func take(_ recorder: Recorder, cleanup on: Bool) throws -> (result: RecordingResult, samples: [Int16], overruns: Int) {
        try recorder.setVoiceCleanup(on)
        #expect(recorder.cleansVoice == on)
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished())
        #expect(log.wait { _ in log.stopped })
        let overruns = log.all.compactMap { if case .context(let c) = $0 { c.overruns } else { nil } }.max() ?? 0
        return (result, try decode(result.path).samples, overruns)
    }

    /// The audio of an Opus file as opusdec (the reference decoder) gives it without dither, as bytes: equal
    /// packets give equal bytes (16-bit output is otherwise dithered afresh on each decode).
    static func decodeExactly(_ path: String) throws -> Data {
        let wav = path + ".exact.wav"
        try Fixtures.run(["opusdec", "--quiet", "--no-dither", "--rate", "48000", path, wav])
        return try Data(contentsOf: URL(fileURLWithPath: wav))
    }

    @Test func offIsTheCapturedAudioBitForBitAndOnCleansItToggledBetweenTakes() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try VoiceCleanupTests.noisySpeech(in: directory)
        let seconds = 4.0, frames = Int(seconds) * 48_000
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path),
                                                                 maximum: seconds))
        #expect(!recorder.cleansVoice)
        let off = try Self.take(recorder, cleanup: false)
        let on = try Self.take(recorder, cleanup: true)
        let offAgain = try Self.take(recorder, cleanup: false)
        for take in [off, on, offAgain] {
            #expect(take.result.duration == seconds)
            #expect(take.samples.count == frames)
        }
        // Off: the file is what the encoder makes of the captured samples, exactly as before cleanup existed.
        let reference = directory + "/reference.ogg"
        let encoder = try RecordingEncoders.create(.opus, path: reference, inputRate: 48_000, channels: 1,
                                                   settings: recorder.configuration.encoder)
        try Array(input.samples.prefix(frames)).withUnsafeBufferPointer { samples throws(VoiceNoteError) in
            try encoder.write(samples)
        }
        try encoder.finish()
        let expected = try Self.decodeExactly(reference)
        if off.overruns + offAgain.overruns == 0 {
            // Compared as Bools: a failed comparison of the data itself would have the test library diff it.
            let same = try Self.decodeExactly(off.result.path) == expected
            let sameAgain = try Self.decodeExactly(offAgain.result.path) == expected
            #expect(same, "cleanup off is bit-exact to the captured audio's encoding")
            #expect(sameAgain, "and again after a take with cleanup")
        } else {
            print("offIsTheCapturedAudioBitForBit…: the file microphone overran (\(off.overruns + offAgain.overruns)); not compared")
        }
        // On: the noise-only lead is at least 15 dB lower in the file, and the take's waveform and loudness are of
        // the cleaned signal (what the meter and the waveform show).
        let noiseOff = VoiceCleanupTests.level(off.samples, seconds: 1...2), noiseOn = VoiceCleanupTests.level(on.samples, seconds: 1...2)
        #expect(noiseOff - noiseOn >= 15, "noise-only: off \(noiseOff), on \(noiseOn) dBFS")
        #expect(on.result.waveform.prefix(40).reduce(0, +) < off.result.waveform.prefix(40).reduce(0, +))
        let speechOff = VoiceCleanupTests.level(off.samples, seconds: 2.5...4), speechOn = VoiceCleanupTests.level(on.samples, seconds: 2.5...4)
        #expect(abs(speechOff - speechOn) <= 4, "speech: off \(speechOff), on \(speechOn) dBFS")
        let loudnessOff = try #require(off.result.loudness), loudnessOn = try #require(on.result.loudness)
        #expect(loudnessOn.range != loudnessOff.range || loudnessOn.integrated != loudnessOff.integrated)
    }

    @Test func theConfigurationTurnsItOnFromTheFirstTake() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = try VoiceCleanupTests.noisySpeech(in: directory)
        var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: 2.5)
        settings.voiceCleanup = true
        let recorder = try Recorder(configuration: settings)
        #expect(recorder.cleansVoice)
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished())
        let samples = try decode(result.path).samples
        #expect(samples.count == 120_000 && result.duration == 2.5)
        let noiseIn = VoiceCleanupTests.level(input.samples, seconds: 1...2), noiseOut = VoiceCleanupTests.level(samples, seconds: 1...2)
        #expect(noiseIn - noiseOut >= 15, "noise-only: \(noiseIn) → \(noiseOut) dBFS")
    }
}
