import ArgumentParser
import VoiceNoteCore

/// The `voicenote` command-line tool: record, play, analyse and attach voice messages.
@main
struct VoiceNoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicenote",
        abstract: "Record, play, analyse and attach voice messages.",
        version: Version.string.description,
        subcommands: [DemoCommand.self, RecordCommand.self, PlayCommand.self, RecoverCommand.self, InfoCommand.self, WaveformCommand.self, ConvertCommand.self, AttachmentCommand.self, UploadCommand.self, DevicesCommand.self, VersionCommand.self]
    )
}
