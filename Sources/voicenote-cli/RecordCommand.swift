#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import VoiceNoteAttachments
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNoteFlow
import VoiceNotePlayer
import VoiceNoteRecorder

/// `voicenote record`: records a voice message until Enter, Ctrl-C or a length limit, and keeps the file.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a voice message (Ogg Opus or AAC). Enter or Ctrl-C stops and keeps the file.",
        discussion: """
            With --flow, the hold-to-record flow on the keyboard (toggle mode, as a terminal sends no key releases): \
            Space starts a take and Space again stops it into preview; P plays or pauses it; ←/→ move the selected \
            trim handle, Tab selects the other, T cuts the take to them; Enter sends (prints the voiceRecording \
            payload); Esc cancels or discards; q quits, keeping a take that was not sent.

            With --upload URL, the take is uploaded while it is recorded (its pages as they are written, chunked: at \
            the stop only the last ones remain to send) and the uploaded voiceRecording payload is printed after the \
            file's line (with --progress json, as {"uploaded": PAYLOAD}); with --matrix or --tus, the URL reserved before \
            the bytes go is printed as soon as the server gives it ({"reserved": URL}, or "reserved: URL"). A server that needs the length first \
            (Synapse's media upload) refuses such a body: with --matrix (--upload then names the homeserver), the content \
            URI is reserved as the take begins and the bytes are put there when it ends.

            Without --flow, Enter stops the take in every --progress mode: a newline on standard input, from a \
            terminal or a pipe (other bytes are ignored). At the end of standard input (</dev/null, a pipe closed \
            without a newline) or with it closed, the take goes on until Ctrl-C, SIGTERM, SIGHUP or --duration.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case opus, aac }
    enum Progress: String, ExpressibleByArgument, CaseIterable { case auto, none, json }

    @Option(name: .shortAndLong, help: "Where to put the finished recording (default: the recordings directory).")
    var output: String?

    @Option(help: "ALSA capture device name.")
    var device = "default"

    @Option(help: "ALSA configuration text that defines --device (opened with snd_pcm_open_lconf).")
    var deviceConfig: String?

    @Option(help: "Stop after this many seconds of audio (at most \(Int(RecordCommand.longestDuration))).")
    var duration: Double?

    @Option(help: "Longest take in seconds, at most \(Int(RecordCommand.longestDuration)) (0: no limit).")
    var maxDuration = 3600.0

    @Option(help: "Bitrate in kbit/s.")
    var bitrate = 32

    @Option(help: "File format.")
    var format = Format.opus

    @Option(help: "Progress output: auto (a live meter on a terminal), none, or json (one context per line).")
    var progress = Progress.auto

    @Flag(help: "Clean the voice before it is encoded: high-pass, noise suppression, automatic gain (speexdsp).")
    var clean = false

    @Flag(help: "Pause the desktop's other media players (MPRIS) that are playing while a take is recorded; resume exactly those after.")
    var pauseOthers = false

    @Option(help: ArgumentHelp("The capture stream's role on a PulseAudio or pipewire-pulse server (media.role). phone lets PulseAudio switch Bluetooth headsets to their headset profile: give it when the headset's microphone is the one wanted.", valueName: "role"))
    var role: String?

    @Flag(help: "Record with the hold-to-record flow driven from the keyboard: preview, trim, send (see below).")
    var flow = false

    @Option(help: "With --flow: the ALSA playback device previews play to.")
    var speaker = "default"

    @Option(help: "With --flow: ALSA configuration text that defines --speaker.")
    var speakerConfig: String?

    @Option(help: ArgumentHelp("Upload the take while it is recorded to this http(s) URL (see below).", valueName: "url"))
    var upload: String?

    @OptionGroup(title: "Upload (with --upload)")
    var sending: UploadArguments

    /// The longest take the options may ask for: the recorder's own limit.
    static let longestDuration = RecorderConfiguration.longestLimit

    func validate() throws {
        // NaN fails every comparison, so it is refused too; a huge or infinite value would otherwise reach the
        // recorder's Double→Int frame count, which traps.
        if let duration, !(duration > 0 && duration <= Self.longestDuration) {
            throw ValidationError("--duration must be more than 0 and at most \(Int(Self.longestDuration)) seconds")
        }
        guard (0...Self.longestDuration).contains(maxDuration) else {
            throw ValidationError("--max-duration must be 0…\(Int(Self.longestDuration)) seconds (0: no limit)")
        }
        guard (6...256).contains(bitrate) else { throw ValidationError("--bitrate must be 6…256 kbit/s") }
        if flow, duration != nil || progress != .auto {
            throw ValidationError("--flow takes no --duration or --progress: the keyboard ends the take")
        }
        if !flow, speakerConfig != nil || speaker != "default" {
            throw ValidationError("--speaker and --speaker-config are for --flow")
        }
        if upload == nil, sending.isGiven {
            throw ValidationError("--raw, --matrix, --tus, --query and --url-key are for --upload")
        }
        if flow, upload != nil {
            throw ValidationError("--upload is for a take without --flow")
        }
        if let role, !DeviceSelection.isValidRole(role) {
            throw ValidationError("--role must be 1 to 64 characters of printable ASCII")
        }
    }

    func run() throws {
        let enter = EnterWatch()  // first: with standard input closed, the next descriptor opened would be 0
        var configuration = RecorderConfiguration()
        if let output { configuration.directory = directoryName(of: output) }
        configuration.device = DeviceSelection(name: device, configuration: deviceConfig, role: role)
        configuration.format = format == .aac ? .aac : .opus
        configuration.encoder.bitrate = bitrate * 1000
        configuration.maximumDuration = [duration, maxDuration > 0 ? maxDuration : nil].compactMap { $0 }.min() ?? 0
        configuration.voiceCleanup = clean
        let loop = try EventLoop()
        let recorder = try Recorder(configuration: configuration, dispatcher: loop)
        let others = pauseOthers ? try OtherPlayersFollower.recorder(recorder) : nil
        defer {
            // The players paused are resumed before the command exits.
            others?.close()
            if others != nil { OtherPlayers.shared.close() }
        }
        if flow { return try runFlow(recorder: recorder, loop: loop) }
        let uploader = try upload.map { (endpoint) throws -> Uploader in
            try Uploader(endpoint: endpoint, options: try sending.options(), dispatcher: loop)
        }
        defer { uploader?.close() }
        let session = RecordingSession(recorder: recorder, loop: loop, output: output,
                                       display: progress == .json ? .json : (progress == .none || !Terminal.isInteractive ? .none : .meter),
                                       enter: enter, uploader: uploader)
        try session.run()
    }
}

extension RecordCommand {
    /// `--flow`: the flow in toggle mode over the recorder and a player on `--speaker`.
    func runFlow(recorder: Recorder, loop: EventLoop) throws {
        var playing = PlayerConfiguration()
        playing.device = DeviceSelection(name: speaker, configuration: speakerConfig)
        let player = try Player(configuration: playing, dispatcher: loop)
        defer {
            recorder.close()
            player.close()
        }
        var settings = FlowConfiguration()
        settings.toggleMode = true
        let flow = try RecordingFlow(recorder: recorder, player: player, configuration: settings, dispatcher: loop)
        let session = FlowSession(flow: flow, recorder: recorder, loop: loop, output: output,
                                  interactive: Terminal.isInteractiveError && Keyboard.isAvailable)
        switch try session.run() {
        case .sent: return
        case .quit: throw ExitCode(1)
        case .signal(let number): throw ExitCode(128 + number)
        }
    }
}

/// The directory part of a path ("." when there is none).
func directoryName(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
