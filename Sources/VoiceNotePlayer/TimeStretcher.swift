import VoiceNoteCore

/// Changes the speed of interleaved int16 audio with its pitch kept, through libsonic (`SonicStream`), and keeps
/// count of the input its output stands for, so the player can map what it hears back to the note's time.
///
/// **Rate changes.** `setRate` takes effect with the next input. libsonic would otherwise finish the input it
/// holds and any pending copy-through at the old speed — at rates near 1 that copy-through lasts up to a hundred
/// pitch periods (1.02 → 2: 0.56 s of speech played late). So at a change the stretcher first lets libsonic copy
/// what it holds unchanged (at 1.0 libsonic copies its input straight through: under 31 ms of audio, continuous,
/// no splice), flushes the then-empty stream to clear its copy-through, and sets the new speed: the new rate
/// applies from the first frame written after the change.
///
/// **Backlog.** libsonic does not tell how much input it holds, only its output (`sonicSamplesAvailable`, which
/// the stretcher always empties). The input its output stands for is counted as output × rate and kept within
/// what libsonic can hold (fewer than `maximumBacklogFrames` input frames after a write), so the count stays within
/// 31 ms of the truth (at 48 kHz), never decreases, and is exact at 1.0, after a rate change and after `finish`.
///
/// At exactly 1.0 with nothing held, input passes through without a copy. Not thread-safe: one thread (the
/// player's decoder thread) owns a stretcher; other threads hand it a new rate through the player.
public final class TimeStretcher {
    /// Frames per second of the input and the output.
    public let sampleRate: Int
    /// Channels per interleaved frame.
    public let channels: Int
    /// The rate in effect for the input written so far.
    public private(set) var rate: PlaybackRate = .normal
    /// The rate the next input is processed at: the last one `setRate` asked for.
    public private(set) var requestedRate: PlaybackRate
    /// Input frames written since creation or the last `reset`.
    public private(set) var framesWritten: Int64 = 0
    /// The most input frames libsonic holds back after a write (twice its longest pitch period).
    public var maximumBacklogFrames: Int { sonic.maximumHeldFrames }

    private var sonic: SonicStream
    /// Whether libsonic may hold input or a pending copy-through: it was written to at a speed other than 1.
    private var sonicInUse = false
    /// Input frames the output so far stands for (fractional while stretching).
    private var accounted: Double = 0
    /// Input goes to libsonic in pieces of at most this many frames (10 ms), so its buffers stay small.
    private let pieceFrames: Int
    /// libsonic's output, reused.
    private var output: [Int16] = []

    /// Makes a stretcher.
    /// - Parameters:
    ///   - sampleRate: 8000…384000 Hz.
    ///   - channels: 1…255 interleaved channels.
    ///   - rate: the rate of the first input.
    /// - Throws: `.invalidArgument` for a rate or channel count out of range, `.noMemory` when libsonic cannot
    ///   allocate its stream.
    public init(sampleRate: Int, channels: Int, rate: PlaybackRate = .normal) throws(VoiceNoteError) {
        try Self.checkFormat(sampleRate: sampleRate, channels: channels)
        self.sampleRate = sampleRate
        self.channels = channels
        requestedRate = rate
        pieceFrames = sampleRate / 100
        sonic = try SonicStream(sampleRate: sampleRate, channels: channels)
    }

