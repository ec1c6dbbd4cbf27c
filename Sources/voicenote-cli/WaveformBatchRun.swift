#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork
import VoiceNoteWaveform

/// `voicenote waveform FILE… [--from FILE|-] -j N`: the inputs fed to one `WaveformBatch` (never more than its
/// window ahead of the line printed, so a million-line `--from` stays in bounded memory), one JSON line per input
/// printed and flushed in input order as it is ready.
struct WaveformBatchRun {
    let batch: WaveformBatch
    /// The JSON of a waveform's values, in the command's wire encoding.
    let line: ([Float]) -> JSONValue

    init(samples: Int, jobs: Int?, http: HTTPArguments, line: @escaping ([Float]) -> JSONValue) throws {
        batch = try WaveformBatch(samples: samples, jobs: jobs) { (location) throws(VoiceNoteError) in
            try RemoteMedia.open(location, options: http.options)
        }
        self.line = line
    }

    /// Runs the batch over `arguments`, then the lines of `from` (a file, or "-" for standard input); returns how
    /// many inputs failed.
    func run(arguments: [String], from: String?) throws -> Int {
        defer { batch.close() }
        var inputs = Inputs(arguments: arguments, from: from)
        try inputs.open()
        defer { inputs.close() }
        var inFlight = 0, failures = 0, ended = false
        while true {
            while !ended && inFlight < batch.window {
                guard let location = inputs.next() else {
                    ended = true
                    batch.endInput()
                    break
                }
                try batch.add(location)
                inFlight += 1
            }
            guard case .item(let item) = try batch.next() else { return failures }
            inFlight -= 1
            if case .failure = item.outcome { failures += 1 }
            print(json(item).line)
            fflush(nil)  // each line as it is ready, also into a pipe
        }
    }

    /// `{"path","duration","values"}` or `{"path","error":{"status","message"}}`.
    func json(_ item: WaveformBatch.Item) -> JSONValue {
        switch item.outcome {
        case .success(let analysis):
            .members([("path", .string(item.location)), ("duration", .number(analysis.duration)),
                      ("values", line(analysis.values))])
        case .failure(let error):
            .members([("path", .string(item.location)),
                      ("error", .members([("status", .string("\(error.status.name)")), ("message", .string(error.message))]))])
        }
    }
}
