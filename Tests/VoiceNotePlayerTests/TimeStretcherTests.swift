import Testing
import VoiceNoteCore
@testable import VoiceNotePlayer

@Suite struct TimeStretcherTests {
    /// espeak speech twice over (12 s) and a 440 Hz tone: the output is the input's length over the rate, ±2 %.
    @Test(arguments: [0.5, 0.75, 1.5, 2.0, 2.5])
    func lengthFollowsTheRate(rate: Double) throws {
        let speech = try Signal.speech()
        for input in [speech + speech, Signal.sine(440, seconds: 5)] {
            let output = try stretch(input, rate: try PlaybackRate(rate))
            let expected = Double(input.count) / rate
            #expect(abs(Double(output.count) / expected - 1) <= 0.02, "\(output.count) frames for \(expected)")
        }
    }

    /// A 440 Hz tone stays at 440 Hz (±2 %, by zero crossings) at every speed.
    @Test(arguments: [0.5, 1.5, 2.0, 2.5])
    func pitchIsKept(rate: Double) throws {
        let output = try stretch(Signal.sine(440, seconds: 4), rate: try PlaybackRate(rate))
        let margin = Signal.frames(0.1)
        let frequency = Signal.zeroCrossingFrequency(output[margin..<(output.count - margin)])
        #expect(abs(frequency / 440 - 1) <= 0.02, "\(frequency) Hz at \(rate)×")
    }

    @Test func normalRatePassesThroughUnchanged() throws {
        let speech = try Signal.speech()
        let stretcher = try TimeStretcher(sampleRate: Signal.rate, channels: 1)
        var output: [Int16] = []
        try speech.withUnsafeBufferPointer { all in
            try stretcher.process(all) { samples, consumed in
                output.append(contentsOf: samples)
                #expect(consumed == Int64(output.count))
            }
        }
        #expect(stretcher.backlogFrames == 0)
        #expect(output == speech)
    }

    /// The rate changes at 4 s of speech. Measured from the output alone: it must be what the new rate makes of
    /// every frame written after the change; frames played at 1.0 instead (libsonic's hold, its copy-through)
    /// show as a difference, which must be under 100 ms of audio. Near 1.0 libsonic's own copy-through would be
    /// over half a second (1.02 → 2: 561 ms without the stretcher's drain at the change; 44 ms with it).
    @Test(arguments: [(1.0, 2.0), (1.0, 0.5), (1.1, 2.0), (1.02, 2.0), (0.98, 0.5), (0.9, 0.5), (2.0, 0.5), (0.5, 2.0)])
    func rateChangeAppliesWithin100Milliseconds(from old: Double, to new: Double) throws {
        let speech = try Signal.speech()
        let input = speech + speech
        let stretcher = try TimeStretcher(sampleRate: Signal.rate, channels: 1, rate: try PlaybackRate(old))
        let change = Signal.frames(4)
        var output = 0, outputAtChange = 0
        try input.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 480) {
                if start == change {
                    outputAtChange = output
                    stretcher.setRate(try PlaybackRate(new))
                }
                try stretcher.process(UnsafeBufferPointer(rebasing: all[start..<min(start + 480, all.count)])) { samples, _ in
                    output += samples.count
                }
            }
        }
        try stretcher.finish { samples, _ in output += samples.count }
        // The output had the change applied at once: outputAtChange + (rest of the input) / new.
        let immediate = Double(outputAtChange) + Double(input.count - change) / new
        let lateFrames = (Double(output) - immediate) / (1 - 1 / new)
        #expect(abs(lateFrames) < Double(Signal.frames(0.1)), "\(lateFrames / 48) ms late")
    }

    /// libsonic's backlog: never negative, below what it can hold, the count never goes back, and at the end
    /// (flush) the output stands for every frame written.
    @Test(arguments: [0.5, 1.25, 2.0, 2.5])
    func backlogIsBoundedAndExactAtTheEnd(rate: Double) throws {
        let speech = try Signal.speech()
        let stretcher = try TimeStretcher(sampleRate: Signal.rate, channels: 2, rate: try PlaybackRate(rate))
        let stereo = speech.flatMap { [$0, $0 / 2] }
        var consumed: Int64 = 0
        try stereo.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 2 * 441) {
                try stretcher.process(UnsafeBufferPointer(rebasing: all[start..<min(start + 2 * 441, all.count)])) { _, through in
                    #expect(through >= consumed)
                    consumed = through
                }
                #expect(stretcher.backlogFrames >= 0 && stretcher.backlogFrames < stretcher.maximumBacklogFrames)
            }
        }
        try stretcher.finish { _, through in consumed = through }
        #expect(stretcher.backlogFrames == 0)
        #expect(consumed == Int64(speech.count))
        #expect(stretcher.maximumBacklogFrames == 2 * (48_000 / 65))
    }

    @Test func resetForgetsHeldAudio() throws {
        let stretcher = try TimeStretcher(sampleRate: Signal.rate, channels: 1, rate: try PlaybackRate(2))
        let tone = Signal.sine(220, seconds: 1)
        try tone.withUnsafeBufferPointer { try stretcher.process($0) { _, _ in } }
        #expect(stretcher.backlogFrames > 0)
        try stretcher.reset()
        #expect(stretcher.framesWritten == 0 && stretcher.backlogFrames == 0)
        var output = 0
        try tone.withUnsafeBufferPointer { try stretcher.process($0) { samples, _ in output += samples.count } }
        try stretcher.finish { samples, _ in output += samples.count }
        #expect(abs(output - tone.count / 2) <= 2, "\(output) frames")
    }
}
