import VoiceNoteCore
import VoiceNoteSources

/// ADTS AAC frame headers, for `FrameCount`: each gives the frame's length in bytes and its raw data blocks of
/// 1024 samples. A frame the end of the file cuts short is dropped by the decoder, so it is not counted.
enum ADTSLength {
    /// The rates of ADTS's sampling-frequency index.
    private static let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

    /// The exact length of an ADTS stream, or nil when it cannot be counted (see `FrameCount`).
    static func count(_ source: ByteSource) throws(VoiceNoteError) -> FrameCount? {
        try FrameCount.count(source, headerBytes: 7, cutFrameDecodes: false, parse: frame)
    }

    /// The frame a 7-byte ADTS header describes.
    static func frame(_ header: [UInt8]) -> FrameCount.Frame? {
        guard header[0] == 0xFF, header[1] & 0xF6 == 0xF0 else { return nil }  // sync, layer 0
        let rateIndex = Int(header[2] >> 2 & 0x0F)
        guard rateIndex < rates.count else { return nil }
        let length = Int64(header[3] & 0x03) << 11 | Int64(header[4]) << 3 | Int64(header[5] >> 5)
        let protectionBytes: Int64 = header[1] & 0x01 == 0 ? 9 : 7
        guard length >= protectionBytes else { return nil }
        return FrameCount.Frame(bytes: length, samples: Int64(header[6] & 0x03 + 1) * 1024, sampleRate: rates[rateIndex])
    }
}
