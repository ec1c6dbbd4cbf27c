import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import VoiceNoteCore

/// The `voicenote` command-line tool: record, play, analyse and attach voice messages.
@main
struct VoiceNoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voicenote",
        abstract: "Record, play, analyse and attach voice messages.",
        version: Version.string.description,
        subcommands: [DemoCommand.self, RecordCommand.self, PlayCommand.self, RecoverCommand.self, InfoCommand.self, WaveformCommand.self, TranscribeCommand.self, SearchCommand.self, ConvertCommand.self, AttachmentCommand.self, UploadCommand.self, OutboxCommand.self, DevicesCommand.self, VersionCommand.self]
    )

    /// Runs the command with SIGXFSZ ignored: a file-size limit (`ulimit -f`) then fails the write with EFBIG, which
    /// the library reports as `VN_E_NO_SPACE` and cleans up after (a take finished, a conversion's part removed),
    /// instead of killing the process mid-write.
    static func main() {
        signal(SIGXFSZ, SIG_IGN)
        main(nil)
    }
}
