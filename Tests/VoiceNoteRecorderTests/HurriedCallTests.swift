import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// A user who taps record, pause and stop as fast as fingers go: every order of control calls, with nothing in
/// between, on ALSA's `null` device (silence, as fast as it is read). The host never crashes, every call answers
/// with success or `.misuse`, and every take ends as a whole finished file or as nothing (no `.part` left).
/// Runs under ThreadSanitizer and AddressSanitizer too (`make test`).
@Suite(.serialized) struct HurriedCallTests {
    enum Call: CaseIterable, CustomStringConvertible {
        case begin, pause, resume, stop, cancel

        var description: String {
            switch self {
            case .begin: "begin"
            case .pause: "pause"
            case .resume: "resume"
            case .stop: "stop"
            case .cancel: "cancel"
            }
        }

        func apply(to recorder: Recorder) throws {
            switch self {
            case .begin: try recorder.begin()
            case .pause: try recorder.pause()
            case .resume: try recorder.resume()
            case .stop: try recorder.stop()
            case .cancel: try recorder.cancel()
            }
        }
    }

    /// Every sequence of one to four calls.
    static let sequences: [[Call]] = (1...4).flatMap { length in
        (0..<Int(pow(Double(Call.allCases.count), Double(length)))).map { index in
            var rest = index
            return (0..<length).map { _ in
                defer { rest /= Call.allCases.count }
                return Call.allCases[rest % Call.allCases.count]
            }
        }
    }

    /// Every order, three rounds; one round under ThreadSanitizer, where 2,340 recorders took four minutes, the whole
    /// TSan run's length (every order still runs there; the plain and ASan runs repeat them).
    @Test func everyOrderOfUpToFourCallsEndsInAWholeFileOrNothing() throws {
        #expect(Self.sequences.count == 5 + 25 + 125 + 625)
        let directory = try Fixtures.temporaryDirectory()
        var problems: [String] = []
        for round in 0..<(Sanitizers.thread ? 1 : 3) {
            for sequence in Self.sequences {
                problems += try run(sequence, in: directory + "/r\(round)")
                if problems.count > 20 { break }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
    }

    @Test func beginThenPauseAtOnceKeepsAWholeTake() throws {
        // The reported crash: pause before the encoder had any audio flushed libopusenc's missing Ogg stream.
        let directory = try Fixtures.temporaryDirectory()
        for _ in 0..<30 {
            let problems = try run([.begin, .pause, .stop], in: directory)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    /// Runs `sequence` on a new recorder, ends any take with `stop`, and checks what is left on disk.
    private func run(_ sequence: [Call], in directory: String) throws -> [String] {
        var settings = RecorderConfiguration()
        settings.directory = directory
        settings.device = DeviceSelection(name: "null")
        settings.maximumDuration = 0.5
        try FileSystem.makeDirectories(directory)
        let recorder = try Recorder(configuration: settings)
        defer { recorder.close() }
        let log = try EventLog(recorder)
        var problems: [String] = []
        var takes = 0
        for call in sequence {
            let answer = status(of: { try call.apply(to: recorder) })
            if let answer, answer != .misuse {
                problems.append("\(sequence): \(call) answered \(answer)")
            }
            if call == .begin && answer == nil { takes += 1 }
        }
        if recorder.context.state != .stopped { _ = status(of: { try recorder.stop() }) }
        // Every take ends with exactly one stopped context, delivered on the event thread (late under load).
        let ended = log.wait(seconds: 20) { events in
            let stopped = events.filter { if case .context(let context) = $0 { context.state == .stopped } else { false } }
            return recorder.context.state == .stopped && stopped.count >= takes
        }
        guard ended else { return problems + ["\(sequence): never stopped"] }
        let finished = log.all.compactMap { if case .finished(let result) = $0 { result } else { nil } }
        let names = try FileSystem.entries(of: directory)
        if let part = names.first(where: { $0.hasSuffix(".part") }) { problems.append("\(sequence): left \(part)") }
        for result in finished {
            guard FileManager.default.fileExists(atPath: result.path) else {
                problems.append("\(sequence): finished \(result.path) is missing")
                continue
            }
            do {
                let decoded = try decode(result.path)
                let expected = Int((result.duration * 48_000).rounded())
                if abs(decoded.samples.count - expected) > 1 {
                    problems.append("\(sequence): \(decoded.samples.count) samples decoded, \(expected) reported")
                }
            } catch {
                problems.append("\(sequence): finished file does not decode: \(error)")
            }
            try? FileSystem.remove(result.path)
        }
        let kept = Set(finished.map { ($0.path as NSString).lastPathComponent })
        if let stray = names.first(where: { !$0.hasSuffix(".part") && !kept.contains($0) }) {
            problems.append("\(sequence): \(stray) is on disk without a finished event")
            try? FileSystem.remove(directory + "/" + stray)
        }
        return problems
    }
}
