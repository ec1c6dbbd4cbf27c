import Foundation
import Testing
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Speech with pauses, all under a room's noise at −60 dBFS.
enum PausedSpeech {
    /// The espeak fixture without its leading and trailing silence (blocks under −50 dBFS); its own pauses
    /// between sentences (up to 0.3 s) stay.
    static func trimmedSpeech() throws -> [Int16] {
        let speech = try Signal.speech()
        let block = Signal.frames(0.02)
        let loud = stride(from: 0, to: speech.count - block + 1, by: block).filter {
            Signal.decibels(speech[$0..<($0 + block)]) >= -50
        }
        guard let first = loud.first, let last = loud.last else { return speech }
        return Array(speech[first..<(last + block)])
    }

    /// Speech, `pause` seconds of nothing but the room, speech; returns the signal and where the second speech
    /// starts.
    static func make(pause: Double) throws -> (samples: [Int16], secondStart: Int) {
        let speech = try trimmedSpeech()
        let clean = speech + [Int16](repeating: 0, count: Signal.frames(pause)) + speech
        let room = Signal.noise(seconds: Double(clean.count) / Double(Signal.rate) + 1, decibels: -60, seed: 7)
        return (Array(Signal.mix(clean, room).prefix(clean.count)), speech.count + Signal.frames(pause))
    }
}

