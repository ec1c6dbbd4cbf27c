import ArgumentParser
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer

/// `voicenote play FILE|URL`: plays a voice message (a local file or an http(s) URL) to its end. On a terminal it shows the position and takes keys
/// (space pause/resume, ←/→ seek 5 s, +/− rate, q quit).
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play a voice message. On a terminal: space pauses, ←/→ seek 5 s, +/− change the rate, q quits."
    )

    @Argument(help: ArgumentHelp("The audio file or http(s) URL (Ogg Opus, AAC, MP3, WAV, FLAC, Ogg Vorbis …).", valueName: "file-or-url"))
    var file: String

    @Option(help: "Playback rate, \(PlaybackRate.minimum)…\(PlaybackRate.maximum), pitch kept.")
    var rate = 1.0

    @Option(help: "ALSA playback device name.")
    var device = "default"

    @Option(help: "ALSA configuration text that defines --device (opened with snd_pcm_open_lconf).")
    var deviceConfig: String?

    @Option(help: "Start this many seconds into the file.")
    var start = 0.0

    @Flag(help: "Shorten pauses longer than 0.6 s.")
    var skipSilence = false

    @Option(help: "Software volume, 0…1.")
    var volume = 1.0

    @OptionGroup(title: "HTTP")
    var http: HTTPArguments

    func validate() throws {
        // NaN fails every comparison, so each check is written to refuse it.
        guard rate >= PlaybackRate.minimum && rate <= PlaybackRate.maximum else {
            throw ValidationError("--rate must be \(PlaybackRate.minimum)…\(PlaybackRate.maximum)")
        }
        guard start >= 0 && start <= Player.longestDuration else {
            throw ValidationError("--start must be 0…\(Int(Player.longestDuration)) seconds")
        }
        guard volume >= 0 && volume <= 1 else { throw ValidationError("--volume must be 0…1") }
    }

    func run() throws {
        var configuration = PlayerConfiguration()
        configuration.device = DeviceSelection(name: device, configuration: deviceConfig)
        configuration.focusGroup = nil
        configuration.resumePositionLimit = 0
        let loop = try EventLoop()
        let player = try Player(configuration: configuration, dispatcher: loop)
        try player.setRate(rate)
        try player.setVolume(volume)
        player.setSkipsSilence(skipSilence)
        let session = PlaybackSession(player: player, loop: loop, interactive: Terminal.isInteractive)
        let ending = try session.run(location: playerLocation(file, http: http), start: start)
        if case .signal(let number) = ending { throw ExitCode(128 + number) }
    }
}
