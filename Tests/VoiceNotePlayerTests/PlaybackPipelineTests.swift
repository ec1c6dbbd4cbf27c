import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport

@Suite struct PlaybackPipelineTests {
    /// Defaults (1.0, full volume, no skipping): the note comes out unchanged, chunk times exact and contiguous.
    @Test func defaultsPassThroughWithExactTimes() throws {
        let speech = try Signal.speech()
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: 1)
        let played = try play(speech, through: pipeline)
        #expect(played.samples == speech)
        var next: Int64 = 0
        for chunk in played.chunks {
            #expect(chunk.start == next && chunk.end == next + Int64(chunk.frames))
            next = chunk.end
        }
        #expect(next == Int64(speech.count) && pipeline.sourceFrame == Int64(speech.count))
    }

    /// Stereo speech, 4 s pause, speech, with skipping, 2× and volume 0.5: the pause goes, the rest plays in
    /// half the time at half the level, and the times are the file's, in order, to its last frame.
    @Test func skipStretchAndGainTogether() throws {
        let (mono, _) = try PausedSpeech.make(pause: 4)
        let stereo = mono.flatMap { [$0, $0 / 2] }
        let pipeline = try PlaybackPipeline(
            sampleRate: Signal.rate, channels: 2, rate: try PlaybackRate(2), volume: try Volume(0.5), skipsSilence: true)
        let played = try play(stereo, through: pipeline)
        let kept = Double(mono.count - Signal.frames(3.75))
        #expect(abs(Double(played.samples.count / 2) / (kept / 2) - 1) <= 0.02, "\(played.samples.count / 2) frames")
        #expect(played.isMonotonic)
        #expect(played.chunks.last?.end == Int64(mono.count))
        let left = stride(from: 0, to: played.samples.count, by: 2).map { played.samples[$0] }
        let level = Signal.decibels(left[...]) - Signal.decibels(mono[...])
        // Half the amplitude (−6 dB), and the removed pause was quiet: the level of what is left rises a little.
        #expect(level > -6.5 && level < -2, "level \(level) dB")
    }

    /// What the listener hears maps back to the file's time: the onsets of tone bursts every 0.5 s, found in the
    /// output, map to their source frames within 20 ms (measured: 2–10 ms; the count's bound is libsonic's 31 ms hold).
    @Test(arguments: [0.5, 1.5, 2.0, 2.5])
    func heardFramesMapToTheirSourceTime(rate: Double) throws {
        let period = Signal.frames(0.5)
        var clean = [Int16](repeating: 0, count: Signal.frames(10))
        let burst = Signal.sine(180, seconds: 0.08, amplitude: 0.3)
        for start in stride(from: Signal.frames(0.25), to: clean.count - burst.count, by: period) {
            clean.replaceSubrange(start..<(start + burst.count), with: burst)
        }
        let input = Array(Signal.mix(clean, Signal.noise(seconds: 10, decibels: -60)).prefix(clean.count))
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: 1, rate: try PlaybackRate(rate))
        let played = try play(input, through: pipeline)
        #expect(played.isMonotonic)
        #expect(played.chunks.last?.end == Int64(input.count))

        let onsets = Self.onsets(input)
        let heard = Self.onsets(played.samples)
        #expect(onsets.count == 20 && heard.count == onsets.count, "\(onsets.count) onsets, \(heard.count) heard")
        var worst = 0.0
        for (source, output) in zip(onsets, heard) {
            worst = max(worst, abs(played.sourceFrames[output] - Double(source)))
        }
        #expect(worst < Double(Signal.frames(0.02)), "worst \(worst / 48) ms")
    }

    /// The first frame over a tenth of full scale after at least 100 ms under it.
    private static func onsets(_ samples: [Int16]) -> [Int] {
        var found: [Int] = [], quiet = 0
        for (index, sample) in samples.enumerated() {
            if abs(Int(sample)) > 3277 {
                if quiet >= Signal.frames(0.1) { found.append(index) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return found
    }

    /// Rate and skipping change between chunks: times stay in order and end at the note's end.
    @Test func settingsChangeMidStream() throws {
        let (input, _) = try PausedSpeech.make(pause: 4)
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: 1)
        let played = try play(input, through: pipeline) { frame in
            switch frame {
            case Signal.frames(1): pipeline.rate = try! PlaybackRate(1.75)
            case Signal.frames(3): pipeline.skipsSilence = true
            case Signal.frames(5): pipeline.rate = try! PlaybackRate(0.6)
            case Signal.frames(9): pipeline.volume = try! Volume(0.3)
            case Signal.frames(11): pipeline.rate = .normal
            default: break
            }
        }
        #expect(played.isMonotonic)
        #expect(played.chunks.last?.end == Int64(input.count))
        #expect(pipeline.sourceFrame == Int64(input.count))
    }

    /// A seek: the first chunk after it starts at the target, and the times run to the end from there.
    @Test func seekRestartsAtTheTarget() throws {
        let speech = try Signal.speech()
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: 1, rate: try PlaybackRate(1.5), skipsSilence: true)
        try speech.withUnsafeBufferPointer { try pipeline.process(UnsafeBufferPointer(rebasing: $0[..<96_000])) { _ in } }
        let target = 150_000
        try pipeline.seek(toSourceFrame: Int64(target))
        #expect(pipeline.sourceFrame == Int64(target))
        let played = try play(Array(speech[target...]), through: pipeline)
        #expect(played.chunks.first?.start == Int64(target))
        #expect(played.isMonotonic)
        #expect(played.chunks.last?.end == Int64(speech.count))
    }

    /// A real decoder's chunks (Opus through libopusfile, 48 kHz): the times end at the decoder's length.
    @Test func decodedOpusNote() throws {
        let decoder = try Decoders.open(try FileSource(path: try Fixtures.path(.opus)), purpose: .playback)
        let pipeline = try PlaybackPipeline(
            sampleRate: decoder.outputRate, channels: decoder.outputChannels, rate: try PlaybackRate(1.5), skipsSilence: true)
        var played = Played(), decoded = 0
        var failure: VoiceNoteError?
        while try decoder.decodeNext({ chunk in
            decoded += chunk.frames
            do throws(VoiceNoteError) { try pipeline.process(chunk.samples) { played.add($0) } } catch { failure = error }
        }) {}
        try pipeline.finish { played.add($0) }
        #expect(failure == nil)
        #expect(decoded > Signal.frames(5))
        #expect(played.isMonotonic)
        #expect(played.chunks.last?.end == Int64(decoded))
        let frames = Double(played.samples.count / decoder.outputChannels)
        #expect(frames <= Double(decoded) / 1.5 * 1.02 && frames >= Double(decoded - Signal.frames(0.6)) / 1.5 * 0.98)
    }
}
