import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

@Suite struct BlockDecibelAccumulatorTests {
    @Test(arguments: [(48000, 960), (44100, 882), (16000, 320), (11025, 221), (8000, 160), (10, 1)])
    func blocksAreTwentyMilliseconds(rate: Int, frames: Int) throws {
        #expect(try BlockDecibelAccumulator(sampleRate: rate).framesPerBlock == frames)
    }

    /// A 2 s take at 48 kHz: 100 buckets of 960 frames are 20 ms blocks exactly, so the values are the waveform algorithm's's.
    @Test func alignedTakeEqualsTheOnePassWaveform() throws {
        let samples = randomishSignal(frames: 96000)
        var accumulator = try BlockDecibelAccumulator(sampleRate: 48000)
        samples.withUnsafeBufferPointer { accumulator.append($0) }
        #expect(accumulator.frameCount == 96000)
        #expect(try accumulator.waveform() == (try bucketWaveform(samples, n: 100)))
    }

    /// A 61.3 s take at 16 kHz: buckets of 9808 frames cut 320-frame blocks; values stay within 10⁻².
    @Test func unalignedTakeIsClose() throws {
        let samples = randomishSignal(frames: 980_800 + 123, seed: 42)
        var accumulator = try BlockDecibelAccumulator(sampleRate: 16000)
        samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = min(offset + 320 * 3 + 17, all.count)
                accumulator.append(UnsafeBufferPointer(rebasing: all[offset..<end]))
                offset = end
            }
        }
        let worst = maximumDifference(try accumulator.waveform(), try bucketWaveform(samples, n: 100))
        #expect(worst < 1e-2, "off by \(worst)")
    }

    @Test func floatInputSilenceAndFullScale() throws {
        var accumulator = try BlockDecibelAccumulator(sampleRate: 48000)
        let loud = (0..<48000).map { $0 % 2 == 0 ? Float(1) : -1 }
        loud.withUnsafeBufferPointer { accumulator.append($0) }
        let quiet = [Float](repeating: 0, count: 48000)
        quiet.withUnsafeBufferPointer { accumulator.append($0) }
        #expect(try accumulator.waveform(samples: 4) == [1, 1, 0, 0])
    }

    @Test func emptyTakeAndBadArguments() throws {
        let accumulator = try BlockDecibelAccumulator(sampleRate: 48000)
        #expect(try accumulator.waveform() == [Float](repeating: 0, count: 100))
        expectError(.invalidArgument) { _ = try accumulator.waveform(samples: 0) }
        expectError(.invalidArgument) { _ = try BlockDecibelAccumulator(sampleRate: 0) }
        expectError(.invalidArgument) { _ = try BlockDecibelAccumulator(sampleRate: 48000, channels: 0) }
    }
}
