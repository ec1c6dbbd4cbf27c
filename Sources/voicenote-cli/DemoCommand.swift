import ArgumentParser
import VoiceNoteCore

/// `voicenote demo`: the whole story of a voice message on any machine, with no sound card and no microphone —
/// spoken by espeak-ng into a virtual ALSA microphone, recorded through the hold-to-record flow (hold, lock, stop,
/// preview, trim, send), drawn, uploaded, and played back at 1x and 2x and in a queue of three.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Record, trim, send, draw and play a voice message: the whole story, with or without a sound card.",
        discussion: """
            A sentence spoken by espeak-ng goes into a virtual ALSA microphone (configuration text handed to the \
            library, nothing in the environment) and is recorded through the hold-to-record flow: hold, slide up \
            to lock, stop, preview, trim, send. The take's length, waveform and voiceRecording payload are \
            printed and the waveform written as SVG; with --endpoint the note is uploaded (Stream's multipart \
            upload) and played back from the URL the server gives. It plays at 1x and 2x, then in a queue of \
            three notes that follow each other by themselves: to the default ALSA device, or to WAV files in the \
            output directory when there is none. --live records 5 s from the default microphone instead.
            """)

    @Option(help: ArgumentHelp("Where the demo's files go (created).", valueName: "dir"))
    var outputDir = "voicenote-demo"

    @Option(help: ArgumentHelp("Upload the note to this http(s) URL and play it back from the server.", valueName: "url"))
    var endpoint: String?

    @Flag(help: "Record from the default microphone and play to the default speaker.")
    var live = false

    @Option(help: "What the virtual microphone hears.")
    var text = "Hi, it's me. I'm leaving the office now, see you at seven at the station."

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    func validate() throws {
        guard !outputDir.isEmpty else { throw ValidationError("--output-dir must name a directory") }
        if let endpoint, !(endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://")) {
            throw ValidationError("--endpoint must be an http(s) URL")
        }
        guard !text.trimmingPrefix(while: { $0 == " " }).isEmpty, text.utf8.count <= 1000 else {
            throw ValidationError("--text must say something, in at most 1000 bytes")
        }
    }

    func run() throws {
        try FileSystem.makeDirectories(outputDir)
        let demo = try DemoSession(directory: outputDir, live: live, text: text, endpoint: endpoint, http: try http.options())
        try demo.run()
    }
}

extension String {
    /// The string without the leading characters that match.
    fileprivate func trimmingPrefix(while matches: (Character) -> Bool) -> Substring {
        self[(firstIndex { !matches($0) } ?? endIndex)...]
    }
}
