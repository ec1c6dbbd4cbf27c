import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteNetwork

/// `voicenote upload FILE --endpoint URL`: uploads a recording as Stream (multipart) or Matrix (`--raw`) expect
/// it, shows a progress bar on a terminal and prints the uploaded payload JSON.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload", abstract: "Upload a recording and print its voiceRecording payload (JSON).",
        discussion: """
            Stream: --endpoint https://chat.stream-io-api.com/channels/messaging/ID/file --query api_key=KEY \
            --header "Authorization: JWT" --header "Stream-Auth-Type: jwt". Matrix: --raw --endpoint \
            https://HOMESERVER/_matrix/media/v3/upload --header "Authorization: Bearer TOKEN" (asset_url is then \
            the mxc:// URI), or --matrix --endpoint https://HOMESERVER (the URI created first, then the bytes put there).
            """)

    @Argument(help: ArgumentHelp("The recording.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("The http(s) URL to upload to (with --matrix, the homeserver's base URL).", valueName: "url"))
    var endpoint: String

    @Option(help: "The title (default: the file name).")
    var title: String?

    @OptionGroup
    var sending: UploadArguments

    @Flag(help: "Print on one line instead of indented.")
    var compact = false

    func run() throws {
        let options = try sending.options()
        let uploader = try Uploader(endpoint: endpoint, options: options)
        defer { uploader.close() }
        var payload = try VoiceRecordingPayload.fromRecording(path: file)
        if let title { payload.title = title }
        let bar = ProgressBar(enabled: Terminal.isInteractiveError)
        _ = try uploader.events.subscribe({ state in
            if case .uploading(let progress) = state { bar.show(progress) }
        }, release: nil)
        try uploader.upload(.file(file), payload: payload)
        bar.show(0)  // it started at 0%, whenever (or whether) that event reaches the subscriber before the end
        let outcome = uploader.wait()
        // The last progress event may still be on its way to the subscriber: the bar ends at 100% on success.
        if case .uploaded = outcome { bar.show(1) }
        bar.finish()
        switch outcome {
        case .uploaded(let uploaded): print(uploaded.json(indent: compact ? 0 : 2))
        case .uploadFailed(let error): throw error
        default: throw VoiceNoteError(.internal, "the upload did not end")
        }
    }
}

/// `[#########           ]  45%` on standard error, redrawn in place; nothing when standard error is no terminal.
/// Drawn under a lock, so a progress event arriving late never draws after `finish`.
final class ProgressBar: @unchecked Sendable {
    private struct State {
        var drawn = -1
        var finished = false
    }
    private let enabled: Bool
    private let state = Locked(State())

    init(enabled: Bool) { self.enabled = enabled }

    /// Draws `fraction` (0…1) when the shown percentage grows (an event late from the event thread never takes it
    /// back); nothing after `finish`.
    func show(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        state.withLock { state in
            guard !state.finished, percent > state.drawn else { return }
            state.drawn = percent
            let width = 30
            let filled = percent * width / 100
            let padding = String(repeating: " ", count: 3 - String(percent).count)
            Terminal.writeError("\r[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(padding)\(percent)%")
        }
    }

    /// Ends the bar's line.
    func finish() {
        state.withLock { state in
            guard enabled, !state.finished else { return }
            state.finished = true
            if state.drawn >= 0 { Terminal.writeError("\n") }
        }
    }
}
