import Foundation
import Testing
@testable import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// Issue #35: a 552-byte MP3 that LAME 3.97 wrote (MPEG-2 Layer III at 24 kHz: an Info frame at 160 kbit/s, then
/// three 24-byte audio frames of 576 samples whose LAME tag's delay and padding leave 240) must play as FFmpeg plays
/// it. Made here with LAME 3.100 (`-V9 -B 8`, three frames at 8 kbit/s), its Info frame raised to 160 kbit/s as
/// 3.97 wrote it, and the tag's frame count, encoder delay and padding patched (CRC fixed). Our length is checked
/// against `ffmpeg -i x.mp3 -f s16le -`, for info and for what our decoder outputs.
@Suite struct ShortMP3Tests {
    /// The 10 ms tone LAME encodes: four frames (Info and three of audio).
    static func encoded() throws -> [UInt8] {
        let directory = try Fixtures.temporaryDirectory()
        let wav = directory + "/tone.wav", mp3 = directory + "/tone.mp3"
        try Fixtures.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.01:sample_rate=24000",
                          "-ac", "1", wav])
        try Fixtures.run(["lame", "--quiet", "-V9", "-B", "8", "--resample", "24", "-m", "m", wav, mp3])
        return try bytes(of: mp3)
    }

    /// `lame`'s file as LAME 3.97 laid it out (552 bytes), its tag stating `frames`, `delay` and `padding`.
    static func patched(_ lame: [UInt8], frames: UInt32, delay: Int, padding: Int) throws -> [UInt8] {
        var file = lame
        // MPEG-2 Layer III mono, 64 kbit/s (192 bytes), then three frames of 8 kbit/s (24 bytes).
        try #require(file.count == 192 + 3 * 24 && file[0] == 0xFF && file[1] == 0xF3 && file[2] >> 4 == 8)
        file[2] = file[2] & 0x0F | 0xE0  // 160 kbit/s: 480 bytes at 24 kHz
        file.insert(contentsOf: [UInt8](repeating: 0, count: 480 - 192), at: 192)
        let xing = 4 + 9  // after the header and the side information of a mono MPEG-2 frame
        try #require(String(decoding: file[xing..<xing + 4], as: UTF8.self) == "Xing" && file[xing + 7] == 0x0F)
        let lame = xing + 8 + 4 + 4 + 100 + 4  // flags, frames, bytes, seek table, quality
        try #require(String(decoding: file[lame..<lame + 4], as: UTF8.self) == "LAME")
        func put(_ value: UInt32, _ offset: Int, _ count: Int) {
            for index in 0..<count { file[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - index))) }
        }
        put(frames, xing + 8, 4)
        put(UInt32(file.count), xing + 12, 4)  // the byte count
        put(UInt32(delay << 12 | padding), lame + 21, 3)
        put(UInt32(file.count), lame + 28, 4)  // the LAME tag's music length
        put(UInt32(crc16(file[0..<lame + 34])), lame + 34, 2)  // the tag's CRC: the frame's bytes before it
        return file
    }

    /// CRC-16 (polynomial 0x8005, reflected, as LAME's tag uses).
    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        bytes.reduce(UInt16(0)) { crc, byte in
            (0..<8).reduce(crc ^ UInt16(byte)) { value, _ in value & 1 != 0 ? value >> 1 ^ 0xA001 : value >> 1 }
        }
    }

    /// The CRC as LAME computes it, so the patched tags are checked as valid ones (FFmpeg keeps the tag either way).
    @Test func lamesOwnTagChecksOut() throws {
        let lame = try Self.encoded()
        let end = 13 + 8 + 4 + 4 + 100 + 4 + 34  // the CRC field, after the Xing fields and the LAME tag
        #expect(Int(Self.crc16(lame[0..<end])) == Int(lame[end]) << 8 | Int(lame[end + 1]))
    }

    /// Frames stated, delay, padding: the report's file (240 samples), the delay and padding split otherwise, and a
    /// tag stating one frame of three whose skip and padding overlap (FFmpeg plays 575 samples; we refused it with
    /// "no audio packets" by subtracting both).
    @Test(arguments: [(3, 576, 912), (3, 0, 1488), (3, 1000, 488), (1, 624, 1200), (1, 1104, 1200), (2, 576, 336)])
    func playsAsFFmpegPlaysIt(frames: Int, delay: Int, padding: Int) throws {
        let file = try Self.patched(Self.encoded(), frames: UInt32(frames), delay: delay, padding: padding)
        #expect(file.count == 552)
        let path = try writeTemporary("lame397-\(frames)-\(delay)-\(padding).mp3", file)
        let reference = try Fixtures.referencePCM(path, rate: 24_000, channels: 1).count
        try #require(reference > 0)
        let info = try Decoders.info(of: FileSource(path: path))
        #expect(info.codec == "mp3" && info.sampleRate == 24_000 && !info.durationIsEstimate)
        #expect(Int((info.duration * 24_000).rounded()) == reference, "info \(info.duration) s, FFmpeg \(reference) samples")
        for purpose in [DecodePurpose.playback, .analysis] {
            let decoded = try decodeAll(Decoders.open(FileSource(path: path), purpose: purpose)).count
            #expect(decoded == reference, "\(purpose): decoded \(decoded) samples, FFmpeg \(reference)")
        }
    }

    /// Where FFmpeg decodes nothing (the delay skips all three frames), the note stays a format error.
    @Test func aTagWhoseDelaySkipsEveryFrameIsAFormatError() throws {
        let path = try writeTemporary("lame397-empty.mp3", Self.patched(Self.encoded(), frames: 3, delay: 1200, padding: 288))
        #expect(try Fixtures.referencePCM(path, rate: 24_000, channels: 1).isEmpty)
        #expect(status { _ = try Decoders.info(of: FileSource(path: path)) } == .format)
    }

    /// Skip and padding as libavcodec applies them: the skip replaces what is left, runs on across packets, and a
    /// padding larger than what the skip left of a frame is not applied.
    @Test func skipAndDiscardFollowLibavcodec() {
        var dropping = FFmpegInput.SkipAndDiscard()
        #expect(dropping.output(of: 576, skip: 1153, discard: 576) == 0)  // skipped whole; the padding is not reached
        #expect(dropping.output(of: 576) == 0)                              // 577 left to skip: this frame too
        #expect(dropping.output(of: 576) == 575)
        var reset = FFmpegInput.SkipAndDiscard()
        #expect(reset.output(of: 576, skip: 629, discard: 0) == 0)
        #expect(reset.output(of: 576, skip: 0, discard: 283) == 293)        // new side data: the 53 left are forgotten
        #expect(reset.output(of: 576, skip: 0, discard: 577) == 576)        // more than the frame: not applied
    }
}
