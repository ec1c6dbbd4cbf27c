#if canImport(Glibc)
import Glibc
#endif
import Testing
import VoiceNoteCore
@testable import VoiceNoteWaveform

/// All readings of `samples` fed in chunks of `chunk`.
private func readings(_ samples: [Int16], window: Int, channels: Int = 1, chunk: Int) throws -> [LevelMeter.Reading] {
    var meter = try LevelMeter(windowFrames: window, channels: channels)
    var out: [LevelMeter.Reading] = []
    samples.withUnsafeBufferPointer { all in
        var offset = 0
        while offset < all.count {
            let end = min(offset + chunk, all.count)
            meter.append(UnsafeBufferPointer(rebasing: all[offset..<end])) { out.append($0) }
            offset = end
        }
    }
    return out
}

@Suite struct LevelMeterTests {
    @Test func fullScaleSquareIsZeroDecibelsAndPowerOne() throws {
        let result = try readings(squareWave(frames: 4800, halfPeriod: 10), window: 4800, chunk: 4800)
        #expect(result.count == 1)
        #expect(result[0].averageDecibels == 0)
        #expect(result[0].peakDecibels == 0)
        #expect(result[0].averagePower == 1)
        #expect(result[0].peakPower == 1)
        #expect(result[0].frames == 4800)
    }

    @Test func silenceIsMinus160AndPowerZero() throws {
        let result = try readings(constant(0, frames: 1600), window: 1600, chunk: 500)
        #expect(result == [LevelMeter.Reading(averageDecibels: -160, peakDecibels: -160, frames: 1600)])
        #expect(result[0].averagePower == 0)
    }

    /// A sine of amplitude 0.5: RMS 0.5/√2 = −9.031 dBFS → 0.8194; peak −6.021 dBFS → 0.8796.
    @Test func sineRMSAndPeak() throws {
        let sine = (0..<4800).map { Int16((16383.5 * sin(2 * Double.pi * Double($0) / 48)).rounded()) }
        let result = try readings(sine, window: 4800, chunk: 4800)
        #expect(abs(result[0].averageDecibels - -9.031) < 1e-2)
        #expect(abs(result[0].peakDecibels - -6.021) < 1e-2)
        #expect(abs(result[0].averagePower - 0.8194) < 2e-4)
        #expect(abs(result[0].peakPower - 0.8796) < 2e-4)
    }

    /// The meter is RMS, not the waveform's mean of dB: a half-silent window reads −3 dB, the waveform −25 dB.
    @Test func meterIsRMSNotMeanOfDecibels() throws {
        let half = constant(32767, frames: 100) + constant(0, frames: 100)
        let result = try readings(half, window: 200, chunk: 200)
        #expect(abs(result[0].averageDecibels - -3.0103) < 1e-3)
        #expect(result[0].peakDecibels == 0)
    }

    /// One 2.5-window chunk gives two readings in order and leaves half a window pending.
    @Test func windowsAreCountedInFramesAcrossChunks() throws {
        var meter = try LevelMeter(windowFrames: 100, channels: 2)
        let samples = constant(32767, frames: 100, channels: 2) + constant(3277, frames: 100, channels: 2)
            + constant(328, frames: 50, channels: 2)
        var out: [LevelMeter.Reading] = []
        samples.withUnsafeBufferPointer { meter.append($0) { out.append($0) } }
        #expect(out.count == 2)
        #expect(out[0].averageDecibels == 0)
        #expect(abs(out[1].averageDecibels - -19.9992) < 1e-3)
        #expect(meter.pending?.frames == 50)
        #expect(abs((meter.pending?.peakDecibels ?? 0) - -39.9913) < 1e-3)
        meter.reset()
        #expect(meter.pending == nil)
        // Chunking does not change the readings.
        #expect(try readings(samples, window: 100, channels: 2, chunk: 7) == out)
    }

    @Test func floatInput() throws {
        var meter = try LevelMeter(windowFrames: 4)
        var out: [LevelMeter.Reading] = []
        let samples: [Float] = [0.1, -0.1, 0.1, -0.1, 2, .nan, -0.5, 0]
        samples.withUnsafeBufferPointer { meter.append($0) { out.append($0) } }
        #expect(out.count == 2)
        #expect(abs(out[0].averageDecibels - -20) < 1e-4)
        #expect(abs(out[0].averagePower - 0.6) < 1e-5)
        // Overs clip at 0 dB; NaN counts as silence.
        #expect(out[1].peakDecibels == 0)
        #expect(!out[1].averageDecibels.isNaN)
    }

    @Test func badArgumentsAreInvalidArgument() {
        expectError(.invalidArgument) { _ = try LevelMeter(windowFrames: 0) }
        expectError(.invalidArgument) { _ = try LevelMeter(windowFrames: 10, channels: 0) }
        expectError(.invalidArgument) { _ = try LevelMeter(windowFrames: Int.max, channels: 2) }
    }
}
