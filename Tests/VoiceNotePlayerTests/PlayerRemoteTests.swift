import Foundation
import Testing
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport

/// The player over HTTP against a real server on 127.0.0.1 (Tests/Servers/http_server.py): progressive playback
/// with a refined duration, a seek and a destroy during a stall, a dropped download, statuses. Each test checks
/// from the server's log that the request it expects was made.
@Suite struct PlayerRemoteTests {
    /// A 6 s tone as Ogg Opus (64 kbit/s: about 50 kB), encoded once per test process.
    static let note = Result { try writeOpus(tone(440, seconds: 6, amplitude: 0.3), in: try Fixtures.temporaryDirectory()) }

    /// The note copied into a new directory (as input.ogg), served from there.
    static func servedNote() throws -> (directory: String, path: String, server: HTTPTestServer) {
        let directory = try Fixtures.temporaryDirectory()
        let path = directory + "/input.ogg"
        try FileManager.default.copyItem(atPath: try note.get(), toPath: path)
        return (directory, path, try HTTPTestServer(root: directory))
    }

    /// What a player over `cache` (by default its own) sends to a new file speaker for `location`, played to its
    /// end without a failure.
    static func played(_ location: PlayerLocation, cache: MediaCache? = nil) throws -> [Int16] {
        let speaker = FileSpeaker(directory: try Fixtures.temporaryDirectory())
        let player = try makePlayer(speaker.selection, cache: cache)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(location)
        #expect(log.waitFinished())
        #expect(log.failures.isEmpty)
        return try speaker.samples()
    }

    @Test func playsBeforeTheDownloadEndsWithAnEstimateRefinedToTheExactDuration() throws {
        let (directory, path, server) = try Self.servedNote()
        let exact = try Decoders.info(of: FileSource(path: path)).duration
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        // 16 kB/s: the download takes about 3 s, and the unpaced speaker plays whatever has arrived at once.
        let route = "/throttle/16000/input.ogg"
        try player.load(.url(server.url(route)))
        let early = log.wait(for: .playing).flatMap { _ -> PlayerContext? in
            var found: PlayerContext?
            log.wait { events in
                found = events.lazy.compactMap { if case .context(let c) = $0, c.currentTime > 1 { c } else { nil } }.first
                return found != nil
            }
            return found
        }
        // The server logs a response when it ends: none yet, so playback began before the download ended.
        #expect(server.requests(to: route).isEmpty, "the download had ended before 1 s was heard")
        #expect(early?.durationIsEstimate == true)
        #expect((early?.bufferedFraction ?? 1) < 1)
        #expect(log.waitFinished())
        let last = log.wait(for: .stopped)  // the context sent right after `finished` may still be on its way
        #expect(last?.durationIsEstimate == false)
        #expect(abs((last?.duration ?? 0) - exact) < 1e-9)
        #expect(last?.bufferedFraction == 1)
        // Every sample is the one the local file plays.
        #expect(try speaker.samples() == Self.played(.file(path)))
        #expect(eventually(seconds: 10) { server.requests(to: route).count == 1 })
    }

    @Test func aSeekDuringAStallGivesWayAtOnceAndDestroyReturnsPromptly() throws {
        let (directory, _, server) = try Self.servedNote()
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        let log = try PlayerLog(player)
        // 20 kB (over 2 s of audio), then silence; no ranges, and the default 30 s stall timeout.
        let route = "/stall/20000/input.ogg"
        try player.load(.url(server.url(route)))
        // The unpaced speaker plays what arrived at once: the decoder thread is then waiting for more.
        #expect(log.wait { _ in player.context.currentTime > 1.5 })
        let before = log.all.count
        try player.seek(to: 0.5)
        let settled = log.wait(seconds: 5) { events in
            events.dropFirst(before).contains { if case .context(let c) = $0 { c.state == .playing && !c.isSeeking } else { false } }
        }
        #expect(settled, "the seek did not complete while the download stalled")
        #expect(log.failures.isEmpty)
        let started = ContinuousClock.now
        player.close()
        #expect(ContinuousClock.now - started < .milliseconds(200))
        #expect(eventually(seconds: 10) { server.requests(to: route).count == 1 })
    }

