import VoiceNoteCore
import VoiceNoteSources

/// The pages of an Ogg Opus download read as they arrive, without decoding: the header, and what the packets so
/// far say about the length (`OpusTimeline`, the rule the probe applies to a whole file). It estimates the duration
/// while bytes arrive and, once all have, gives the probe's exact answer.
final class OpusArrivalScan {
    private let source: any ArrivingSource
    private let packets: OpusPacketReader
    private var timeline = OpusTimeline()
    /// Bytes pushed so far (from offset 0).
    private(set) var scanned: Int64 = 0
    /// Bytes before the first audio packet (the headers): left out of the estimate's bytes-per-sample.
    private var headerBytes: Int64?
    /// The most bytes read per `advance`, so a decode step never stalls on a long scan.
    static let step = 256 * 1024

    /// Scans `source` from its start (its read position is put back after every read).
    init(source: any ArrivingSource) {
        self.source = source
        packets = OpusPacketReader(pushedName: source.name)
    }

    /// The identification header, once read.
    var header: OpusHeader? { packets.header }

    /// Reads until the identification header has been read (waiting for the download), or it is plain that no Opus
    /// stream starts the file (a first page of another codec, or the end). Returns the header, nil when not Opus.
    func readHeader() throws(VoiceNoteError) -> OpusHeader? {
        while packets.header == nil {
            // Every stream's first page comes first in an Ogg file: one without an Opus one after 64 KiB is not Opus.
            if packets.serial == nil && scanned >= 64 * 1024 { return nil }
            guard try push(upTo: scanned + 4096, waiting: true) else { return packets.header }
        }
        return packets.header
    }

    /// Pushes what has arrived since the last call (at most `step` bytes); never waits.
    func advance() throws(VoiceNoteError) {
        _ = try push(upTo: min(source.contiguousBytes, scanned + Int64(Self.step)), waiting: false)
    }

    /// Whether every byte was scanned.
    var isComplete: Bool {
        source.isComplete && scanned >= source.contiguousBytes
    }

    /// The length by the probe's rule, once complete; `.format` as the probe throws it.
    func exactLength() throws(VoiceNoteError) -> Int64 {
        try timeline.length(preSkip: packets.header?.preSkip ?? 0, source.name)
    }

    /// The length the bytes so far suggest at 48 kHz: their samples scaled to the whole size (what has arrived
    /// when the size is unknown).
    func estimatedLength() -> Int64 {
        let held = heldLength
        guard let total = source.size, let headerBytes, scanned > headerBytes, total > scanned else { return held }
        let scale = Double(total - headerBytes) / Double(scanned - headerBytes)
        return Int64(min(9e15, Double(held) * scale))
    }

    /// The samples of the packets scanned so far, at 48 kHz after the pre-skip.
    var heldLength: Int64 { max(0, timeline.heldSamples - Int64(packets.header?.preSkip ?? 0)) }

    /// The probe of the whole stream, once complete.
    func probe() throws(VoiceNoteError) -> OpusProbe? {
        guard let header = packets.header, let serial = packets.serial else { return nil }
        return OpusProbe(header: header, serial: serial, length: try exactLength(),
                         hasOtherStreams: packets.lastPageSerial != serial, size: source.size ?? scanned)
    }

    /// Reads `scanned..<end` (waiting for bytes when `waiting`) into the packet reader, putting the source's read
    /// position back. Returns false at the end of the source; `.format` once the packets claim more than their
    /// bytes can hold.
    private func push(upTo end: Int64, waiting: Bool) throws(VoiceNoteError) -> Bool {
        guard end > scanned else { return true }
        let resume = source.position
        defer { try? source.seek(to: resume) }
        try source.seek(to: scanned)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(end - scanned, Int64(Self.step))), alignment: 1)
        defer { buffer.deallocate() }
        while scanned < end {
            let want = Int(min(end - scanned, Int64(buffer.count)))
            let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(want)))
            guard count > 0 else { return false }
            try packets.push(UnsafeRawBufferPointer(rebasing: buffer.prefix(count)))
            scanned += Int64(count)
            while let packet = try packets.nextAudioPacket() {
                if headerBytes == nil { headerBytes = scanned - Int64(count) }
                timeline.add(packet)
                // A download that claims more than its bytes can hold is refused as soon as it does.
                if let excess = timeline.excess { throw VoiceNoteError(.format, "\(source.name): \(excess)") }
            }
            if !waiting { break }
        }
        return true
    }
}
