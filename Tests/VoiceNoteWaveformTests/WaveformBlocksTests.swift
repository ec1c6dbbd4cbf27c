import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

@Suite struct WaveformBlocksTests {
    /// N ≤ the cap: one-frame blocks, the same Float values as the one-pass buckets.
    @Test(arguments: [100, 37])
    func equalsBucketsExactlyUpToTheCap(n: Int) throws {
        let mono = randomishSignal(frames: 50_000)
        #expect(try blockWaveform(mono, n: n) == (try bucketWaveform(mono, n: n)))
        let stereo = randomishSignal(frames: 50_000, channels: 2, seed: 7)
        #expect(try blockWaveform(stereo, channels: 2, n: n) == (try bucketWaveform(stereo, channels: 2, n: n)))
    }

    /// N = 1 000 000 > the cap: blocks merge to 16 frames; straddling blocks are shared, within 10⁻³.
    @Test(arguments: [100, 37])
    func closeToBucketsAboveTheCap(n: Int) throws {
        let samples = randomishSignal(frames: 1_000_000)
        var blocks = try WaveformBlocks(channels: 1)
        appendChunked(samples, chunk: 4096, to: &blocks)
        #expect(blocks.framesPerBlock == 16)
        #expect(blocks.blockCount == 62_500)
        let exact = try bucketWaveform(samples, n: n)
        let approximate = try blocks.finish(samples: n)
        let worst = maximumDifference(approximate, exact)
        #expect(worst < 1e-3, "off by \(worst)")
        if n == 100 {
            // Buckets of 10 000 frames are 625 whole blocks: nothing is shared, so exact.
            #expect(approximate == exact)
        } else {
            // Buckets of 27 027 frames cut blocks; a result this close by accident would mean nothing was shared.
            #expect(worst > 0)
        }
    }

    /// Exactly `maximumBlocks` frames still fit one-frame blocks: merging waits for a block that must start.
    @Test func exactlyTheCapStaysExact() throws {
        let samples = randomishSignal(frames: 65536)
        var blocks = try WaveformBlocks(channels: 1)
        appendChunked(samples, chunk: 1000, to: &blocks)
        #expect(blocks.framesPerBlock == 1)
        #expect(try blocks.finish(samples: 100) == (try bucketWaveform(samples, n: 100)))
        let one: [Int16] = [1000]
        one.withUnsafeBufferPointer { blocks.append($0) }
        #expect(blocks.framesPerBlock == 2)
        #expect(blocks.blockCount == 32769)
    }

    /// Merging keeps every sum: a whole-take bucket and a level signal stay exact through many merges.
    @Test func mergingKeepsTheSums() throws {
        let samples = randomishSignal(frames: 10_000, channels: 2)
        var blocks = try WaveformBlocks(channels: 2, maximumBlocks: 8)
        appendChunked(samples, chunk: 333, to: &blocks)
        #expect(blocks.blockCount <= 8)
        #expect(blocks.framesPerBlock == 2048)
        #expect(try blocks.finish(samples: 1) == (try bucketWaveform(samples, channels: 2, n: 1)))

        let level = constant(3277, frames: 10_000)
        #expect(try blockWaveform(level, n: 37, maximumBlocks: 8) == (try bucketWaveform(level, n: 37)))
    }

    @Test func chunkSizeDoesNotMatter() throws {
        let samples = randomishSignal(frames: 100_003, channels: 2)
        let whole = try blockWaveform(samples, channels: 2, n: 100, chunk: samples.count)
        for chunk in [1, 7, 960] {
            #expect(try blockWaveform(samples, channels: 2, n: 100, chunk: chunk) == whole, "chunk \(chunk)")
        }
    }

    @Test func silenceSquareAndNothing() throws {
        #expect(try blockWaveform(constant(0, frames: 100_000), n: 100) == [Float](repeating: 0, count: 100))
        #expect(try blockWaveform(squareWave(frames: 100_000), n: 100) == [Float](repeating: 1, count: 100))
        let empty = try WaveformBlocks(channels: 2)
        #expect(try empty.finish(samples: 100) == [Float](repeating: 0, count: 100))
        // N < n with merged blocks: exact empty positions, no NaN.
        let sparse = try blockWaveform([32767, 3277, 328], n: 10, maximumBlocks: 2)
        #expect(sparse.indices.filter { sparse[$0] != 0 } == [3, 6, 9])
    }

    /// A growing download: ask, append more, ask again.
    @Test func finishCanBeAskedWhileGrowing() throws {
        let samples = randomishSignal(frames: 20_000)
        var blocks = try WaveformBlocks(channels: 1)
        appendChunked(Array(samples[..<8000]), chunk: 960, to: &blocks)
        #expect(try blocks.finish(samples: 50) == (try bucketWaveform(Array(samples[..<8000]), n: 50)))
        appendChunked(Array(samples[8000...]), chunk: 960, to: &blocks)
        #expect(try blocks.finish(samples: 50) == (try bucketWaveform(samples, n: 50)))
    }

    @Test func badArgumentsAreInvalidArgument() throws {
        expectError(.invalidArgument) { _ = try WaveformBlocks(channels: 0) }
        expectError(.invalidArgument) { _ = try WaveformBlocks(channels: 1, framesPerBlock: 0) }
        expectError(.invalidArgument) { _ = try WaveformBlocks(channels: 1, maximumBlocks: 7) }
        expectError(.invalidArgument) { _ = try WaveformBlocks(channels: 1, maximumBlocks: 0) }
        expectError(.invalidArgument) { _ = try WaveformBlocks(channels: 2, framesPerBlock: Int.max) }
        let blocks = try WaveformBlocks(channels: 1)
        expectError(.invalidArgument) { _ = try blocks.finish(samples: 0) }
        expectError(.invalidArgument) { _ = try blocks.finish(samples: Waveform.maximumSampleCount + 1) }
    }
}
