import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteTestSupport

/// Whole items through the virtual speaker: what reaches the device, at every rate, with seek, pause, volume and
/// skip silence.
@Suite struct PlayerPlaybackTests {
    @Test func playsAWAVByteExactAtNormalRateAndFinishesStoppedAtZero() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = tone(440, seconds: 1.5)
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFinished())
        #expect(log.wait(for: .stopped) != nil)
        #expect(log.states == [.notLoaded, .loading, .playing, .stopped])
        let context = player.context
        #expect(context.state == .stopped && context.currentTime == 0)
        #expect(abs(context.duration - 1.5) < 0.001)
        #expect(context.location == path)
        #expect(try speaker.samples() == input)
    }

    @Test(arguments: [(2.0, 0.5), (0.5, 2.0), (1.5, 1 / 1.5)])
    func ratesChangeTheLengthAndKeepThePitch(rate: Double, factor: Double) throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = tone(440, seconds: 2)
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.setRate(rate)
        try player.load(.file(path))
        #expect(log.waitFinished())
        let output = try speaker.samples()
        let expected = Double(input.count) * factor
        #expect(abs(Double(output.count) - expected) <= 0.02 * expected, "\(output.count) frames, expected \(expected)")
        let middle = output[(output.count / 4)..<(output.count * 3 / 4)]
        let frequency = measuredFrequency(middle, rate: 48_000)
        #expect(abs(frequency - 440) <= 0.02 * 440, "pitch \(frequency) Hz at \(rate)x")
        #expect(player.context.rate == rate)
    }

    @Test func seekWhilePausedThenPlayWritesExactlyTheRest() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = (0..<96_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path), autoplay: false)
        #expect(log.wait(for: .paused) != nil)
        try player.seek(to: 0.5)
        #expect(log.wait { _ in !player.context.isSeeking })
        #expect(player.context.currentTime == 0.5)
        try player.play()
        #expect(log.waitFinished())
        #expect(try speaker.samples() == Array(input[24_000...]))
    }

    /// Through the fault-injecting speaker (no faults): it writes each frame to its file as it plays it, so the
    /// file holds exactly what was heard (ALSA's `file` plugin keeps frames that a drop discards unheard).
    @Test func pauseAndResumeWriteNoGapAndNoRepeat() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = (0..<144_000).map { Int16(truncatingIfNeeded: $0 &* 7919) }
        let path = try writeWAV(input, in: directory)
        let speaker = try FileSpeaker.appending(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.wait(for: .playing) != nil)
        for _ in 0..<3 {
            try player.pause()
            #expect(player.context.state == .paused)
            try player.play()
        }
        #expect(log.waitFinished())
        let pausedFrames = log.contexts.filter { $0.state == .paused }.map { Int(($0.currentTime * 48_000).rounded()) }
        #expect(pausedFrames.count == 3, "\(log.states)")
        // The test speaker keeps frames as they are written, so what the device held at a pause (dropped unheard)
        // is in its file: the output is runs of the input, each new run starting exactly at the paused position,
        // never after where the last run ended (no gap), and the whole input is there.
        let output = try speaker.samples()
        var inputIndex = 0, outputIndex = 0, restarts = 0
        while outputIndex < output.count {
            if inputIndex == input.count {
                // The whole input is there; the last run's last period is completed with silence (at most 20 ms).
                #expect(output.count - outputIndex < 960 && output[outputIndex...].allSatisfy { $0 == 0 },
                        "\(output.count - outputIndex) samples after the end")
                break
            }
            if inputIndex < input.count && output[outputIndex] == input[inputIndex] {
                outputIndex += 1
                inputIndex += 1
                continue
            }
            let window = output[outputIndex..<min(output.count, outputIndex + 64)]
            guard let restart = pausedFrames.first(where: { $0 + window.count <= input.count && input[$0..<($0 + window.count)] == window }) else {
                Issue.record("output \(outputIndex) (input \(inputIndex)) continues with no paused position")
                break
            }
            #expect(restart <= inputIndex, "a gap: resumed at \(restart) after playing up to \(inputIndex)")
            inputIndex = restart
            restarts += 1
        }
        #expect(inputIndex == input.count && restarts <= 3)
    }

    @Test func volumeHalvesTheAmplitude() throws {
        let directory = try Fixtures.temporaryDirectory()
        let input = tone(440, seconds: 1)
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.setVolume(0.5)
        try player.load(.file(path))
        #expect(log.waitFinished())
        let output = try speaker.samples()
        #expect(output.count == input.count)
        let ratio = rms(output[4800...]) / rms(input[4800...])
        #expect(abs(ratio - 0.5) < 0.01, "ratio \(ratio)")
    }

    @Test func skipSilenceRemovesAFourSecondPauseAndKeepsTheSpeech() throws {
        let directory = try Fixtures.temporaryDirectory()
        let speech = try Fixtures.referencePCM(try Fixtures.path(.wav), rate: 48_000, channels: 1)
        let input = speech + [Int16](repeating: 0, count: 4 * 48_000) + speech
        let path = try writeWAV(input, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        player.setSkipsSilence(true)
        try player.load(.file(path))
        #expect(log.waitFinished())
        let output = try speaker.samples()
        let removed = Double(input.count - output.count) / 48_000
        #expect(removed > 3.5, "only \(removed) s removed")
        #expect(rms(output[...]) > 0.9 * rms(input[...]) * (Double(input.count) / Double(output.count)).squareRoot() * 0.9)
    }

    @Test(arguments: [Fixtures.Kind.opus, .opusStereo, .aacADTS, .m4a, .mp3, .flac, .vorbis])
    func everyFormatPlays(kind: Fixtures.Kind) throws {
        let directory = try Fixtures.temporaryDirectory()
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(try Fixtures.path(kind)))
        #expect(log.waitFinished(), "\(kind): \(log.failures)")
        let duration = player.context.duration
        let output = try speaker.samples()
        #expect(duration > 1)
        #expect(!output.isEmpty)
    }

    @Test func aStereoFortyFourKilohertzFilePlaysAtItsLength() throws {
        let directory = try Fixtures.temporaryDirectory()
        let mono = tone(440, seconds: 2, rate: 44_100)
        let stereo = mono.flatMap { [$0, $0] }
        let path = try writeWAV(stereo, rate: 44_100, channels: 2, in: directory)
        let speaker = FileSpeaker(directory: directory)
        let player = try makePlayer(speaker.selection)
        defer { player.close() }
        let log = try PlayerLog(player)
        try player.load(.file(path))
        #expect(log.waitFinished())
        #expect(try speaker.samples() == stereo)
    }
}
