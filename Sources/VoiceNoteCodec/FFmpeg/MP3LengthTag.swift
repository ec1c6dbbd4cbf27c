import VoiceNoteCore
import VoiceNoteSources

/// The length an MP3 file states about itself: the Xing/Info tag in its first frame (the frame count) and the LAME
/// extension after it (the encoder's delay and padding, which decoders drop). FFmpeg reports the frames' length
/// including delay and padding (10.032 s for a 10.000 s file) while its decoder, reading the same tag, outputs
/// the exact samples; this reads the tag the way FFmpeg's demuxer does, so `info` equals the decoded length.
struct MP3LengthTag: Equatable {
    /// Samples the decoder outputs: frames × samples per frame, less the encoder's delay and padding.
    let samples: Int64
    /// The stream's sample rate.
    let sampleRate: Int

    /// Bytes read from the start of a file to find the tag: an ID3v2 tag before the first frame is skipped only
    /// when it ends within them (album art can make it larger; then FFmpeg's own length stands).
    static let searchBytes = 64 * 1024

    /// The tag of a file whose first bytes are `bytes`, or nil when there is none (a CBR file without an Info tag,
    /// a VBRI header, or no MPEG audio frame where one should start).
    init?(prefix bytes: [UInt8]) {
        guard case (var offset, let frame)? = Self.xingOffset(bytes) else { return nil }
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
    }

    /// Whether the first frame of a file whose first bytes are `bytes` is an information frame (Xing, Info or
    /// VBRI), which the decoder does not output: such a file's length is the tag's or FFmpeg's, never counted
    /// from its frames.
    static func hasInformationFrame(prefix bytes: [UInt8]) -> Bool {
        if xingOffset(bytes) != nil { return true }
        let offset = Int(TrailingTags.id3v2Size(bytes[...])) + 36  // VBRI: 32 bytes after the header, always
        return offset + 4 <= bytes.count && String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == "VBRI"
    }

    /// The offset of the `Xing`/`Info` marker in the first frame, and that frame's header; nil when it has none.
    private static func xingOffset(_ bytes: [UInt8]) -> (Int, FrameHeader)? {
        let start = TrailingTags.id3v2Size(bytes[...])
        guard start + 4 <= Int64(bytes.count) else { return nil }
        var offset = Int(start)
        guard let frame = FrameHeader(bytes[offset..<offset + 4]) else { return nil }
        offset += 4 + frame.sideInformationBytes
        guard offset + 8 <= bytes.count else { return nil }
        let marker = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        return marker == "Xing" || marker == "Info" ? (offset, frame) : nil
    }

    /// The exact length of an MP3 without an information frame (a CBR file written with none), counted from its
    /// frame headers (`FrameCount`): every frame is decoded, a last frame cut short by the end of the file too.
    static func countFrames(_ source: ByteSource) throws(VoiceNoteError) -> FrameCount? {
        try FrameCount.count(source, headerBytes: 4, cutFrameDecodes: true) { header in
            guard let frame = FrameHeader(header[...]), let bytes = frame.bytes else { return nil }
            return FrameCount.Frame(bytes: Int64(bytes), samples: Int64(frame.samplesPerFrame), sampleRate: frame.sampleRate)
        }
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
        /// The frame's length in bytes, header included; nil for free-format streams (no bitrate in the header).
        let bytes: Int?

        /// Kilobits per second by bitrate index: MPEG-1 layers I, II, III, then MPEG-2/2.5 layer I, and II/III.
        private static let bitrates: [[Int]] = [
            [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
            [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
            [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
            [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
            [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
        ]

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
            let table = version == 3 ? Int(3 - layer) : (layer == 3 ? 3 : 4)
            let bitrate = Self.bitrates[table][Int(b[2] >> 4)] * 1000
            let padding = Int(b[2] >> 1 & 1)
            if bitrate == 0 {
                bytes = nil
            } else if layer == 3 {
                bytes = (12 * bitrate / sampleRate + padding) * 4
            } else {
                bytes = (layer == 1 && version != 3 ? 72 : 144) * bitrate / sampleRate + padding
            }
        }
    }
}
