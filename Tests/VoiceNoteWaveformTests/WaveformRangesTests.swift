import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport
import VoiceNoteWaveform

/// One long file on several threads (`WaveformAnalysis.analyse(_:samples:ranges:reopening:)`): files written by other
/// people's encoders (opusenc, lame, FFmpeg's AAC and LAME), 42 s of speech whose length is no whole number of
/// frames or pages. The seam property: every bucket within 0.001 of the one-pass analysis, and every bucket more
/// than a second from a cut exactly equal (which a range placed even one frame off would break).
@Suite struct WaveformRangesTests {
    /// 42 s of speech at `rate` (four ranges of ten seconds fit): the fixtures' sentence nine times, each louder or
    /// softer, the last cut short.
    static func longSpeech(rate: Int) throws -> String {
        let directory = Fixtures.directory
        let path = directory + "/long-\(rate).wav"
        if FileManager.default.fileExists(atPath: path) { return path }
        let sentence = try Fixtures.path(.wav)
        var parts: [String] = []
        for index in 0..<9 {
            let part = directory + "/long-part-\(rate)-\(index).wav"
            try Fixtures.run(["sox", "-R", sentence, "-r", String(rate), part, "gain", String(-2 * (index % 5)), "rate", "-v", String(rate)])
            parts.append(part)
        }
        let joined = directory + "/long-joined-\(rate).wav"
        try Fixtures.run(["sox", "-R"] + parts + [joined])
        try Fixtures.run(["sox", "-R", joined, path, "trim", "0", "42.0123"])
        return path
    }

    /// Tests run in parallel: one makes each long file while the others wait.
    private static let making = NSLock()

    /// The long speech as `kind`, made once per test process.
    static func longFile(_ kind: String) throws -> String {
        try making.withLock { try makeLongFile(kind) }
    }

