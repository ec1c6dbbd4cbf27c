import VoiceNoteCore
import VoiceNoteSources

/// Interleaved 16-bit PCM handed to a decoder's consumer; valid only during the call.
public struct PCMChunk {
    /// Interleaved samples, `frames * channels` of them.
    public let samples: UnsafeBufferPointer<Int16>
    /// Channels per frame.
    public let channels: Int
    /// Frames in the chunk.
    public var frames: Int { channels > 0 ? samples.count / channels : 0 }
}

/// The order of the channels in a decoder's interleaved output (what a loudness meter weights by).
public enum ChannelOrder: Sendable, Equatable {
    /// WAV's and FFmpeg's: front left, front right, centre, LFE, back left, back right, side left, side right.
    case wave
    /// Vorbis's and Opus's (RFC 7845 §5.1.1.2): left, centre, right, surrounds, LFE last.
    case vorbis
}

/// A decoder over a `ByteSource`, chosen by content (`Decoders.open`). Output is interleaved int16, the scale
/// the waveform (docs/waveform.md) is defined on.
public protocol AudioDecoder: AnyObject {
    /// What the container says about the stream.
    var info: StreamInfo { get }
    /// The rate of the PCM this decoder produces (16 kHz for Opus analysis, else the stream's rate).
    var outputRate: Int { get }
    /// Channels of the PCM this decoder produces.
    var outputChannels: Int { get }
    /// The order of those channels (the same for one or two).
    var channelOrder: ChannelOrder { get }
    /// Frames this decoder will produce at `outputRate`, when known exactly in advance.
    var exactFrameCount: Int64? { get }
    /// Decodes the next piece and passes it to `consume`; returns false at the end of the stream.
    /// Damaged packets are skipped; only a failure to read the source is thrown.
    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool
    /// Whether a packet was skipped as damaged so far (its frames missing from the output, which then no longer
    /// lines up with the packets' stated durations). False where the format's timestamps keep it in line (FFmpeg's).
    var skippedDamagedPacket: Bool { get }
    /// Makes the next `decodeNext` start at output frame `frame` (clamped to 0 and, where known, the length):
    /// sample-accurate for Opus (libopusfile, with pre-roll) and for the FFmpeg formats whose frames carry
    /// timestamps. `.unsupported` for the analysis decoders, which only read forward.
    func seek(toFrame frame: Int64) throws(VoiceNoteError)
}

extension AudioDecoder {
    /// The length in frames at `outputRate` where it is known: exactly, or stated by the container or the frames'
    /// headers (`info` not an estimate); nil for an estimate, which the audio may outrun. The player bounds seeking
    /// by it; the waveform lays its buckets over it (and re-buckets what arrived when the audio disagrees).
    public var knownFrameCount: Int64? {
        let stated = info.duration * Double(outputRate)
        return exactFrameCount ?? (info.durationIsEstimate || !stated.isFinite ? nil : Int64(min(max(stated, 0), 9e15).rounded()))
    }

    /// Decoders whose output is in WAV's order (FFmpeg's, and mono or stereo Opus).
    public var channelOrder: ChannelOrder { .wave }

    /// Decoders whose output follows the timestamps, or that count no damage.
    public var skippedDamagedPacket: Bool { false }

    /// Decoders that only read forward (the analysis paths).
    public func seek(toFrame frame: Int64) throws(VoiceNoteError) {
        throw VoiceNoteError(.unsupported, "this decoder reads forward only; open the source for playback to seek")
    }
}
