import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteSources
import VoiceNoteWaveform

/// `voicenote info FILE|URL`: duration, codec, rate, channels, bitrate and size of an audio file or http(s) URL, and
/// its EBU R128 loudness (one decoding pass; `--no-loudness` reads only the headers).
/// A URL is shown without its query or credentials (signed CDN URLs carry secrets there).
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show the duration, codec, rate, channels, bitrate, size and loudness of an audio file or URL.")

    @Argument(help: ArgumentHelp("The audio file or http(s) URL.", valueName: "file-or-url"))
    var file: String

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    @Flag(help: "Print as JSON.")
    var json = false

    @Flag(help: "Skip the loudness (which decodes the whole note): the headers' facts only.")
    var noLoudness = false

    func run() throws {
        let location = try Location(file)
        let source = try openAudio(location, http: http)
        let info = try Decoders.info(of: source)
        let size = source.size ?? 0
        let name = source.name  // the path as given, or the URL without its query or credentials
        // A second source over the same bytes (a URL's come from the media cache): the analysis reads from the start.
        let loudness = noLoudness ? nil : try WaveformAnalysis.analyse(openAudio(location, http: http)).loudness
        if json {
            var members: [(String, JSONValue)] = [
                ("file", .string(name)), ("duration", .number(info.duration)),
                ("duration_is_estimate", .bool(info.durationIsEstimate)), ("codec", .string(info.codec)),
                ("sample_rate", .count(info.sampleRate)), ("channels", .count(info.channels)),
                ("bitrate", .count(info.bitrate)), ("size", .count(size)),
            ]
            if let loudness { members.append(("loudness", loudness.json)) }
            print(JSONValue.members(members).line)
        } else {
            let approximate = info.durationIsEstimate ? "~" : ""
            print("""
                file:        \(name)
                duration:    \(approximate)\(formatSeconds(info.duration)) s
                codec:       \(info.codec)
                sample rate: \(info.sampleRate) Hz
                channels:    \(info.channels)
                bitrate:     \(info.bitrate / 1000) kbit/s
                size:        \(size) bytes
                """)
            if let loudness { print("loudness:    \(loudnessText(loudness))") }
        }
    }
}

/// "−20.2 LUFS, range 1.2 LU, true peak −0.1 dBTP", or "silent".
func loudnessText(_ loudness: Loudness) -> String {
    guard !loudness.isSilent else { return "silent (nothing above -70 LUFS)" }
    return "\(formatTenths(loudness.integrated)) LUFS, range \(formatTenths(loudness.range)) LU, "
        + "true peak \(formatTenths(loudness.truePeak)) dBTP"
}

/// A figure with one decimal, without Foundation.
func formatTenths(_ value: Double) -> String {
    guard value.isFinite, value.magnitude < 1e9 else { return "\(value)" }
    let tenths = Int((value * 10).rounded())
    return "\(tenths < 0 ? "-" : "")\(tenths.magnitude / 10).\(tenths.magnitude % 10)"
}

/// Seconds with three decimals, without Foundation.
func formatSeconds(_ seconds: Double) -> String {
    // A file's duration is outside data: converting a NaN, infinite or huge one to Int would trap.
    guard seconds.isFinite, seconds.magnitude < 1e12 else { return "\(seconds)" }
    let millis = Int((seconds * 1000).rounded())
    let fraction = String(millis.magnitude % 1000)
    let whole = String(millis.magnitude / 1000)
    return "\(millis < 0 ? "-" : "")\(whole).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
}
