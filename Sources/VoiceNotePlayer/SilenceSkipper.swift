#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// Skip silence: shortens every pause longer than 0.6 s to a 0.25 s gap, as the note streams, and says for each
/// run of frames it lets through which source frame it starts at, so position, seek and progress stay in the
/// file's time.
///
/// **Silence** is a 20 ms block whose RMS level is below the note's noise floor (`NoiseFloor`: the 10th
/// percentile of its block levels so far) plus 10 dB, and never above −40 dBFS, so a note of steady sound (a
/// hum, music) is never taken for one long pause. **A pause** is a run of silent blocks longer than 0.6 s.
///
/// **The gap** keeps the pause's first 0.125 s (the last word's decay) and its last 0.125 s (the breath before
/// the next), joined by a 10 ms crossfade: 0.25 s is a natural pause between phrases, so sentences stay apart
/// and the cut is not heard as a splice, and it is below 0.6 s, so a shortened pause is never a pause again.
///
/// **Streaming.** Sound passes after its block's verdict (20 ms of look-ahead). During a silent run the skipper
/// holds the frames after the kept head until the run ends or passes 0.6 s, then keeps only the latest 0.125 s:
/// at most 0.6 s of audio is ever held, whatever the pause's length. With skipping off, frames pass at once and
/// only their levels are measured, so the floor is known when skipping is turned on.
///
/// Not thread-safe: the player's decoder thread owns it.
public final class SilenceSkipper {
    /// A pause is a silent run longer than this, in seconds.
    public static let minimumPause = 0.6
    /// A pause is shortened to this, in seconds.
    public static let gap = 0.25
    /// Levels are measured over blocks of this, in seconds.
    public static let blockDuration = 0.02
    /// Silence is below the noise floor plus this, in dB.
    public static let marginDecibels: Float = 10
    /// Silence is never louder than this, in dBFS.
    public static let ceilingDecibels: Float = -40

    /// Frames per second.
    public let sampleRate: Int
    /// Channels per interleaved frame.
    public let channels: Int
    /// Whether pauses are shortened; when false frames pass unchanged (levels are still measured). Turning it off
    /// during a pause lets what is held out with the next input.
    public var isEnabled: Bool
    /// The source frame of the next input frame.
    public private(set) var nextSourceFrame: Int64

    private var floor = NoiseFloor()
    private let blockFrames: Int
    private let headFrames: Int
    private let tailFrames: Int
    private let fadeFrames: Int
    private let minimumPauseFrames: Int

    /// Σx² and frames of the block being measured.
    private var blockSquares: Int64 = 0
    private var blockFramesSeen = 0
    /// Frames of the measured block waiting for its verdict (skipping on), from `blockSourceFrame`.
    private var block: [Int16] = []
    private var blockSourceFrame: Int64 = 0

    /// Frames in the current silent run, and the source frame it began at.
    private var runFrames = 0
    private var runSourceFrame: Int64 = 0
    /// The frames right after the head: what the tail crossfades from.
    private var fade: [Int16] = []
    /// The rest of the run: everything until it is a pause, then only its latest frames.
    private var held: [Int16] = []
    private var heldSourceFrame: Int64 = 0
    /// Whether the run is longer than `minimumPause`.
    private var isPause = false

    /// Makes a skipper for a note starting at `startFrame`.
    /// - Throws: `.invalidArgument` unless 8000…384000 Hz and 1…255 channels.
    public init(sampleRate: Int, channels: Int, enabled: Bool = false, startFrame: Int64 = 0) throws(VoiceNoteError) {
        try TimeStretcher.checkFormat(sampleRate: sampleRate, channels: channels)
        self.sampleRate = sampleRate
        self.channels = channels
        isEnabled = enabled
        nextSourceFrame = startFrame
        blockFrames = Int((Double(sampleRate) * Self.blockDuration).rounded())
        let gapFrames = Int((Double(sampleRate) * Self.gap).rounded())
        headFrames = gapFrames / 2
        tailFrames = gapFrames - headFrames
        fadeFrames = sampleRate / 100
        minimumPauseFrames = Int((Double(sampleRate) * Self.minimumPause).rounded())
    }

    /// The note's noise floor so far in dBFS, or nil before any block above digital silence.
    public var noiseFloorDecibels: Float? { floor.decibels }

    /// Blocks quieter than this (dBFS) count as silence now.
    public var thresholdDecibels: Float {
        floor.decibels.map { min($0 + Self.marginDecibels, Self.ceilingDecibels) } ?? NoiseFloor.lowestDecibels
    }

    /// Input frames held back (waiting for a verdict or in a pause), at most `minimumPause` plus one block.
    public var heldFrames: Int { (block.count + fade.count + held.count) / channels }

    /// Takes whole interleaved frames (a trailing partial frame is ignored); `emit` receives each run of frames
    /// let through with the source frame of its first frame, valid only during the call.
    public func process<E: Error>(
        _ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void
    ) throws(E) {
        if !isEnabled { try release(emit) }
        let frames = input.count / channels
        var offset = 0
        while offset < frames {
            let count = min(frames - offset, blockFrames - blockFramesSeen)
            let piece = UnsafeBufferPointer(rebasing: input[(offset * channels)..<((offset + count) * channels)])
            var squares: Int64 = 0
            for sample in piece { squares &+= Int64(sample) * Int64(sample) }
            blockSquares &+= squares
            if isEnabled {
                if block.isEmpty { blockSourceFrame = nextSourceFrame }
                block.append(contentsOf: piece)
            } else {
                try emit(piece, nextSourceFrame)
            }
            nextSourceFrame += Int64(count)
            blockFramesSeen += count
            offset += count
            if blockFramesSeen == blockFrames { try completeBlock(emit) }
        }
    }