    private static func makeLongFile(_ kind: String) throws -> String {
        let path = Fixtures.directory + "/long." + kind
        if FileManager.default.fileExists(atPath: path) { return path }
        switch kind {
        case "opus.ogg":
            try Fixtures.run(["opusenc", "--quiet", "--bitrate", "24", try longSpeech(rate: 48_000), path])
        case "lame.mp3":  // VBR with a Xing/LAME tag: the decoder drops the encoder's delay and padding
            try Fixtures.run(["lame", "--quiet", "-V", "5", try longSpeech(rate: 44_100), path])
        case "cbr.mp3":  // no information frame: every frame decoded
            try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try longSpeech(rate: 22_050), "-c:a", "libmp3lame",
                              "-b:a", "32k", "-write_xing", "0", path])
        case "adts.aac":
            try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try longSpeech(rate: 44_100), "-c:a", "aac",
                              "-b:a", "48k", "-f", "adts", path])
        case "nopns.aac", "nopns.m4a":  // without perceptual noise substitution, whose noise is random
            try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", try longSpeech(rate: 44_100), "-c:a", "aac",
                              "-aac_pns", "0", "-b:a", "48k"] + (kind.hasSuffix("aac") ? ["-f", "adts"] : []) + [path])
        default:
            throw VoiceNoteError(.invalidArgument, "no long fixture \(kind)")
        }
        return path
    }

    /// The files, and whether buckets away from the cuts must be exactly equal: FFmpeg's AAC decoder fills the
    /// bands an encoder marked as noise (PNS, on by default in FFmpeg's encoder) from a random generator that starts
    /// anew in every decoder, so a range's noise differs from the one-pass noise everywhere, a little (the same
    /// happens to `ffmpeg -ss` against a whole decode of the same file). Those files are compared at 20 values
    /// (2.1 s buckets, those of a 210 s note's 100; at 0.42 s the noise alone moves a bucket by up to 0.0012), the
    /// rest at 1000 (42 ms buckets), where a range one frame off shows.
    static let cases: [(kind: String, samples: Int, exactAwayFromCuts: Bool)] = [
        ("opus.ogg", 1000, true), ("lame.mp3", 1000, true), ("cbr.mp3", 1000, true), ("nopns.aac", 1000, true),
        ("nopns.m4a", 1000, true), ("adts.aac", 20, false),
    ]

    @Test(arguments: cases)
    func bucketsEqualTheOnePassAnalysisWithinAThousandthAtTheSeams(_ kind: String, samples: Int, exactAwayFromCuts: Bool) throws {
        let path = try Self.longFile(kind)
        let whole = try WaveformAnalysis.analyse(try FileSource(path: path), samples: samples)
        for ranges in [2, 4] {
            let plan = try #require(try Decoders.ranges(of: try FileSource(path: path), count: ranges,
                                                        minimumSeconds: WaveformAnalysis.minimumRangeSeconds))
            #expect(plan.count == ranges)
            let split = try WaveformAnalysis.analyse(try FileSource(path: path), samples: samples, ranges: ranges,
                                                     reopening: { () throws(VoiceNoteError) in try FileSource(path: path) })
            #expect(split.ranges == ranges && whole.ranges == 1)
            #expect(split.duration == whole.duration)
            try #require(split.values.count == samples)
            var largest: Float = 0
            var unequalAwayFromCuts: [Int] = []
            for index in 0..<samples {
                let difference = abs(split.values[index] - whole.values[index])
                largest = max(largest, difference)
                let bucketStart = Int64(index) * plan.frameCount / Int64(samples)
                let nearCut = plan.cuts.dropFirst().dropLast().contains {
                    bucketStart + plan.frameCount / Int64(samples) >= $0 && bucketStart < $0 + Int64(plan.outputRate)
                }
                if !nearCut && difference != 0 { unequalAwayFromCuts.append(index) }
            }
            #expect(largest <= 0.001, "\(kind), \(ranges) ranges: largest difference \(largest)")
            #expect(!exactAwayFromCuts || unequalAwayFromCuts.count == 0, "\(kind), \(ranges) ranges: \(unequalAwayFromCuts.count) buckets away from the cuts differ, from \(unequalAwayFromCuts.first ?? -1), cuts \(plan.cuts)")
        }
    }

    /// A packet in the middle whose TOC states two 20 ms frames but whose first frame's length runs past its end:
    /// the one-pass decoder skips it, so the output no longer lines up with the packets' stated durations, and the
    /// split would place the later ranges 40 ms off. The analysis sees the skip and answers the one-pass result.
    @Test func aDamagedPacketMakesItAnalyseInOnePass() throws {
        let directory = try Fixtures.temporaryDirectory()
        var pages = OggPage.parse(Array(try Data(contentsOf: URL(fileURLWithPath: try Self.longFile("opus.ogg")))))
        let middle = try #require((pages.count / 2..<pages.count).first { pages[$0].flags & 1 == 0 && pages[$0].body.count > 2 })
        pages[middle].body[0] = pages[middle].body[0] & 0xFC | 0x02  // code 2: two frames of different lengths
        pages[middle].body[1] = 0xFF  // a first frame longer than the packet
        let path = directory + "/damaged.ogg"
        try OggPage.write(pages, to: path)
        let whole = try WaveformAnalysis.analyse(try FileSource(path: path), samples: 1000)
        let split = try WaveformAnalysis.analyse(try FileSource(path: path), samples: 1000, ranges: 4,
                                                     reopening: { () throws(VoiceNoteError) in try FileSource(path: path) })
        #expect(split == whole)
        #expect(split.ranges == 1)
    }

    /// Short files, formats without exact starts, and one range: one pass.
    @Test func shortFilesAndVorbisAnalyseInOnePass() throws {
        for kind in [Fixtures.Kind.opus, .mp3, .vorbis] {
            let path = try Fixtures.path(kind)
            #expect(try Decoders.ranges(of: try FileSource(path: path), count: 4, minimumSeconds: 1) == nil || kind != .vorbis)
            let split = try WaveformAnalysis.analyse(try FileSource(path: path), samples: 100, ranges: 4,
                                                     reopening: { () throws(VoiceNoteError) in try FileSource(path: path) })
            #expect(split == (try WaveformAnalysis.analyse(try FileSource(path: path), samples: 100)), "\(kind)")
        }
        #expect(throws: VoiceNoteError.self) {
            try WaveformAnalysis.analyse(try FileSource(path: "/nonexistent.ogg"), samples: 100, ranges: 2,
                                                     reopening: { () throws(VoiceNoteError) in try FileSource(path: "/nonexistent.ogg") })
        }
    }

    /// A batch of one long note splits it over its idle workers; with notes waiting, each worker takes its own.
    @Test func aBatchSplitsALongNoteOverItsIdleWorkers() throws {
        let long = try Self.longFile("opus.ogg")
        let whole = try WaveformAnalysis.analyse(try FileSource(path: long), samples: 100)
        let open: @Sendable (Location) throws(VoiceNoteError) -> any ByteSource = WaveformBatchTests.openFile
        let alone = try WaveformBatch(samples: 100, jobs: 4, open: open)
        try alone.add(long)
        alone.endInput()
        guard case .item(let item) = try alone.next(timeout: 60) else { Issue.record("no result"); return }
        let result = try item.outcome.get()
        #expect(result.ranges == 4)
        #expect(result.values == whole.values && result.duration == whole.duration)

        let crowded = try WaveformBatch(samples: 100, jobs: 2, window: 8, open: open)
        for _ in 0..<4 { try crowded.add(long) }
        crowded.endInput()
        var ranges: [Int] = []
        while case .item(let item) = try crowded.next(timeout: 60) {
            let result = try item.outcome.get()
            #expect(result.values == whole.values)
            ranges.append(result.ranges)
        }
        #expect(ranges.count == 4)
        #expect(ranges.dropLast().allSatisfy { $0 == 1 }, "\(ranges)")  // only the last may find a worker idle
    }
}

