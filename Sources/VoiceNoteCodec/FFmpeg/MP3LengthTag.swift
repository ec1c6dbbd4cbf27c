/// The length an MP3 file states about itself: the Xing/Info tag in its first frame (the frame count) and the LAME
/// extension after it (the encoder's delay and padding, which decoders drop). FFmpeg reports the frames' length
/// including delay and padding (10.032 s for a 10.000 s file) while its decoder, reading the same tag, outputs
/// the exact samples; this reads the tag the way FFmpeg's demuxer does, so `info` equals the decoded length.
struct MP3LengthTag: Equatable {
    /// Samples the decoder outputs: frames × samples per frame, less the encoder's delay and padding.
    let samples: Int64
    /// The stream's sample rate.
    let sampleRate: Int
    /// Samples the decoder drops at the start: the encoder's delay from the LAME extension and the decoder's own
    /// 529 (as FFmpeg's demuxer counts them); 0 without the extension.
    let startSkip: Int64
    /// The decoder's delay FFmpeg adds to the encoder's (528 + 1 samples).
    static let decoderDelay: Int64 = 529

    /// Bytes read from the start of a file to find the tag: an ID3v2 tag before the first frame is skipped only
    /// when it ends within them (album art can make it larger; then FFmpeg's own length stands).
    static let searchBytes = 64 * 1024

    /// The tag of a file whose first bytes are `bytes`, or nil when there is none (a CBR file without an Info tag,
    /// a VBRI header, or no MPEG audio frame where one should start).
    init?(prefix bytes: [UInt8]) {
        var offset = Self.id3v2Size(bytes)
        guard offset + 4 <= bytes.count, let frame = FrameHeader(bytes[offset..<offset + 4]) else { return nil }
        offset += 4 + frame.sideInformationBytes
        guard offset + 8 <= bytes.count else { return nil }
        let marker = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        guard marker == "Xing" || marker == "Info" else { return nil }
        let flags = Self.bigEndian(bytes, offset + 4, 4)
        offset += 8
        guard flags & 1 != 0, offset + 4 <= bytes.count else { return nil }  // no frame count: no length stated
        let frames = Int64(Self.bigEndian(bytes, offset, 4))
        offset += 4
        if flags & 2 != 0 { offset += 4 }    // byte count
        if flags & 4 != 0 { offset += 100 }  // seek table
        if flags & 8 != 0 { offset += 4 }    // quality
        var delay: Int64 = 0
        var padding: Int64 = 0
        // The LAME extension: a 9-byte encoder version, 12 bytes of tag data, then 12 bits of delay and 12 of
        // padding. FFmpeg trusts them from LAME and from itself (Lavf, Lavc), as do we.
        if offset + 24 <= bytes.count,
           ["LAME", "Lavf", "Lavc"].contains(String(decoding: bytes[offset..<offset + 4], as: UTF8.self)) {
            let packed = Self.bigEndian(bytes, offset + 21, 3)
            delay = Int64(packed >> 12)
            padding = Int64(packed & 0xFFF)
        }
        let total = frames * Int64(frame.samplesPerFrame)
        guard frames > 0, total > delay + padding else { return nil }
        samples = total - delay - padding
        sampleRate = frame.sampleRate
        startSkip = delay > 0 || padding > 0 ? delay + Self.decoderDelay : 0
    }

    /// The size of an ID3v2 tag at the start (header, body and footer), or 0.
    private static func id3v2Size(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return 0 }
        // The size is "syncsafe": four bytes of seven bits each.
        let body = bytes[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return 10 + body + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt32 {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// The four-byte header of an MPEG audio frame (ISO 11172-3, 13818-3 and the unofficial 2.5).
    struct FrameHeader {
        let sampleRate: Int
        let samplesPerFrame: Int
        /// Bytes of Layer III side information between the header and the Xing tag.
        let sideInformationBytes: Int

        init?(_ header: ArraySlice<UInt8>) {
            let b = Array(header)
            guard b.count == 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
            let version = (b[1] >> 3) & 3        // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
            let layer = (b[1] >> 1) & 3          // 1: III, 2: II, 3: I
            let rateIndex = Int((b[2] >> 2) & 3)
            guard version != 1, layer != 0, rateIndex != 3, (b[2] >> 4) != 0xF else { return nil }
            let mpeg1Rates = [44_100, 48_000, 32_000]
            let divisor = version == 3 ? 1 : version == 2 ? 2 : 4
            sampleRate = mpeg1Rates[rateIndex] / divisor
            let mono = (b[3] >> 6) == 3
            switch layer {
            case 3: samplesPerFrame = 384
            case 2: samplesPerFrame = 1152
            default: samplesPerFrame = version == 3 ? 1152 : 576
            }
            sideInformationBytes = version == 3 ? (mono ? 17 : 32) : (mono ? 9 : 17)
        }
    }
}
