import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteTranscript

/// `voicenote transcribe FILE|URL…`: the words of notes, recognised on this machine (PocketSphinx), kept in the
/// media cache so asking again costs a cache read. One input prints its words as each utterance is recognised;
/// several (or `--from`) run `-j` at once and print one result per input, in input order.
struct TranscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe", abstract: "Transcribe notes offline, with word times (docs/transcripts.md).",
        discussion: """
            Text: one input prints its words as they are recognised; several print "INPUT: TEXT" lines. \
            --json: one JSON line per input, {"path":…,"recogniser":…,"text":…,"cached":…,"words":[{"text","start","end","confidence"}…]} \
            or {"path":…,"error":{"status":"VN_E_…","message":…}}. A failing input never stops the others; the exit status is 1 \
            when any failed. Needs PocketSphinx (Debian: libpocketsphinx3 pocketsphinx-en-us).
            """)

    @Argument(help: ArgumentHelp("Audio files or http(s) URLs.", valueName: "file-or-url"))
    var files: [String] = []

    @Option(help: ArgumentHelp("Also read inputs from this file, one path or URL per line ('-': standard input).", valueName: "file"))
    var from: String?

    @Option(name: .shortAndLong, help: "Notes read at once (default: the CPUs this process may use; recognition itself runs one note per CPU at a time).")
    var jobs: Int?

    @Flag(help: "Print JSON lines with every word's times and confidence.")
    var json = false

    @Option(help: ArgumentHelp("PocketSphinx's model directory (default: Debian's).", valueName: "dir"))
    var model: String?

    @Option(help: ArgumentHelp("The model's language (default: en-us).", valueName: "name"))
    var language: String?

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    func validate() throws {
        if files.isEmpty && from == nil { throw ValidationError("give a file or URL, or --from FILE|-") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be 1…256, not \(jobs)") }
    }

    func run() throws {
        let backend = try PocketSphinxBackend(modelDirectory: model, language: language)
        var inputs = Inputs(arguments: files, from: from)
        try inputs.open()
        defer { inputs.close() }
        let single = files.count == 1 && from == nil
        let window = jobs ?? Processors.available
        var running: [Started] = []
        var failures = 0, ended = false
        while true {
            while !ended && running.count < window {
                guard let location = inputs.next() else { ended = true; break }
                running.append(start(location, backend: backend, streaming: single && !json))
            }
            guard !running.isEmpty else { break }
            let first = running.removeFirst()
            if !report(first, streamed: single && !json) { failures += 1 }
            fflush(nil)
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// One input: its transcription (started), or why it could not start; and, when its words are printed as they
    /// come, whether its last event has been printed.
    struct Started {
        let location: String
        let job: Transcription?
        let error: VoiceNoteError?
        let told = EndTold()
    }

    /// Set by the event thread once the last event was handled: the words of the last utterance come with it, and
    /// closing the transcription before would drop them.
    final class EndTold: Sendable {
        private let monitor = Monitor()
        private let ended = Locked(false)
        func mark() { monitor.locked { ended.withLock { $0 = true }; monitor.broadcast() } }
        /// Waits (at most `seconds`) for the mark.
        func wait(seconds: Double) {
            let deadline = MonotonicClock.shared.now + seconds
            monitor.locked {
                while !ended.withLock({ $0 }) && MonotonicClock.shared.wait(on: monitor, until: deadline) {}
            }
        }
    }

    /// Starts one input's transcription (printing its words as they come when `streaming`), or its error.
    private func start(_ location: String, backend: PocketSphinxBackend, streaming: Bool) -> Started {
        do throws(VoiceNoteError) {
            let parsed = try Location(location)
            let options = try http.options()
            let job = Transcription(open: { () throws(VoiceNoteError) in try RemoteMedia.open(parsed, options: { options }) }, backend: backend)
            let started = Started(location: location, job: job, error: nil)
            if streaming {
                let told = started.told
                _ = try job.events.subscribe({ event in
                    switch event {
                    case .words(let words):
                        print(words.map(\.text).joined(separator: " "))
                        fflush(nil)
                    case .finished, .failed:
                        told.mark()
                    }
                }, release: nil)
            }
            try job.start()
            return started
        } catch {
            return Started(location: location, job: nil, error: error)
        }
    }

    /// Waits for one input and prints its result; false when it failed.
    private func report(_ item: Started, streamed: Bool) -> Bool {
        var failure = item.error
        var transcript: Transcript?
        var cached = false
        if let job = item.job {
            transcript = job.wait().transcript
            failure = transcript == nil ? (job.failure ?? VoiceNoteError(.internal, "no transcript")) : nil
            cached = job.wasCached
            if streamed { item.told.wait(seconds: 10) }  // the last utterance's words are printed before we go on
            job.close()
        }
        if let failure {
            if json {
                print(JSONValue.members([("path", .string(item.location)), ("error", .members([
                    ("status", .string("\(failure.status.name)")), ("message", .string(failure.message))]))]).line)
            } else {
                printError("voicenote transcribe: \(item.location): \(failure.message)")
            }
            return false
        }
        guard let transcript else { return false }
        if json {
            var object = transcript.jsonValue.object ?? JSONObject()
            object.insert("path", .string(item.location), at: 0)
            object.insert("cached", .bool(cached), at: 3)
            print(JSONValue.object(object).line)
        } else if streamed {
            if cached { print(transcript.text) }  // nothing was streamed: it came from the cache whole
        } else {
            print("\(item.location): \(transcript.text)")
        }
        return true
    }
}

/// `voicenote search WORDS FILE|URL…`: the notes whose kept transcripts hold every word of WORDS, without decoding
/// or downloading anything (transcribe them first).
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search", abstract: "Find notes by words in their kept transcripts (docs/transcripts.md).",
        discussion: """
            Prints "INPUT<TAB>SECONDS<TAB>TEXT" for each note holding every word (any order, any case), SECONDS being \
            where the first of them is said. A note without a kept transcript is named on standard error. The exit \
            status is 0 when a note matched, 1 when none did.
            """)

    @Argument(help: "The words to find (one argument; quote several).")
    var words: String

    @Argument(help: ArgumentHelp("Audio files or http(s) URLs transcribed before.", valueName: "file-or-url"))
    var files: [String] = []

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    func validate() throws {
        if words.split(whereSeparator: { $0.isWhitespace }).isEmpty { throw ValidationError("give the words to find") }
        if files.isEmpty { throw ValidationError("give the files or URLs to search") }
    }

    func run() throws {
        var matched = false
        for file in files {
            let transcript: Transcript?
            do throws(VoiceNoteError) {
                transcript = try Transcription.kept(at: try Location(file), options: http.options)
            } catch {
                printError("voicenote search: \(file): \(error.message)")
                continue
            }
            guard let transcript else {
                printError("voicenote search: \(file): no transcript kept (voicenote transcribe it first)")
                continue
            }
            guard let first = transcript.firstMatch(allOf: words) else { continue }
            matched = true
            print("\(file)\t\((first.start * 100).rounded() / 100)\t\(transcript.text)")
        }
        if !matched { throw ExitCode(1) }
    }
}

/// A line on standard error (write(2): no stdio state shared across threads).
func printError(_ line: String) {
    let text = Array((line + "\n").utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
