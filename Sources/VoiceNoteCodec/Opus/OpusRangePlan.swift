import VoiceNoteCore
import VoiceNoteSources

/// Where a long Ogg Opus file splits (`Decoders.ranges`): one pass over its packets, without decoding, sums their
/// durations (what `OpusAnalysisDecoder` outputs from them, less the pre-skip) and notes the pages that begin a
/// packet. Each range is cut at such a page, the first at or after an equal share of the frames, and decodes
/// from the last such page at least 80 ms earlier (RFC 7845's pre-roll after a seek). Memory: a few numbers per
/// range, whatever the file's length.
enum OpusRangePlan {
    /// 80 ms at the analysis rate.
    static let preRollFrames = Int64(OpusPacketDecoder.analysisRate * 80 / 1000)

    /// The ranges of `source`, whose probe is `probe` (family 0, one stream); nil when fewer than two fit.
    static func ranges(of source: ByteSource, probe: OpusProbe, count: Int, minimumSeconds: Double) throws(VoiceNoteError) -> DecodingRanges? {
        let total = OpusPacketDecoder.frameCount(length: probe.length)
        let minimum = Int64((minimumSeconds * Double(OpusPacketDecoder.analysisRate)).rounded(.up))
        let wanted = min(Int64(count), total / max(1, minimum))
        guard wanted >= 2 else { return nil }
        // For cut k (1..<wanted): the first page start at or after its share, and the last one 80 ms before that share.
        let targets = (1..<wanted).map { wanted.dividingFullWidth($0.multipliedFullWidth(by: total)).quotient }
        var cuts = [(offset: Int64, frame: Int64)?](repeating: nil, count: targets.count)
        var preRolls = [(offset: Int64, frame: Int64)?](repeating: nil, count: targets.count)
        try source.seek(to: 0)
        let packets = OpusPacketReader(source: source)
        var position = -Int64(OpusPacketDecoder.preSkipFrames(probe.header))
        while let packet = try packets.nextAudioPacket() {
            if let offset = packet.beginsPageAt, position >= 0 {
                for (k, target) in targets.enumerated() {
                    if position <= target - preRollFrames { preRolls[k] = (offset, position) }
                    if cuts[k] == nil && position >= target { cuts[k] = (offset, position) }
                }
            }
            position += Int64(OpusPacketDecoder.duration(of: packet.bytes) / OpusPacketDecoder.decimation)
        }
        var frames: [Int64] = [0]
        var starts: [DecodingRanges.Start] = [.beginning]
        for k in targets.indices {
            // A cut needs its pre-roll page, and must leave each side its minimum.
            guard let cut = cuts[k], let start = preRolls[k], cut.frame - frames[frames.count - 1] >= minimum,
                  total - cut.frame >= minimum else { continue }
            frames.append(cut.frame)
            starts.append(.page(offset: start.offset, frame: start.frame))
        }
        guard frames.count >= 2 else { return nil }
        frames.append(total)
        return DecodingRanges(frameCount: total, outputRate: OpusPacketDecoder.analysisRate, channels: probe.header.channels,
                              cuts: frames, starts: starts, kind: .opus(probe))
    }
}

/// The analysis decoder's output from a page inside an Ogg Opus stream on: the same packets decoded by the same
/// decoder at 16 kHz, starting cold at that page (the pre-skip belongs to the stream's start, not here), and cut
/// where the stream's length ends it.
final class OpusRangeDecoder: AudioDecoder {
    let info: StreamInfo
    var exactFrameCount: Int64? { nil }
    var outputRate: Int { OpusPacketDecoder.analysisRate }
    var outputChannels: Int { decoder.channels }
    var skippedDamagedPacket: Bool { decoder.skippedDamagedPacket }

    private let reader: OggReader
    private let decoder: OpusPacketDecoder

    /// Reads the stream of `probe` in `source` from the page at `pageOffset`, whose first packet begins output frame
    /// `firstFrame`.
    init(source: ByteSource, probe: OpusProbe, pageOffset: Int64, firstFrame: Int64) throws(VoiceNoteError) {
        info = probe.info
        try source.seek(to: pageOffset)
        reader = OggReader(source: source, serial: probe.serial)
        decoder = try OpusPacketDecoder(header: probe.header, dropsPreSkip: false)
        decoder.framesLeft = max(0, OpusPacketDecoder.frameCount(length: probe.length) - firstFrame)
    }

    func decodeNext(_ consume: (PCMChunk) -> Void) throws(VoiceNoteError) -> Bool {
        while decoder.framesLeft ?? 1 > 0, let packet = try reader.nextPacket() {
            if decoder.decode(packet.bytes, consume) > 0 { return true }
        }
        return false
    }
}
