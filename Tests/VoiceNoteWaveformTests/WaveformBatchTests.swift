import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteTestSupport
import VoiceNoteWaveform

/// WaveformBatch: results in input order whatever order the workers finish in, equal to the one-file analysis;
/// failures as results; the window bounds how far workers run ahead; end, timeout, close and misuse.
@Suite struct WaveformBatchTests {
    /// The opener of a batch of local files.
    static func openFile(_ location: Location) throws(VoiceNoteError) -> any ByteSource {
        guard case .file(let path, _) = location else { throw VoiceNoteError(.unsupported, "\(location.text) is not a file") }
        return try FileSource(path: path)
    }

    /// Every result of `batch` until `.end`, waiting at most 30 s for each.
    func drain(_ batch: WaveformBatch) throws -> [WaveformBatch.Item] {
        var items: [WaveformBatch.Item] = []
        while true {
            switch try batch.next(timeout: 30) {
            case .item(let item): items.append(item)
            case .end: return items
            case .timedOut: throw VoiceNoteError(.internal, "no result within 30 s after \(items.count)")
            }
        }
    }

    @Test(arguments: [1, 4])
    func resultsComeInInputOrderAndEqualTheOneFileAnalysis(_ jobs: Int) throws {
        let directory = try Fixtures.temporaryDirectory()
        let garbage = directory + "/random.ogg"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: URL(fileURLWithPath: garbage))
        let kinds: [Fixtures.Kind] = [.opus, .mp3, .aacADTS, .wav, .flac, .m4a]
        var inputs = try kinds.map { try Fixtures.path($0) }
        inputs.insert(directory + "/missing.ogg", at: 2)
        inputs.insert(directory, at: 4)  // a directory
        inputs.insert(garbage, at: 6)
        let batch = try WaveformBatch(samples: 60, jobs: jobs, open: Self.openFile)
        for input in inputs { try batch.add(input) }
        batch.endInput()
        let items = try drain(batch)
        #expect(items.map(\.index) == Array(inputs.indices))
        #expect(items.map(\.location) == inputs)
        for item in items {
            switch item.outcome {
            case .success(let analysis):
                let alone = try WaveformAnalysis.analyse(try FileSource(path: item.location), samples: 60)
                #expect(analysis == alone, "\(item.location)")
                #expect(analysis.duration > 5 && analysis.duration < 7, "\(item.location): \(analysis.duration) s")
            case .failure(let error):
                let expected: Status = item.location.hasSuffix("missing.ogg") ? .notFound
                    : item.location == directory ? .invalidArgument : .format
                #expect(error.status == expected, "\(item.location): \(error)")
            }
        }
        #expect(items.filter { if case .failure = $0.outcome { true } else { false } }.count == 3)
    }

    @Test func workersNeverRunMoreThanTheWindowAheadOfTheResultsTaken() throws {
        let opened = Locked(0)
        let path = try Fixtures.path(.opus)
        let batch = try WaveformBatch(samples: 10, jobs: 2, window: 3) { (location) throws(VoiceNoteError) in
            opened.withLock { $0 += 1 }
            return try Self.openFile(location)
        }
        for _ in 0..<20 { try batch.add(path) }
        // Nothing taken yet: the workers open the window's three notes and stop there.
        #expect(eventually(seconds: 30) { opened.withLock { $0 } == 3 })
        var taken = 0
        while taken < 20 {
            #expect(opened.withLock { $0 } <= taken + 3, "\(opened.withLock { $0 }) opened with \(taken) taken")
            guard case .item(let item) = try batch.next(timeout: 30) else {
                Issue.record("no result \(taken)")
                break
            }
            #expect(item.index == taken)
            taken += 1
        }
        guard case .end = try { batch.endInput(); return try batch.next(timeout: 1) }() else {
            Issue.record("no end")
            return
        }
    }

    @Test func anEmptyInputEndsAtOnceAndNextTimesOutWhileWaiting() throws {
        let clock = ManualClock()
        let batch = try WaveformBatch(jobs: 2, clock: clock, open: Self.openFile)
        let waiting = try Background { if case .timedOut? = try? batch.next(timeout: 0.05) { true } else { false } }
        #expect(eventually(seconds: 10) { clock.nextDeadline == 0.05 }, "next did not begin to wait")
        try clock.advance(0.04)
        #expect(waiting.result == nil, "next returned before its timeout")
        try clock.advance(0.01)
        guard waiting.result(within: 10) == true else {
            Issue.record("a result from an empty batch")
            return
        }
        batch.endInput()
        batch.endInput()  // idempotent
        guard case .end = try batch.next(timeout: 1) else {
            Issue.record("no end after endInput")
            return
        }
    }

    @Test func misuseAndArgumentsAreRefused() throws {
        #expect(throws: VoiceNoteError(.invalidArgument, "jobs must be 1…256, not 0")) {
            try WaveformBatch(jobs: 0, open: Self.openFile)
        }
        #expect(throws: VoiceNoteError.self) { try WaveformBatch(samples: 0, open: Self.openFile) }
        #expect(throws: VoiceNoteError.self) { try WaveformBatch(jobs: 4, window: 2, open: Self.openFile) }
        let batch = try WaveformBatch(jobs: 1, open: Self.openFile)
        batch.endInput()
        #expect(throws: VoiceNoteError.self) { try batch.add("x.ogg") }
        batch.close()
        batch.close()
        #expect(throws: VoiceNoteError.self) { try batch.next(timeout: 0) }
    }

    @Test func closingWhileWorkersRunStopsThemAndDroppingTheBatchDoesToo() throws {
        let path = try Fixtures.path(.opus)
        let batch = try WaveformBatch(samples: 100, jobs: 3, open: Self.openFile)
        for _ in 0..<50 { try batch.add(path) }
        batch.close()  // returns once the workers are gone: nothing runs after it
        var dropped: WaveformBatch? = try WaveformBatch(jobs: 2, open: Self.openFile)
        for _ in 0..<10 { try dropped?.add(path) }
        dropped = nil
        #expect(dropped == nil)
    }
}
