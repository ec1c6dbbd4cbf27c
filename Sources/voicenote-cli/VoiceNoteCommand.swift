import ArgumentParser
import VoiceNoteCore

/// The `voicenote` command-line tool: record, play, analyse and attach voice messages.
@main
struct VoiceNoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicenote",
        abstract: "Record, play, analyse and attach voice messages.",
        version: Version.string.description,
        subcommands: [VersionCommand.self]
    )
}

/// `voicenote version`: prints the library version.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "version", abstract: "Print the voicenote version.")

    @Flag(help: "Print as JSON.")
    var json = false

    func run() {
        if json {
            print("{\"version\":\"\(Version.string)\",\"number\":\(Version.number)}")
        } else {
            print("voicenote \(Version.string)")
        }
    }
}
