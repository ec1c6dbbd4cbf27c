import Foundation
import Testing
@testable import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// `info` equals the decoded length wherever a file says how long it is (MP3's Xing/LAME tag with the encoder's
/// delay and padding, MP4's edit list), and is flagged an estimate only where it does not.
@Suite struct DeclaredLengthTests {
    /// A 10.000 s tone encoded by ffmpeg with `arguments`, into `name`.
    static func tone(_ name: String, rate: Int = 48_000, _ arguments: [String]) throws -> String {
        let path = try Fixtures.temporaryDirectory() + "/" + name
        try Fixtures.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=10:sample_rate=\(rate)",
                          "-ac", "1"] + arguments + [path])
        return path
    }

    static func decodedFrames(_ path: String) throws -> (frames: Int, info: StreamInfo) {
        let decoder = try Decoders.open(FileSource(path: path), purpose: .playback)
        let samples = try decodeAll(decoder)
        return (samples.count / decoder.outputChannels, try Decoders.info(of: FileSource(path: path)))
    }

    @Test(arguments: [
        ("vbr.mp3", 48_000, ["-c:a", "libmp3lame", "-q:a", "4"]),
        ("cbr-info.mp3", 48_000, ["-c:a", "libmp3lame", "-b:a", "64k"]),
        ("mpeg2.mp3", 22_050, ["-c:a", "libmp3lame", "-b:a", "32k"]),
        ("no-id3.mp3", 44_100, ["-c:a", "libmp3lame", "-b:a", "96k", "-id3v2_version", "0"]),
        ("aac.m4a", 48_000, ["-c:a", "aac", "-b:a", "64k"]),
        // ADTS, counted from its frame headers (Stream's Android SDK records it at 16 kHz, iOS AAC at 12 kHz).
        ("note16k.aac", 16_000, ["-c:a", "aac", "-b:a", "32k", "-f", "adts"]),
        ("note12k.aac", 12_000, ["-c:a", "aac", "-b:a", "24k", "-f", "adts"]),
        ("note44k.aac", 44_100, ["-c:a", "aac", "-b:a", "64k", "-f", "adts", "-write_id3v2", "1"]),
    ])
    func aStatedLengthIsTheDecodedLength(name: String, rate: Int, arguments: [String]) throws {
        let path = try Self.tone(name, rate: rate, arguments)
        let (frames, info) = try Self.decodedFrames(path)
        #expect(!info.durationIsEstimate, "\(name)")
        #expect(Int((info.duration * Double(info.sampleRate)).rounded()) == frames,
                "\(name): info \(info.duration) s, decoded \(frames) frames at \(info.sampleRate) Hz")
    }

    /// Tags after the audio (APEv2 with its footer, ID3v1) are not frames: the count stops at them.
    @Test func anADTSLengthIgnoresTagsAfterTheAudio() throws {
        let path = try Self.tone("tagged.aac", rate: 16_000, ["-c:a", "aac", "-b:a", "32k", "-f", "adts"])
        let (frames, plain) = try Self.decodedFrames(path)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let item = [5, 0, 0, 0, 0, 0, 0, 0] + Array("Title".utf8) + [0] + Array("hello".utf8)
        func apeBlock(_ flags: UInt32) -> [UInt8] {
            let size = UInt32(item.count + 32)
            let fields = [2000, size, 1, flags].flatMap { (value: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            return Array("APETAGEX".utf8) + fields + [UInt8](repeating: 0, count: 8)
        }
        bytes += apeBlock(0xA000_0000) + item + apeBlock(0x8000_0000)
        bytes += Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        let tagged = try writeTemporary("tagged-after.aac", bytes)
        let info = try Decoders.info(of: FileSource(path: tagged))
        #expect(!info.durationIsEstimate && info.duration == plain.duration)
        #expect(Int((info.duration * 16_000).rounded()) == frames)
    }

    /// Cut short, an MP3 whose Xing tag claims more frames is counted from its frames; the decoder still drops the
    /// LAME delay at the start, so the count does too (it reported 25 ms too much).
    @Test(arguments: [44_100, 22_050])
    func aCutMP3IsCountedFromItsFramesLessTheEncoderDelay(rate: Int) throws {
        let path = try Self.tone("whole-\(rate).mp3", rate: rate, ["-c:a", "libmp3lame", "-b:a", "64k"])
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = try writeTemporary("cut-\(rate).mp3", Array(whole.prefix(whole.count * 4 / 10)))
        let (frames, info) = try Self.decodedFrames(cut)
        #expect(!info.durationIsEstimate)
        #expect(Int((info.duration * Double(info.sampleRate)).rounded()) == frames,
                "info \(info.duration) s, decoded \(frames) frames at \(info.sampleRate) Hz")
    }

    @Test func anMP3WithoutATagIsAnEstimate() throws {
        let path = try Self.tone("bare.mp3", ["-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"])
        let (frames, info) = try Self.decodedFrames(path)
        #expect(info.durationIsEstimate)
        #expect(abs(info.duration * Double(info.sampleRate) - Double(frames)) < 0.05 * Double(frames))
    }

    @Test func theTagIsReadAsFFmpegReadsIt() {
        // MPEG-1 Layer III mono at 48 kHz: 17 bytes of side information, then "Info", flags 0b1111, 100 frames,
        // a byte count, a seek table, a quality, and a LAME extension with 576 samples of delay and 1000 of padding.
        var bytes: [UInt8] = [0xFF, 0xFB, 0x54, 0xC4] + [UInt8](repeating: 0, count: 17) + Array("Info".utf8)
        bytes += [0, 0, 0, 0x0F, 0, 0, 0, 100] + [UInt8](repeating: 0, count: 4 + 100 + 4)
        bytes += Array("LAME3.100".utf8) + [UInt8](repeating: 0, count: 12) + [0x24, 0x03, 0xE8]
        let tag = MP3LengthTag(prefix: bytes)
        #expect(tag?.samples == 100 * 1152 - 576 - 1000 && tag?.sampleRate == 48_000)
        #expect(MP3LengthTag(prefix: Array(bytes.prefix(30))) == nil)
        var noCount = bytes
        noCount[28] = 0x0E  // the flags without a frame count: no length is stated
        #expect(MP3LengthTag(prefix: noCount) == nil)
    }
}
