import Foundation
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteAudio

/// ALSA configuration text for a virtual speaker writing raw S16 frames to `outfile` (ALSA's `file` plugin over an
/// inline `null` slave, STYLE.md). It takes frames as fast as they are written (unpaced).
func fileSpeaker(_ name: String, outfile: String) -> String {
    "pcm.\(name) { type file slave.pcm { type null } file \"\(outfile)\" format raw perm 0644 }"
}

/// The same speaker behind a `plug` whose slave runs at `rate` only: ALSA's resampler makes it take any rate.
func fixedRateSpeaker(_ name: String, outfile: String, rate: Int) -> String {
    "pcm.\(name) { type plug slave { pcm { type file slave.pcm { type null } file \"\(outfile)\" format raw " +
        "perm 0644 } rate \(rate) } }"
}

/// `count` samples of deterministic noise (no two neighbours alike, so a dropped, repeated or reordered sample shows).
func noise(samples count: Int, seed: UInt32 = 12_345) -> [Int16] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Int16(truncatingIfNeeded: state >> 16)
    }
}

/// A sine of `frequency` Hz at `rate`, mono, half scale.
func sine(frequency: Double, rate: Int, frames: Int) -> [Int16] {
    (0..<frames).map { Int16(16_000 * sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// Producer: writes `samples` into `ring` as room frees up (waiting on the device between writes) until all are in,
/// the device stops running, or `timeout` seconds pass; returns how many samples went in.
@discardableResult
func feed(_ samples: [Int16], into ring: SampleRing, of device: PlaybackDevice, timeout: Double = 10) -> Int {
    let deadline = monotonicNanoseconds() + UInt64(timeout * 1e9)
    var offset = 0
    while offset < samples.count && monotonicNanoseconds() < deadline {
        let written = samples[offset...].withUnsafeBufferPointer { ring.write($0) }
        offset += written
        if written == 0 {
            if !device.isRunning { break }
            _ = device.waitForProgress(timeoutMilliseconds: 50)
        }
    }
    return offset
}

/// The samples of a raw S16_LE file; empty when it does not exist.
func writtenSamples(_ path: String) throws -> [Int16] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    return try readSamples(path)
}

/// The index of the first sample where `a` and `b` differ, nil when they are equal.
func firstDifference(_ a: [Int16], _ b: [Int16]) -> Int? {
    if let index = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return index }
    return a.count == b.count ? nil : min(a.count, b.count)
}
