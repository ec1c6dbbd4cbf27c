import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
import VoiceNoteSources

/// Hostile input must not choose our memory: analysing it stays within 5 MiB (docs/performance.md) of analysing a small
/// valid file of the same format. Measured on whole processes (the CLI built next to this test binary, under GNU
/// time), since a test process's own peak says nothing about one call.
@Suite(.serialized) struct BoundedMemoryTests {
    /// 5 MiB for an uninstrumented CLI (`make test` gives the release CLI through `VOICENOTE_CLI`). An instrumented
    /// one grows shadow memory with what is touched and AddressSanitizer keeps freed blocks in quarantine, so the
    /// bound is 64 MiB there: still far below the hundreds of MiB an unbounded index took (422 MB for the ADTS file,
    /// 116 MB for the comment header).
    static func budgetKiB() throws -> Int { (try instrumented(cli()) ? 64 : 5) * 1024 }

    /// True when the executable at `path` carries a sanitizer (its dynamic symbols name the sanitizer's init).
    static func instrumented(_ path: String) throws -> Bool {
        let image = try Data(contentsOf: URL(fileURLWithPath: path))
        return ["__asan_init", "__tsan_init"].contains { image.range(of: Data($0.utf8)) != nil }
    }

    /// The CLI of this build: `VOICENOTE_CLI`, else `voicenote-cli` beside the test binary.
    static func cli() throws -> String {
        if let path = ProcessInfo.processInfo.environment["VOICENOTE_CLI"] { return path }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("voicenote-cli").path
        guard FileManager.default.isExecutableFile(atPath: beside) else {
            throw SetupFailure("no CLI at \(beside): build it (swift build --build-tests) or set VOICENOTE_CLI")
        }
        return beside
    }

    /// Peak RSS in KiB of `voicenote <arguments>`, by GNU time; its exit status must be `status`.
    static func peakKiB(_ arguments: [String], exitStatus: Int32) throws -> Int {
        let report = try Fixtures.temporaryDirectory() + "/time.txt"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%M", "-o", report, try cli()] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == exitStatus, "voicenote \(arguments.joined(separator: " "))")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        guard let kib = text.split(whereSeparator: \.isNewline).last.flatMap({ Int($0) }) else {
            throw SetupFailure("GNU time wrote \(text)")
        }
        return kib
    }

    /// Runs `command` on the hostile file and on the fixture, and checks the difference of their peaks.
    func expectBounded(_ command: String, hostile: String, hostileExit: Int32, like fixture: Fixtures.Kind) throws {
        let small = try Self.peakKiB([command, Fixtures.path(fixture)], exitStatus: 0)
        let large = try Self.peakKiB([command, hostile], exitStatus: hostileExit)
        #expect(large - small <= (try Self.budgetKiB()),
                "\(command): \(large) KiB for the hostile file, \(small) KiB for \(fixture.rawValue)")
    }

    /// 21 MB of ADTS frames that are all header (7 bytes, no payload): 3 million frames no decoder accepts.
    func headersOnlyADTS() throws -> String {
        let frame: [UInt8] = [0xFF, 0xF1, 0x4C, 0x40, 0x00, 0xFF, 0xFC]  // AAC LC, 48 kHz, mono, 7 bytes
        let path = try Fixtures.temporaryDirectory() + "/headers-only.aac"
        let thousand = Data((0..<1000).flatMap { _ in frame })
        var data = Data(capacity: thousand.count * 3000)
        for _ in 0..<3000 { data.append(thousand) }
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The Opus fixture with a 40 MB comment header (about 650 pages), written by FFmpeg from a metadata file.
    func hugeCommentHeaderOpus() throws -> String {
        let directory = try Fixtures.temporaryDirectory()
        let metadata = directory + "/metadata.txt"
        var text = Data(";FFMETADATA1\ncomment=".utf8)
        text.append(Data(repeating: 0x61, count: 40 * 1024 * 1024))
        text.append(Data("\n".utf8))
        try text.write(to: URL(fileURLWithPath: metadata))
        let path = directory + "/huge-comment.ogg"
        try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", Fixtures.path(.opus), "-i", metadata,
                          "-map", "0:a", "-map_metadata", "1", "-c", "copy", path])
        return path
    }

    @Test func infoOfHeaderOnlyADTSFramesStaysWithinBudget() throws {
        try expectBounded("info", hostile: headersOnlyADTS(), hostileExit: 1, like: .aacADTS)
    }

    @Test func waveformOfHeaderOnlyADTSFramesStaysWithinBudget() throws {
        try expectBounded("waveform", hostile: headersOnlyADTS(), hostileExit: 1, like: .aacADTS)
    }

    @Test func infoOfAHugeOpusCommentHeaderStaysWithinBudget() throws {
        try expectBounded("info", hostile: hugeCommentHeaderOpus(), hostileExit: 0, like: .opus)
    }

    @Test func waveformOfAHugeOpusCommentHeaderStaysWithinBudget() throws {
        try expectBounded("waveform", hostile: hugeCommentHeaderOpus(), hostileExit: 0, like: .opus)
    }

    @Test func hugeCommentHeaderIsCheckedNotKeptAndTheAudioIsUnchanged() throws {
        let path = try hugeCommentHeaderOpus()
        let info = try Decoders.info(of: FileSource(path: path))
        let fixture = try Decoders.info(of: FileSource(path: Fixtures.path(.opus)))
        #expect(info.duration == fixture.duration)
        #expect(try decodeAll(Decoders.open(FileSource(path: path))) == decodeAll(openFixture(.opus)))
    }

    @Test func commentHeaderDeclaringMoreThanItHoldsIsFormat() throws {
        // A comment length past the packet's end: libopusfile refuses the header, and so does every path here.
        var pages = OggPage.parse(try bytes(of: Fixtures.path(.opus)))
        let vendorLength = Int(pages[1].body[8]) | Int(pages[1].body[9]) << 8
        let countAt = 12 + vendorLength
        pages[1].body.replaceSubrange(countAt..<(countAt + 4), with: [0xFF, 0xFF, 0xFF, 0x0F])
        let path = try Fixtures.temporaryDirectory() + "/lying-tags.ogg"
        try OggPage.write(pages, to: path)
        #expect(status { _ = try Decoders.info(of: FileSource(path: path)) } == .format)
        #expect(status { _ = try Decoders.open(FileSource(path: path)) } == .format)
        #expect(status { _ = try Decoders.open(FileSource(path: path), purpose: .playback) } == .format)
    }
}