    /// Ends the item: the last partial block gets its verdict and a pause at the end is shortened too, so the
    /// last frame emitted is the note's last frame.
    public func finish<E: Error>(_ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void) throws(E) {
        if !isEnabled { try release(emit) }
        if blockFramesSeen > 0 { try completeBlock(emit) }
        try endRun(emit)
    }

    /// Drops what is held and continues from `sourceFrame` (a seek); the noise floor, a property of the note, is kept.
    public func reset(toSourceFrame sourceFrame: Int64) {
        blockSquares = 0
        blockFramesSeen = 0
        block.removeAll(keepingCapacity: true)
        clearRun()
        nextSourceFrame = sourceFrame
    }

    /// The verdict on the block just measured (possibly partial, at the end).
    private func completeBlock<E: Error>(_ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void) throws(E) {
        let meanSquare = Double(blockSquares) / Double(blockFramesSeen * channels)
        let level = meanSquare > 0 ? Float(10 * log10(meanSquare / (32767.0 * 32767.0))) : -Float.infinity
        floor.add(level)
        blockSquares = 0
        blockFramesSeen = 0
        guard !block.isEmpty else { return }
        if level < thresholdDecibels {
            try addSilence(emit)
        } else {
            try endRun(emit)
            try block.withUnsafeBufferPointer { samples throws(E) in try emit(samples, blockSourceFrame) }
        }
        block.removeAll(keepingCapacity: true)
    }

    /// Adds the silent block to the run: its first `headFrames` go out now, the next `fadeFrames` are kept for the
    /// crossfade, the rest is held.
    private func addSilence<E: Error>(_ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void) throws(E) {
        if runFrames == 0 { runSourceFrame = blockSourceFrame }
        let frames = block.count / channels
        let toHead = min(max(headFrames - runFrames, 0), frames)
        let toFade = min(max(headFrames + fadeFrames - runFrames, 0), frames)
        try block.withUnsafeBufferPointer { samples throws(E) in
            if toHead > 0 { try emit(UnsafeBufferPointer(rebasing: samples[0..<(toHead * channels)]), blockSourceFrame) }
            fade.append(contentsOf: samples[(toHead * channels)..<(toFade * channels)])
            if toFade < frames {
                if held.isEmpty { heldSourceFrame = blockSourceFrame + Int64(toFade) }
                held.append(contentsOf: samples[(toFade * channels)...])
            }
        }
        runFrames += frames
        if runFrames > minimumPauseFrames { isPause = true }
        // In a pause only the tail is kept; trimming in batches keeps the work per frame constant.
        if isPause && held.count > 2 * tailFrames * channels { trimHeldToTail() }
    }

    /// Lets the run out: whole if it was no pause, else as the gap (head already out, crossfade, tail).
    private func endRun<E: Error>(_ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void) throws(E) {
        guard runFrames > 0 else { return }
        if isPause {
            trimHeldToTail()
            // The tail fades in over the frames that followed the head.
            let fadeCount = min(fade.count, held.count) / channels
            for frame in 0..<fadeCount {
                let weight = (Float(frame) + 0.5) / Float(fadeCount)
                for channel in 0..<channels {
                    let index = frame * channels + channel
                    let mixed = (Float(fade[index]) * (1 - weight) + Float(held[index]) * weight).rounded()
                    held[index] = Int16(min(max(mixed, -32768), 32767))
                }
            }
            try held.withUnsafeBufferPointer { samples throws(E) in try emit(samples, heldSourceFrame) }
        } else {
            let fadeSourceFrame = runSourceFrame + Int64(headFrames)
            if !fade.isEmpty { try fade.withUnsafeBufferPointer { samples throws(E) in try emit(samples, fadeSourceFrame) } }
            if !held.isEmpty { try held.withUnsafeBufferPointer { samples throws(E) in try emit(samples, heldSourceFrame) } }
        }
        clearRun()
    }

    /// Keeps the latest `tailFrames` of the held frames.
    private func trimHeldToTail() {
        let excess = held.count / channels - tailFrames
        guard excess > 0 else { return }
        held.removeFirst(excess * channels)
        heldSourceFrame += Int64(excess)
    }

    /// With skipping off: what is held goes out as it stands, a pause in progress as its gap.
    private func release<E: Error>(_ emit: (UnsafeBufferPointer<Int16>, Int64) throws(E) -> Void) throws(E) {
        try endRun(emit)
        guard !block.isEmpty else { return }
        try block.withUnsafeBufferPointer { samples throws(E) in try emit(samples, blockSourceFrame) }
        block.removeAll(keepingCapacity: true)
    }

    private func clearRun() {
        runFrames = 0
        isPause = false
        fade.removeAll(keepingCapacity: true)
        held.removeAll(keepingCapacity: true)
    }
}
