import Foundation
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Real and synthesized signals for the player's stages, all 48 kHz.
enum Signal {
    static let rate = 48_000

    /// Frames in `seconds`.
    static func frames(_ seconds: Double) -> Int { Int((seconds * Double(rate)).rounded()) }

    /// espeak-ng speech from the shared fixture (6.1 s, mono, with its sentence pauses of up to 0.3 s).
    static func speech() throws -> [Int16] {
        try Fixtures.referencePCM(try Fixtures.path(.wav), rate: rate, channels: 1)
    }

    /// A sine at `frequency` Hz, `amplitude` of full scale.
    static func sine(_ frequency: Double, seconds: Double, amplitude: Double = 0.5) -> [Int16] {
        (0..<frames(seconds)).map { Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double($0) / Double(rate))).rounded()) }
    }

    /// Gaussian noise with an RMS level of `decibels` dBFS (a room's level at −60), repeatable per seed.
    static func noise(seconds: Double, decibels: Double, seed: UInt64 = 1) -> [Int16] {
        var generator = SplitMix(seed: seed)
        let sigma = 32767 * pow(10, decibels / 20)
        return (0..<frames(seconds)).map { _ in
            let u1 = max(generator.unit(), 1e-12), u2 = generator.unit()
            let value = sigma * sqrt(-2 * log(u1)) * cos(2 * .pi * u2)
            return Int16(max(-32768, min(32767, value.rounded())))
        }
    }

    /// `a + b`, saturated; the longer one's rest is kept.
    static func mix(_ a: [Int16], _ b: [Int16]) -> [Int16] {
        (0..<max(a.count, b.count)).map { index in
            let sum = Int(index < a.count ? a[index] : 0) + Int(index < b.count ? b[index] : 0)
            return Int16(max(-32768, min(32767, sum)))
        }
    }

    /// The frequency of a tone from its upward zero crossings, interpolated between samples.
    static func zeroCrossingFrequency(_ samples: ArraySlice<Int16>) -> Double {
        var crossings: [Double] = []
        var previous = samples.first ?? 0
        for index in samples.indices.dropFirst() {
            let sample = samples[index]
            if previous < 0 && sample >= 0 {
                crossings.append(Double(index - 1) + Double(-previous) / Double(Int(sample) - Int(previous)))
            }
            previous = sample
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / Double(rate))
    }

    /// RMS level of `samples` in dBFS.
    static func decibels(_ samples: ArraySlice<Int16>) -> Double {
        let meanSquare = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))
        return 10 * log10(max(meanSquare, 1e-12) / (32767.0 * 32767.0))
    }

    /// Normalised correlation of two equally long stretches (1 when identical up to scale).
    static func correlation(_ a: ArraySlice<Int16>, _ b: ArraySlice<Int16>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) {
            ab += Double(x) * Double(y)
            aa += Double(x) * Double(x)
            bb += Double(y) * Double(y)
        }
        return ab / max(sqrt(aa * bb), 1e-12)
    }

    /// The longest run of 20 ms blocks quieter than `decibels`, in frames.
    static func longestQuietRun(_ samples: [Int16], below decibels: Double) -> Int {
        let block = frames(0.02)
        var longest = 0, current = 0
        for start in stride(from: 0, to: samples.count - block + 1, by: block) {
            current = Self.decibels(samples[start..<(start + block)]) < decibels ? current + block : 0
            longest = max(longest, current)
        }
        return longest
    }
}

/// What a pipeline played: the samples and, per output frame, the source frame it plays.
struct Played {
    var samples: [Int16] = []
    var sourceFrames: [Double] = []
    var chunks: [(start: Int64, end: Int64, frames: Int)] = []

    mutating func add(_ chunk: PlaybackChunk) {
        samples.append(contentsOf: chunk.samples)
        for frame in 0..<chunk.frames { sourceFrames.append(chunk.sourceFrame(atOutputFrame: frame)) }
        chunks.append((chunk.sourceStartFrame, chunk.sourceEndFrame, chunk.frames))
    }

    /// Whether the source frames never go back, chunk by chunk and frame by frame.
    var isMonotonic: Bool {
        zip(chunks, chunks.dropFirst()).allSatisfy { $0.start <= $0.end && $0.end <= $1.start }
            && zip(sourceFrames, sourceFrames.dropFirst()).allSatisfy { $0 <= $1 }
    }
}

/// Runs `input` through `pipeline` in chunks of `chunkFrames` (a decoder's 20 ms by default), then finishes.
func play(_ input: [Int16], through pipeline: PlaybackPipeline, chunkFrames: Int = 960,
          before: ((Int) -> Void)? = nil) throws -> Played {
    var played = Played()
    let channels = pipeline.channels
    try input.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            before?(offset / channels)
            let end = min(offset + chunkFrames * channels, all.count)
            try pipeline.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { played.add($0) }
            offset = end
        }
    }
    try pipeline.finish { played.add($0) }
    return played
}

/// Runs `input` through a stretcher at `rate` in 20 ms chunks, then finishes; returns the output.
func stretch(_ input: [Int16], rate: PlaybackRate, channels: Int = 1) throws -> [Int16] {
    let stretcher = try TimeStretcher(sampleRate: Signal.rate, channels: channels, rate: rate)
    var output: [Int16] = []
    try input.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + 960 * channels, all.count)
            try stretcher.process(UnsafeBufferPointer(rebasing: all[offset..<end])) { samples, _ in output.append(contentsOf: samples) }
            offset = end
        }
    }
    try stretcher.finish { samples, _ in output.append(contentsOf: samples) }
    return output
}
