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

    /// Tags after the audio are not frames: the count stops at them, in any order (as tag editors append them).
    @Test(arguments: TagBytes.trailers)
    func anADTSLengthIgnoresTagsAfterTheAudio(trailer: String) throws {
        let path = try Self.tone("tagged.aac", rate: 16_000, ["-c:a", "aac", "-b:a", "32k", "-f", "adts"])
        let (frames, plain) = try Self.decodedFrames(path)
        let tagged = try writeTemporary("tagged-after.aac", Array(try Data(contentsOf: URL(fileURLWithPath: path))) + TagBytes.trailer(trailer))
        let info = try Decoders.info(of: FileSource(path: tagged))
        #expect(!info.durationIsEstimate && info.duration == plain.duration, "\(trailer): \(info)")
        #expect(Int((info.duration * 16_000).rounded()) == frames)
    }

    /// Bytes after the frames that are no tag (a damaged end): the length is not known exactly, so it is an estimate,
    /// never a count that stopped early reported as exact.
    @Test func bytesAfterTheFramesThatAreNoTagLeaveAnEstimate() throws {
        let path = try Self.tone("junk.aac", rate: 16_000, ["-c:a", "aac", "-b:a", "32k", "-f", "adts"])
        let junk = try writeTemporary("junk-after.aac", Array(try Data(contentsOf: URL(fileURLWithPath: path))) + Array(repeating: 0x55, count: 300))
        #expect(try Decoders.info(of: FileSource(path: junk)).durationIsEstimate)
    }

    /// An MP3 with no information frame (a CBR file written without a Xing tag) is counted from its frame headers:
    /// exact, the decoded length, whatever tags follow the audio (they made FFmpeg's estimate 70-200 ms too long).
    @Test(arguments: ["", "ape+id3v2", "lyrics3v2+ape+id3v1", "lyrics3v1+id3v1"], [48_000, 22_050])
    func anMP3WithoutAnInformationFrameIsCountedFromItsFrames(trailer: String, rate: Int) throws {
        let path = try Self.tone("bare-\(rate).mp3", rate: rate, ["-c:a", "libmp3lame", "-b:a", "32k", "-write_xing", "0"])
        let (frames, plain) = try Self.decodedFrames(path)
        #expect(!plain.durationIsEstimate)
        #expect(Int((plain.duration * Double(rate)).rounded()) == frames, "\(plain.duration) s against \(frames) frames")
        let tagged = try writeTemporary("bare-tagged-\(rate).mp3", Array(try Data(contentsOf: URL(fileURLWithPath: path))) + TagBytes.trailer(trailer))
        let taggedInfo = try Decoders.info(of: FileSource(path: tagged))
        #expect(taggedInfo.duration == plain.duration && !taggedInfo.durationIsEstimate, "\(trailer): \(taggedInfo) against \(plain)")
    }

    /// Tags after the audio of an MP3 with a Xing/LAME tag change nothing: the tag states the length.
    @Test func anMP3TaggedAfterItsAudioKeepsItsLength() throws {
        let path = try Self.tone("xing.mp3", rate: 44_100, ["-c:a", "libmp3lame", "-b:a", "64k"])
        let (frames, plain) = try Self.decodedFrames(path)
        let tagged = try writeTemporary("xing-tagged.mp3", Array(try Data(contentsOf: URL(fileURLWithPath: path))) + TagBytes.trailer("ape+id3v2"))
        let (taggedFrames, info) = try Self.decodedFrames(tagged)
        #expect(info.duration == plain.duration && !info.durationIsEstimate && taggedFrames == frames && Int((info.duration * 44_100).rounded()) == frames)
    }

    /// A cut MP3 without a Xing tag: the decoder outputs the last frame the cut shortened, so the count includes it.
    @Test func aCutMP3WithoutATagCountsItsLastFrame() throws {
        let path = try Self.tone("bare-cut.mp3", rate: 44_100, ["-c:a", "libmp3lame", "-b:a", "64k", "-write_xing", "0"])
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let cut = try writeTemporary("bare-cut-short.mp3", Array(whole.prefix(whole.count * 4 / 10 + 77)))
        let (frames, info) = try Self.decodedFrames(cut)
        #expect(!info.durationIsEstimate && Int((info.duration * 44_100).rounded()) == frames, "\(info.duration) s, \(frames) frames")
    }

    /// MP4/M4A/3GP as other encoders write them: a movie header longer than the track, an edit list starting later
    /// (Apple's 2112 samples of priming), an edit running past the data. `info` is the edit list's length, bounded
    /// by what the packets hold after its start, and the decoder outputs exactly that (it reported the movie
    /// header's length while the player played another, 15-47 ms apart).
    @Test(arguments: [
        ("plain", [String: UInt32]()),
        ("movie-header-longer", ["mvhd": 10_060]),
        ("apple-priming", ["mtime": 2112, "seg": 9_950]),
        ("edit-past-the-data", ["mtime": 4096]),
        ("edit-longer", ["seg": 10_400, "mvhd": 10_400]),
    ])
    func anMP4PlaysItsEditList(name: String, patch: [String: UInt32]) throws {
        let path = try Self.tone("edit-\(name).m4a", rate: 12_000, ["-c:a", "aac", "-b:a", "24k"])
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let movie = try #require(MP4Boxes.find(["moov", "mvhd"], in: bytes))
        let edits = try #require(MP4Boxes.find(["moov", "trak", "edts", "elst"], in: bytes))
        #expect(MP4Boxes.word(bytes, movie + 20) == 1000, "movie time scale")  // so the patches are in ms
        let mediaTime = Int(MP4Boxes.word(bytes, edits + 20))
        for (field, value) in patch {
            switch field {
            case "mvhd": MP4Boxes.setWord(&bytes, movie + 24, value)
            case "seg": MP4Boxes.setWord(&bytes, edits + 16, value)
            default: MP4Boxes.setWord(&bytes, edits + 20, value)
            }
        }
        let patched = try writeTemporary("patched-\(name).m4a", bytes)
        let (frames, info) = try Self.decodedFrames(patched)
        // The packets hold 10 s plus ffmpeg's priming, padded to whole frames of 1024.
        let held = (10 * 12_000 + mediaTime + 1023) / 1024 * 1024
        let edit = Int(MP4Boxes.word(bytes, edits + 16)) * 12
        let expected = min(edit, held - Int(MP4Boxes.word(bytes, edits + 20)))
        #expect(!info.durationIsEstimate)
        #expect(Int((info.duration * 12_000).rounded()) == expected, "\(name): info \(info.duration) s, expected \(expected) frames")
        #expect(frames == expected, "\(name): decoded \(frames) frames, expected \(expected)")
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
        #expect(MP3LengthTag.hasInformationFrame(prefix: noCount))
    }
}

