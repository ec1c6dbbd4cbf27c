import VoiceNoteCore

/// What the audio packets of an Ogg Opus stream and their pages' granule positions say about its length, gathered
/// packet by packet in one pass (no decoding), then turned into the length by `StreamLength`: the same answer for
/// the probe (info), the file decoder and a recording's own analyzer.
///
/// The timestamps are checked as RFC 7845 §4 and libopusfile check them when a file is opened: the first page
/// that completes audio packets must carry a granule position no smaller than their duration (unless it is also
/// the last page), and the stream starts at that granule position minus their duration. The declared length is
/// the last granule position minus that start and the pre-skip. The packets must also claim no more than their
/// bytes can honestly hold (`HonestLength.opus`).
struct OpusTimeline {
    /// The sum of the audio packets' durations at 48 kHz.
    private(set) var heldSamples: Int64 = 0
    /// Where the stream starts (48 kHz samples), once the first page with audio packets was seen.
    private var start: Int64?
    /// Durations of the packets completed so far on the first page with audio packets.
    private var firstPageSamples: Int64 = 0
    /// The granule position of the last page that completed packets and had one.
    private var lastGranule: Int64?
    /// Why the timestamps are unusable, when they are.
    private var invalid: String?
    /// What the packets' bytes can hold.
    private var honesty = HonestLength(.opus, sampleRate: 48_000)

    /// Why the packets so far claim more audio than their bytes can hold, or nil: readers stop there.
    var excess: String? { honesty.excess }

    /// Takes the next audio packet, in stream order.
    mutating func add(_ packet: OggReader.Packet) {
        let duration = Int64(OpusPacketDecoder.duration(of: packet.bytes))
        heldSamples += duration
        honesty.add(bytes: packet.length, samples: duration)
        if packet.isLastOnPage && packet.granule != -1 { lastGranule = packet.granule }
        guard start == nil, invalid == nil else { return }
        firstPageSamples += duration
        // libopusfile counts only packets with a valid duration; a page without any is not the first.
        guard packet.isLastOnPage, firstPageSamples > 0 else { return }
        if packet.granule == -1 {
            invalid = "the first page with audio has no granule position"
        } else if packet.granule < firstPageSamples && !packet.isEndOfStream {
            invalid = "the first page's granule position \(packet.granule) is smaller than its \(firstPageSamples) samples"
        } else {
            start = max(0, packet.granule - firstPageSamples)
        }
    }

    /// The stream's length at 48 kHz after the pre-skip, by `StreamLength`'s rule; `.format` when the timestamps
    /// are invalid, the packets claim more than their bytes can hold, or nothing is left.
    func length(preSkip: Int, _ name: String) throws(VoiceNoteError) -> Int64 {
        if let invalid = invalid ?? excess { throw VoiceNoteError(.format, "\(name): \(invalid)") }
        var declared: Int64?
        if let start, let lastGranule {
            // A granule position past Int64.max (negative here) or before the start declares nothing usable.
            let (span, overflow) = lastGranule.subtractingReportingOverflow(start)
            declared = overflow || lastGranule < 0 ? -1 : span - Int64(preSkip)
        }
        return try StreamLength.resolve(declared: declared, held: heldSamples - Int64(preSkip), name)
    }
}
