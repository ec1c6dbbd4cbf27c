import COpus
import COpusShims
import VoiceNoteCore
import VoiceNoteSources

/// Opus packets of a family-0 stream decoded with a plain `OpusDecoder` at 16 kHz (docs/waveform.md: SILK's own rate, and
/// no multistream API with its per-packet CPU probe), the pre-skip dropped and the length capped. The only libopus
/// caller; shared by the file decoder below and by `OpusStreamAnalyzer` (a recording's own pages).
final class OpusPacketDecoder {
    /// 16 kHz: SILK's rate, 1.27x cheaper than 48 kHz on these machines.
    static let analysisRate = 16_000
    static let decimation = 48_000 / analysisRate
    /// The longest Opus packet is 120 ms.
    private static let maximumPacketFrames = analysisRate * 120 / 1000

    let channels: Int
    private let decoder: OpaquePointer
    private var pcm: [Int16]
    private var framesToSkip: Int
    /// Frames at 16 kHz still allowed out (the stream's length), or nil while unknown.
    var framesLeft: Int64?
    /// Whether a packet failed to decode and was skipped.
    private(set) var skippedDamagedPacket = false

    /// A decoder for the stream `header` describes; `dropsPreSkip` false for one that starts inside the stream.
    init(header: OpusHeader, dropsPreSkip: Bool = true) throws(VoiceNoteError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(Self.analysisRate), Int32(header.channels), &error),
              error == OPUS_OK else {
            throw VoiceNoteError(.internal, "opus_decoder_create failed (\(error))")
        }
        self.decoder = decoder
        if header.outputGain != 0 { _ = vnshim_opus_decoder_set_gain(decoder, Int32(header.outputGain)) }
        channels = header.channels
        pcm = [Int16](repeating: 0, count: Self.maximumPacketFrames * header.channels)
        framesToSkip = dropsPreSkip ? Self.preSkipFrames(header) : 0
    }

    /// The frames at 16 kHz the pre-skip drops from the stream's start.
    static func preSkipFrames(_ header: OpusHeader) -> Int {
        (header.preSkip + decimation / 2) / decimation
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Frames at 16 kHz in a stream `length` samples long at 48 kHz (after the pre-skip).
    static func frameCount(length: Int64) -> Int64 {
        max(0, length) / Int64(decimation)
    }

    /// The duration of a packet in 48 kHz samples from its TOC, as libopusfile counts it: 0 when the TOC is
    /// invalid or claims more than 120 ms.
    static func duration(of packet: UnsafeRawBufferPointer) -> Int {
        guard let data = packet.baseAddress?.assumingMemoryBound(to: UInt8.self), packet.count > 0,
              packet.count <= Int(Int32.max) else { return 0 }
        let frames = opus_packet_get_nb_frames(data, Int32(packet.count))
        let perFrame = opus_packet_get_samples_per_frame(data, 48_000)
        guard frames > 0, perFrame > 0, Int(frames) * Int(perFrame) <= 5760 else { return 0 }
        return Int(frames) * Int(perFrame)
    }

    /// Decodes one audio packet and passes its frames (after pre-skip, within the length) to `consume`; returns the
    /// frames passed. A damaged packet is skipped, as a player would.
    @discardableResult
    func decode(_ packet: UnsafeRawBufferPointer, _ consume: (PCMChunk) -> Void) -> Int {
        guard packet.count > 0, framesLeft ?? 1 > 0 else { return 0 }
        let decoded = pcm.withUnsafeMutableBufferPointer { out -> Int32 in
            guard let out = out.baseAddress else { return OPUS_BAD_ARG }
            return opus_decode(decoder, packet.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(packet.count),
                               out, Int32(Self.maximumPacketFrames), 0)
        }
        guard decoded > 0 else {
            skippedDamagedPacket = true
            return 0
        }
        let start = min(Int(decoded), framesToSkip)
        framesToSkip -= start
        var end = Int(decoded)
        if let left = framesLeft { end = Int(min(Int64(end), Int64(start) + left)) }
        guard end > start else { return 0 }
        framesLeft = framesLeft.map { $0 - Int64(end - start) }
        pcm.withUnsafeBufferPointer { all in
            consume(PCMChunk(samples: UnsafeBufferPointer(rebasing: all[(start * channels)..<(end * channels)]), channels: channels))
        }
        return end - start
    }
}

/// Ogg Opus with channel-mapping family 0, decoded for analysis from a `ByteSource` at 16 kHz, its length known
/// in advance (`OpusProbe`).
final class OpusAnalysisDecoder: AudioDecoder {
    let info: StreamInfo
    let exactFrameCount: Int64?
    var outputRate: Int { OpusPacketDecoder.analysisRate }
    var outputChannels: Int { decoder.channels }
    var skippedDamagedPacket: Bool { decoder.skippedDamagedPacket }

    private let packets: OpusPacketReader
    private let decoder: OpusPacketDecoder

    /// Opens the stream `OpusProbe` read; `source` is rewound here.
    init(source: ByteSource, probe: OpusProbe) throws(VoiceNoteError) {
        info = probe.info
        try source.seek(to: 0)
        packets = OpusPacketReader(source: source)
        decoder = try OpusPacketDecoder(header: probe.header)
        let total = OpusPacketDecoder.frameCount(length: probe.length)
        exactFrameCount = total
        decoder.framesLeft = total
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        while decoder.framesLeft ?? 0 > 0 {
            guard let packet = try packets.nextAudioPacket() else { return false }
            if decoder.decode(packet.bytes, consume) > 0 { return true }
        }
        return false
    }
}
