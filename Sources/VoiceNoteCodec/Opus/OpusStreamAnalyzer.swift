import VoiceNoteCore

/// Decodes a recording while it is being written, exactly as `Decoders.open(_, purpose: .analysis)` decodes the
/// finished file. A recorder feeds it the bytes it writes, so the waveform it sends is the one receivers compute
/// from the file, without reading the file again.
public protocol StreamAnalyzer: AnyObject {
    /// Takes the next bytes of the file (whole pages or frames) and passes decoded frames to `consume`.
    func feed(_ bytes: UnsafeRawBufferPointer, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError)
    /// The file is complete: passes what is left.
    func finish(_ consume: (PCMChunk) -> Void)
}

/// Ogg Opus as `OpusAnalysisDecoder` decodes it: same packet reader and decoder at 16 kHz, pre-skip, and the
/// length by the same rule (`OpusTimeline`).
public final class OpusStreamAnalyzer: StreamAnalyzer {
    private let packets = OpusPacketReader(pushedName: "stream")
    private var decoder: OpusPacketDecoder?
    private var timeline = OpusTimeline()
    /// The frames of the newest packet, held back until the next one: the stream's end trims them.
    private var heldBack: [Int16] = []
    private var emitted: Int64 = 0
    private var finished = false

    /// An analyzer waiting for the stream's first page.
    public init() {}

    /// The rate of the PCM it produces (16 kHz).
    public var outputRate: Int { OpusPacketDecoder.analysisRate }

    /// Takes Ogg pages and passes decoded frames to `consume` (one packet behind the input).
    public func feed(_ bytes: UnsafeRawBufferPointer, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) {
        guard !finished else { return }
        try packets.push(bytes)
        while let packet = try packets.nextAudioPacket() {
            timeline.add(packet)
            guard let decoder = try packetDecoder() else { continue }
            releaseHeldBack(consume)
            decoder.decode(packet.bytes) { chunk in heldBack.append(contentsOf: chunk.samples) }
        }
    }

    /// The stream ended: passes the held-back frames, trimmed to the stream's length.
    public func finish(_ consume: (PCMChunk) -> Void) {
        guard !finished, let decoder else { return }
        finished = true
        let header = packets.header
        let length = (try? timeline.length(preSkip: header?.preSkip ?? 0, "stream")) ?? 0
        let allowed = OpusPacketDecoder.frameCount(length: length) - emitted
        heldBack.removeLast(max(0, heldBack.count - Int(max(0, allowed)) * decoder.channels))
        releaseHeldBack(consume)
    }

    /// The decoder, made once the identification header was read.
    private func packetDecoder() throws(VoiceNoteError) -> OpusPacketDecoder? {
        if let decoder { return decoder }
        guard let header = packets.header else { return nil }
        let made = try OpusPacketDecoder(header: header)
        decoder = made
        return made
    }

    private func releaseHeldBack(_ consume: (PCMChunk) -> Void) {
        guard let decoder, !heldBack.isEmpty else { return }
        heldBack.withUnsafeBufferPointer { consume(PCMChunk(samples: $0, channels: decoder.channels)) }
        emitted += Int64(heldBack.count / decoder.channels)
        heldBack.removeAll(keepingCapacity: true)
    }
}