/// Tags as tag editors append them after the audio, built by hand.
enum TagBytes {
    /// The trailers the tests try, by name: tags joined by "+" in file order.
    static let trailers = ["ape+id3v1", "id3v2", "ape+id3v2", "lyrics3v2+ape+id3v1", "lyrics3v1+id3v1", "apenoheader"]

    static func trailer(_ name: String) -> [UInt8] {
        name.split(separator: "+").flatMap { tag -> [UInt8] in
            switch tag {
            case "ape": ape(header: true)
            case "apenoheader": ape(header: false)
            case "id3v1": Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
            case "id3v2": id3v2WithFooter()
            case "lyrics3v2": lyrics3v2()
            case "lyrics3v1": Array("LYRICSBEGIN".utf8) + Array("hello, a song".utf8) + Array("LYRICSEND".utf8)
            default: []
            }
        }
    }

    /// An APEv2 tag: its header (optional), one item, its footer.
    static func ape(header: Bool) -> [UInt8] {
        let item = [5, 0, 0, 0, 0, 0, 0, 0] + Array("Title".utf8) + [0] + Array("hello".utf8)
        func block(_ flags: UInt32) -> [UInt8] {
            let size = UInt32(item.count + 32)
            let fields = [2000, size, 1, flags].flatMap { (value: UInt32) in (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
            return Array("APETAGEX".utf8) + fields + [UInt8](repeating: 0, count: 8)
        }
        return (header ? block(0xA000_0000) : []) + item + block(header ? 0x8000_0000 : 0)
    }

    /// An ID3v2.4 tag with a footer (`3DI`) and one TIT2 frame, 1000 bytes of body (a footer forbids padding).
    static func id3v2WithFooter() -> [UInt8] {
        let text = [UInt8](repeating: 0x41, count: 989)
        let frame = Array("TIT2".utf8) + syncsafe(text.count + 1) + [0, 0, 3] + text
        let size = syncsafe(frame.count)
        return Array("ID3".utf8) + [4, 0, 0x10] + size + frame + Array("3DI".utf8) + [4, 0, 0x10] + size
    }

    /// A Lyrics3 v2 tag: LYRICSBEGIN, one field, its size in six digits, LYRICS200.
    static func lyrics3v2() -> [UInt8] {
        let body = Array("LYRICSBEGIN".utf8) + Array("IND00003110".utf8) + Array("LYR00005hello".utf8)
        return body + Array(String(format: "%06d", body.count).utf8) + Array("LYRICS200".utf8)
    }

    private static func syncsafe(_ value: Int) -> [UInt8] {
        [21, 14, 7, 0].map { UInt8(value >> $0 & 0x7F) }
    }
}

/// MP4 boxes, found and patched by hand (a test edits what other encoders write differently).
enum MP4Boxes {
    /// The offset of the box at `path` (containers walked from the top), or nil.
    static func find(_ path: [String], in bytes: [UInt8], from start: Int = 0, to end: Int? = nil) -> Int? {
        var offset = start
        let end = end ?? bytes.count
        while offset + 8 <= end {
            let size = Int(word(bytes, offset))
            guard size >= 8, offset + size <= end else { return nil }
            if String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self) == path[0] {
                return path.count == 1 ? offset : find(Array(path.dropFirst()), in: bytes, from: offset + 8, to: offset + size)
            }
            offset += size
        }
        return nil
    }

    static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func setWord(_ bytes: inout [UInt8], _ offset: Int, _ value: UInt32) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * index)) }
    }
}
