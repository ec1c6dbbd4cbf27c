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

/// Ogg Opus as `OpusAnalysisDecoder` decodes it: same decoder at 16 kHz, pre-skip and end trimming.
public final class OpusStreamAnalyzer: StreamAnalyzer {
    private let pages = PushSource()
    private let reader: OggReader
    private var packets: OpusPacketDecoder?
    private var packetIndex = 0
    private var lastGranule: Int64 = 0
    /// The frames of the newest packet, held back until the next one: the stream's end trims them.
    private var heldBack: [Int16] = []
    private var finished = false

    /// An analyzer waiting for the stream's first page.
    public init() {
        reader = OggReader(source: pages, accepts: OpusHeader.isHeader)
    }

    /// The rate of the PCM it produces (16 kHz).
    public var outputRate: Int { OpusPacketDecoder.analysisRate }

    /// Takes Ogg pages and passes decoded frames to `consume` (one packet behind the input).
    public func feed(_ bytes: UnsafeRawBufferPointer, _ consume: (PCMChunk) -> Void) throws(VoiceNoteError) {
        guard !finished else { return }
        pages.append(bytes)
        reader.resume()
        while let packet = try reader.nextPacket() {
            packetIndex += 1
            if packet.granule > 0 { lastGranule = packet.granule }
            if packetIndex == 1 {
                packets = try OpusPacketDecoder(header: OpusHeader(packet: packet.bytes))
                continue
            }
            guard packetIndex > 2, let packets else { continue }  // OpusTags
            releaseHeldBack(consume)
            packets.decode(packet.bytes) { chunk in heldBack.append(contentsOf: chunk.samples) }
        }
    }

    /// The stream ended: passes the held-back frames, trimmed to the length the last granule gives.
    public func finish(_ consume: (PCMChunk) -> Void) {
        guard !finished, let packets else { return }
        finished = true
        let allowed = packets.frameCount(lastGranule: lastGranule) - emitted
        heldBack.removeLast(max(0, heldBack.count - Int(max(0, allowed)) * packets.channels))
        releaseHeldBack(consume)
    }

    private var emitted: Int64 = 0

    private func releaseHeldBack(_ consume: (PCMChunk) -> Void) {
        guard let packets, !heldBack.isEmpty else { return }
        heldBack.withUnsafeBufferPointer { consume(PCMChunk(samples: $0, channels: packets.channels)) }
        emitted += Int64(heldBack.count / packets.channels)
        heldBack.removeAll(keepingCapacity: true)
    }
}

/// A byte source fed from memory as data arrives; reads return 0 until more is appended.
final class PushSource: ByteSource {
    let name = "stream"
    var size: Int64? { nil }
    private(set) var position: Int64 = 0
    private var pending: [UInt8] = []
    private var offset = 0

    func append(_ bytes: UnsafeRawBufferPointer) {
        if offset > 0 {
            pending.removeFirst(offset)
            offset = 0
        }
        pending.append(contentsOf: bytes)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(VoiceNoteError) -> Int {
        let count = min(buffer.count, pending.count - offset)
        guard count > 0 else { return 0 }
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + count)])) }
        offset += count
        position += Int64(count)
        return count
    }

    func seek(to offset: Int64) throws(VoiceNoteError) {
        throw VoiceNoteError(.unsupported, "a pushed stream cannot seek")
    }
}