    /// `.invalidArgument` unless `lowest`…384000 Hz and 1…255 channels: the formats the player's stages take (from
    /// 8000 Hz; `FormatConverter`'s input from `FormatConverter.lowestInputRate`).
    static func checkFormat(sampleRate: Int, channels: Int, lowest: Int = 8000) throws(VoiceNoteError) {
        guard (lowest...384_000).contains(sampleRate) else {
            throw VoiceNoteError(.invalidArgument, "sample rate \(sampleRate) Hz is outside \(lowest)…384000")
        }
        guard (1...255).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "\(channels) channels is outside 1…255")
        }
    }

    /// Input frames the output emitted so far stands for; never decreases, never exceeds `framesWritten`.
    public var framesConsumed: Int64 { Int64(accounted) }

    /// Input frames written but not yet heard in the output: what to subtract from the source time of the last
    /// frame written to get the source time of the next frame out.
    public var backlogFrames: Int { Int(framesWritten - framesConsumed) }

    /// Asks for a new rate; it applies from the next input frame written.
    public func setRate(_ rate: PlaybackRate) {
        requestedRate = rate
    }

    /// Stretches whole interleaved frames (a trailing partial frame is ignored). `emit` receives each piece of
    /// output with the input frames consumed through its end (`framesConsumed` after it); the samples are valid
    /// only during the call.
    /// - Throws: `.noMemory` when libsonic cannot grow its buffers.
    public func process(
        _ input: UnsafeBufferPointer<Int16>, _ emit: (UnsafeBufferPointer<Int16>, Int64) -> Void
    ) throws(VoiceNoteError) {
        try applyRequestedRate(emit)
        let frames = input.count / channels
        guard frames > 0 else { return }
        if rate == .normal {
            // Nothing is held (the change to 1.0 emptied libsonic): pass through.
            framesWritten += Int64(frames)
            accounted = Double(framesWritten)
            emit(UnsafeBufferPointer(rebasing: input[0..<(frames * channels)]), framesWritten)
            return
        }
        var offset = 0
        while offset < frames {
            let count = min(pieceFrames, frames - offset)
            try sonic.write(UnsafeBufferPointer(rebasing: input[(offset * channels)..<((offset + count) * channels)]))
            sonicInUse = true
            framesWritten += Int64(count)
            offset += count
            drain(stretchedAt: rate.value, emit)
        }
    }

    /// Ends the item: libsonic plays out what it holds, and the output then stands for every frame written.
    /// - Throws: `.noMemory` when libsonic cannot grow its buffers.
    public func finish(_ emit: (UnsafeBufferPointer<Int16>, Int64) -> Void) throws(VoiceNoteError) {
        guard sonicInUse else { return }
        try sonic.flush()
        sonicInUse = false
        drain(stretchedAt: nil, emit)
    }

    /// Drops what libsonic holds (a seek) and counts from zero again; the requested rate is kept.
    /// - Throws: `.noMemory` when a new libsonic stream cannot be allocated.
    public func reset() throws(VoiceNoteError) {
        if sonicInUse {
            // A new stream forgets held input, pending copy-through and pitch history in one step.
            sonic = try SonicStream(sampleRate: sampleRate, channels: channels)
            sonic.setSpeed(rate.value)
            sonicInUse = false
        }
        framesWritten = 0
        accounted = 0
    }

    /// Moves to the requested rate at a point where libsonic holds nothing (see the type's documentation).
    private func applyRequestedRate(_ emit: (UnsafeBufferPointer<Int16>, Int64) -> Void) throws(VoiceNoteError) {
        guard requestedRate != rate else { return }
        if sonicInUse {
            sonic.setSpeed(1)
            try sonic.write(UnsafeBufferPointer(start: nil, count: 0))
            drain(stretchedAt: nil, emit)
            try sonic.flush()  // holds nothing now: no output, only the pending copy-through cleared
            drain(stretchedAt: nil, emit)
            sonicInUse = false
        }
        rate = requestedRate
        sonic.setSpeed(rate.value)
    }

    /// Reads all of libsonic's output, counts the input it stands for and emits it. `stretchedAt` is the rate it
    /// was made at, or nil when libsonic holds no input any more (the count is then exact).
    private func drain(stretchedAt speed: Double?, _ emit: (UnsafeBufferPointer<Int16>, Int64) -> Void) {
        let available = sonic.framesAvailable
        if output.count < available * channels {
            output = [Int16](repeating: 0, count: available * channels)
        }
        let frames = output.withUnsafeMutableBufferPointer { sonic.read(into: $0) }
        let written = Double(framesWritten)
        if let speed {
            let leastConsumed = written - Double(sonic.maximumHeldFrames - 1)
            accounted = min(max(accounted + Double(frames) * speed, leastConsumed), written)
        } else {
            accounted = written
        }
        guard frames > 0 else { return }
        let consumed = framesConsumed
        output.withUnsafeBufferPointer { emit(UnsafeBufferPointer(rebasing: $0[0..<(frames * channels)]), consumed) }
    }
}
