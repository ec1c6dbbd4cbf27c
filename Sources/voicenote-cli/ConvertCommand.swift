import ArgumentParser
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNotePlayer

/// `voicenote convert FILE|URL OUTPUT [--rate R] [--format opus|aac] [--bitrate K]`: a note written again as a
/// recording (Ogg Opus or AAC), optionally at another speed with its pitch kept.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Write a note again as Ogg Opus or AAC, optionally at another speed with its pitch kept.")

    @Argument(help: ArgumentHelp("The note: an audio file or http(s) URL in any format the player reads.", valueName: "file-or-url"))
    var file: String

    @Argument(help: ArgumentHelp("The file to write (replaced once the new one is complete).", valueName: "output"))
    var output: String

    @Option(help: "Speed, 0.5…2.5; the new note lasts the original's length divided by it.")
    var rate = 1.0

    @Option(help: "File format.")
    var format = RecordCommand.Format.opus

    @Option(help: "Bitrate in kbit/s.")
    var bitrate = 32

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    @Flag(help: "Print the result as JSON.")
    var json = false

    func run() throws {
        guard (6...256).contains(bitrate) else { throw ValidationError("--bitrate must be 6…256 kbit/s") }
        let options = NoteConverter.Options(rate: try PlaybackRate(rate), format: format == .aac ? .aac : .opus,
                                            encoder: EncoderSettings(bitrate: bitrate * 1000))
        let source = try openAudio(Location(file), http: http)
        let duration = try NoteConverter.convert(source, to: output, options: options)
        if json {
            print(JSONValue.members([("file", .string(output)), ("duration", .number(duration))]).line)
        } else {
            print("\(output): \(formatSeconds(duration)) s")
        }
    }
}
