import COgg
import VoiceNoteCore
import VoiceNoteSources

/// Packets of one logical stream of an Ogg file (with `OggWriter`, the only libogg callers), read from a `ByteSource` or pushed to it
/// as they are written (a recording's own pages: then "no packet" means "not yet", never the end).
///
/// libogg finds the pages and checks their CRCs (a damaged page is skipped, a truncated last page dropped); the
/// packets are put together here rather than by `ogg_stream_*`, so that memory stays bounded whatever the file
/// says: a packet longer than `maximumPacketSize` is dropped as damaged, and one read while `observer` is set is
/// handed to it piece by piece and never kept (an Opus comment header of any length is checked that way).
final class OggReader {
    /// One packet.
    struct Packet {
        /// The packet's bytes, valid until the next call; empty when they went to the observer.
        let bytes: UnsafeRawBufferPointer
        /// Its length in bytes (also when the bytes went to the observer).
        let length: Int
        /// The page's granule position when this is the last packet completed on its page, else -1 (as libogg).
        let granule: Int64
        /// Whether no other packet is completed after it on its page.
        let isLastOnPage: Bool
        /// Whether its last byte is the last byte of its page (no packet begins after it there).
        let endsPage: Bool
        /// Whether it is the last packet completed on a page flagged end-of-stream.
        let isEndOfStream: Bool
        /// Whether data of the stream was lost just before it: a missing or damaged page, a dropped packet.
        let followsGap: Bool
        /// The source offset of the page it begins, when it is the first packet of a page that continues no other
        /// (a place decoding can start from); nil otherwise.
        let beginsPageAt: Int64?
    }

    /// The longest packet put together: four times the longest Opus packet without padding (48 frames of 1275
    /// bytes). A longer one can only be padding or damage, and keeping it would let a file choose our memory.
    static let maximumPacketSize = 256 * 1024
    /// Bytes read per refill: large enough that the read(2) calls cost nothing next to decoding.
    static let chunk = 64 * 1024

    /// Takes the bytes of every packet begun while it is set, instead of the packet being kept.
    var observer: ((UnsafeRawBufferPointer) -> Void)?
    /// The serial of the selected stream, once its first page was seen.
    private(set) var serial: Int32?
    /// The serial of the last page read, of any stream.
    private(set) var lastPageSerial: Int32?
    /// The source offset of the page being taken apart.
    private(set) var pageOffset: Int64 = 0

    /// Nil when bytes are pushed (`push`).
    private let source: ByteSource?
    private let sync = UnsafeMutablePointer<ogg_sync_state>.allocate(capacity: 1)
    private let page = UnsafeMutablePointer<ogg_page>.allocate(capacity: 1)
    private let accepts: (UnsafeRawBufferPointer) -> Bool
    private var endOfSource = false
    /// The source offset of the next byte libogg has not returned yet (a page or skipped bytes).
    private var consumed: Int64 = 0
    /// Whether the current page continues a packet from the one before.
    private var pageContinued = false
    /// Where the packet being put together began, when it began a page that continues nothing.
    private var assemblyBeganPageAt: Int64?

    /// The page being taken apart: whether there is one, its next lacing value and the body offset it starts at.
    private var pageOpen = false
    private var segment = 0
    private var bodyOffset = 0
    /// The number of lacing values up to and including the last one that ends a packet on the page.
    private var lastPacketEnd = 0
    /// The sequence number the next page of the stream should have.
    private var expectedSequence: UInt32?
    /// What becomes of the packet that is not complete yet.
    private enum Assembly { case none, keeping, observing, discarding }
    private var assembly = Assembly.none
    private var assembledLength = 0
    /// The packet in progress when it spans pages (`maximumPacketSize` bytes, allocated on first use).
    private var kept: UnsafeMutableRawPointer?
    private var keptCount = 0
    private var gapBeforeNext = false

    /// Reads `source` from its current position. The selected stream is the first whose beginning-of-stream page
    /// starts with a packet `accepts` likes (for Opus: "OpusHead"), so other multiplexed streams are skipped.
    init(source: ByteSource, accepts: @escaping (UnsafeRawBufferPointer) -> Bool) {
        self.source = source
        self.accepts = accepts
        consumed = source.position
        ogg_sync_init(sync)
    }

    /// Reads the stream `serial` of `source` from its current position, a page boundary inside the stream (where
    /// `Packet.beginsPageAt` said a packet begins): its headers are not read again.
    convenience init(source: ByteSource, serial: Int32) {
        self.init(source: source, accepts: { _ in false })
        self.serial = serial
    }

    deinit {
        kept?.deallocate()
        ogg_sync_clear(sync)
        sync.deallocate()
        page.deallocate()
    }

    /// Takes pushed bytes: bytes are given with `push` as they are written, and `nextPacket` answers nil when
    /// no whole packet has arrived yet.
    init(pushed accepts: @escaping (UnsafeRawBufferPointer) -> Bool) {
        source = nil
        self.accepts = accepts
        ogg_sync_init(sync)
    }

    /// Appends pushed bytes (any split: whole pages are found across calls).
    func push(_ bytes: UnsafeRawBufferPointer) throws(VoiceNoteError) {
        guard bytes.count > 0, let base = bytes.baseAddress else { return }
        guard let buffer = ogg_sync_buffer(sync, bytes.count) else { throw VoiceNoteError(.noMemory, "ogg_sync_buffer failed") }
        buffer.update(from: base.assumingMemoryBound(to: CChar.self), count: bytes.count)
        ogg_sync_wrote(sync, bytes.count)
    }

