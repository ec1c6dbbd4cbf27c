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

    /// Reads on after the source ended once (a `PushSource` that received more bytes).
    func resume() {
        endOfSource = false
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
    /// a seekable source without decoding (a source of unknown size is scanned from the start: pages only, no
    /// decoding). Leaves the source position anywhere.
    static func tail(of source: ByteSource, serial: Int32) throws(VoiceNoteError) -> (granule: Int64?, lastSerial: Int32?) {
        guard let size = source.size else {
            try source.seek(to: 0)
            return try scanPages(of: source, serial: serial)
        }
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

// MARK: - Whole pages by offset, for recording recovery

extension OggReader {
    /// Where a whole, CRC-valid page lies in a file, and what its header says.
    struct PageLocation {
        let offset: Int64
        let length: Int
        let serial: Int32
        let sequence: Int
        let granule: Int64
        let isBeginningOfStream: Bool
        let isEndOfStream: Bool
        /// The offset just past the page.
        var end: Int64 { offset + Int64(length) }
    }

    /// Visits the whole, CRC-valid pages that follow each other from the start of `source` with nothing between
    /// them, with each page's body; stops at the end, when `visit` returns false, or at the first byte that does not
    /// begin such a page (a truncated or damaged tail: what follows it is not visited).
    static func contiguousPages(
        of source: ByteSource, _ visit: (PageLocation, UnsafeRawBufferPointer) throws(VoiceNoteError) -> Bool
    ) throws(VoiceNoteError) {
        try source.seek(to: 0)
        let sync = UnsafeMutablePointer<ogg_sync_state>.allocate(capacity: 1)
        let page = UnsafeMutablePointer<ogg_page>.allocate(capacity: 1)
        ogg_sync_init(sync)
        defer {
            ogg_sync_clear(sync)
            sync.deallocate()
            page.deallocate()
        }
        var offset: Int64 = 0
        var endOfSource = false
        while true {
            let result = ogg_sync_pageseek(sync, page)
            if result > 0 {
                let location = PageLocation(
                    offset: offset, length: Int(result), serial: ogg_page_serialno(page),
                    sequence: Int(ogg_page_pageno(page)), granule: ogg_page_granulepos(page),
                    isBeginningOfStream: ogg_page_bos(page) != 0, isEndOfStream: ogg_page_eos(page) != 0)
                offset += Int64(result)
                let body = UnsafeRawBufferPointer(start: page.pointee.body, count: page.pointee.body_len)
                guard try visit(location, body) else { return }
                continue
            }
            if result < 0 || endOfSource { return }  // not a whole page here: the contiguous run ends
            guard let buffer = ogg_sync_buffer(sync, chunk) else {
                throw VoiceNoteError(.noMemory, "ogg_sync_buffer failed")
            }
            let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: chunk))
            if count == 0 { endOfSource = true }
            ogg_sync_wrote(sync, count)
        }
    }

    /// `page` (the bytes of one whole page) with its end-of-stream flag set and its CRC recomputed.
    static func markingEndOfStream(_ page: [UInt8]) -> [UInt8] {
        guard page.count >= 27, page.count >= 27 + Int(page[26]) else { return page }
        var bytes = page
        bytes[5] |= 0x04
        let headerLength = 27 + Int(bytes[26])
        bytes.withUnsafeMutableBufferPointer { all in
            guard let base = all.baseAddress else { return }
            var header = ogg_page(header: base, header_len: headerLength, body: base + headerLength,
                                  body_len: all.count - headerLength)
            ogg_page_checksum_set(&header)
        }
        return bytes
    }
}
