import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

/// Levels of single frames, from 20·log10(k/32767): 3277 → −19.99920 dB, 328 → −39.99126 dB.
private let level3277: Float = 0.600016
private let level328: Float = 0.200175

@Suite struct WaveformBucketsTests {
    /// N = 3, n = 10: bucket i holds frames [⌊3i/10⌋, ⌊3(i+1)/10⌋), so only buckets 3, 6 and 9 hold a frame.
    @Test func fewerFramesThanBucketsLeavesExactEmptyPositions() throws {
        let values = try bucketWaveform([32767, 3277, 328], n: 10)
        #expect(values.count == 10)
        #expect(values.indices.filter { values[$0] != 0 } == [3, 6, 9])
        #expect(values[3] == 1)
        #expect(abs(values[6] - level3277) < 1e-5)
        #expect(abs(values[9] - level328) < 1e-5)
    }

    @Test func oneFramePerBucketWhenNEqualsN() throws {
        let values = try bucketWaveform([32767, 3277, 328, 0], n: 4)
        #expect(values[0] == 1)
        #expect(abs(values[1] - level3277) < 1e-5)
        #expect(abs(values[2] - level328) < 1e-5)
        #expect(values[3] == 0)
    }

    /// N = 5, n = 4: starts ⌊5i/4⌋ = 0, 1, 2, 3, 5, so the last bucket holds frames 3 and 4.
    @Test func onlyTheLastBucketIsLongerWhenNIsOneMore() throws {
        let values = try bucketWaveform([328, 3277, 328, 32767, 328], n: 4)
        #expect(abs(values[0] - level328) < 1e-5)
        #expect(abs(values[1] - level3277) < 1e-5)
        #expect(abs(values[2] - level328) < 1e-5)
        // Mean of 0 dB and −39.99126 dB, not the level of their RMS.
        #expect(abs(values[3] - 0.600087) < 1e-5)
    }

    @Test func oneBucketIsTheMeanOfAllFrames() throws {
        #expect(try bucketWaveform([32767, 0, 32767, 0], n: 1) == [0.5])
        let values = try bucketWaveform([32767, 328], n: 1)
        #expect(values.count == 1)
        #expect(abs(values[0] - 0.600087) < 1e-5)
    }

    /// Left at full scale (0 dB), right silent (−50 dB): every bucket is exactly −25 dB → 0.5.
    @Test func stereoAveragesBothChannels() throws {
        let frames = 1000
        let samples = (0..<(2 * frames)).map { $0 % 2 == 0 ? Int16(32767) : 0 }
        let values = try bucketWaveform(samples, channels: 2, n: 7)
        #expect(values == [Float](repeating: 0.5, count: 7))
        let mixed = try bucketWaveform([32767, 328, 32767, 328], channels: 2, n: 2)
        #expect(abs(mixed[0] - 0.600087) < 1e-5 && abs(mixed[1] - 0.600087) < 1e-5)
    }

    @Test func silenceIsAllZero() throws {
        #expect(try bucketWaveform(constant(0, frames: 48000), n: 100) == [Float](repeating: 0, count: 100))
        // −60 dB is under the floor too.
        #expect(try bucketWaveform(constant(33, frames: 4800), n: 100) == [Float](repeating: 0, count: 100))
    }

    @Test func fullScaleSquareWaveIsAllOne() throws {
        let values = try bucketWaveform(squareWave(frames: 48000), n: 100)
        #expect(values == [Float](repeating: 1, count: 100))
    }

    @Test func floatInputAtFullScaleIsAllOneAndSilenceZero() throws {
        var loud = try WaveformBuckets(frameCount: 1000, channels: 1, samples: 10)
        let square = (0..<1000).map { $0 % 2 == 0 ? Float(1) : -1 }
        square.withUnsafeBufferPointer { loud.append($0) }
        #expect(loud.finish() == [Float](repeating: 1, count: 10))

        var quiet = try WaveformBuckets(frameCount: 1000, channels: 1, samples: 10)
        let silence = [Float](repeating: 0, count: 1000)
        silence.withUnsafeBufferPointer { quiet.append($0) }
        #expect(quiet.finish() == [Float](repeating: 0, count: 10))
    }

