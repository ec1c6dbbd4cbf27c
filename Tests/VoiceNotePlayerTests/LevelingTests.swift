import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteAttachments
import VoiceNotePlayer
import VoiceNoteQueue
import VoiceNoteSources
import VoiceNoteTestSupport
import VoiceNoteWaveform

/// Levelled playback (docs/loudness.md): the note's gain to the target and the true-peak limiter. Every output is
/// measured by libebur128 over every sample (true peak included), not by the code under test.
@Suite struct LevelingTests {
    /// libebur128's integrated loudness and true peak of `samples` (48 kHz, `channels`; `ReferenceLoudness`).
    static func measure(_ samples: [Int16], channels: Int = 1) -> (integrated: Double, truePeak: Double) {
        let reference = ReferenceLoudness.measure(samples, rate: 48_000, channels: channels)
        return (reference.integrated, reference.truePeak)
    }

    /// `samples` scaled by `decibels`, saturated.
    static func scaled(_ samples: [Int16], by decibels: Double) -> [Int16] {
        let factor = pow(10, decibels / 20)
        return samples.map { Int16(max(-32768, min(32767, (Double($0) * factor).rounded()))) }
    }

    /// Plays `input` through a levelled pipeline at the gain `leveling` gives `loudness`.
    static func levelled(_ input: [Int16], _ leveling: Leveling, loudness: Loudness?, channels: Int = 1) throws -> [Int16] {
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: channels,
                                            levelingGain: leveling.gain(for: loudness))
        return try play(input, through: pipeline).samples
    }

    /// Speech from −40 to −14 LUFS, its loudness measured as the waveform's pass does: every one comes out within
    /// 1 LU of −16 LUFS, its true peak at or under −1 dBTP, every frame there in order (the look-ahead holds none back).
    @Test(arguments: [-40.0, -32.0, -24.0, -18.0, -14.0])
    func speechAtAnyLoudnessComesOutAtTheTarget(_ level: Double) throws {
        let speech = try Signal.speech()
        let original = Self.measure(speech).integrated
        let input = Self.scaled(speech, by: level - original)
        let loudness = try LoudnessMeter(sampleRate: Signal.rate, channels: 1)
        input.withUnsafeBufferPointer { loudness.append($0) }
        let output = try Self.levelled(input, Leveling(), loudness: loudness.loudness)
        #expect(output.count == input.count)
        let heard = Self.measure(output)
        #expect(abs(heard.integrated - Leveling.defaultTarget) <= 1, "\(level) LUFS in: \(heard.integrated) LUFS out")
        #expect(heard.truePeak <= Leveling.ceiling, "\(level) LUFS in: true peak \(heard.truePeak) dBTP")
    }

    /// A full-scale square wave pushed 10 dB louder still comes out under −1 dBTP: no sample clips, nothing between
    /// samples goes over.
    @Test func theLimiterNeverLetsASquareWaveClip() throws {
        let square = (0..<Signal.frames(2)).map { $0 % 48 < 24 ? Int16(32767) : Int16(-32768) }
        let output = try Self.levelled(square, Leveling(target: -10, offset: 12), loudness: nil)
        #expect(output.count == square.count)
        let heard = Self.measure(output)
        #expect(heard.truePeak <= Leveling.ceiling, "true peak \(heard.truePeak) dBTP")
        #expect(!output.contains(32767) && !output.contains(-32768))
        // Stereo too: the channels share one gain.
        let stereo = square.flatMap { [$0, $0 / 2] }
        let both = try Self.levelled(stereo, Leveling(target: -10, offset: 12), loudness: nil, channels: 2)
        #expect(Self.measure(both, channels: 2).truePeak <= Leveling.ceiling)
    }

    /// A silent note gets no gain at all (the offset alone): silence stays silence, and a hiss in it is not raised
    /// 30 dB.
    @Test func aSilentNoteIsNotBlownUp() throws {
        let silence = [Int16](repeating: 0, count: Signal.frames(2))
        #expect(try Self.levelled(silence, Leveling(), loudness: .silent) == silence)
        let hiss = Signal.noise(seconds: 2, decibels: -80)
        let meter = try LoudnessMeter(sampleRate: Signal.rate, channels: 1)
        hiss.withUnsafeBufferPointer { meter.append($0) }
        #expect(meter.loudness.isSilent)
        #expect(try Self.levelled(hiss, Leveling(), loudness: meter.loudness) == hiss)
    }

    /// Levelling off is the pipeline without the stage: bit-exact.
    @Test func offIsBitExact() throws {
        let speech = try Signal.speech()
        let plain = try play(speech, through: PlaybackPipeline(sampleRate: Signal.rate, channels: 1)).samples
        #expect(plain == speech)
        let pipeline = try PlaybackPipeline(sampleRate: Signal.rate, channels: 1, levelingGain: nil)
        #expect(!pipeline.isLevelled)
        #expect(try play(speech, through: pipeline).samples == speech)
    }

    /// The offset is the contact's knob: +6 dB comes out 6 dB louder than the target (within the limiter's work).
    @Test func theOffsetMovesTheLevel() throws {
        let speech = Self.scaled(try Signal.speech(), by: -20)
        let meter = try LoudnessMeter(sampleRate: Signal.rate, channels: 1)
        speech.withUnsafeBufferPointer { meter.append($0) }
        let quieter = Self.measure(try Self.levelled(speech, Leveling(target: -24, offset: -6), loudness: meter.loudness))
        #expect(abs(quieter.integrated - -30) <= 1, "\(quieter.integrated)")
        let louder = Self.measure(try Self.levelled(speech, Leveling(target: -24, offset: 6), loudness: meter.loudness))
        #expect(abs(louder.integrated - -18) <= 1, "\(louder.integrated)")
    }

    @Test func settingsOutOfRangeAreRefused() {
        #expect(throws: VoiceNoteError.self) { try Leveling(target: -5).check() }
        #expect(throws: VoiceNoteError.self) { try Leveling(target: .nan).check() }
        #expect(throws: VoiceNoteError.self) { try Leveling(offset: 13).check() }
        #expect(throws: Never.self) { try Leveling(target: -30, offset: -12).check() }
        #expect(Leveling().gain(for: Loudness(integrated: -70, range: 0, truePeak: -50)) == Leveling.maximumGain)
        #expect(Leveling(offset: 3).gain(for: nil) == 3)
    }
}

