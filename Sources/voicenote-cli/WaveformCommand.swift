import ArgumentParser
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteSources
import VoiceNoteWaveform

/// `voicenote waveform FILE|URL`: the waveform of an audio file or http(s) URL, as JSON, terminal bars, SVG or PNG.
/// Several inputs (or `--from FILE|-`, one per line) give one JSON line per input, in input order, computed by one
/// pool of `-j` threads (`WaveformBatchRun`).
struct WaveformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform", abstract: "Compute the waveform of audio files or URLs (docs/waveform.md).",
        discussion: """
            With several inputs, or --from, prints one JSON line per input in input order, as each is ready:             {"path":…,"duration":…,"values":[…]} or {"path":…,"error":{"status":"VN_E_…","message":…}}.             A failing input never stops the others; the exit status is 1 when any failed.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, bars, svg, png
    }

    @Argument(help: ArgumentHelp("Audio files or http(s) URLs (Opus, AAC, MP3, WAV, FLAC, Vorbis).", valueName: "file-or-url"))
    var files: [String] = []

    @Option(help: ArgumentHelp("Also read inputs from this file, one path or URL per line ('-': standard input).", valueName: "file"))
    var from: String?

    @Option(name: .shortAndLong, help: "Threads (default: the CPUs this process may use): one per input, and a long local file split over those idle.")
    var jobs: Int?

    @Option(name: .shortAndLong, help: "Number of values (1…\(Waveform.maximumSampleCount)).")
    var samples = Waveform.defaultSampleCount

    @Option(help: "Output: json (a JSON array), bars (Unicode blocks sized to the terminal), svg or png.")
    var format = Format.json

    @Option(help: "Wire encoding of the JSON output: stream (0…1), matrix (0…1024), telegram (63 packed bytes), signal (bytes).")
    var encoding = WaveformEncoding.stream

    @Option(name: .shortAndLong, help: "Write svg or png output to this file (png needs it).")
    var output: String?

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    /// Whether the inputs are a batch: JSON lines, one per input.
    var isBatch: Bool { files.count > 1 || from != nil }

    func validate() throws {
        if files.isEmpty && from == nil { throw ValidationError("give a file or URL, or --from FILE|-") }
        if let jobs, !(1...256).contains(jobs) { throw ValidationError("--jobs must be 1…256, not \(jobs)") }
        if isBatch && format != .json { throw ValidationError("several inputs give JSON lines: --format json only") }
        guard (1...Waveform.maximumSampleCount).contains(samples) else {
            throw ValidationError("--samples must be 1…\(Waveform.maximumSampleCount), not \(samples)")
        }
        if format == .png && output == nil { throw ValidationError("--format png needs --output FILE") }
    }

    func run() throws {
        if isBatch {
            let run = try WaveformBatchRun(samples: samples, jobs: jobs, http: http, line: { encoded($0) })
            let failures = try run.run(arguments: files, from: from)
            if failures > 0 { throw ExitCode(1) }
            return
        }
        let levels = try singleWaveform(files[0])
        switch format {
        case .json:
            print(encoded(levels).line)
        case .bars:
            print(WaveformRendering.bars(levels, columns: Terminal.columns))
        case .svg:
            let svg = WaveformRendering.svg(levels, width: 700, height: 64)
            if let output { try WaveformRendering.write(svg, to: output) } else { print(svg) }
        case .png:
            try WaveformRendering.png(levels, width: 700, height: 64, to: output ?? "")
        }
    }

    /// One input's levels: a local file long enough is split over the threads `-j` allows (read again per range).
    private func singleWaveform(_ text: String) throws -> [Float] {
        let location = try Location(text)
        let source = try openAudio(location, http: http)
        guard location.isFile else { return try WaveformAnalysis.waveform(of: source, samples: samples) }
        let http = self.http
        return try WaveformAnalysis.analyse(source, samples: samples, ranges: min(256, jobs ?? Processors.available),
                                            reopening: { () throws(VoiceNoteError) in try openAudio(location, http: http) }).values
    }

    /// The levels in the chosen wire encoding, as a JSON array: Stream's floats (4 decimals), else the integers.
    func encoded(_ levels: [Float]) -> JSONValue {
        switch encoding.encode(levels) {
        case .levels(let values): .array(values.map { .number(Double(($0 * 10_000).rounded()) / 10_000) })
        case .integers(let values): .array(values.map { .count($0) })
        case .bytes(let bytes): .array(bytes.map { .count($0) })
        }
    }
}

/// The CLI names the library's own encodings: `--encoding stream|matrix|telegram|signal`.
extension WaveformEncoding: ExpressibleByArgument {}
