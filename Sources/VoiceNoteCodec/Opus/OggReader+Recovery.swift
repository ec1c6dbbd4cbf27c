import COgg
import VoiceNoteCore
import VoiceNoteSources

/// Whole pages by offset, for recording recovery.
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
