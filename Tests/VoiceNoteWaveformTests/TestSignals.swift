#if canImport(Glibc)
import Glibc
#endif
@testable import VoiceNoteWaveform

/// A deterministic, random-looking 16-bit signal: an LCG for the waveform under an envelope that changes every
/// few hundred frames, so buckets and blocks differ from each other (speech-like loud and quiet stretches).
func randomishSignal(frames: Int, channels: Int = 1, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [Int16] {
    var state = seed
    var samples = [Int16]()
    samples.reserveCapacity(frames * channels)
    var envelope = 1.0
    for frame in 0..<frames {
        if frame % 337 == 0 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // −60…0 dB, so some stretches sit under the −50 dB floor.
            envelope = Double(state >> 40) / Double(1 << 24)
            envelope = envelope * envelope * envelope
        }
        for _ in 0..<channels {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(Int64(bitPattern: state) >> 32) / Double(Int32.max)
            samples.append(Int16(max(-32768, min(32767, (noise * 32767 * envelope).rounded()))))
        }
    }
    return samples
}

/// `count` frames of every channel at `value`.
func constant(_ value: Int16, frames: Int, channels: Int = 1) -> [Int16] {
    [Int16](repeating: value, count: frames * channels)
}

/// A full-scale square wave: ±32767 alternating every `halfPeriod` frames.
func squareWave(frames: Int, halfPeriod: Int = 24) -> [Int16] {
    (0..<frames).map { ($0 / halfPeriod) % 2 == 0 ? 32767 : -32768 }
}

/// `samples` appended to `buckets` in chunks of `chunk` samples.
func appendChunked(_ samples: [Int16], chunk: Int, to buckets: inout WaveformBuckets) {
    samples.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + chunk, all.count)
            buckets.append(UnsafeBufferPointer(rebasing: all[offset..<end]))
            offset = end
        }
    }
}

/// `samples` appended to `blocks` in chunks of `chunk` samples.
func appendChunked(_ samples: [Int16], chunk: Int, to blocks: inout WaveformBlocks) {
    samples.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + chunk, all.count)
            blocks.append(UnsafeBufferPointer(rebasing: all[offset..<end]))
            offset = end
        }
    }
}

/// The waveform of `samples` in one pass with the length known.
func bucketWaveform(_ samples: [Int16], channels: Int = 1, n: Int, chunk: Int = 4096) throws -> [Float] {
    var buckets = try WaveformBuckets(frameCount: samples.count / channels, channels: channels, samples: n)
    appendChunked(samples, chunk: chunk, to: &buckets)
    return buckets.finish()
}

/// The waveform of `samples` through fine blocks.
func blockWaveform(
    _ samples: [Int16], channels: Int = 1, n: Int, maximumBlocks: Int = WaveformBlocks.defaultMaximumBlocks,
    chunk: Int = 4096
) throws -> [Float] {
    var blocks = try WaveformBlocks(channels: channels, maximumBlocks: maximumBlocks)
    appendChunked(samples, chunk: chunk, to: &blocks)
    return try blocks.finish(samples: n)
}

/// The waveform algorithm straight from the definition, in Double with `log10` per sample: the reference the fast paths are
/// checked against.
func referenceWaveform(_ samples: [Int16], channels: Int = 1, n: Int) -> [Double] {
    let frames = samples.count / channels
    return (0..<n).map { index in
        let start = index * frames / n
        let end = (index + 1) * frames / n
        guard start < end else { return 0 }
        var sum = 0.0
        for sample in samples[(start * channels)..<(end * channels)] {
            let magnitude = min(Double(sample.magnitude), 32767)
            sum += magnitude == 0 ? -50 : max(-50, 20 * log10(magnitude / 32767))
        }
        let mean = sum / Double((end - start) * channels)
        return min(1, max(0, (mean + 50) / 50))
    }
}

/// The largest absolute difference of two equally long sequences.
func maximumDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