@Suite struct SilenceSkipperTests {
    /// Runs `input` through `skipper` in 20 ms chunks; returns the output and the source frame of each output frame.
    private func skip(_ input: [Int16], _ skipper: SilenceSkipper, chunkFrames: Int = 960) -> (samples: [Int16], sources: [Int64]) {
        var samples: [Int16] = [], sources: [Int64] = []
        let take = { (run: UnsafeBufferPointer<Int16>, source: Int64) in
            samples.append(contentsOf: run)
            sources.append(contentsOf: (0..<Int64(run.count / skipper.channels)).map { source + $0 })
        }
        input.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: chunkFrames * skipper.channels) {
                skipper.process(UnsafeBufferPointer(rebasing: all[start..<min(start + chunkFrames * skipper.channels, all.count)]), take)
            }
        }
        skipper.finish(take)
        return (samples, sources)
    }

    private func isMonotonic(_ sources: [Int64]) -> Bool {
        zip(sources, sources.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// Speech, 4 s of room noise, speech: the pause becomes the 0.25 s gap, both speeches come out intact, and
    /// every output frame knows its source frame.
    @Test func fourSecondPauseBecomesTheGap() throws {
        let (input, secondStart) = try PausedSpeech.make(pause: 4)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        let (output, sources) = skip(input, skipper)

        let pauseInInput = Signal.longestQuietRun(input, below: -50)
        let removed = input.count - output.count
        #expect(abs(removed - (pauseInInput - Signal.frames(SilenceSkipper.gap))) <= Signal.frames(0.04),
                "removed \(removed) of a \(pauseInInput)-frame pause")
        #expect(abs(Double(removed) / 48_000 - 3.75) < 0.05)
        // The first speech is untouched up to the pause; the second is found where expected, identical.
        let second = input[secondStart...]
        let firstSpeech = secondStart - Signal.frames(4)
        #expect(output[..<firstSpeech] == input[..<firstSpeech])
        let expectedStart = output.count - second.count
        let gap = expectedStart - firstSpeech
        #expect(abs(gap - Signal.frames(SilenceSkipper.gap)) <= Signal.frames(0.04), "gap of \(gap) frames")
        // The gap is as quiet as the room: the longest quiet stretch left is espeak's own 0.3 s between sentences.
        #expect(Signal.longestQuietRun(output, below: -50) <= Signal.frames(0.3))
        #expect(Correlation.best(output, Array(second.prefix(4800)), lags: (expectedStart - 960)...(expectedStart + 960))?.lag
                == expectedStart)
        #expect(Signal.correlation(output[expectedStart...], second) > 0.9999)
        #expect(Array(output[expectedStart...]) == Array(second))

        #expect(isMonotonic(sources))
        #expect(sources.last == Int64(input.count - 1))
        #expect(sources[expectedStart] == Int64(secondStart))
        #expect(sources[firstSpeech - 1] == Int64(firstSpeech - 1))
        // The floor is the room's.
        let floor = try #require(skipper.noiseFloorDecibels)
        #expect(abs(floor + 60) < 2, "floor \(floor) dBFS")
        #expect(skipper.thresholdDecibels == floor + SilenceSkipper.marginDecibels)
    }

    /// A 0.4 s pause (and espeak's own pauses between sentences) are not pauses to skip: nothing changes.
    @Test func shortPausesAreKept() throws {
        let (input, _) = try PausedSpeech.make(pause: 0.4)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        let (output, sources) = skip(input, skipper)
        #expect(output == input)
        #expect(sources == (0..<Int64(input.count)).map { $0 })
    }

    /// Speech peaking near −10 dBFS, 0.4 s pauses, then a whole sentence spoken 18 dB quieter, all over room noise
    /// at −45 dBFS: silence is measured from the noise floor, not from the peaks, so the quiet sentence (longer
    /// than a pause) is speech, not a pause to shorten, and everything comes through unchanged. A threshold taken
    /// near the peak level would cut the quiet sentence.
    @Test func quietSpeechOverRoomNoiseIsNeverCut() throws {
        let speech = try PausedSpeech.trimmedSpeech()
        let block = Signal.frames(0.02)
        let peak = stride(from: 0, to: speech.count - block + 1, by: block).map { Signal.decibels(speech[$0..<($0 + block)]) }.max() ?? 0
        func scaled(toPeak decibels: Double) -> [Int16] {
            let factor = pow(10, (decibels - peak) / 20)
            return speech.map { Int16(max(-32768, min(32767, (Double($0) * factor).rounded()))) }
        }
        let pause = [Int16](repeating: 0, count: Signal.frames(0.4))
        let clean = scaled(toPeak: -10) + pause + scaled(toPeak: -28) + pause + scaled(toPeak: -10)
        let room = Signal.noise(seconds: Double(clean.count) / Double(Signal.rate) + 1, decibels: -45, seed: 11)
        let input = Array(Signal.mix(clean, room).prefix(clean.count))
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        let (output, sources) = skip(input, skipper)
        #expect(output.count == input.count, "\(input.count - output.count) frames cut")
        let unchanged = output == input, inOrder = sources == (0..<Int64(input.count)).map { $0 }  // no huge dumps
        #expect(unchanged && inOrder)
    }

    /// Off (the default): frames pass unchanged, and the floor is measured all the same.
    @Test func offPassesEverythingThrough() throws {
        let (input, _) = try PausedSpeech.make(pause: 4)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1)
        #expect(!skipper.isEnabled)
        let (output, sources) = skip(input, skipper, chunkFrames: 333)
        #expect(output == input)
        #expect(sources == (0..<Int64(input.count)).map { $0 })
        #expect(abs((skipper.noiseFloorDecibels ?? 0) + 60) < 2)
    }

    /// A note of steady loud sound is never one long pause; digital silence between two tones is one.
    @Test func steadySoundIsNotAPauseButDigitalSilenceIs() throws {
        let tone = Signal.sine(220, seconds: 3, amplitude: 0.1)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        #expect(skip(tone, skipper).samples == tone)

        let withZeros = tone + [Int16](repeating: 0, count: Signal.frames(2)) + tone
        let other = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        let (output, sources) = skip(withZeros, other)
        #expect(output.count == 2 * tone.count + Signal.frames(SilenceSkipper.gap))
        #expect(isMonotonic(sources) && sources.last == Int64(withZeros.count - 1))
    }

    /// A pause at the end is shortened too, and the last frame out is the note's last frame.
    @Test func pauseAtTheEndIsShortened() throws {
        let speech = try PausedSpeech.trimmedSpeech()
        let input = Signal.mix(speech + [Int16](repeating: 0, count: Signal.frames(3)), Signal.noise(seconds: 10, decibels: -60))
            .prefix(speech.count + Signal.frames(3))
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        let (output, sources) = skip(Array(input), skipper)
        #expect(abs(output.count - (speech.count + Signal.frames(0.25))) <= Signal.frames(0.04))
        #expect(sources.last == Int64(input.count - 1))
    }

    /// A minute-long pause: the skipper never holds more than 0.6 s plus one block, in stereo too.
    @Test func memoryStaysBoundedInALongPause() throws {
        let speech = try PausedSpeech.trimmedSpeech()
        let mono = Array(Signal.mix(speech + [Int16](repeating: 0, count: Signal.frames(60)) + speech,
                                    Signal.noise(seconds: 80, decibels: -55)).prefix(2 * speech.count + Signal.frames(60)))
        let stereo = mono.flatMap { [$0, $0] }
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 2, enabled: true)
        var output = 0, mostHeld = 0
        stereo.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: 2 * 960) {
                skipper.process(UnsafeBufferPointer(rebasing: all[start..<min(start + 2 * 960, all.count)])) { run, _ in output += run.count / 2 }
                mostHeld = max(mostHeld, skipper.heldFrames)
            }
        }
        skipper.finish { run, _ in output += run.count / 2 }
        #expect(mostHeld <= Signal.frames(0.6 + 0.02))
        #expect(abs(output - (2 * speech.count + Signal.frames(0.25))) <= Signal.frames(0.04))
    }

    /// Turning skipping off during a pause lets the held frames out at once, as the gap.
    @Test func turningOffDuringAPauseReleasesWhatIsHeld() throws {
        let (input, secondStart) = try PausedSpeech.make(pause: 4)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        var output: [Int16] = []
        let middle = secondStart - Signal.frames(2)
        input.withUnsafeBufferPointer { all in
            skipper.process(UnsafeBufferPointer(rebasing: all[..<middle])) { run, _ in output.append(contentsOf: run) }
            #expect(skipper.heldFrames > 0)
            skipper.isEnabled = false
            skipper.process(UnsafeBufferPointer(rebasing: all[middle...])) { run, _ in output.append(contentsOf: run) }
        }
        skipper.finish { run, _ in output.append(contentsOf: run) }
        #expect(skipper.heldFrames == 0)
        // Up to the middle of the pause: shortened to the gap; after it, everything.
        let removedBeforeMiddle = input.count - output.count
        #expect(removedBeforeMiddle > Signal.frames(1.5) && removedBeforeMiddle < Signal.frames(2))
        #expect(Array(output.suffix(input.count - middle)) == Array(input[middle...]))
    }

    /// A seek drops what is held and maps from the new frame on; the note's floor is kept.
    @Test func resetContinuesFromTheSeekTarget() throws {
        let (input, _) = try PausedSpeech.make(pause: 4)
        let skipper = try SilenceSkipper(sampleRate: Signal.rate, channels: 1, enabled: true)
        input.withUnsafeBufferPointer { skipper.process(UnsafeBufferPointer(rebasing: $0[..<Signal.frames(8)])) { _, _ in } }
        let floor = skipper.noiseFloorDecibels
        skipper.reset(toSourceFrame: 100_000)
        #expect(skipper.heldFrames == 0 && skipper.nextSourceFrame == 100_000)
        #expect(skipper.noiseFloorDecibels == floor)
        var first: Int64?
        input.withUnsafeBufferPointer { skipper.process(UnsafeBufferPointer(rebasing: $0[100_000..<200_000])) { _, source in first = first ?? source } }
        #expect(first == 100_000)
    }
}
