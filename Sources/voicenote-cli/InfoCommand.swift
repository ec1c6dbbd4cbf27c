import ArgumentParser
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteSources

/// `voicenote info FILE|URL`: duration, codec, rate, channels, bitrate and size of an audio file or http(s) URL.
/// A URL is shown without its query or credentials (signed CDN URLs carry secrets there).
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Show the duration, codec, rate, channels, bitrate and size of an audio file or URL.")

    @Argument(help: ArgumentHelp("The audio file or http(s) URL.", valueName: "file-or-url"))
    var file: String

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let source = try openAudio(Location(file), http: http)
        let info = try Decoders.info(of: source)
        let size = source.size ?? 0
        let name = source.name  // the path as given, or the URL without its query or credentials
        if json {
            print(JSONValue.members([
                ("file", .string(name)), ("duration", .number(info.duration)),
                ("duration_is_estimate", .bool(info.durationIsEstimate)), ("codec", .string(info.codec)),
                ("sample_rate", .count(info.sampleRate)), ("channels", .count(info.channels)),
                ("bitrate", .count(info.bitrate)), ("size", .count(size)),
            ]).line)
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
        }
    }
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