/// Levelling in a player, through a virtual speaker.
@Suite struct PlayerLevelingTests {
    /// Quiet speech (−36 LUFS) in an Ogg Opus file, its loudness unknown: the player's pre-pass over its first 3 s sets
    /// the gain before the first frame; the speaker hears it within 1.5 LU of −16 LUFS, under −1 dBTP, all of it.
    /// Given the loudness with the load (a payload's), the same.
    @Test(arguments: [false, true])
    func aQuietNoteIsHeardAtTheTarget(givenLoudness: Bool) throws {
        let directory = try Fixtures.temporaryDirectory()
        let speech = try Signal.speech()
        let quiet = LevelingTests.scaled(speech, by: -36 - LevelingTests.measure(speech).integrated)
        let path = try writeOpus(quiet, in: directory)
        let analysed = try WaveformAnalysis.analyse(FileSource(path: path)).loudness
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        try player.setLeveling(Leveling())
        let log = try PlayerLog(player)
        try player.load(.file(path), loudness: givenLoudness ? analysed : nil)
        #expect(log.waitFinished())
        let heard = try speaker.samples()
        #expect(abs(heard.count - quiet.count) <= 960, "\(heard.count) frames heard of \(quiet.count)")
        let measured = LevelingTests.measure(heard)
        #expect(abs(measured.integrated - Leveling.defaultTarget) <= 1.5, "heard at \(measured.integrated) LUFS")
        #expect(measured.truePeak <= Leveling.ceiling, "true peak \(measured.truePeak)")
        #expect(log.all.contains { if case .context(let c) = $0 { c.levelingGain > 15 } else { false } })
    }

