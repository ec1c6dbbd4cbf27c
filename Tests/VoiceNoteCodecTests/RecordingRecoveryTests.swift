import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport

/// `recover` (docs/recorder.md): `.part` files left by a crash become valid finished recordings.
@Suite struct RecordingRecoveryTests {
    typealias Kit = RecordingTestKit

    /// A finished Opus take of the speech fixture, as bytes.
    static func opusTake() throws -> [UInt8] {
        try bytes(of: Kit.encodeFile(try Kit.speech(), format: .opus))
    }

    static func aacTake() throws -> [UInt8] {
        try bytes(of: Kit.encodeFile(try Kit.speech(), format: .aac))
    }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func opusCutMidPageEndsOnItsLastWholePage() throws {
        let take = try Self.opusTake()
        let pages = Kit.pageMap(take)
        let cut = pages[pages.count - 4]  // well inside the audio
        let keptGranule = pages[pages.count - 5].page.granule
        let part = try writeTemporary("A1B2.ogg.part", Array(take.prefix(cut.offset + cut.length / 2)))
        let directory = (part as NSString).deletingLastPathComponent

        let recovered = try RecordingRecovery.recover(partPath: part)
        #expect(recovered.path == directory + "/A1B2.ogg")
        #expect(!Self.exists(part) && Self.exists(recovered.path))
        let data = try bytes(of: recovered.path)
        #expect(recovered.size == Int64(data.count) && data.count == cut.offset)
        let preSkip = try pages[0].page.body.withUnsafeBytes { try OpusHeader(packet: $0) }.preSkip
        #expect(recovered.duration == Double(keptGranule - Int64(preSkip)) / 48_000)

        // Every page whole with a right CRC; only the last one ends the stream.
        #expect(OggPage.parse(data).flatMap(\.bytes) == data)
        let flags = OggPage.parse(data).map { $0.flags & 0x04 != 0 }
        #expect(flags.last == true && flags.dropLast().allSatisfy { !$0 })
        #expect(Array(data.prefix(cut.offset - pages[pages.count - 5].length)) == Array(take.prefix(cut.offset - pages[pages.count - 5].length)))

        let decoded = try Kit.decodeForPlayback(recovered.path)
        #expect(Double(decoded.samples.count) / 48_000 == recovered.duration)
        let info = String(decoding: try Fixtures.run(["opusinfo", recovered.path]), as: UTF8.self)
        #expect(!info.contains("WARNING") && !info.contains("ERROR"), "\(info)")
    }

    @Test func opusLeftByAKilledEncoderRecovers() throws {
        let input = try Kit.speech()
        let directory = try Fixtures.temporaryDirectory()
        let live = directory + "/live.ogg.part"
        let encoder = try RecordingEncoders.create(.opus, path: live, inputRate: 48_000, channels: 1, settings: EncoderSettings())
        try Kit.feed(encoder, input, chunks: Kit.unevenChunks(total: input.count))
        // A file still being written is left alone...
        #expect(status { _ = try RecordingRecovery.recover(partPath: live) } == .busy)
        // ...and what a SIGKILL leaves (the bytes on disk, no lock) is recovered.
        let killed = directory + "/killed.ogg.part"
        try Data(try bytes(of: live)).write(to: URL(fileURLWithPath: killed))
        let recovered = try RecordingRecovery.recover(partPath: killed)
        #expect(recovered.duration >= Double(input.count) / 48_000 - 0.5)
        #expect(Double(try Kit.decodeForPlayback(recovered.path).samples.count) / 48_000 == recovered.duration)
        try encoder.finish()
    }

    @Test func aacCutMidFrameKeepsWholeFrames() throws {
        let take = try Self.aacTake()
        let frames = Kit.adtsFrames(take)
        let keep = frames.count - 10
        let part = try writeTemporary("C3D4.aac.part", Array(take.prefix(frames[keep].offset + 3)))
        let recovered = try RecordingRecovery.recover(partPath: part)
        #expect(recovered.path.hasSuffix("/C3D4.aac") && !Self.exists(part))
        let data = try bytes(of: recovered.path)
        #expect(data == Array(take.prefix(frames[keep].offset)))
        #expect(recovered.size == Int64(data.count))
        #expect(recovered.duration == Double(keep * 1024) / 48_000)
        let decoded = try Fixtures.referencePCM(recovered.path, rate: 48_000, channels: 1)
        #expect(abs(Double(decoded.count) / 48_000 - recovered.duration) <= 1024.0 / 48_000)
    }

    @Test func headersOnlyIsFormatAndTheFileStays() throws {
        let take = try Self.opusTake()
        let pages = Kit.pageMap(take)
        let headers = Array(take.prefix(pages[2].offset))
        let part = try writeTemporary("E5F6.ogg.part", headers)
        #expect(status { _ = try RecordingRecovery.recover(partPath: part) } == .format)
        #expect(try bytes(of: part) == headers)

        let empty = try writeTemporary("G7.aac.part", [])
        #expect(status { _ = try RecordingRecovery.recover(partPath: empty) } == .format)
        #expect(Self.exists(empty))
        let garbage = try writeTemporary("G8.ogg.part", Array("not an ogg file at all".utf8))
        #expect(status { _ = try RecordingRecovery.recover(partPath: garbage) } == .format)
    }

