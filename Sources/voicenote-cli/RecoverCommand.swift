import ArgumentParser
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteRecorder

/// `voicenote recover [DIR]`: finishes takes a crash left behind.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover", abstract: "Finish recordings left by a crash (*.ogg.part, *.aac.part).")

    @Argument(help: "The recordings directory (default: $XDG_CACHE_HOME/voicenote/recordings).")
    var directory: String?

    @Flag(help: "Print as JSON.")
    var json = false

    func run() throws {
        let outcome = try Recorder.recover(directory: directory ?? RecorderConfiguration().directory)
        if json {
            print(JSONValue.members([
                ("recovered", .array(outcome.recovered.map { .string($0.path) })),
                ("failed", .array(outcome.failed.map { .string("\($0.path): \($0.error.message)") })),
            ]).line)
        } else {
            for file in outcome.recovered { print("recovered \(file.path)  \(formatSeconds(file.duration)) s  \(file.size) bytes") }
            for failure in outcome.failed { print("failed    \(failure.path): \(failure.error)") }
            if outcome.recovered.isEmpty && outcome.failed.isEmpty { print("nothing to recover") }
        }
        if !outcome.failed.isEmpty { throw ExitCode(1) }
    }
}
