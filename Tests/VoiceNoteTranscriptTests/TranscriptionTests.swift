import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNoteSources
import VoiceNoteTestSupport
@testable import VoiceNoteTranscript

/// The transcription job: formats, the cache, cancel, damaged and silent notes, and host backends that script,
/// fail or block.
@Suite struct TranscriptionTests {
    /// The threads of this process named `name` now.
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { (try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8))?.hasPrefix(name) == true }.count
    }

    /// Runs a transcription to its end; its events in order.
    static func run(_ open: @escaping @Sendable () throws(VoiceNoteError) -> any ByteSource, backend: any TranscriptionBackend,
                    cache: MediaCache) throws -> [TranscriptionEvent] {
        let events = Locked<[TranscriptionEvent]>([])
        let transcription = Transcription(open: open, backend: backend, cache: cache)
        _ = try transcription.events.subscribe({ event in events.withLock { $0.append(event) } }, release: nil)
        try transcription.start()
        #expect(transcription.wait(seconds: 120).ended)
        #expect(eventually { events.withLock { $0.contains { if case .words = $0 { false } else { true } } } })
        return events.withLock { $0 }
    }

    static func cache() throws -> MediaCache {
        let cache = MediaCache()
        try cache.setDirectory(try Fixtures.temporaryDirectory() + "/cache")
        return cache
    }

    @Test(arguments: [Fixtures.Kind.opus, .mp3, .m4a, .opusStereo])
    func everyFormatIsHeardAndASecondRequestIsACacheRead(kind: Fixtures.Kind) throws {
        let path = try Fixtures.path(kind)
        let cache = try Self.cache()
        let backend = try PocketSphinxBackend()
        let first = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: backend, cache: cache)
        guard case .finished(let transcript, let cached)? = first.last else { Issue.record("\(first)"); return }
        #expect(!cached && transcript.recogniser == "pocketsphinx/en-us")
        // "Hey, it's me. I'm just leaving the office now. See you at seven, and bring the charger." — espeak-ng's
        // voice is far from the model's speakers; a few words always come through.
        #expect(transcript.words.count >= 5 && transcript.words.last!.end <= 6.5, "\(transcript.text)")
        #expect(zip(transcript.words, transcript.words.dropFirst()).allSatisfy { $0.start <= $1.start })
        let second = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: backend, cache: cache)
        guard case .finished(let again, let fromCache)? = second.last else { Issue.record("\(second)"); return }
        #expect(fromCache && again == transcript && second.count == 1)
    }

    @Test func aTranscriptByAnotherRecogniserIsNotServed() throws {
        let path = try Fixtures.path(.opus)
        let cache = try Self.cache()
        _ = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: ScriptedBackend(identity: "one"), cache: cache)
        let other = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: ScriptedBackend(identity: "two"), cache: cache)
        guard case .finished(let transcript, let cached)? = other.last else { Issue.record("\(other)"); return }
        #expect(!cached && transcript.recogniser == "two")
    }

    @Test func aHostBackendsWordsArriveAsTheyAreFound() throws {
        let path = try Fixtures.path(.wav)
        let backend = ScriptedBackend(identity: "scripted")
        let events = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: backend, cache: try Self.cache())
        let told = events.compactMap { if case .words(let words) = $0 { words } else { nil } }
        guard case .finished(let transcript, false)? = events.last else { Issue.record("\(events)"); return }
        // One word per second of audio fed, at the backend's rate (8 kHz: the 48 kHz WAV resampled), then "end".
        #expect(told.count >= 4 && transcript.words.map(\.text).last == "end", "\(transcript.text)")
        #expect(told.flatMap { $0 } == transcript.words)
        let seconds = Double(try Fixtures.referencePCM(path, rate: 8000, channels: 1).count) / 8000
        #expect(abs(backend.seconds.withLock { $0 } - seconds) < 0.01, "\(backend.seconds.withLock { $0 }) s fed of \(seconds) s")
    }

    @Test func aFailingBackendFailsTheTranscriptionAndKeepsNothing() throws {
        let path = try Fixtures.path(.opus)
        let cache = try Self.cache()
        let events = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) },
                                  backend: ScriptedBackend(identity: "failing", failAfter: 1), cache: cache)
        guard case .failed(let error)? = events.last else { Issue.record("\(events)"); return }
        #expect(error.status == .io && error.message.contains("scripted failure"))
        let again = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) },
                                 backend: ScriptedBackend(identity: "failing"), cache: cache)
        guard case .finished(_, false)? = again.last else { Issue.record("\(again)"); return }
    }

    @Test func cancelMidNoteEndsItAndLeavesNoThread() throws {
        let path = try Fixtures.path(.opus)
        let gate = Gate()
        let backend = ScriptedBackend(identity: "gated", gate: gate)
        let events = Locked<[TranscriptionEvent]>([])
        let transcription = Transcription(open: { () throws(VoiceNoteError) in try FileSource(path: path) }, backend: backend,
                                          cache: try Self.cache())
        _ = try transcription.events.subscribe({ event in events.withLock { $0.append(event) } }, release: nil)
        try transcription.start()
        #expect(eventually { gate.waiting })
        transcription.cancel()
        gate.open()
        #expect(transcription.wait(seconds: 20).ended)
        #expect(eventually { events.withLock { if case .failed(let error)? = $0.last { error.status == .cancelled } else { false } } })
        #expect(eventually { Self.threads(named: "vn-transcribe") == 0 }, "the transcription's thread is still there")
    }

    @Test func closeDoesNotWaitForABackendThatBlocks() throws {
        let path = try Fixtures.path(.opus)
        let gate = Gate()
        let heard = Locked(0)
        let transcription = Transcription(open: { () throws(VoiceNoteError) in try FileSource(path: path) },
                                          backend: ScriptedBackend(identity: "blocking", gate: gate), cache: try Self.cache())
        _ = try transcription.events.subscribe({ _ in heard.withLock { $0 += 1 } }, release: nil)
        try transcription.start()
        #expect(eventually { gate.waiting })
        transcription.close()  // returns with the backend still blocked
        #expect(!transcription.wait(seconds: 0.05).ended)
        gate.open()
        #expect(transcription.wait(seconds: 20).ended)
        #expect(heard.withLock { $0 } == 0, "an event arrived after close")
        #expect(eventually { Self.threads(named: "vn-transcribe") == 0 })
    }

    @Test func aFileThatIsNoAudioAndARecogniserSayingFormatFailIt() throws {
        let text = try Fixtures.temporaryDirectory() + "/page.html"
        try Data("<html>404 not found</html>".utf8).write(to: URL(fileURLWithPath: text))
        let refused = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: text) }, backend: ScriptedBackend(identity: "x"),
                                   cache: try Self.cache())
        guard case .failed(let error)? = refused.last else { Issue.record("\(refused)"); return }
        #expect(error.status == .format)

        final class SaysFormat: TranscriptionBackend, TranscriptionSession {
            let identity = "says-format"
            var sampleRate: Int { 16000 }
            func begin() throws(VoiceNoteError) -> any TranscriptionSession { self }
            func feed(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> [TranscriptWord] {
                throw VoiceNoteError(.format, "the recogniser's own format failure")
            }
            func finish() throws(VoiceNoteError) -> [TranscriptWord] { [] }
        }
        let path = try Fixtures.path(.opus)
        let failed = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: path) }, backend: SaysFormat(), cache: try Self.cache())
        guard case .failed(let own)? = failed.last else { Issue.record("a recogniser's failure was taken for damage: \(failed)"); return }
        #expect(own.message.contains("own format failure"))
    }

    @Test func notesTakeTurnsAndAWaitingOneIsCancelledAtOnce() throws {
        let path = try Fixtures.path(.opus)
        let slots = RecognitionSlots(limit: 1)
        let gate = Gate()
        let first = ScriptedBackend(identity: "first", gate: gate, takesTurns: true)
        let second = ScriptedBackend(identity: "second", takesTurns: true)
        let cache = try Self.cache()
        func make(_ backend: ScriptedBackend) -> Transcription {
            Transcription(open: { () throws(VoiceNoteError) in try FileSource(path: path) }, backend: backend, cache: cache,
                          dispatcher: EventThread.shared, slots: slots)
        }
        let running = make(first), waiting = make(second)
        let cancelled = make(ScriptedBackend(identity: "third", takesTurns: true))
        let host = make(ScriptedBackend(identity: "host"))  // a host's recogniser does not take turns
        try running.start()
        #expect(eventually { gate.waiting })
        try waiting.start()
        try cancelled.start()
        #expect(eventually { slots.busy == 1 })
        cancelled.cancel()  // waiting for its turn: ends at once, the first still holding the only slot
        #expect(cancelled.wait(seconds: 20).ended && cancelled.failure?.status == .cancelled)
        #expect(second.seconds.withLock { $0 } == 0, "the second began while the first held the only slot")
        try host.start()
        #expect(host.wait(seconds: 60).transcript?.recogniser == "host", "a host's recogniser waited for a turn")
        gate.open()
        #expect(running.wait(seconds: 60).transcript != nil)
        #expect(waiting.wait(seconds: 60).transcript?.recogniser == "second")
        #expect(slots.busy == 0)
    }

    @Test func aSilentNoteHasNoWordsAndADamagedOneTheWordsHeard() throws {
        let directory = try Fixtures.temporaryDirectory()
        let silent = directory + "/silent.ogg"
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", directory + "/silent.wav", "trim", "0", "3"])
        try Fixtures.run(["opusenc", "--quiet", directory + "/silent.wav", silent])
        let quiet = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: silent) }, backend: try PocketSphinxBackend(), cache: try Self.cache())
        guard case .finished(let none, false)? = quiet.last else { Issue.record("\(quiet)"); return }
        #expect(none.words.isEmpty && quiet.count == 1)

        let whole = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path(.mp3)))
        let damaged = directory + "/damaged.mp3"
        var bytes = [UInt8](whole.prefix(whole.count * 2 / 3))
        for index in stride(from: bytes.count / 3, to: bytes.count / 3 + 2000, by: 7) { bytes[index] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let events = try Self.run({ () throws(VoiceNoteError) in try FileSource(path: damaged) }, backend: try PocketSphinxBackend(), cache: try Self.cache())
        guard case .finished(let heard, false)? = events.last else { Issue.record("\(events)"); return }
        #expect(heard.words.allSatisfy { $0.end <= 4.5 })
    }

    @Test func aMissingModelIsUnsupportedNamingThePackage() throws {
        let backend = try PocketSphinxBackend(modelDirectory: try Fixtures.temporaryDirectory(), language: "en-us")
        #expect(throws: VoiceNoteError.self) { _ = try backend.begin() }
        do { _ = try backend.begin() } catch {
            #expect(error.status == .unsupported && error.message.contains("pocketsphinx-en-us"))
        }
        #expect(throws: VoiceNoteError.self) { _ = try PocketSphinxBackend(language: "../etc") }
    }

    @Test func recordsParseStrictly() throws {
        let transcript = Transcript(words: [try TranscriptWord(text: "hello", start: 0.25, end: 0.5, confidence: 0.75),
                                            try TranscriptWord(text: "world", start: 0.6, end: 1, confidence: 1)],
                                    recogniser: "pocketsphinx/en-us")
        #expect(Transcript(record: transcript.record) == transcript)
        #expect(Transcript(record: String(transcript.record.dropLast())) == nil)
        #expect(Transcript(record: transcript.record.replacingOccurrences(of: "0.75", with: "1.5")) == nil)
        #expect(Transcript(record: transcript.record.replacingOccurrences(of: "\tworld", with: "\two rld")) == nil)
        #expect(Transcript(record: "VNTRANSCRIPT1\nrecogniser x\n") == Transcript(words: [], recogniser: "x"))
        #expect(transcript.contains(allOf: "WORLD hello") && !transcript.contains(allOf: "hello there"))
        #expect(transcript.wordIndex(at: 0.1) == nil && transcript.wordIndex(at: 0.7) == 1)
        #expect(PocketSphinxSession.spoken("the(2)") == "the" && PocketSphinxSession.spoken("<sil>") == nil
                && PocketSphinxSession.spoken("[NOISE]") == nil && PocketSphinxSession.spoken("(a)") == "(a)")
    }
}