    @Test func aLoadDuringAStallDropsTheDownloadAndPlaysTheNewLocation() throws {
        let (directory, path, server) = try Self.servedNote()
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        // 20 kB, then silence (30 s before the stall timeout): the decoder thread waits once that has played.
        let route = "/stall/20000/input.ogg"
        try player.load(.url(server.url(route)))
        #expect(log.wait { _ in player.context.currentTime > 1.5 })
        let started = ContinuousClock.now
        try player.load(.file(path))
        #expect(ContinuousClock.now - started < .milliseconds(200))
        #expect(log.waitFinished())
        #expect(log.failures.isEmpty)
        // The stalled download was dropped (the server saw the client leave), long before its stall timeout.
        #expect(eventually(seconds: 10) { server.requests(to: route).count == 1 })
    }

    @Test func aStallOverTheStallTimeoutFailsPausedWhereTheAudioEnded() throws {
        let (directory, path, server) = try Self.servedNote()
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        let log = try PlayerLog(player)
        // The stall timeout runs on a manual clock: over only once the 20 kB arrived and the clock passed it.
        let clock = ManualClock()
        var options = HTTPOptions()
        try options.setStallTimeout(0.5)
        options.clock = clock
        try player.load(.url(server.url("/stall/20000/input.ogg"), options: options))
        let size = Double(try FileSystem.size(of: path))
        #expect(eventually(seconds: 20) { player.context.bufferedFraction * size >= 19_999.5 }, "the 20 kB did not arrive")
        try clock.advance(0.5)
        try clock.advance(0.001)
        let failure = log.waitFailure()
        #expect(failure?.status == .network && failure?.message.contains("stalled") == true, "\(String(describing: failure))")
        let paused = log.wait(for: .paused)
        #expect((paused?.currentTime ?? 0) > 1.5)
        let started = ContinuousClock.now
        player.close()
        #expect(ContinuousClock.now - started < .milliseconds(200))
    }

    @Test func aDroppedDownloadPlaysWhatArrivedThenFailsPausedThere() throws {
        let (directory, _, server) = try Self.servedNote()
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        let route = "/drop/input.ogg"
        try player.load(.url(server.url(route)))
        let failure = log.waitFailure()
        #expect(failure?.status == .network)
        let context = log.wait(for: .paused)
        // Half the bytes hold about half the audio; it was all heard before the failure.
        let position = context?.currentTime ?? 0
        #expect(position > 2 && position < 3.5, "paused at \(position) s")
        #expect(abs(Double(try speaker.samples().count) / 48_000 - position) < 0.05)
        #expect(eventually(seconds: 10) { server.requests(to: route).count == 1 })
        // Playing again asks the server again.
        try player.play()
        #expect(eventually(seconds: 10) { server.requests(to: route).count == 2 })
    }

    @Test(arguments: [(401, Status.permission), (403, .permission), (404, .notFound), (500, .network)])
    func statusesArriveAsFailedEventsNamingTheStatus(code: Int, status: Status) throws {
        let (directory, _, server) = try Self.servedNote()
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.url(server.url("/status/\(code)")))
        let failure = log.waitFailure()
        #expect(failure?.status == status)
        #expect(failure?.message.contains("HTTP \(code)") == true, "\(String(describing: failure))")
        #expect(log.wait(for: .notLoaded, after: 2) != nil)
        #expect(eventually(seconds: 10) { server.requests(to: "/status/\(code)").count == 1 })
    }

    @Test func aSlowServerPlaysAndADestroyWhileWaitingForItReturnsPromptly() throws {
        let (directory, _, server) = try Self.servedNote()
        let waiting = try makePlayer(FileSpeaker(directory: directory).selection)
        try waiting.load(.url(server.url("/slow/2/input.ogg")))
        #expect(eventually(seconds: 5) { waiting.context.state == .loading })
        let started = ContinuousClock.now
        waiting.close()
        #expect(ContinuousClock.now - started < .milliseconds(200))

        let speaker = FileSpeaker(directory: try Fixtures.temporaryDirectory())
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        var options = HTTPOptions()
        try options.addHeader(name: "Authorization", value: "Bearer secret")
        try player.load(.url(server.url("/auth/secret/slow/2/input.ogg"), options: options))
        #expect(log.waitFinished())
        #expect(log.failures.isEmpty)
        #expect(eventually(seconds: 10) { server.requests(to: "/auth/secret/slow/2/input.ogg").count == 1 })
        let request = server.requests(to: "/auth/secret/slow/2/input.ogg").first
        #expect((request?["headers"] as? [String: String])?["authorization"] == "Bearer secret")
    }
}

