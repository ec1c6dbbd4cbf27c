/// Notes whose packets claim more audio than their bytes can honestly hold (docs/errors.md, "What a note may cost"),
/// written byte by byte with their checksums right, so that what a test shows refused is the claim, not damage.
public enum HostileNotes {
    /// A FLAC stream (mono, 16-bit, `sampleRate`) of `frames` frames of `blockSize` samples, each one constant
    /// subframe of silence: 13 to 16 bytes a frame, whatever `blockSize` (at most 65,535; the rate at most 65,535 Hz).
    /// `declared`: STREAMINFO
    /// states the total (the FFmpeg packet scan counts it before decoding); else it says 0, unknown.
    public static func flac(frames: Int, blockSize: Int = 65_535, sampleRate: Int = 8_000, declared: Bool = true) -> [UInt8] {
        let total = declared ? UInt64(frames * blockSize) : 0
        var info = big(UInt64(blockSize), 2) + big(UInt64(blockSize), 2) + big(0, 3) + big(0, 3)
        info += big(UInt64(sampleRate) << 44 | 15 << 36 | total, 8)  // rate (20 bits), channels-1 (3), bits-1 (5), total (36)
        info += [UInt8](repeating: 0, count: 16)  // no MD5
        var out = Array("fLaC".utf8) + [0x80] + big(UInt64(info.count), 3) + info
        for index in 0..<frames { out += flacFrame(index: index, blockSize: blockSize, sampleRate: sampleRate) }
        return out
    }

    /// One fixed-blocksize FLAC frame of a constant 16-bit subframe of 0: the block size stated as 16 bits at the
    /// header's end, the rate as its code (8 and 48 kHz) or 16 bits of Hz after it, as encoders write them (FFmpeg's
    /// parser gives the packets of frames that leave the rate to STREAMINFO no duration).
    static func flacFrame(index: Int, blockSize: Int, sampleRate: Int) -> [UInt8] {
        let rateCode: UInt8 = sampleRate == 8_000 ? 0x4 : sampleRate == 48_000 ? 0xA : 0xD
        var header: [UInt8] = [0xFF, 0xF8, 0x70 | rateCode, 0x08] + utf8Number(index) + big(UInt64(blockSize - 1), 2)
        if rateCode == 0xD { header += big(UInt64(sampleRate), 2) }
        header.append(crc8(header))
        var frame = header + [0x00, 0x00, 0x00]  // subframe: constant, no wasted bits; the value 0 in 16 bits
        let crc = crc16(frame)
        frame += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
        return frame
    }

    /// An ADTS AAC stream (mono, `rateIndex`: 11 is 8 kHz) of `frames` frames, each stating `blocks` raw data blocks
    /// of 1,024 samples and holding `raw` after its 7-byte header.
    public static func adts(frames: Int, blocks: UInt8, raw: [UInt8], rateIndex: UInt8 = 11) -> [UInt8] {
        let length = 7 + raw.count
        let header: [UInt8] = [0xFF, 0xF1, 0x40 | rateIndex << 2, 0x40 | UInt8(length >> 11),
                               UInt8(length >> 3 & 0xFF), UInt8(length & 0x07) << 5 | 0x1F, 0xFC | (blocks - 1)]
        return (0..<frames).flatMap { _ in header + raw }
    }

    /// An Opus packet of no frame data that claims 120 ms (code 3, 2 frames of 60 ms, SILK): what DTX never sends.
    public static let empty120ms: [UInt8] = [(3 << 3) | 3, 2]

    /// An Ogg Opus stream (mono, no pre-skip) with serial `serial` whose audio pages each hold 255 `packet`s of
    /// `packetSamples` at 48 kHz, its granule positions their sums.
    public static func opusLink(serial: UInt32, pages: Int, packet: [UInt8] = empty120ms, packetSamples: Int64 = 5_760) -> [UInt8] {
        let head = Array("OpusHead".utf8) + [1, 1, 0, 0] + [0x80, 0xBB, 0, 0] + [0, 0, 0]
        let tags = Array("OpusTags".utf8) + [2, 0, 0, 0] + Array("vn".utf8) + [0, 0, 0, 0]
        var out = OggPage(flags: 0x02, granule: 0, serial: serial, sequence: 0, segments: [UInt8(head.count)], body: head).bytes
        out += OggPage(flags: 0, granule: 0, serial: serial, sequence: 1, segments: [UInt8(tags.count)], body: tags).bytes
        for page in 0..<pages {
            out += OggPage(flags: page == pages - 1 ? 0x04 : 0, granule: Int64(page + 1) * 255 * packetSamples, serial: serial,
                           sequence: UInt32(page + 2), segments: [UInt8](repeating: UInt8(packet.count), count: 255),
                           body: (0..<255).flatMap { _ in packet }).bytes
        }
        return out
    }

    /// `value`'s low `count` bytes, most significant first.
    private static func big(_ value: UInt64, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    /// A frame number as FLAC codes it (UTF-8's scheme), up to 65,535.
    private static func utf8Number(_ value: Int) -> [UInt8] {
        if value < 0x80 { return [UInt8(value)] }
        if value < 0x800 { return [0xC0 | UInt8(value >> 6), 0x80 | UInt8(value & 0x3F)] }
        return [0xE0 | UInt8(value >> 12), 0x80 | UInt8(value >> 6 & 0x3F), 0x80 | UInt8(value & 0x3F)]
    }

    /// FLAC's header CRC-8 (polynomial 0x07, initial 0).
    private static func crc8(_ bytes: [UInt8]) -> UInt8 {
        bytes.reduce(UInt8(0)) { crc, byte in
            (0..<8).reduce(crc ^ byte) { value, _ in value & 0x80 != 0 ? value << 1 ^ 0x07 : value << 1 }
        }
    }

    /// FLAC's frame CRC-16 (polynomial 0x8005, initial 0).
    private static func crc16(_ bytes: [UInt8]) -> UInt16 {
        bytes.reduce(UInt16(0)) { crc, byte in
            (0..<8).reduce(crc ^ UInt16(byte) << 8) { value, _ in value & 0x8000 != 0 ? value << 1 ^ 0x8005 : value << 1 }
        }
    }
}
