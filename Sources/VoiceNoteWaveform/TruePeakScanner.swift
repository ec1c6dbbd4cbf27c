import CEBUR128
import VoiceNoteCore

/// The true peak of PCM as it goes by, by libebur128's own 4× interpolator, fed only the stretches that can hold it.
///
/// libebur128's true peak runs a 49-tap interpolator over every sample: four times the cost of the whole loudness
/// measurement, which would make the waveform's pass half as slow again. A stretch whose sample peak is more than
/// `margin` (3 dB) below the highest sample peak so far does not hold the note's true peak: speech and music peak
/// between their samples by a fraction of a dB, a full-scale square wave by under 1 dB; only a signal built for it
/// (a full-scale alternation near a quarter of the rate) overshoots by 3 dB. So each piece fed is measured only when
/// its sample peak is within the margin of the running highest: libebur128 is given the `contextFrames` frames before it
/// first (the interpolator's history, their peaks not counted) unless it follows the last measured stretch, and the
/// `contextFrames` frames after it (its last samples' interpolation needs them, their peaks counted: they are the
/// note's own samples too). The answer equals libebur128's over every sample whenever that holds; the tests compare
/// them on speech and music from several encoders.
struct TruePeakScanner {
    /// How far below the running sample peak a piece may be and still be measured: 3 dB, as an amplitude ratio.
    static let margin: Float = 0.708
    /// Frames of context before and after a measured piece: the interpolator's length at 4× (49 taps, 13 frames)
    /// with room to spare.
    static let contextFrames = 24

    let channels: Int
    private var state: UnsafeMutablePointer<ebur128_state>?
    /// The highest sample magnitude seen so far, in 16-bit units.
    private var runningSamplePeak: Int32 = 0
    /// The highest true peak measured, full scale 1.0.
    private(set) var peak: Double = 0
    /// The last `contextFrames` frames fed, interleaved, for the next measured piece's history.
    private var history: [Int16] = []
    /// Frames seen so far, and where the audio libebur128 last measured ends (equal: the next piece follows it).
    private var position = 0
    private var measuredEnd = -1
    /// Frames still to measure after the last measured piece (its tail).
    private var tailFrames = 0

    init(sampleRate: Int, channels: Int) throws(VoiceNoteError) {
        let mode = Int32(bitPattern: EBUR128_MODE_TRUE_PEAK.rawValue)
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw VoiceNoteError(.noMemory, "loudness: libebur128 could not make its true-peak state")
        }
        self.state = state
        self.channels = channels
        history.reserveCapacity(Self.contextFrames * channels)
    }

    /// Frees libebur128's state (the owner's deinit).
    mutating func close() {
        ebur128_destroy(&state)
    }

    /// Takes `frames` interleaved frames.
    mutating func append(_ base: UnsafePointer<Int16>, frames: Int) {
        let samples = frames * channels
        let piecePeak = Self.samplePeak(base, count: samples)
        runningSamplePeak = max(runningSamplePeak, piecePeak)
        if Float(piecePeak) >= Float(runningSamplePeak) * Self.margin && piecePeak > 0 {
            measure(base, frames: frames)
            tailFrames = Self.contextFrames
        } else if tailFrames > 0 {
            let tail = min(tailFrames, frames)
            measure(base, frames: tail)
            tailFrames = 0
        }
        position += frames
        remember(base, frames: frames)
    }

    /// Measures `frames` frames from `base` (the piece starting at `position`), after its history when it does not
    /// follow the last measured audio.
    private mutating func measure(_ base: UnsafePointer<Int16>, frames: Int) {
        if measuredEnd != position && !history.isEmpty {
            _ = history.withUnsafeBufferPointer { ebur128_add_frames_short(state, $0.baseAddress, $0.count / channels) }
        }
        _ = ebur128_add_frames_short(state, base, frames)
        for channel in 0..<channels {
            var value = 0.0
            if ebur128_prev_true_peak(state, UInt32(channel), &value) == 0 { peak = max(peak, value) }
        }
        measuredEnd = position + frames
    }

    /// Keeps the last `contextFrames` frames seen as the next piece's history.
    private mutating func remember(_ base: UnsafePointer<Int16>, frames: Int) {
        let keep = min(frames, Self.contextFrames)
        let dropped = max(0, history.count / channels + keep - Self.contextFrames)
        history.removeFirst(dropped * channels)
        history.append(contentsOf: UnsafeBufferPointer(start: base + (frames - keep) * channels, count: keep * channels))
    }

    /// The largest magnitude among `count` samples.
    private static func samplePeak(_ base: UnsafePointer<Int16>, count: Int) -> Int32 {
        var high: Int16 = 0
        var low: Int16 = 0
        for index in 0..<count {
            high = max(high, base[index])
            low = min(low, base[index])
        }
        return max(Int32(high), -Int32(low))
    }
}
