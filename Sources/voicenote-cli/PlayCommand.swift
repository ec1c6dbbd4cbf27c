import ArgumentParser
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNotePlayer

/// `voicenote play FILE|URL…`: plays voice messages (local files or http(s) URLs) to their end, one after another
/// and back to back (a queue player). On a terminal it shows the position and takes keys (space pause/resume, ←/→
/// seek 5 s, n next, +/− rate, q quit).
struct PlayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Play voice messages in order, back to back. On a terminal: space pauses, ←/→ seek 5 s, n skips to the next, +/− change the rate, q quits."
    )

    @Argument(help: ArgumentHelp("Audio files or http(s) URLs (Ogg Opus, AAC, MP3, WAV, FLAC, Ogg Vorbis …), played in this order.", valueName: "file-or-url"))
    var files: [String]

    @Option(help: "Playback rate, \(PlaybackRate.minimum)…\(PlaybackRate.maximum), pitch kept.")
    var rate = 1.0

    @Option(help: "ALSA playback device name.")
    var device = "default"

    @Option(help: "ALSA configuration text that defines --device (opened with snd_pcm_open_lconf).")
    var deviceConfig: String?

    @Option(help: "Start this many seconds into the first file.")
    var start = 0.0

    @Flag(help: "Shorten pauses longer than 0.6 s.")
    var skipSilence = false

    @Flag(help: "Start where this note was left last time (by this command or any other voicenote player), and remember where it is left now.")
    var resume = false

    @Flag(help: "Play only the notes not yet listened (heard to 90 % or to the end by any voicenote player), in order, and remember which are heard now.")
    var unplayed = false

    @Flag(help: "Show the player to the desktop's media keys and controls (MPRIS on the session bus) while a note is loaded.")
    var mpris = false

    @Flag(help: "Pause the desktop's other media players (MPRIS) that are playing while a note plays; resume exactly those after.")
    var pauseOthers = false

    @Option(help: ArgumentHelp("The stream's role on a PulseAudio or pipewire-pulse server (media.role), e.g. phone: the server's own policies then cork or duck music while the note plays.", valueName: "role"))
    var role: String?

    @Option(help: "With --mpris: the title the media controls show (default: the file's name).")
    var title: String?

    @Option(help: "With --mpris: the sender the media controls show.")
    var artist: String?

    @Option(help: "Software volume, 0…1.")
    var volume = 1.0

    @Flag(help: "Level every note to one loudness (--level-target), peaks under -1 dBTP.")
    var level = false

    @Option(parsing: .unconditional, help: "With --level: the loudness every note plays at, -30…-10 LUFS.")
    var levelTarget = Leveling.defaultTarget

    @Option(parsing: .unconditional, help: "With --level: dB added to every note's gain, -12…12 (louder or softer for this contact).")
    var levelOffset = 0.0

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
        guard Leveling.targetRange.contains(levelTarget) else { throw ValidationError("--level-target must be -30…-10 LUFS") }
        guard Leveling.offsetRange.contains(levelOffset) else { throw ValidationError("--level-offset must be -12…12 dB") }
        guard !files.isEmpty else { throw ValidationError("give at least one file or URL") }
        if resume && start > 0 { throw ValidationError("--resume and --start both say where to start: give one") }
        if !mpris && (title != nil || artist != nil) { throw ValidationError("--title and --artist go with --mpris") }
        if let role, !DeviceSelection.isValidRole(role) {
            throw ValidationError("--role must be 1 to 64 characters of printable ASCII")
        }
    }

    func run() throws {
        var configuration = PlayerConfiguration()
        configuration.device = DeviceSelection(name: device, configuration: deviceConfig, role: role)
        configuration.focusGroup = nil
        configuration.resumePositionLimit = 0
        configuration.resumeStore = resume || unplayed ? .shared : nil
        let loop = try EventLoop()
        let player = try Player(configuration: configuration, dispatcher: loop)
        try player.setRate(rate)
        try player.setVolume(volume)
        player.setSkipsSilence(skipSilence)
        try player.setLeveling(Leveling(enabled: level, target: levelTarget, offset: levelOffset))
        var locations = try files.map { (file) throws(VoiceNoteError) in try playerLocation(file, http: http) }
        if unplayed {
            // The first note played is the first unlistened one; the queue passes over the listened ones after it.
            guard let first = try locations.firstIndex(where: { (location) throws(VoiceNoteError) in
                try !ResumeStore.shared.isListened(location)
            }) else {
                Terminal.writeError("voicenote: every note given was listened already\n")
                return
            }
            locations.removeFirst(first)
            player.setSkipsListened(true)
        }
        if locations.count > 1 { player.setDataSource(PlayList(locations).dataSource) }
        let desktop = mpris ? try MPRISService(player: player) : nil
        defer { desktop?.close() }
        let others = pauseOthers ? try OtherPlayersFollower.player(player) : nil
        defer {
            others?.close()
            if others != nil { OtherPlayers.shared.close() }  // resumed before the command exits
        }
        for location in locations where title != nil || artist != nil {
            desktop?.setMetadata(NoteMetadata(title: title ?? "", artist: artist ?? ""), for: location.displayName)
        }
        let session = PlaybackSession(player: player, loop: loop, interactive: Terminal.isInteractive)
        let ending = try session.run(location: locations[0], start: start)
        if case .signal(let number) = ending { throw ExitCode(128 + number) }
    }
}

/// The files and URLs of `voicenote play`, in order, as a queue's data source. Asked about an item, it answers the
/// one after the first occurrence at or after the last one asked about (so a list may name a file twice, and being
/// asked again about the same item gives the same answer).
final class PlayList: @unchecked Sendable {  // immutable but for `cursor`, which is locked
    private let locations: [PlayerLocation]
    private let names: [String]
    private let cursor = Locked(0)

    init(_ locations: [PlayerLocation]) {
        self.locations = locations
        names = locations.map(\.displayName)
    }

    /// The data source over this list.
    var dataSource: QueueDataSource { { [self] current in next(after: current.location.displayName) } }

    private func next(after name: String) -> PlayerLocation? {
        cursor.withLock { cursor -> PlayerLocation? in
            guard let index = names.indices.dropFirst(cursor).first(where: { names[$0] == name }) else { return nil }
            cursor = index
            return index + 1 < locations.count ? locations[index + 1] : nil
        }
    }
}
