import Foundation

/// Ogg pages as plain values, for building hostile and damaged files in tests (RFC 3533): parse a file into pages,
/// change them, and write them back with correct CRCs, so the damage tested is the one intended.
public struct OggPage: Sendable {
    /// Header type flags: 0x01 continued, 0x02 first page, 0x04 last page.
    public var flags: UInt8
    /// Granule position.
    public var granule: Int64
    /// Stream serial number.
    public var serial: UInt32
    /// Page sequence number.
    public var sequence: UInt32
    /// Lacing values.
    public var segments: [UInt8]
    /// The page body.
    public var body: [UInt8]

    /// Makes a page.
    public init(flags: UInt8, granule: Int64, serial: UInt32, sequence: UInt32, segments: [UInt8], body: [UInt8]) {
        self.flags = flags; self.granule = granule; self.serial = serial; self.sequence = sequence
        self.segments = segments; self.body = body
    }

    /// Splits a whole Ogg file into pages (no CRC check).
    public static func parse(_ bytes: [UInt8]) -> [OggPage] {
        var pages: [OggPage] = []
        var offset = 0
        func le<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T {
            (0..<MemoryLayout<T>.size).reduce(T.zero) { $0 | T(bytes[at + $1]) << (8 * $1) }
        }
        while offset + 27 <= bytes.count, bytes[offset..<offset + 4].elementsEqual("OggS".utf8) {
            let count = Int(bytes[offset + 26])
            let segments = Array(bytes[(offset + 27)..<(offset + 27 + count)])
            let length = segments.reduce(0) { $0 + Int($1) }
            let start = offset + 27 + count
            guard start + length <= bytes.count else { break }
            pages.append(OggPage(flags: bytes[offset + 5], granule: le(offset + 6, Int64.self), serial: le(offset + 14, UInt32.self),
                                 sequence: le(offset + 18, UInt32.self), segments: segments, body: Array(bytes[start..<(start + length)])))
            offset = start + length
        }
        return pages
    }

    /// Pages carrying one packet (split into 255-byte lacing values, at most 255 per page).
    public static func pages(for packet: [UInt8], serial: UInt32, firstSequence: UInt32, granule: Int64, flags: UInt8 = 0) -> [OggPage] {
        var lacing = [UInt8](repeating: 255, count: packet.count / 255)
        lacing.append(UInt8(packet.count % 255))
        var pages: [OggPage] = []
        var laceIndex = 0, byteIndex = 0
        while laceIndex < lacing.count {
            let segments = Array(lacing[laceIndex..<min(lacing.count, laceIndex + 255)])
            let length = segments.reduce(0) { $0 + Int($1) }
            let last = laceIndex + segments.count == lacing.count
            pages.append(OggPage(flags: (pages.isEmpty ? flags : 0x01), granule: last ? granule : -1, serial: serial,
                                 sequence: firstSequence + UInt32(pages.count), segments: segments,
                                 body: Array(packet[byteIndex..<(byteIndex + length)])))
            laceIndex += segments.count
            byteIndex += length
        }
        return pages
    }

    /// The page as bytes, with its CRC.
    public var bytes: [UInt8] {
        var out = Array("OggS".utf8) + [0, flags]
        func append<T: FixedWidthInteger>(_ value: T) { out += (0..<MemoryLayout<T>.size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        append(granule); append(serial); append(sequence); append(UInt32(0))
        out.append(UInt8(segments.count))
        out += segments + body
        let crc = OggPage.crc(out)
        for i in 0..<4 { out[22 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        return out
    }

    /// Writes pages to a file.
    public static func write(_ pages: [OggPage], to path: String) throws {
        try Data(pages.flatMap(\.bytes)).write(to: URL(fileURLWithPath: path))
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var r = UInt32(index) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    /// Ogg's CRC-32 (polynomial 0x04c11db7, no reflection, initial 0).
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.reduce(UInt32(0)) { ($0 << 8) ^ table[Int((($0 >> 24) ^ UInt32($1)) & 0xFF)] }
    }
}
