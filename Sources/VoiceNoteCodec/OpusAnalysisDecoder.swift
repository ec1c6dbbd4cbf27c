import COpus
import CShims
import VoiceNoteCore

/// Ogg Opus with channel-mapping family 0, decoded for analysis with libogg and a plain `OpusDecoder` at 16 kHz
/// (SPEC §5.2: SILK's own rate, and no multistream API with its per-packet CPU probe). The only libopus caller.
final class OpusAnalysisDecoder: AudioDecoder {
    /// 16 kHz: SILK's rate, 1.27x cheaper than 48 kHz on these machines.
    static let analysisRate = 16_000
    private static let decimation = 48_000 / analysisRate
    /// The longest Opus packet is 120 ms.
    private static let maximumPacketFrames = analysisRate * 120 / 1000

    let info: StreamInfo
    let exactFrameCount: Int64?
    var outputRate: Int { Self.analysisRate }
    var outputChannels: Int { header.channels }

    private let reader: OggReader
    private let header: OpusHeader
    private let decoder: OpaquePointer
    private var pcm: [Int16]
    private var framesToSkip: Int
    private var framesLeft: Int64
    private var packetIndex = 0

    /// Opens the stream whose header and last granule `OpusProbe` read; `source` is rewound here.
    init(source: ByteSource, probe: OpusProbe) throws(VoiceNoteError) {
        header = probe.header
        info = probe.info
        try source.seek(to: 0)
        reader = OggReader(source: source, accepts: OpusHeader.isHeader)
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(Self.analysisRate), Int32(header.channels), &error),
              error == OPUS_OK else {
            throw VoiceNoteError(.internal, "opus_decoder_create failed (\(error))")
        }
        self.decoder = decoder
        if header.outputGain != 0 { _ = vnshim_opus_decoder_set_gain(decoder, Int32(header.outputGain)) }
        pcm = [Int16](repeating: 0, count: Self.maximumPacketFrames * header.channels)
        framesToSkip = (header.preSkip + Self.decimation / 2) / Self.decimation
        let total = max(0, probe.lastGranule - Int64(header.preSkip)) / Int64(Self.decimation)
        exactFrameCount = total
        framesLeft = total
    }

    deinit { opus_decoder_destroy(decoder) }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        while framesLeft > 0 {
            guard let packet = try reader.nextPacket() else { return false }
            packetIndex += 1
            guard packetIndex > 2, packet.bytes.count > 0 else { continue }  // OpusHead, OpusTags
            let decoded = pcm.withUnsafeMutableBufferPointer { out -> Int32 in
                guard let out = out.baseAddress else { return OPUS_BAD_ARG }
                return opus_decode(decoder, packet.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                            Int32(packet.bytes.count), out, Int32(Self.maximumPacketFrames), 0)
            }
            guard decoded > 0 else { continue }  // a damaged packet: skipped, as a player would
            var start = min(Int(decoded), framesToSkip)
            framesToSkip -= start
            let end = Int(min(Int64(decoded), Int64(start) + framesLeft))
            start = min(start, end)
            guard end > start else { continue }
            framesLeft -= Int64(end - start)
            pcm.withUnsafeBufferPointer { all in
                let channels = header.channels
                consume(PCMChunk(samples: UnsafeBufferPointer(rebasing: all[(start * channels)..<(end * channels)]),
                                 channels: channels))
            }
            return true
        }
        return false
    }
}