    @Test func floatInputMatchesInt16Input() throws {
        let samples = randomishSignal(frames: 9600, channels: 2)
        let floats = samples.map { Float($0) / 32767 }
        var buckets = try WaveformBuckets(frameCount: 9600, channels: 2, samples: 100)
        floats.withUnsafeBufferPointer { buckets.append($0) }
        let viaInt16 = try bucketWaveform(samples, channels: 2, n: 100)
        #expect(maximumDifference(buckets.finish(), viaInt16) < 1e-4)
    }

    @Test func matchesTheDefinitionWithLog10PerSample() throws {
        let samples = randomishSignal(frames: 20011, channels: 2)
        for n in [1, 37, 100] {
            let fast = try bucketWaveform(samples, channels: 2, n: n)
            let reference = referenceWaveform(samples, channels: 2, n: n)
            let worst = zip(fast, reference).map { abs(Double($0) - $1) }.max() ?? 0
            #expect(worst < 1e-5, "n = \(n): off by \(worst)")
        }
    }

    /// Chunks of 1, 7 (splitting stereo frames) and 960 samples give the same bits as one append.
    @Test func chunkSizeDoesNotMatter() throws {
        let samples = randomishSignal(frames: 10007, channels: 2)
        let whole = try bucketWaveform(samples, channels: 2, n: 100, chunk: samples.count)
        for chunk in [1, 7, 960] {
            #expect(try bucketWaveform(samples, channels: 2, n: 100, chunk: chunk) == whole, "chunk \(chunk)")
        }
    }

    @Test func noFramesGivesZerosAndNeverNaN() throws {
        let empty = try WaveformBuckets(frameCount: 0, channels: 1, samples: 100)
        #expect(empty.finish() == [Float](repeating: 0, count: 100))
        // Expected frames that never came.
        let none = try WaveformBuckets(frameCount: 5000, channels: 2, samples: 50)
        #expect(none.finish() == [Float](repeating: 0, count: 50))
        // n much larger than N.
        let sparse = try bucketWaveform(randomishSignal(frames: 7), n: 1000)
        #expect(sparse.count == 1000)
        #expect(!sparse.contains { $0.isNaN })
        #expect(sparse.filter { $0 != 0 }.count <= 7)
    }

    /// Truncated file: 600 of 1000 frames arrive; the answer is for the 600 (blocks are one frame, so exact).
    @Test func fewerFramesThanExpectedAreBucketedOverWhatArrived() throws {
        let samples = randomishSignal(frames: 600, channels: 2)
        var buckets = try WaveformBuckets(frameCount: 1000, channels: 2, samples: 100)
        appendChunked(samples, chunk: 960, to: &buckets)
        #expect(buckets.framesReceived == 600)
        #expect(buckets.finish() == (try bucketWaveform(samples, channels: 2, n: 100)))
    }

    /// More frames than the granule promised: all of them count.
    @Test func moreFramesThanExpectedAreBucketedOverWhatArrived() throws {
        let samples = randomishSignal(frames: 1000)
        var buckets = try WaveformBuckets(frameCount: 600, channels: 1, samples: 37)
        appendChunked(samples, chunk: 333, to: &buckets)
        #expect(buckets.finish() == (try bucketWaveform(samples, n: 37)))
    }

    /// A truncated long file: blocks are N/65536 frames, so the fallback is close, not exact.
    @Test func truncatedLongFileIsClose() throws {
        let samples = randomishSignal(frames: 400_000)
        var buckets = try WaveformBuckets(frameCount: 500_000, channels: 1, samples: 100)
        appendChunked(samples, chunk: 4096, to: &buckets)
        #expect(maximumDifference(buckets.finish(), try bucketWaveform(samples, n: 100)) < 1e-3)
    }

    @Test func badArgumentsAreInvalidArgument() {
        for (frames, channels, n) in [(100, 1, 0), (100, 1, -1), (100, 0, 10), (-1, 1, 10), (Int.max, 2, 10),
                                      (100, 1, Waveform.maximumSampleCount + 1)] {
            expectError(.invalidArgument) {
                _ = try WaveformBuckets(frameCount: frames, channels: channels, samples: n)
            }
        }
    }
}
