import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteNetwork
import VoiceNotePlayer
import VoiceNoteSources
import VoiceNoteTestSupport
import VoiceNoteWaveform

/// A URL's analysis (waveform, length, loudness) kept in the media cache beside its media (docs/player.md, "The
/// media cache"): the second analysis reads it instead of decoding, levelled playback takes its whole-note loudness
/// instead of a pre-pass, and a damaged record is analysed again, never trusted. Against a real server on 127.0.0.1.
@Suite struct KeptAnalysisTests {
    /// Speech at −30 LUFS as Ogg Opus, served; a cache of its own.
    static func served() throws -> (url: String, cache: MediaCache, server: HTTPTestServer, size: Int) {
        let directory = try Fixtures.temporaryDirectory()
        let speech = try Signal.speech()
        let path = try writeOpus(LevelingTests.scaled(speech, by: -30 - LevelingTests.measure(speech).integrated),
                                 in: directory, name: "note.ogg")
        let server = try HTTPTestServer(root: directory)
        return (server.url("/range/note.ogg"), try testCache(), server, Int(try FileSystem.size(of: path)))
    }

    /// `url` played to its end, levelled at the default target, by a player over `cache` into a new file speaker.
    static func playedLevelled(_ url: String, cache: MediaCache) throws -> (PlayerLog, FileSpeaker) {
        let speaker = FileSpeaker(directory: try Fixtures.temporaryDirectory())
        let player = try makePlayer(speaker.selection, cache: cache)
        defer { player.close() }
        try player.setLeveling(Leveling())
        let log = try PlayerLog(player)
        try player.load(.url(url))
        #expect(log.waitFinished())
        return (log, speaker)
    }

    /// The `.vna` files of `cache`.
    static func keptFiles(_ cache: MediaCache) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache.directory)) ?? []).filter { $0.hasSuffix(".vna") }
    }

    @Test func theSecondAnalysisReadsWhatTheFirstKept() throws {
        let (url, cache, server, size) = try Self.served()
        defer { withExtendedLifetime(server) {} }  // the server stops when released
        let first = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache))
        #expect(eventually(seconds: 10) { cacheEntries(in: cache.directory).count == 1 && Self.keptFiles(cache).count == 1 })
        // The media entry's bytes zeroed (its header and length kept, so the cache still serves it): decoding them
        // fails, so an answer equal to the first can only come from the kept record.
        let entry = cache.directory + "/" + cacheEntries(in: cache.directory)[0]
        var bytes = try Data(contentsOf: URL(fileURLWithPath: entry))
        bytes.replaceSubrange((bytes.count - size)..<bytes.count, with: Data(count: size))
        try bytes.write(to: URL(fileURLWithPath: entry))
        let second = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache))
        #expect(second.values == first.values && second.duration == first.duration && second.loudness == first.loudness)
        let loudness = try #require(first.loudness)
        #expect(abs(loudness.integrated - -30) < 1, "\(loudness)")
        // Without loudness asked: the kept values, no loudness (as a fresh analysis would give).
        let drawn = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache), loudness: false)
        #expect(drawn.values == first.values && drawn.loudness == nil)
        // Another sample count is not what was kept: it decodes (the zeroed media now fails).
        #expect(throws: VoiceNoteError.self) { try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache), samples: 50) }
    }

    @Test(arguments: ["values 2.0", "duration nan", "loudness 40 5 -1", "voicenote-analysis 2", "truncated"])
    func aDamagedRecordIsAnalysedAgain(_ damage: String) throws {
        let (url, cache, server, _) = try Self.served()
        defer { withExtendedLifetime(server) {} }  // the server stops when released
        let first = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache))
        #expect(eventually(seconds: 10) { Self.keptFiles(cache).count == 1 })
        let path = cache.directory + "/" + Self.keptFiles(cache)[0]
        var text = try String(contentsOfFile: path, encoding: .isoLatin1)
        let field = damage.split(separator: " ")[0]
        if damage == "truncated" {
            text = String(text.prefix(text.count / 2))
        } else if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + " ") }) {
            text = text.replacingOccurrences(of: String(line), with: damage)
        }
        try text.write(toFile: path, atomically: false, encoding: .isoLatin1)
        // Not trusted: decoded again (the media is whole), the same figures, and the record written again.
        let again = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache))
        #expect(again == first)
        #expect(WaveformAnalysis.keptLoudness(of: try RemoteMedia.open(url: url, cache: cache)) == first.loudness)
    }

    @Test func levelledPlaybackTakesTheKeptLoudnessInsteadOfAPrePass() throws {
        let (url, cache, server, _) = try Self.served()
        defer { withExtendedLifetime(server) {} }  // the server stops when released
        let analysed = try #require(try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache)).loudness)
        #expect(eventually(seconds: 10) { Self.keptFiles(cache).count == 1 })
        let (log, _) = try Self.playedLevelled(url, cache: cache)
        let gains = log.all.compactMap { if case .context(let c) = $0, c.levelingGain != 0 { c.levelingGain } else { nil } }
        // The whole note's figure, exactly (a pre-pass over 3 s would measure its own).
        #expect(gains.last.map { abs($0 - (Leveling.defaultTarget - analysed.integrated)) < 1e-9 } == true, "\(gains)")
    }

    /// A URL whose loudness nothing knows (no payload figures, nothing kept, the cache off): the pre-pass over the
    /// download's first 3 s sets the gain, and the speaker hears the note at the target (libebur128 on its output).
    @Test func aURLWhoseLoudnessIsUnknownIsLevelledByThePrePass() throws {
        let (url, cache, server, _) = try Self.served()
        defer { withExtendedLifetime(server) {} }
        try cache.setLimit(0)
        let (_, speaker) = try Self.playedLevelled(url, cache: cache)
        let heard = LevelingTests.measure(try speaker.samples())
        #expect(abs(heard.integrated - Leveling.defaultTarget) <= 1.5, "heard at \(heard.integrated) LUFS")
        #expect(heard.truePeak <= Leveling.ceiling)
        #expect(Self.keptFiles(cache).isEmpty)
    }

    @Test func aCacheTurnedOffKeepsNothing() throws {
        let (url, cache, server, _) = try Self.served()
        defer { withExtendedLifetime(server) {} }  // the server stops when released
        try cache.setLimit(0)
        _ = try WaveformAnalysis.analyse(RemoteMedia.open(url: url, cache: cache))
        #expect(Self.keptFiles(cache).isEmpty)
        #expect(WaveformAnalysis.keptLoudness(of: try RemoteMedia.open(url: url, cache: cache)) == nil)
    }
}