    /// A note positioned before it plays (a seek while paused) drops the pre-pass's frames: what is heard starts at
    /// the seek, levelled.
    @Test func aSeekBeforePlayingDropsThePrePassFrames() throws {
        let directory = try Fixtures.temporaryDirectory()
        let speech = LevelingTests.scaled(try Signal.speech(), by: -20)
        let path = try writeWAV(speech, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        try player.setLeveling(Leveling())
        let log = try PlayerLog(player)
        try player.load(.file(path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.seek(to: 4)
        try player.play()
        #expect(log.waitFinished())
        let heard = try speaker.samples()
        let expected = speech.count - Signal.frames(4)
        #expect(abs(heard.count - expected) <= 960, "\(heard.count) frames heard, \(expected) after the seek")
    }

    /// A queue over a channel's messages levels the next note by the loudness its attachment carries
    /// (`voicenote_loudness`), with no pre-pass: figures that claim −40 LUFS for a −20 LUFS note give it +21 dB
    /// (−19 − (−40)), which only the message can have said; without them the pre-pass measures about +1 dB. Implausible
    /// figures are not taken.
    @Test(arguments: ["given", "absent", "implausible"])
    func aQueueLevelsTheNextNoteByItsMessagesLoudness(_ figures: String) throws {
        let directory = try Fixtures.temporaryDirectory()
        let speech = try Signal.speech()
        let note = LevelingTests.scaled(speech, by: -20 - LevelingTests.measure(speech).integrated)
        let first = try writeWAV(Array(note.prefix(Signal.frames(1))), in: directory, name: "first.wav")
        let second = try writeOpus(note, in: directory, name: "second.ogg")
        let loudness = switch figures {
        case "given": #", "voicenote_loudness": {"integrated_lufs": -40, "range_lu": 5, "true_peak_dbtp": -20}"#
        case "implausible": #", "voicenote_loudness": {"integrated_lufs": 40, "range_lu": 5, "true_peak_dbtp": -20}"#
        default: ""
        }
        let json = """
            {"messages": [{"id": "1", "user": {"id": "friend"}, "attachments": [{"type": "voiceRecording", "asset_url": "\(first)"}]},
                          {"id": "2", "user": {"id": "friend"}, "attachments": [{"type": "voiceRecording", "asset_url": "\(second)"\(loudness)}]}]}
            """
        let messages = try ChannelMessages(json: json)
        #expect((messages.loudness(of: second) != nil) == (figures == "given"))
        let player = try makePlayer(FileSpeaker(directory: directory).selection)
        defer { player.close() }
        try player.setLeveling(Leveling())
        player.useMessages(messages, currentUserID: "me", scope: .consecutive)
        let log = try PlayerLog(player)
        try player.load(.file(first))
        #expect(log.wait { _ in log.finishedCount == 2 && player.context.state == .stopped })
        var onSecond: [Double] = []
        var current = ""
        for event in log.all {
            if case .itemChanged(let location, _) = event { current = location }
            if case .context(let context) = event, current == second, context.levelingGain != 0 { onSecond.append(context.levelingGain) }
        }
        let gain = try #require(onSecond.last, "no levelled context for the second note")
        if figures == "given" {
            #expect(abs(gain - 21) < 1e-9, "gain \(gain) dB")
        } else {
            #expect(abs(gain - 1) < 1.5, "the pre-pass's gain, \(gain) dB")
        }
    }

    @Test func outOfRangeSettingsAndLoudnessAreRefused() throws {
        let player = try makePlayer(FileSpeaker(directory: try Fixtures.temporaryDirectory()).selection)
        defer { player.close() }
        #expect(throws: VoiceNoteError.self) { try player.setLeveling(Leveling(target: 0)) }
        #expect(player.context.leveling == .off)
        #expect(throws: VoiceNoteError.self) {
            try player.load(.file("/nonexistent.ogg"), loudness: Loudness(integrated: .nan, range: 0, truePeak: 0))
        }
    }
}
