import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNotePlayer
import VoiceNoteTestSupport

/// The desktop's suites, one at a time: they share one private session bus (dbus-daemon started here), whose address
/// is set for the whole process (and changed by one test).
@Suite(.serialized) struct DesktopTests {
    static let bus: SessionBusDaemon? = {
        let daemon = try? SessionBusDaemon()
        daemon?.export()
        return daemon
    }()
}

extension DesktopTests {
/// A player's MPRIS presence, driven by playerctl as the media keys and applets: no name while idle, the note's
/// metadata while loaded, every control reaching the player, the name gone when it stops and nothing left after close.
@Suite struct MPRISServiceTests {
    private var bus: SessionBusDaemon? { DesktopTests.bus }

    /// A player on a virtual speaker: ALSA's `file` plugin over `null` (unpaced), or, with `pulse`, a private
    /// PulseAudio server's null sink (real time: a note keeps playing while the keys come).
    private func makePlayer(_ directory: String, pulse: PulseServer? = nil) throws -> Player {
        var configuration = PlayerConfiguration()
        configuration.device = DeviceSelection(name: "vn_mpris_spk", configuration: pulse?.alsaConfiguration(pcmName: "vn_mpris_spk", device: pulse?.sinkName)
            ?? "pcm.vn_mpris_spk { type file slave.pcm { type null } file \"\(directory)/out.raw\" format raw }")
        configuration.focusGroup = nil
        configuration.resumeStore = nil
        return try Player(configuration: configuration)
    }

    /// A WAV tone of `seconds`.
    private func note(_ directory: String, seconds: Double, name: String = "note.wav") throws -> String {
        let path = directory + "/" + name
        try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", String(seconds), "sine", "440"])
        return path
    }

    /// dbus-send setting the player's Rate property.
    private func setRate(_ busName: String, _ rate: String) -> [String] {
        ["dbus-send", "--session", "--print-reply", "--dest=" + busName, "/org/mpris/MediaPlayer2",
         "org.freedesktop.DBus.Properties.Set", "string:org.mpris.MediaPlayer2.Player", "string:Rate", "variant:double:" + rate]
    }

    @Test func mediaKeysControlALoadedNoteAndIdleLeavesTheBus() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let path = try note(directory, seconds: 600)
        let pulse = try PulseServer()
        defer { pulse.stop() }
        let player = try makePlayer(directory, pulse: pulse)
        defer { player.close() }
        let service = try MPRISService(player: player, identity: MPRISIdentity(identity: "Chat Test", desktopEntry: "org.example.Chat"))
        defer { service.close() }
        let name = String(service.busName.dropFirst("org.mpris.MediaPlayer2.".count))
        #expect(name.hasPrefix("Chat_Test.instance"))
        // The bus is shared with the other players' suite, whose fakes may still be leaving it: only this name counts.
        #expect(try !bus.mprisPlayers().contains(name), "an idle player is on the bus")

        service.setMetadata(NoteMetadata(title: "Voice message", artist: "Alice"), for: path)
        try player.load(.file(path), autoplay: false)
        #expect(eventually(seconds: 10) { service.isExported }, "no MPRIS name after a load")
        #expect(try bus.mprisPlayers().contains(name))
        // The length is known once loaded (the name is taken while loading).
        let format = ["playerctl", "-p", name, "metadata", "--format", "{{title}}|{{artist}}|{{mpris:length}}|{{status}}|{{xesam:url}}"]
        #expect(eventually(seconds: 10) { (try? bus.run(format)) == "Voice message|Alice|600000000|Paused|\(path)" },
                "\((try? bus.run(format)) ?? "")")
        let track = try bus.run(["playerctl", "-p", name, "metadata", "mpris:trackid"])
        #expect(track.contains("/org/voicenote/track/"), "\(track)")

