import COgg
import VoiceNoteCore

/// Pages and packets of one logical stream of an Ogg file over a `ByteSource` (the only libogg caller).
/// CRC-damaged pages are skipped by libogg; a truncated last page is dropped.
final class OggReader {
    /// One packet; `bytes` is valid until the next call.
    struct Packet {
        let bytes: UnsafeRawBufferPointer
        let granule: Int64
        let isEndOfStream: Bool
    }

    private let source: ByteSource
    private let sync = UnsafeMutablePointer<ogg_sync_state>.allocate(capacity: 1)
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private let page = UnsafeMutablePointer<ogg_page>.allocate(capacity: 1)
    private let packet = UnsafeMutablePointer<ogg_packet>.allocate(capacity: 1)
    private let accepts: (UnsafeRawBufferPointer) -> Bool
    private var streamStarted = false
    private var endOfSource = false
    /// The serial of the selected stream, once its first page was seen.
    private(set) var serial: Int32?
    /// Bytes read per refill: large enough that the read(2) calls cost nothing next to decoding.
    private static let chunk = 64 * 1024

    /// Reads `source` from its current position. The selected stream is the first whose beginning-of-stream page
    /// starts with a packet `accepts` likes (for Opus: "OpusHead"), so other multiplexed streams are skipped.
    init(source: ByteSource, accepts: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.source = source
        self.accepts = accepts
        ogg_sync_init(sync)
    }

    deinit {
        if streamStarted { ogg_stream_clear(stream) }
        ogg_sync_clear(sync)
        sync.deallocate(); stream.deallocate(); page.deallocate(); packet.deallocate()
    }

    /// The next packet of the selected stream, or nil at the end of the source.
    func nextPacket() throws(VoiceNoteError) -> Packet? {
        while true {
            if streamStarted {
                let result = ogg_stream_packetout(stream, packet)
                if result == 1 {
                    return Packet(
                        bytes: UnsafeRawBufferPointer(start: packet.pointee.packet, count: packet.pointee.bytes),
                        granule: packet.pointee.granulepos, isEndOfStream: packet.pointee.e_o_s != 0)
                }
                if result < 0 { continue }  // a gap (lost page): libogg resumes with the next whole packet
            }
            guard try nextPage() else { return nil }
            let pageSerial = ogg_page_serialno(page)
            if serial == nil {
                guard ogg_page_bos(page) != 0, accepts(pageBody) else { continue }
                serial = pageSerial
                ogg_stream_init(stream, pageSerial)
                streamStarted = true
            }
            guard pageSerial == serial else { continue }
            ogg_stream_pagein(stream, page)
        }
    }

    /// The body of the current page.
    private var pageBody: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: page.pointee.body, count: page.pointee.body_len)
    }

    /// Advances to the next whole page; false at the end of the source.
    private func nextPage() throws(VoiceNoteError) -> Bool {
        while true {
            let result = ogg_sync_pageout(sync, page)
            if result == 1 { return true }
            if result < 0 { continue }  // skipped bytes while resynchronising
            if endOfSource { return false }
            guard let buffer = ogg_sync_buffer(sync, Self.chunk) else {
                throw VoiceNoteError(.noMemory, "ogg_sync_buffer failed")
            }
            let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Self.chunk))
            if count == 0 { endOfSource = true }
            ogg_sync_wrote(sync, count)
        }
    }

    /// The last granule position of stream `serial` and the serial of the file's last page, read from the tail of
    /// a seekable source without decoding. Leaves the source position anywhere.
    static func tail(of source: ByteSource, serial: Int32) throws(VoiceNoteError) -> (granule: Int64?, lastSerial: Int32?) {
        guard let size = source.size else { return (nil, nil) }
        var window = Int64(chunk)
        while true {
            let start = max(0, size - window)
            try source.seek(to: start)
            let found = try scanPages(of: source, serial: serial)
            if found.granule != nil || start == 0 { return found }
            window *= 4
        }
    }

    /// Scans every page from the source's position to its end.
    private static func scanPages(of source: ByteSource, serial: Int32) throws(VoiceNoteError) -> (granule: Int64?, lastSerial: Int32?) {
        let reader = OggReader(source: source, accepts: { _ in true })
        var granule: Int64?
        var lastSerial: Int32?
        while try reader.nextPage() {
            let pageSerial = ogg_page_serialno(reader.page)
            lastSerial = pageSerial
            let pageGranule = ogg_page_granulepos(reader.page)
            if pageSerial == serial && pageGranule >= 0 { granule = pageGranule }
        }
        return (granule, lastSerial)
    }
}
