import COpus
import CShims
import VoiceNoteCore

/// Opus packets of a family-0 stream decoded with a plain `OpusDecoder` at 16 kHz (SPEC §5.2: SILK's own rate, and
/// no multistream API with its per-packet CPU probe), the pre-skip dropped and the length capped. The only libopus
/// caller; shared by the file decoder below and by `OpusStreamAnalyzer` (a recording's own pages).
final class OpusPacketDecoder {
    /// 16 kHz: SILK's rate, 1.27x cheaper than 48 kHz on these machines.
    static let analysisRate = 16_000
    static let decimation = 48_000 / analysisRate
    /// The longest Opus packet is 120 ms.
    private static let maximumPacketFrames = analysisRate * 120 / 1000

    let channels: Int
    private let preSkip: Int
    private let decoder: OpaquePointer
    private var pcm: [Int16]
    private var framesToSkip: Int
    /// Frames at 16 kHz still allowed out (the stream's length), or nil while unknown.
    var framesLeft: Int64?

    init(header: OpusHeader) throws(VoiceNoteError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(Self.analysisRate), Int32(header.channels), &error),
              error == OPUS_OK else {
            throw VoiceNoteError(.internal, "opus_decoder_create failed (\(error))")
        }
        self.decoder = decoder
        if header.outputGain != 0 { _ = vnshim_opus_decoder_set_gain(decoder, Int32(header.outputGain)) }
        channels = header.channels
        preSkip = header.preSkip
        pcm = [Int16](repeating: 0, count: Self.maximumPacketFrames * header.channels)
        framesToSkip = (header.preSkip + Self.decimation / 2) / Self.decimation
    }

    deinit { opus_decoder_destroy(decoder) }

    /// Frames at 16 kHz in a stream whose last granule position is `granule`.
    func frameCount(lastGranule granule: Int64) -> Int64 {
        max(0, granule - Int64(preSkip)) / Int64(Self.decimation)
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
        guard decoded > 0 else { return 0 }
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
/// in advance from the last granule (`OpusProbe`).
final class OpusAnalysisDecoder: AudioDecoder {
    let info: StreamInfo
    let exactFrameCount: Int64?
    var outputRate: Int { OpusPacketDecoder.analysisRate }
    var outputChannels: Int { packets.channels }

    private let reader: OggReader
    private let packets: OpusPacketDecoder
    private var packetIndex = 0

    /// Opens the stream whose header and last granule `OpusProbe` read; `source` is rewound here.
    init(source: ByteSource, probe: OpusProbe) throws(VoiceNoteError) {
        info = probe.info
        try source.seek(to: 0)
        reader = OggReader(source: source, accepts: OpusHeader.isHeader)
        packets = try OpusPacketDecoder(header: probe.header)
        let total = packets.frameCount(lastGranule: probe.lastGranule)
        exactFrameCount = total
        packets.framesLeft = total
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        while packets.framesLeft ?? 0 > 0 {
            guard let packet = try reader.nextPacket() else { return false }
            packetIndex += 1
            guard packetIndex > 2 else { continue }  // OpusHead, OpusTags
            if packets.decode(packet.bytes, consume) > 0 { return true }
        }
        return false
    }
}
