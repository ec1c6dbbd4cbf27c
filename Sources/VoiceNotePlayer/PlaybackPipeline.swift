import VoiceNoteCore

/// The signal path of the player's decoder thread: decoded PCM → `Leveler` (when levelling) → `SilenceSkipper` →
/// `TimeStretcher` → `Gain` → device, reporting for every chunk it emits the source frames (the file's time) it plays.
///
/// The player's current time is the source time of the frames written to the device less the device's delay;
/// each chunk carries its source span, and the stretcher's backlog and the skipper's hold are already taken off
/// (a chunk's source span is what its frames play, not what was last decoded).
///
/// Settings (`rate`, `volume`, `skipsSilence`) may change between any two calls: rate and skipping apply from the
/// next input frame, volume from the next output frame (ramped over 10 ms). Not thread-safe: the decoder thread
/// owns the pipeline; the player passes it settings from other threads.
public final class PlaybackPipeline {
    /// Frames per second, in and out.
    public let sampleRate: Int
    /// Channels per interleaved frame, in and out.
    public let channels: Int

    /// The levelling stage, when the note is levelled.
    private let leveler: Leveler?
    private let skipper: SilenceSkipper
    private let stretcher: TimeStretcher
    private var gain: Gain
    private var map: SourceMap
    /// Stretcher input frames accounted for by the output emitted so far.
    private var emittedThrough: Int64 = 0
    /// Output copied here when the gain is not the identity (the stretcher's output is not ours to scale).
    private var scratch: [Int16] = []

    /// Makes a pipeline for a note whose next decoded frame is `startFrame`.
    /// - Throws: `.invalidArgument` unless 8000…384000 Hz and 1…255 channels; `.noMemory` from libsonic.
    public init(
        sampleRate: Int, channels: Int, startFrame: Int64 = 0, rate: PlaybackRate = .normal,
        volume: Volume = .full, skipsSilence: Bool = false, levelingGain: Double? = nil
    ) throws(VoiceNoteError) {
        self.sampleRate = sampleRate
        self.channels = channels
        leveler = levelingGain.map { Leveler(sampleRate: sampleRate, channels: channels, gainDecibels: $0) }
        skipper = try SilenceSkipper(sampleRate: sampleRate, channels: channels, enabled: skipsSilence, startFrame: startFrame)
        stretcher = try TimeStretcher(sampleRate: sampleRate, channels: channels, rate: rate)
        gain = Gain(volume: volume, sampleRate: sampleRate)
        map = SourceMap(origin: startFrame)
    }

    /// The playback rate; a change applies from the next input frame.
    public var rate: PlaybackRate {
        get { stretcher.requestedRate }
        set { stretcher.setRate(newValue) }
    }

    /// The software volume; a change ramps over 10 ms from the next output frame.
    public var volume: Volume {
        get { gain.volume }
        set { gain.setVolume(newValue) }
    }

    /// Whether pauses longer than 0.6 s are shortened (`SilenceSkipper`); off by default.
    public var skipsSilence: Bool {
        get { skipper.isEnabled }
        set { skipper.isEnabled = newValue }
    }

    /// Whether the note is levelled (`Leveling`): its stage exists from the start or not at all.
    public var isLevelled: Bool { leveler != nil }

    /// Moves the levelling gain to `decibels` over 50 ms (nothing when the note is not levelled).
    public func setLevelingGain(decibels: Double) { leveler?.setGain(decibels: decibels) }

    /// The source frame of the next frame the pipeline will emit.
    public var sourceFrame: Int64 { map.sourceFrame(atInput: emittedThrough) }

    /// The note's noise floor so far (dBFS), measured whether or not silence is skipped.
    public var noiseFloorDecibels: Float? { skipper.noiseFloorDecibels }

    /// Takes decoded interleaved frames (whole frames); `emit` receives every chunk ready for the device.
    /// - Throws: `.noMemory` from libsonic.
    public func process(_ input: UnsafeBufferPointer<Int16>, _ emit: (PlaybackChunk) -> Void) throws(VoiceNoteError) {
        guard let leveler else { return try skip(input, emit) }
        try leveler.process(input) { (levelled) throws(VoiceNoteError) in try skip(levelled, emit) }
    }

    private func skip(_ input: UnsafeBufferPointer<Int16>, _ emit: (PlaybackChunk) -> Void) throws(VoiceNoteError) {
        try skipper.process(input) { (run, source) throws(VoiceNoteError) in try stretch(run, from: source, emit) }
    }

    /// Ends the item: everything held is emitted; the last chunk ends at the note's last frame.
    /// - Throws: `.noMemory` from libsonic.
    public func finish(_ emit: (PlaybackChunk) -> Void) throws(VoiceNoteError) {
        try leveler?.finish { (levelled) throws(VoiceNoteError) in try skip(levelled, emit) }
        try skipper.finish { (run, source) throws(VoiceNoteError) in try stretch(run, from: source, emit) }
        try stretcher.finish { samples, consumed in deliver(samples, consumedThrough: consumed, emit) }
    }

    /// Drops everything held (a seek): the next input is the note from `sourceFrame`. Settings are kept.
    /// - Throws: `.noMemory` from libsonic.
    public func seek(toSourceFrame sourceFrame: Int64) throws(VoiceNoteError) {
        leveler?.reset()
        skipper.reset(toSourceFrame: sourceFrame)
        try stretcher.reset()
        map.reset(origin: sourceFrame)
        emittedThrough = 0
    }

    private func stretch(
        _ run: UnsafeBufferPointer<Int16>, from source: Int64, _ emit: (PlaybackChunk) -> Void
    ) throws(VoiceNoteError) {
        map.append(source: source, frames: run.count / channels)
        try stretcher.process(run) { samples, consumed in deliver(samples, consumedThrough: consumed, emit) }
    }

    private func deliver(_ samples: UnsafeBufferPointer<Int16>, consumedThrough consumed: Int64, _ emit: (PlaybackChunk) -> Void) {
        let start = map.sourceFrame(atInput: emittedThrough)
        let end = max(start, map.sourceEnd(atInput: consumed))
        emittedThrough = consumed
        map.discard(before: consumed)
        if gain.isIdentity {
            emit(PlaybackChunk(samples: samples, channels: channels, sourceStartFrame: start, sourceEndFrame: end))
            return
        }
        if scratch.count < samples.count { scratch = [Int16](repeating: 0, count: samples.count) }
        scratch.withUnsafeMutableBufferPointer { buffer in
            let out = UnsafeMutableBufferPointer(rebasing: buffer[0..<samples.count])
            _ = out.initialize(fromContentsOf: samples)
            gain.apply(to: out, channels: channels)
            emit(PlaybackChunk(samples: UnsafeBufferPointer(out), channels: channels, sourceStartFrame: start, sourceEndFrame: end))
        }
    }
}
