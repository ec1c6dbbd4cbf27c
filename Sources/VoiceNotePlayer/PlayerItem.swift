import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

/// A loaded location on the decoder thread: its source (kept alive while loaded), decoder and pipeline.
final class PlayerItem {
    let generation: UInt64
    let key: LocationKey
    /// The duration the load was given to show until the real one is known.
    let durationHint: Double?
    let source: any ByteSource
    let decoder: any AudioDecoder
    let pipeline: PlaybackPipeline
    /// Frames per second of the decoded audio: the file's time scale.
    let sampleRate: Int
    /// Channels of the decoded audio.
    let channels: Int
    /// The length in frames where it is known (exactly, or stated by the container); nil for an estimate, which does
    /// not bound seeking (the audio may run longer; the decoder clamps at the real end). A download's becomes known
    /// when its last byte arrives.
    var frameCount: Int64? { decoder.knownFrameCount }
    /// One past the last source frame given to the device; at the end, the item's real length.
    var lastSourceFrame: Int64?
    /// Whether this load of the note was found heard to the listened mark (told at most once per load).
    var reachedListened = false
    /// The frame the decoder produces next, when known (after opening and after a seek).
    private var decoderFrame: Int64? = 0
    /// The note's loudness when it is levelled: the load's, else the one kept from an earlier analysis of the same
    /// media (a URL's, beside its cache entry), else measured on its first seconds (`prefix`); nil when levelling
    /// was off as it loaded, or the pre-pass found nothing to measure.
    let loudness: Loudness?
    /// The note's first frames, decoded by levelling's pre-pass and not yet played (they play first, unless a seek
    /// elsewhere drops them); `prefixEnd` is the frame the decoder produces after them.
    private var prefix: [Int16] = []
    private var prefixEnd: Int64 = 0

    /// Opens the decoder of a location's bytes, `source` (on the decoder thread), levelled by `leveling` from its
    /// first frame. Throws what probing throws, and what decoding the pre-pass throws.
    init(_ request: Player.LoadRequest, source: any ByteSource, rate: PlaybackRate, volume: Volume,
         skipsSilence: Bool, leveling: Leveling = .off) throws(VoiceNoteError) {
        generation = request.generation
        key = request.key
        durationHint = request.durationHint
        self.source = source
        decoder = try Decoders.open(source, purpose: .playback)
        sampleRate = decoder.outputRate
        channels = decoder.outputChannels
        do throws(VoiceNoteError) {
            try TimeStretcher.checkFormat(sampleRate: sampleRate, channels: channels)
        } catch {
            // The file's own format, not an argument of the caller's: audio the player's stages cannot take.
            throw VoiceNoteError(.unsupported, "\(source.name): \(error.message); the player plays 8000…384000 Hz, 1…255 channels")
        }
        var loudness: Loudness?
        if leveling.enabled {
            loudness = request.loudness ?? WaveformAnalysis.keptLoudness(of: source)
            if loudness == nil {
                let (frames, measured) = try Self.preScan(decoder, seconds: Leveling.preScanSeconds)
                prefix = frames
                prefixEnd = Int64(frames.count / max(channels, 1))
                loudness = measured
            }
        }
        self.loudness = loudness
        pipeline = try PlaybackPipeline(sampleRate: sampleRate, channels: channels, rate: rate, volume: volume,
                                        skipsSilence: skipsSilence,
                                        levelingGain: leveling.enabled ? leveling.gain(for: loudness) : nil)
    }

    /// Levelling's pre-pass: the first `seconds` of the note decoded (kept, to play) and their loudness.
    private static func preScan(_ decoder: any AudioDecoder, seconds: Double) throws(VoiceNoteError) -> ([Int16], Loudness?) {
        let wanted = Int(seconds * Double(decoder.outputRate)) * decoder.outputChannels
        var frames: [Int16] = []
        frames.reserveCapacity(wanted)
        let meter = try? LoudnessMeter(sampleRate: decoder.outputRate, channels: decoder.outputChannels,
                                       order: decoder.channelOrder)
        while frames.count < wanted, try decoder.decodeNext({ chunk in
            frames.append(contentsOf: chunk.samples)
            meter?.append(chunk.samples)
        }) {}
        return (frames, meter?.loudness)
    }

    /// What the container says (a download's duration is refined as its bytes arrive).
    var info: StreamInfo { decoder.info }

    /// How much of the item is available, 0…1: a download's share that has arrived; 1 for local bytes.
    var bufferedFraction: Double { (source as? any ArrivingSource)?.arrivedFraction ?? 1 }

    /// The frame at `seconds`, within the item.
    func frame(at seconds: Double) -> Int64 {
        let frame = (seconds * Double(sampleRate)).rounded()
        guard frame.isFinite, frame > 0 else { return 0 }
        return min(Int64(min(frame, 9e15)), frameCount ?? .max)
    }

    /// Makes the next decoded audio start at `frame` and empties the pipeline (settings kept).
    func reposition(to frame: Int64) throws(VoiceNoteError) {
        if !prefix.isEmpty {
            if frame == 0 { return try pipeline.seek(toSourceFrame: 0) }  // the pre-pass's frames play first
            prefix = []
            decoderFrame = prefixEnd
        }
        if decoderFrame != frame {
            decoderFrame = nil
            try decoder.seek(toFrame: frame)
            decoderFrame = frame
        }
        try pipeline.seek(toSourceFrame: frame)
    }

    /// Decodes the next piece into the pipeline; `emit` receives what it makes. Returns false at the end (after the
    /// pipeline gave up everything it held).
    func decodeNext(_ emit: (PlaybackChunk) -> Void) throws(VoiceNoteError) -> Bool {
        if !prefix.isEmpty {
            let frames = prefix
            prefix = []
            decoderFrame = prefixEnd
            try frames.withUnsafeBufferPointer { (samples) throws(VoiceNoteError) in try pipeline.process(samples, emit) }
            return true
        }
        decoderFrame = nil
        var failure: VoiceNoteError?
        let more = try decoder.decodeNext { chunk in
            guard failure == nil else { return }
            do throws(VoiceNoteError) { try pipeline.process(chunk.samples, emit) } catch { failure = error }
        }
        if let failure { throw failure }
        if !more { try pipeline.finish(emit) }
        return more
    }
}
