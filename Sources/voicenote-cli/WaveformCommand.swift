import ArgumentParser
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteSources
import VoiceNoteWaveform

/// `voicenote waveform FILE|URL`: the waveform of an audio file or http(s) URL, as JSON, terminal bars, SVG or PNG.
struct WaveformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waveform", abstract: "Compute the waveform of an audio file (docs/waveform.md).")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case json, bars, svg, png
    }

    @Argument(help: ArgumentHelp("The audio file or http(s) URL (Opus, AAC, MP3, WAV, FLAC, Vorbis).", valueName: "file-or-url"))
    var file: String

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

    func validate() throws {
        guard (1...Waveform.maximumSampleCount).contains(samples) else {
            throw ValidationError("--samples must be 1…\(Waveform.maximumSampleCount), not \(samples)")
        }
        if format == .png && output == nil { throw ValidationError("--format png needs --output FILE") }
    }

    func run() throws {
        let levels = try WaveformAnalysis.waveform(of: openAudio(file, http: http), samples: samples)
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