        // The media keys.
        try bus.run(["playerctl", "-p", name, "play"])
        #expect(eventually(seconds: 10) { player.context.state == .playing })
        #expect(eventually(seconds: 10) { (try? bus.run(["playerctl", "-p", name, "status"])) == "Playing" })
        try bus.run(["playerctl", "-p", name, "pause"])
        #expect(eventually(seconds: 10) { player.context.state == .paused })
        try bus.run(["playerctl", "-p", name, "position", "300"])
        #expect(eventually(seconds: 10) { abs(player.context.currentTime - 300) < 0.5 }, "\(player.context.currentTime)")
        let position = Double(try bus.run(["playerctl", "-p", name, "position"])) ?? -1
        #expect(abs(position - 300) < 0.5, "\(position)")
        try bus.run(["playerctl", "-p", name, "position", "10-"])
        #expect(eventually(seconds: 10) { abs(player.context.currentTime - 290) < 0.5 }, "\(player.context.currentTime)")
        try bus.run(["playerctl", "-p", name, "play-pause"])
        #expect(eventually(seconds: 10) { player.context.state == .playing })
        try bus.run(["playerctl", "-p", name, "previous"])  // the note from its start
        #expect(eventually(seconds: 10) { player.context.currentTime < 5 })
        // Rate and volume, within their ranges; a rate outside is ignored (the spec).
        try bus.run(setRate(service.busName, "1.5"))
        #expect(eventually(seconds: 10) { player.context.rate == 1.5 })
        try bus.run(setRate(service.busName, "9"))
        try bus.run(["playerctl", "-p", name, "volume", "0.25"])
        #expect(eventually(seconds: 10) { abs(player.context.volume - 0.25) < 1e-9 })
        #expect(player.context.rate == 1.5)
        // What the bus shows follows the player's events as they are delivered: read until it shows them.
        #expect(eventually(seconds: 10) {
            (try? bus.run(["playerctl", "-p", name, "metadata", "--format", "{{status}}|{{volume}}"])) == "Playing|0.25"
        }, "\((try? bus.run(["playerctl", "-p", name, "metadata", "--format", "{{status}}|{{volume}}"])) ?? "")")

        // Stopped: idle, gone from the bus.
        try bus.run(["playerctl", "-p", name, "stop"])
        #expect(eventually(seconds: 10) { player.context.state == .stopped && !service.isExported })
        #expect(try !bus.mprisPlayers().contains(name))
        // Loaded again, back; closed, gone for good.
        try player.play()
        #expect(eventually(seconds: 10) { service.isExported })
        service.close()
        #expect(!service.isExported)
        #expect(try !bus.mprisPlayers().contains(name), "a name was left after close")
    }

    /// A Pause pressed while the note is still loading (a slow source, a busy machine) is kept: the note ends paused
    /// once loaded instead of starting to play after the key.
    @Test func aPauseWhileLoadingIsKept() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let source = try GatedSource(path: try note(directory, seconds: 5), gate: 0)
        let player = try makePlayer(directory)
        defer { source.open(); player.close() }
        let service = try MPRISService(player: player, identity: MPRISIdentity(identity: "Chat Loading", desktopEntry: ""))
        defer { service.close() }
        let name = String(service.busName.dropFirst("org.mpris.MediaPlayer2.".count))
        try player.load(.source(source), autoplay: true)
        #expect(eventually(seconds: 10) { source.isWaiting && service.isExported })
        #expect(player.context.state == .loading)
        try bus.run(["playerctl", "-p", name, "pause"])   // returns with the method's reply: the player was told
        #expect(player.context.state == .loading)
        source.open()
        #expect(eventually(seconds: 10) { player.context.state == .paused }, "\(player.context.state)")
        #expect(eventually(seconds: 10) { (try? bus.run(["playerctl", "-p", name, "status"])) == "Paused" })
    }

    @Test func withoutASessionBusThePlayerPlaysOnAndNothingIsExported() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let path = try note(directory, seconds: 1)
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(directory)/no-bus-here", 1)
        defer { bus.export() }
        let player = try makePlayer(directory)
        defer { player.close() }
        let service = try MPRISService(player: player)
        defer { service.close() }
        let finished = Locked(false)
        _ = try player.subscribe({ event in if case .finished = event { finished.withLock { $0 = true } } })
        try player.load(.file(path))
        #expect(eventually(seconds: 20) { finished.withLock { $0 } }, "the note did not play to its end")
        #expect(!service.isExported)
    }

    @Test func aNoteWithoutMetadataShowsItsFileName() throws {
        let bus = try #require(bus, "dbus-daemon did not start")
        let directory = try Fixtures.temporaryDirectory()
        let path = try note(directory, seconds: 30, name: "from-bob.wav")
        let player = try makePlayer(directory)
        defer { player.close() }
        let service = try MPRISService(player: player)
        defer { service.close() }
        try player.load(.file(path), autoplay: false)
        #expect(eventually(seconds: 10) { service.isExported })
        let name = String(service.busName.dropFirst("org.mpris.MediaPlayer2.".count))
        #expect(name.hasPrefix("voicenote.instance"))
        #expect(try bus.run(["playerctl", "-p", name, "metadata", "--format", "{{title}}|{{artist}}"]) == "from-bob.wav|")
        // Metadata set while loaded shows at once.
        service.setMetadata(NoteMetadata(title: "Voice message", artist: "Bob", artURL: "file:///avatars/bob.png"), for: path)
        #expect(eventually(seconds: 10) {
            (try? bus.run(["playerctl", "-p", name, "metadata", "--format", "{{artist}}|{{mpris:artUrl}}"])) == "Bob|file:///avatars/bob.png"
        })
    }
}
}
