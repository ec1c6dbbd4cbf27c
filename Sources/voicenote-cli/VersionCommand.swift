import ArgumentParser
import VoiceNoteCore

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
