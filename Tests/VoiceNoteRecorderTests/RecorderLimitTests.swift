import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder
import VoiceNoteSources

/// Numbers a host passes (limits, intervals, encoder settings) never trap, and what a take promises holds at the
/// edges: tiny limits, very short AAC takes, a paused take on disk.
@Suite struct RecorderLimitTests {
    static let hostile: [Double] = [.nan, .infinity, -.infinity, -1, -.leastNonzeroMagnitude, 2e14, 1e300,
                                    .greatestFiniteMagnitude]

    @Test func hostileDurationsAreRefusedWithTheirRange() throws {
        let fields: [(String, WritableKeyPath<RecorderConfiguration, Double>)] = [
            ("maximum", \.maximumDuration), ("warning", \.maximumDurationWarning), ("minimum", \.minimumDuration),
            ("meter", \.meterInterval), ("duration", \.durationInterval),
        ]
        for (name, field) in fields {
            for value in Self.hostile {
                var settings = RecorderConfiguration()
                settings[keyPath: field] = value
                do {
                    try settings.check()
                    Issue.record("\(name) = \(value) was accepted")
                } catch {
                    #expect(error.status == .invalidArgument)
                    #expect(error.message.contains("…") || error.message.contains("("), "no range in: \(error.message)")
                    #expect(status { _ = try Recorder(configuration: settings) } == .invalidArgument)
                }
            }
        }
        for bitrate in [Int.min, -1, 0, 5_999, 256_001, Int.max] {
            var settings = RecorderConfiguration()
            settings.encoder.bitrate = bitrate
            #expect(status { try settings.check() } == .invalidArgument, "bitrate \(bitrate)")
        }
        for frame in [Double.nan, .infinity, 0, 7, -20] {
            var settings = RecorderConfiguration()
            settings.encoder.frameMilliseconds = frame
            #expect(status { try settings.check() } == .invalidArgument, "frame \(frame)")
        }
    }

    @Test func edgeDurationsAreAccepted() throws {
        for value in [0, .leastNonzeroMagnitude, 1e-300, 1e-10, RecorderConfiguration.longestLimit] {
            var settings = RecorderConfiguration()
            settings.maximumDuration = value
            settings.maximumDurationWarning = value
            settings.minimumDuration = value
            try settings.check()
        }
    }

    @Test(arguments: [1e-300, 1e-10, 1.0 / 96_000])
    func aTinyMaximumStopsAfterOneFrame(maximum: Double) throws {
        // Rounded to 0 frames, a tiny limit used to mean "no limit" and recorded until killed.
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: DeviceSelection(name: "null"), maximum: maximum))
        let log = try EventLog(recorder)
        try recorder.begin()
        let result = try #require(log.finished(seconds: 10))
        #expect(result.duration == 1.0 / 48_000)
        #expect(try decode(result.path).samples.count == 1)
        #expect(log.wait(seconds: 10) { _ in log.stopped })
    }

    @Test func aHugeMaximumRecordsAndStops() throws {
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: DeviceSelection(name: "null"),
                                                                  maximum: RecorderConfiguration.longestLimit))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(eventually(seconds: 10) { recorder.context.duration >= 0.1 })
        try recorder.stop()
        let result = try #require(log.finished(seconds: 10))
        #expect(try decode(result.path).samples.count == Int((result.duration * 48_000).rounded()))
    }

    @Test func veryShortAACTakesAreFilesEveryReaderOpens() throws {
        // A `finished` event promises a file receivers decode: one or two ADTS frames were taken for MPEG-TS.
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        for maximum in [1.0 / 48_000, 0.001, 0.005, 0.01, 0.015, 0.02, 0.0214, 0.03, 0.043, 0.05] {
            var settings = configuration(directory: directory, device: fileMicrophone(infile: input.path), maximum: maximum)
            settings.format = .aac
            let recorder = try Recorder(configuration: settings)
            let log = try EventLog(recorder)
            try recorder.begin()
            let result = try #require(log.finished(seconds: 10), "\(maximum) s")
            let info = try Decoders.info(of: FileSource(path: result.path))
            #expect(info.codec == "aac", "\(maximum) s: \(info.codec)")
            let probe = String(decoding: try Fixtures.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name",
                                                           "-of", "csv=p=0", result.path]), as: UTF8.self)
            #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "aac", "\(maximum) s: ffprobe says \(probe)")
            #expect(try Fixtures.referencePCM(result.path, rate: 48_000, channels: 1).count >= Int(maximum * 48_000))
            recorder.close()
        }
    }

    @Test func aPausedTakeIsWholeOnDisk() throws {
        // The guarantee that a crash while paused loses nothing: the .part, copied while paused, decodes to the
        // paused duration but for what libopusenc cannot encode yet: the last partial frame (under 20 ms) and its
        // lookahead (the pre-skip, 312 samples). Without the flush on pause, up to a page (0.5 s) was missing.
        let directory = try Fixtures.temporaryDirectory()
        let input = try speechInput(in: directory)
        let recorder = try Recorder(configuration: configuration(directory: directory, device: fileMicrophone(infile: input.path)))
        defer { recorder.close() }
        try recorder.begin()
        #expect(eventually(seconds: 20) { recorder.context.duration >= 1.2 })
        try recorder.pause()
        let paused = recorder.context
        #expect(paused.state == .paused)
        let copy = try Fixtures.temporaryDirectory() + "/copy.ogg.part"
        try FileManager.default.copyItem(atPath: paused.path, toPath: copy)
        let onDisk = try RecordingRecovery.recover(partPath: copy)
        let encoderHoldsBack = Double(960 + 312) / 48_000 + 1e-9
        #expect(abs(onDisk.duration - paused.duration) <= encoderHoldsBack, "on disk \(onDisk.duration) s, paused at \(paused.duration) s")
        #expect(abs(Double(try decode(onDisk.path).samples.count) / 48_000 - paused.duration) <= encoderHoldsBack)
        try recorder.stop()
    }
}
