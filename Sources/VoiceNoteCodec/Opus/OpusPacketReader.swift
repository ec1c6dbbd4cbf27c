import VoiceNoteCore
import VoiceNoteSources

/// The packets of an Ogg Opus stream: its two header packets read and checked as libopusfile checks them, then
/// its audio packets. The probe (info), the analysis decoder and a recording's analyzer all read through it, so
/// they accept and refuse the same files:
/// - the identification header must parse (`OpusHeader`);
/// - the comment header must follow it with nothing lost in between (a page that failed its CRC check, or whose
///   CRC is missing, is dropped by libogg and leaves a gap), be a well-formed OpusTags packet and end its page.
/// The comment header is checked piece by piece and never kept, whatever its length.
final class OpusPacketReader {
    /// The identification header, once read.
    private(set) var header: OpusHeader?
    private let reader: OggReader
    private let name: String
    private var tags: OpusTagsCheck?
    private var headersChecked = false

    /// Reads the stream from the current position of `source`.
    init(source: ByteSource) {
        reader = OggReader(source: source, accepts: OpusHeader.isHeader)
        name = source.name
    }

    /// The serial of the Opus stream, once its first page was seen.
    var serial: Int32? { reader.serial }
    /// The serial of the last page read, of any stream.
    var lastPageSerial: Int32? { reader.lastPageSerial }

    /// Takes the stream's bytes as they are written (`push`), for a recording's analyzer.
    init(pushedName name: String) {
        reader = OggReader(pushed: OpusHeader.isHeader)
        self.name = name
    }

    /// Appends bytes of a pushed stream.
    func push(_ bytes: UnsafeRawBufferPointer) throws(VoiceNoteError) {
        try reader.push(bytes)
    }

    /// The next audio packet, the headers read and checked first; nil at the end of the source (a pushed stream:
    /// until more arrives). Without an Opus stream `header` stays nil. `.format` for a bad identification header or
    /// a comment header that is missing, damaged, malformed or does not end its page.
    func nextAudioPacket() throws(VoiceNoteError) -> OggReader.Packet? {
        while !headersChecked {
            if let tags {
                guard let packet = try reader.nextPacket() else { return nil }
                reader.observer = nil
                guard !packet.followsGap else {
                    throw VoiceNoteError(.format, "\(name): the Opus comment header is missing or damaged (a page failed its CRC check)")
                }
                try tags.finish(name)
                guard packet.endsPage else {
                    throw VoiceNoteError(.format, "\(name): the Opus comment header does not end its page")
                }
                headersChecked = true
            } else {
                guard let packet = try reader.nextPacket() else { return nil }
                header = try OpusHeader(packet: packet.bytes)
                let check = OpusTagsCheck()
                tags = check
                reader.observer = { check.feed($0) }
            }
        }
        return try reader.nextPacket()
    }
}