/// The media cache and stable keys through the player: a replay costs no request, a key names the media.
@Suite struct PlayerCacheTests {
    @Test func aCachedNoteReplaysWithTheServerStoppedFromA0600File() throws {
        let (_, path, server) = try PlayerRemoteTests.servedNote()
        let cache = try testCache()
        let url = server.url("/range/input.ogg")
        let first = try PlayerRemoteTests.played(.url(url), cache: cache)
        #expect(first == (try PlayerRemoteTests.played(.file(path))))
        // Kept once complete (on the network thread, just after the last byte).
        #expect(eventually(seconds: 10) { cacheEntries(in: cache.directory).count == 1 })
        let entry = cache.directory + "/" + cacheEntries(in: cache.directory).first!
        #expect((try FileManager.default.attributesOfItem(atPath: entry)[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: cache.directory)[.posixPermissions] as? Int) == 0o700)
        #expect(try cache.size() > 40_000)
        #expect(eventually(seconds: 10) { server.requests(to: "/range/input.ogg").count == 1 })
        server.stop()
        #expect(try PlayerRemoteTests.played(.url(url), cache: cache) == first)
        try cache.clear()
        #expect(try cache.size() == 0)
    }

    @Test func theSameURLUnderTwoKeysIsTwoEntriesAndTwoURLsUnderOneKeyAreOne() throws {
        let (_, _, server) = try PlayerRemoteTests.servedNote()
        let cache = try testCache()
        let url = server.url("/range/input.ogg")
        let played = try PlayerRemoteTests.played(.url(url, key: "message-1/0"), cache: cache)
        #expect(eventually(seconds: 10) { cacheEntries(in: cache.directory).count == 1 })
        _ = try PlayerRemoteTests.played(.url(url, key: "message-2/0"), cache: cache)
        #expect(eventually(seconds: 10) { cacheEntries(in: cache.directory).count == 2 })
        #expect(eventually(seconds: 10) { server.requests(to: "/range/input.ogg").count == 2 })
        // Another URL (a CDN's new signature) under the first key: served from the cache, never requested.
        let other = server.url("/norange/input.ogg?signature=new")
        #expect(try PlayerRemoteTests.played(.url(other, key: "message-1/0"), cache: cache) == played)
        #expect(server.requests(to: "/norange/input.ogg").isEmpty)
    }

    @Test func aKeyCarriesTheResumePositionAcrossURLs() throws {
        let (directory, path, server) = try PlayerRemoteTests.servedNote()
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.url(server.url("/range/input.ogg?sig=1"), key: "message-1/0"), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.seek(to: 2)
        #expect(log.wait { _ in !player.context.isSeeking })
        try player.load(.file(path), autoplay: false)  // another location: the position is kept under the key
        #expect(log.wait { _ in player.context.state == .paused && player.context.location == path })
        try player.load(.url(server.url("/range/input.ogg?sig=2"), key: "message-1/0"), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused && player.context.location.hasSuffix("sig=2") })
        #expect(abs(player.context.currentTime - 2) < 0.001)
        try player.load(.url(server.url("/range/input.ogg?sig=2"), key: "message-9/0"), autoplay: false)
        #expect(log.wait { _ in player.context.state == .paused && player.context.currentTime == 0 })
    }
}