    /// The next packet of the selected stream, or nil at the end of the source (pushed: until more arrives).
    func nextPacket() throws(VoiceNoteError) -> Packet? {
        while true {
            if pageOpen, let packet = nextPacketOnPage() { return packet }
            guard try nextPage() else { return nil }
            let pageSerial = ogg_page_serialno(page)
            lastPageSerial = pageSerial
            if serial == nil {
                let body = UnsafeRawBufferPointer(start: page.pointee.body, count: page.pointee.body_len)
                guard ogg_page_bos(page) != 0, accepts(body) else { continue }
                serial = pageSerial
            }
            guard pageSerial == serial else { continue }
            beginPage()
        }
    }

    /// Starts taking apart a page of the selected stream; a sequence gap or a continuation without its start
    /// loses the packet in progress.
    private func beginPage() {
        let sequence = UInt32(truncatingIfNeeded: ogg_page_pageno(page))
        if let expectedSequence, sequence != expectedSequence { loseAssembly() }
        expectedSequence = sequence &+ 1
        let continued = ogg_page_continued(page) != 0
        pageContinued = continued
        if continued && assembly == .none {
            assembly = .discarding  // its beginning is not here: skip to the end of that packet
            gapBeforeNext = true
        } else if !continued && assembly != .none {
            loseAssembly()
        }
        pageOpen = true
        segment = 0
        bodyOffset = 0
        lastPacketEnd = 0
        if let header = page.pointee.header {
            let segments = Int(header[26])
            lastPacketEnd = (0..<segments).last { header[27 + $0] < 255 }.map { $0 + 1 } ?? 0
        }
    }

    /// Drops the packet in progress (it cannot be completed) and notes the gap.
    private func loseAssembly() {
        assembly = .none
        assembledLength = 0
        keptCount = 0
        gapBeforeNext = true
    }

    /// The next packet completed on the current page, or nil when the page has no more (it may leave one begun).
    private func nextPacketOnPage() -> Packet? {
        let header = page.pointee.header
        guard let header, let body = page.pointee.body else {
            pageOpen = false
            return nil
        }
        let segments = Int(header[26])
        while segment < segments {
            let start = bodyOffset
            var ended = false
            while segment < segments && !ended {
                let value = Int(header[27 + segment])
                segment += 1
                bodyOffset += value
                ended = value < 255
            }
            let span = UnsafeRawBufferPointer(start: body + start, count: bodyOffset - start)
            let wholeHere = assembly == .none && ended
            if assembly == .none {
                assembly = observer == nil ? .keeping : .observing
                assemblyBeganPageAt = start == 0 && !pageContinued ? pageOffset : nil
            }
            assembledLength += span.count
            switch assembly {
            case .keeping where assembledLength > Self.maximumPacketSize:
                assembly = .discarding
                keptCount = 0
            case .keeping where !wholeHere:
                keep(span)
            case .observing:
                observer?(span)
            default:
                break
            }
            guard ended else { break }
            if let packet = finishPacket(span: wholeHere ? span : nil, segments: segments) { return packet }
        }
        pageOpen = false
        return nil
    }

    /// Ends the packet whose last segment was just read; nil when it was discarded.
    private func finishPacket(span: UnsafeRawBufferPointer?, segments: Int) -> Packet? {
        let finished = assembly
        let length = assembledLength
        assembly = .none
        assembledLength = 0
        guard finished != .discarding else {
            gapBeforeNext = true
            return nil
        }
        let isLast = segment == lastPacketEnd
        let gap = gapBeforeNext
        gapBeforeNext = false
        let bytes: UnsafeRawBufferPointer
        if finished == .observing {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        } else if let span {
            bytes = span
        } else {
            bytes = UnsafeRawBufferPointer(start: kept, count: keptCount)  // not overwritten before the next call
            keptCount = 0
        }
        return Packet(
            bytes: bytes, length: length, granule: isLast ? ogg_page_granulepos(page) : -1, isLastOnPage: isLast,
            endsPage: segment == segments, isEndOfStream: isLast && ogg_page_eos(page) != 0, followsGap: gap,
            beginsPageAt: assemblyBeganPageAt)
    }

    /// Appends part of a packet that spans pages; the caller keeps the total within `maximumPacketSize`.
    private func keep(_ span: UnsafeRawBufferPointer) {
        let buffer = kept ?? UnsafeMutableRawPointer.allocate(byteCount: Self.maximumPacketSize, alignment: 1)
        kept = buffer
        guard let base = span.baseAddress, keptCount + span.count <= Self.maximumPacketSize else { return }
        (buffer + keptCount).copyMemory(from: base, byteCount: span.count)
        keptCount += span.count
    }

    /// Advances to the next whole page; false at the end of the source, or when no whole page was pushed yet.
    /// libogg's page seek rather than its page out, to know each page's offset.
    private func nextPage() throws(VoiceNoteError) -> Bool {
        while true {
            let result = ogg_sync_pageseek(sync, page)
            if result > 0 {
                pageOffset = consumed
                consumed += Int64(result)
                return true
            }
            if result < 0 {  // skipped bytes while resynchronising
                consumed += Int64(-result)
                continue
            }
            guard let source, !endOfSource else { return false }
            guard let buffer = ogg_sync_buffer(sync, Self.chunk) else {
                throw VoiceNoteError(.noMemory, "ogg_sync_buffer failed")
            }
            let count = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Self.chunk))
            if count == 0 { endOfSource = true }
            ogg_sync_wrote(sync, count)
        }
    }
}
