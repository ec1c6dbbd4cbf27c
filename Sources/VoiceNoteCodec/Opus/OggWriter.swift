#if canImport(Glibc)
import Glibc
#endif
import COgg
import VoiceNoteCore

/// Writes one logical Ogg stream to a file (with `OggReader`, the only libogg callers): libogg lays out the pages
/// and their CRCs; each header packet gets a page of its own, as RFC 7845 requires of Opus.
struct OggWriter {
    private let output: FileDescriptor
    private let name: String
    private let stream: UnsafeMutablePointer<ogg_stream_state>
    private var packetNumber: Int64 = 0

    /// A stream with a random serial number, written to `output` (`name` for messages).
    init(_ output: FileDescriptor, name: String) throws(VoiceNoteError) {
        self.output = output
        self.name = name
        stream = .allocate(capacity: 1)
        guard ogg_stream_init(stream, Int32(bitPattern: UInt32.random(in: 0...UInt32.max))) == 0 else {
            stream.deallocate()
            throw VoiceNoteError(.noMemory, "ogg_stream_init failed")
        }
    }

    /// The identification and comment headers, each flushed onto its own page.
    mutating func writeHeaders(identification: [UInt8], comments: [UInt8]) throws(VoiceNoteError) {
        try packetIn(identification, granule: 0, beginning: true, end: false)
        try flush()
        try packetIn(comments, granule: 0, beginning: false, end: false)
        try flush()
    }

    /// An audio packet ending at `granule`; the last one (`endOfStream`) flushes its page and frees the stream.
    mutating func append(_ packet: UnsafeRawBufferPointer, granule: Int64, endOfStream: Bool) throws(VoiceNoteError) {
        try packetIn([UInt8](packet), granule: granule, beginning: false, end: endOfStream)
        var page = ogg_page()
        while ogg_stream_pageout(stream, &page) != 0 { try write(page) }
        if endOfStream {
            try flush()
            ogg_stream_clear(stream)
            stream.deallocate()
        }
    }

    private mutating func packetIn(_ bytes: [UInt8], granule: Int64, beginning: Bool, end: Bool) throws(VoiceNoteError) {
        var copy = bytes
        let result = copy.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var packet = ogg_packet(packet: buffer.baseAddress, bytes: buffer.count, b_o_s: beginning ? 1 : 0,
                                    e_o_s: end ? 1 : 0, granulepos: granule, packetno: packetNumber)
            return ogg_stream_packetin(stream, &packet)
        }
        packetNumber += 1
        guard result == 0 else { throw VoiceNoteError(.noMemory, "ogg_stream_packetin failed") }
    }

    private func flush() throws(VoiceNoteError) {
        var page = ogg_page()
        while ogg_stream_flush(stream, &page) != 0 { try write(page) }
    }

    private func write(_ page: ogg_page) throws(VoiceNoteError) {
        do {
            try output.write(UnsafeRawBufferPointer(start: page.header, count: page.header_len))
            try output.write(UnsafeRawBufferPointer(start: page.body, count: page.body_len))
        } catch {
            throw VoiceNoteError.fromErrno(error.code, "cannot write \(name)")
        }
    }
}