/// A gate a backend waits at, opened by the test.
final class Gate: Sendable {
    private let monitor = Monitor()
    private let state = Locked((open: false, waiting: false))
    var waiting: Bool { state.withLock { $0.waiting } }
    func pass() {
        monitor.locked {
            state.withLock { $0.waiting = true }
            while !state.withLock({ $0.open }) { monitor.wait() }
        }
    }
    func open() {
        monitor.locked {
            state.withLock { $0.open = true }
            monitor.broadcast()
        }
    }
}

/// A host's backend as a test writes it: 8 kHz, one word ("w<n>") per second of audio fed, "end" at the finish;
/// optionally failing after some words, or waiting at a gate on its first feed.
final class ScriptedBackend: TranscriptionBackend {
    let identity: String
    let failAfter: Int?
    let gate: Gate?
    let takesTurns: Bool
    let seconds = Locked(0.0)
    init(identity: String, failAfter: Int? = nil, gate: Gate? = nil, takesTurns: Bool = false) {
        self.identity = identity
        self.failAfter = failAfter
        self.gate = gate
        self.takesTurns = takesTurns
    }
    var sampleRate: Int { 8000 }
    func begin() throws(VoiceNoteError) -> any TranscriptionSession { Session(self) }

    final class Session: TranscriptionSession {
        let backend: ScriptedBackend
        var fed = 0, words = 0
        init(_ backend: ScriptedBackend) { self.backend = backend }
        func feed(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> [TranscriptWord] {
            if fed == 0 { backend.gate?.pass() }
            fed += samples.count
            backend.seconds.withLock { $0 = Double(fed) / 8000 }
            var found: [TranscriptWord] = []
            while (words + 1) * 8000 <= fed {
                if let limit = backend.failAfter, words >= limit { throw VoiceNoteError(.io, "scripted failure") }
                found.append(try TranscriptWord(text: "w\(words)", start: Double(words), end: Double(words) + 0.5, confidence: 0.5))
                words += 1
            }
            return found
        }
        func finish() throws(VoiceNoteError) -> [TranscriptWord] {
            [try TranscriptWord(text: "end", start: Double(fed) / 8000, end: Double(fed) / 8000, confidence: 1)]
        }
    }
}
