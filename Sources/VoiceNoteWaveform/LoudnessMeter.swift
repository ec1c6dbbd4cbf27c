import CEBUR128
import Glibc
import VoiceNoteCodec
import VoiceNoteCore

/// Measures `Loudness` as PCM goes by: libebur128 (the reference implementation of EBU R128) for the integrated
/// loudness and range over every frame, and for the true peak over the stretches that can hold it
/// (`TruePeakScanner`). Fed by the waveform's decode pass and the recorder's encoder thread, so no note is decoded
/// twice for it.
///
/// Memory grows by 16 bytes per 100 ms of audio (libebur128 keeps every gating block for the exact answer; 576 KB
/// for an hour). Not thread-safe: one thread feeds it; a finished meter may be handed to another thread (after a
/// join) for `combined(_:)`.
public final class LoudnessMeter: @unchecked Sendable {
    /// The rate of the PCM fed.
    public let sampleRate: Int
    /// Channels per interleaved frame of the PCM fed.
    public let channels: Int
    private var state: UnsafeMutablePointer<ebur128_state>?
    private var truePeak: TruePeakScanner

    /// Makes a meter for interleaved PCM of `channels` channels at `sampleRate`, weighted by BS.1770 for where
    /// `order` puts each channel (surrounds +1.5 dB, LFE not counted).
    /// - Throws: `.invalidArgument` for a rate outside 16…2 822 400 Hz or channels outside 1…64; `.noMemory` when
    ///   libebur128 cannot allocate its state.
    public init(sampleRate: Int, channels: Int, order: ChannelOrder = .wave) throws(VoiceNoteError) {
        guard (16...2_822_400).contains(sampleRate) else {
            throw VoiceNoteError(.invalidArgument, "loudness: sample rate \(sampleRate) is outside 16…2822400")
        }
        guard (1...64).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "loudness: channel count \(channels) is outside 1…64")
        }
        let mode = Int32(bitPattern: EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue)
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw VoiceNoteError(.noMemory, "loudness: libebur128 could not make its state")
        }
        for (index, place) in Self.places(channels: channels, order: order).enumerated() {
            _ = ebur128_set_channel(state, UInt32(index), Int32(place.rawValue))
        }
        self.state = state
        self.sampleRate = sampleRate
        self.channels = channels
        truePeak = try TruePeakScanner(sampleRate: sampleRate, channels: channels)
    }

    deinit {
        ebur128_destroy(&state)
        truePeak.close()
    }

    /// Where each channel sits, for its weight: WAV's order is libebur128's default map (L, R, C, LFE unused, Ls,
    /// Rs; further channels unused); Vorbis's is mapped from RFC 7845.
    static func places(channels: Int, order: ChannelOrder) -> [channel] {
        switch (order, channels) {
        case (.wave, _), (.vorbis, 1...2): return []
        case (.vorbis, 3): return [EBUR128_LEFT, EBUR128_CENTER, EBUR128_RIGHT]
        case (.vorbis, 4): return [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case (.vorbis, 5): return [EBUR128_LEFT, EBUR128_CENTER, EBUR128_RIGHT, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND]
        case (.vorbis, 6):
            return [EBUR128_LEFT, EBUR128_CENTER, EBUR128_RIGHT, EBUR128_LEFT_SURROUND, EBUR128_RIGHT_SURROUND, EBUR128_UNUSED]
        case (.vorbis, 7):
            return [EBUR128_LEFT, EBUR128_CENTER, EBUR128_RIGHT, EBUR128_Mp090, EBUR128_Mm090, EBUR128_Mp180, EBUR128_UNUSED]
        case (.vorbis, 8):
            return [EBUR128_LEFT, EBUR128_CENTER, EBUR128_RIGHT, EBUR128_Mp090, EBUR128_Mm090, EBUR128_Mp135, EBUR128_Mm135,
                    EBUR128_UNUSED]
        default: return []
        }
    }

    /// Adds interleaved 16-bit samples (whole frames; a trailing partial frame is ignored).
    public func append(_ interleaved: UnsafeBufferPointer<Int16>) {
        guard let base = interleaved.baseAddress else { return }
        let frames = interleaved.count / channels
        guard frames > 0 else { return }
        _ = ebur128_add_frames_short(state, base, frames)
        truePeak.append(base, frames: frames)
    }

    /// The loudness of everything fed so far.
    public var loudness: Loudness {
        Self.combined([self])
    }

    /// The loudness of the audio fed to `meters` taken as one programme (the ranges of one file decoded in parallel):
    /// the gating blocks of all of them together, the highest true peak. `.silent` for no meters.
    public static func combined(_ meters: [LoudnessMeter]) -> Loudness {
        guard !meters.isEmpty else { return .silent }
        var states: [UnsafeMutablePointer<ebur128_state>?] = meters.map(\.state)
        var integrated = -Double.infinity
        var range = 0.0
        states.withUnsafeMutableBufferPointer { pointer in
            if ebur128_loudness_global_multiple(pointer.baseAddress, pointer.count, &integrated) != 0 {
                integrated = -.infinity
            }
            if ebur128_loudness_range_multiple(pointer.baseAddress, pointer.count, &range) != 0 || !range.isFinite {
                range = 0
            }
        }
        if !integrated.isFinite || integrated < Loudness.integratedRange.lowerBound { integrated = -.infinity }
        let peak = meters.map(\.truePeak.peak).max() ?? 0
        let truePeak = peak > 0 ? 20 * log10(peak) : -.infinity
        return Loudness(integrated: integrated, range: max(0, range), truePeak: truePeak)
    }
}
