#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// The recorder's meter (docs/recorder.md and docs/waveform.md, "Levels"): for each window of captured audio (a meter step, 100 ms of
/// frames by default in the recorder), the RMS level and the peak in dBFS, and both through the normaliser as
/// the context's average and peak power.
///
/// Windows are counted in frames of audio, not wall-clock time, so a device that delivers faster than real
/// time still gives one reading per window. A chunk may complete several windows; each gives its own reading.
/// Not thread-safe; the encoder thread feeds it.
public struct LevelMeter: Sendable {
    /// One window's levels.
    public struct Reading: Sendable, Equatable {
        /// RMS level in dBFS (full-scale square wave = 0), in `LevelMeter.silenceDecibels`…0.
        public let averageDecibels: Float
        /// Peak magnitude in dBFS, in `LevelMeter.silenceDecibels`…0.
        public let peakDecibels: Float
        /// Frames in the window (less than `windowFrames` only for `pending`).
        public let frames: Int

        /// The average power of the recorder context: `averageDecibels` normalised to 0…1.
        public var averagePower: Float { Normaliser.normalise(averageDecibels) }
        /// The peak power of the recorder context: `peakDecibels` normalised to 0…1.
        public var peakPower: Float { Normaliser.normalise(peakDecibels) }
    }

    /// The level reported for digital silence, as `AVAudioRecorder` reports it (−160 dB), instead of −∞.
    public static let silenceDecibels: Float = -160

    /// Frames per window.
    public let windowFrames: Int
    /// Channels per interleaved frame; every channel counts in the RMS and the peak.
    public let channels: Int
    /// Samples per window (`windowFrames × channels`).
    private let windowSamples: Int
    /// Σx² of the window on the ±1.0 scale.
    private var sumOfSquares = 0.0
    /// Largest |x| of the window on the ±1.0 scale.
    private var peak: Float = 0
    /// Samples in the window so far.
    private var samples = 0

    /// Makes a meter.
    /// - Parameters:
    ///   - windowFrames: frames per reading, ≥ 1 (the recorder's meter step: a tenth of the sample rate).
    ///   - channels: channels per interleaved frame, ≥ 1.
    /// - Throws: `VoiceNoteError(.invalidArgument)` when a parameter is out of range.
    public init(windowFrames: Int, channels: Int = 1) throws {
        guard windowFrames > 0, channels > 0 else {
            throw VoiceNoteError(
                .invalidArgument, "meter window \(windowFrames) frames × \(channels) channels must be positive")
        }
        let (windowSamples, overflow) = windowFrames.multipliedReportingOverflow(by: channels)
        guard !overflow else {
            throw VoiceNoteError(.invalidArgument, "meter window of \(windowFrames) frames is too large")
        }
        self.windowFrames = windowFrames
        self.channels = channels
        self.windowSamples = windowSamples
    }

    /// Adds interleaved 16-bit samples (full scale 32767); calls `onReading` for each window completed, in order.
    public mutating func append(_ interleaved: UnsafeBufferPointer<Int16>, _ onReading: (Reading) -> Void) {
        var offset = 0
        while offset < interleaved.count {
            let take = min(interleaved.count - offset, windowSamples - samples)
            // Exact integer sums per run; a run is at most one window, far from overflowing.
            var squares: Int64 = 0
            var largest: UInt16 = 0
            for sample in interleaved[offset..<(offset + take)] {
                squares &+= Int64(sample) * Int64(sample)
                largest = max(largest, sample.magnitude)
            }
            sumOfSquares += Double(squares) / (32767.0 * 32767.0)
            peak = max(peak, Float(largest) / 32767)
            offset += take
            completeRun(samples: take, onReading)
        }
    }

    /// Adds interleaved float samples (full scale 1.0); calls `onReading` for each window completed, in order.
    /// NaN samples count as silence.
    public mutating func append(_ interleaved: UnsafeBufferPointer<Float>, _ onReading: (Reading) -> Void) {
        var offset = 0
        while offset < interleaved.count {
            let take = min(interleaved.count - offset, windowSamples - samples)
            var squares = 0.0
            var largest: Float = 0
            for sample in interleaved[offset..<(offset + take)] where !sample.isNaN {
                squares += Double(sample) * Double(sample)
                largest = max(largest, sample.magnitude)
            }
            sumOfSquares += squares
            peak = max(peak, largest)
            offset += take
            completeRun(samples: take, onReading)
        }
    }

    /// The levels of the window filled so far (at pause or stop), or nil when it is empty.
    public var pending: Reading? {
        samples > 0 ? reading() : nil
    }

    /// Drops the window filled so far; the next sample starts a new window.
    public mutating func reset() {
        sumOfSquares = 0
        peak = 0
        samples = 0
    }

    /// Counts a run in; a full window gives its reading and starts the next.
    private mutating func completeRun(samples run: Int, _ onReading: (Reading) -> Void) {
        samples += run
        if samples == windowSamples {
            onReading(reading())
            reset()
        }
    }

    /// The levels of the current window, which holds at least one sample.
    private func reading() -> Reading {
        let meanSquare = sumOfSquares / Double(samples)
        return Reading(
            averageDecibels: Self.decibels(power: meanSquare),
            peakDecibels: Self.decibels(power: Double(peak) * Double(peak)),
            frames: samples / channels)
    }

    /// `10·log10(power)` clipped to `silenceDecibels`…0 (−32768 and float overs would read above 0).
    private static func decibels(power: Double) -> Float {
        guard power > 0 else { return silenceDecibels }
        return Float(min(max(10 * log10(power), Double(silenceDecibels)), 0))
    }
}
