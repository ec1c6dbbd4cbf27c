import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteCore

/// `voicenote attachment FILE`: the `voiceRecording` payload JSON of a recording, with its duration and
/// 100-value waveform read from the file unless given.
struct AttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachment", abstract: "Print the voiceRecording attachment payload (JSON) of a recording.")

    @Argument(help: ArgumentHelp("The recording.", valueName: "file"))
    var file: String

    @Option(help: "The title (default: the file name).")
    var title: String?

    @Option(help: ArgumentHelp("The asset_url (default: the file's file:// URL), e.g. where it was uploaded.", valueName: "url"))
    var url: String?

    @Option(help: ArgumentHelp("The duration in seconds (default: read from the file).", valueName: "seconds"))
    var duration: Double?

    @Flag(help: "Print on one line instead of indented.")
    var compact = false

    func validate() throws {
        if let duration, !(duration.isFinite && duration >= 0) {
            throw ValidationError("--duration must be a number of seconds, 0 or more")
        }
    }

    func run() throws {
        var payload = try VoiceRecordingPayload.fromRecording(path: file, duration: duration)
        if let title { payload.title = title }
        if let url { try payload.setAssetURL(url) }
        print(payload.json(indent: compact ? 0 : 2))
    }
}