/// A cancelled analysis stops at its next packet (`CancellationFlag`, what closing a `WaveformBatch` sets): one pass
/// and ranges alike answer `.cancelled`, not a waveform, for Opus (our decoder) and FFmpeg's formats.
@Suite struct WaveformCancellationTests {
    @Test(arguments: ["opus.ogg", "adts.aac"], [1, 4])
    func aCancelledAnalysisThrowsCancelled(kind: String, ranges: Int) throws {
        let path = try WaveformRangesTests.longFile(kind)
        let stopping = CancellationFlag()
        stopping.cancel()
        let error = #expect(throws: VoiceNoteError.self) {
            try WaveformAnalysis.analyse(try FileSource(path: path), samples: 100, ranges: ranges,
                                         cancellation: stopping) { () throws(VoiceNoteError) in try FileSource(path: path) }
        }
        #expect(error?.status == .cancelled)
    }
}

/// Cancelled half way through an FFmpeg note, an analysis stops at its next packet: the read that waits at the gate
/// is let go once the flag is set, and no more than that read is decoded before `.cancelled`.
@Suite struct WaveformCancelledHalfWayTests {
    @Test func anFFmpegAnalysisCancelledHalfWayStops() throws {
        let path = try WaveformRangesTests.longFile("adts.aac")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // Opening walks the frames once (the length), then decoding reads from the start: gate half way through it.
        let source = try GatedSource(path: path, gate: size + size / 2)
        let stopping = CancellationFlag()
        let outcome = Locked<VoiceNoteError??>(nil)
        let thread = Thread {
            do throws(VoiceNoteError) {
                _ = try WaveformAnalysis.analyse(source, samples: 100, cancellation: stopping)
                outcome.withLock { $0 = .some(nil) }
            } catch {
                outcome.withLock { $0 = .some(error) }
            }
        }
        thread.start()
        #expect(eventually(seconds: 60) { source.isWaiting })
        stopping.cancel()
        source.open()
        #expect(eventually(seconds: 20) { outcome.withLock { $0 != nil } })
        let error = try #require(outcome.withLock { $0 } ?? nil)
        #expect(error.status == .cancelled)
        #expect(source.totalRead < size * 2)  // the second half was never read
    }
}
