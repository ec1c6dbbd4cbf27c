import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// A loaded location on the decoder thread: its source (kept alive while loaded), decoder and pipeline.
final class PlayerItem {
    let generation: UInt64
    let key: LocationKey
    let source: any ByteSource
    let decoder: any AudioDecoder
    let pipeline: PlaybackPipeline
    /// Frames per second of the decoded audio: the file's time scale.
    let sampleRate: Int
    /// Channels of the decoded audio.
    let channels: Int
    /// The length in frames where it is known (exactly, or stated by the container); nil for an estimate, which does
    /// not bound seeking (the audio may run longer; the decoder clamps at the real end).
    let frameCount: Int64?
    /// One past the last source frame given to the device; at the end, the item's real length.
    var lastSourceFrame: Int64?
    /// The frame the decoder produces next, when known (after opening and after a seek).
    private var decoderFrame: Int64? = 0

    /// Opens `location` for playback (on the decoder thread). Throws what opening and probing throw.
    init(_ request: Player.LoadRequest, rate: PlaybackRate, volume: Volume, skipsSilence: Bool) throws(VoiceNoteError) {
        generation = request.generation
        key = request.key
        source = try request.location.open(key: request.key)
        decoder = try Decoders.open(source, purpose: .playback)
        sampleRate = decoder.outputRate
        channels = decoder.outputChannels
        pipeline = try PlaybackPipeline(sampleRate: sampleRate, channels: channels, rate: rate, volume: volume,
                                        skipsSilence: skipsSilence)
        let stated = decoder.info.duration * Double(sampleRate)
        frameCount = decoder.exactFrameCount
            ?? (decoder.info.durationIsEstimate || !stated.isFinite ? nil : Int64(min(max(stated, 0), 9e15)))
    }

    /// What the container says.
    var info: StreamInfo { decoder.info }

    /// The frame at `seconds`, within the item.
    func frame(at seconds: Double) -> Int64 {
        let frame = (seconds * Double(sampleRate)).rounded()
        guard frame.isFinite, frame > 0 else { return 0 }
        return min(Int64(min(frame, 9e15)), frameCount ?? .max)
    }

    /// Makes the next decoded audio start at `frame` and empties the pipeline (settings kept).
    func reposition(to frame: Int64) throws(VoiceNoteError) {
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