    @Test func badPathsAreRefused() throws {
        let directory = try Fixtures.temporaryDirectory()
        #expect(status { _ = try RecordingRecovery.recover(partPath: directory + "/x.ogg") } == .invalidArgument)
        #expect(status { _ = try RecordingRecovery.recover(partPath: directory + "/missing.ogg.part") } == .notFound)
        let other = try writeTemporary("x.wav.part", [1, 2, 3])
        #expect(status { _ = try RecordingRecovery.recover(partPath: other) } == .unsupported)
        try FileManager.default.createDirectory(atPath: directory + "/d.ogg.part", withIntermediateDirectories: false)
        #expect(status { _ = try RecordingRecovery.recover(partPath: directory + "/d.ogg.part") } == .invalidArgument)
        // A finished file of the same name is never overwritten.
        let take = try Self.opusTake()
        let part = try writeTemporary("H9.ogg.part", take)
        let finalPath = String(part.dropLast(5))
        try Data([7]).write(to: URL(fileURLWithPath: finalPath))
        #expect(status { _ = try RecordingRecovery.recover(partPath: part) } == .io)
        #expect(try bytes(of: finalPath) == [7] && Self.exists(part))
    }

    @Test func directoryRecoveryReportsEachFile() throws {
        let directory = try Fixtures.temporaryDirectory()
        let opus = try Self.opusTake(), aac = try Self.aacTake()
        let pages = Kit.pageMap(opus)
        func put(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: directory + "/" + name))
        }
        try put("11111111-AAAA.ogg.part", Array(opus.prefix(opus.count - 100)))
        try put("22222222-BBBB.aac.part", Array(aac.prefix(aac.count - 100)))
        try put("33333333-CCCC.ogg.part", Array(opus.prefix(pages[2].offset)))  // headers only
        try put("44444444-DDDD.ogg", opus)  // finished: not touched
        try put("notes.txt", Array("hello".utf8))

        let result = RecordingRecovery.recoverDirectory(directory)
        #expect(result.recovered.map(\.path) == [directory + "/11111111-AAAA.ogg", directory + "/22222222-BBBB.aac"])
        #expect(result.recovered.allSatisfy { $0.duration > 5 && $0.size > 0 })
        #expect(result.failed.map(\.path) == [directory + "/33333333-CCCC.ogg.part"])
        #expect(result.failed.map(\.error.status) == [.format])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() ==
                ["11111111-AAAA.ogg", "22222222-BBBB.aac", "33333333-CCCC.ogg.part", "44444444-DDDD.ogg", "notes.txt"])
        #expect(try bytes(of: directory + "/44444444-DDDD.ogg") == opus)

        // Nothing left to do the second time; a missing directory has nothing to recover.
        let again = RecordingRecovery.recoverDirectory(directory)
        #expect(again.recovered.isEmpty && again.failed.count == 1)
        let missing = RecordingRecovery.recoverDirectory(directory + "/nope")
        #expect(missing.recovered.isEmpty && missing.failed.isEmpty)
    }

    @Test func aHardLinkedPartIsNotRepairedInPlace() throws {
        // Repair rewrites the file: through a second link it would change a file outside the recordings.
        let take = try Self.opusTake()
        let outside = try writeTemporary("victim.ogg", Array(take.prefix(take.count - 100)))  // cut mid-page
        let directory = try Fixtures.temporaryDirectory()
        let part = directory + "/h.ogg.part"
        #expect(link(outside, part) == 0)
        #expect(status { _ = try RecordingRecovery.recover(partPath: part) } == .invalidArgument)
        let outcome = RecordingRecovery.recoverDirectory(directory)
        #expect(outcome.recovered.isEmpty && outcome.failed.map(\.error.status) == [.invalidArgument])
        #expect(outcome.failed.first?.error.message.contains("hard links") == true)
        #expect(try bytes(of: outside) == Array(take.prefix(take.count - 100)))
        #expect(Self.exists(part) && !Self.exists(directory + "/h.ogg"))
    }

    @Test func aSymlinkedPartIsNotFollowed() throws {
        let take = try Self.opusTake()
        let outside = try writeTemporary("victim.ogg", Array(take.prefix(take.count - 100)))
        let directory = try Fixtures.temporaryDirectory()
        let part = directory + "/s.ogg.part"
        #expect(symlink(outside, part) == 0)
        #expect(status { _ = try RecordingRecovery.recover(partPath: part) } == .invalidArgument)
        let outcome = RecordingRecovery.recoverDirectory(directory)
        #expect(outcome.recovered.isEmpty && outcome.failed.isEmpty)
        #expect(try bytes(of: outside) == Array(take.prefix(take.count - 100)))
    }
}
