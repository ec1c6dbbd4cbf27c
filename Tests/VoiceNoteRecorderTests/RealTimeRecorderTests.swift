import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteTestSupport
@testable import VoiceNoteRecorder

/// The recorder against a real-time microphone: PulseAudio with a null sink, captured through ALSA's pulse plugin.
/// Each test starts its own server; the suite runs serialized.
@Suite(.serialized) struct RealTimeRecorderTests {
    /// A warmed server with speech playing into its sink, and the device that hears it.
    func microphone() throws -> (server: PulseServer, device: DeviceSelection) {
        let server = try PulseServer()
        try server.warm()
        _ = try server.play(try Fixtures.path(.wav))
        return (server, DeviceSelection(name: "vn_rt", configuration: server.alsaConfiguration(pcmName: "vn_rt")))
    }

    @Test func pauseAndResumeKeepExactlyTheUnpausedAudio() throws {
        let (server, device) = try microphone()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: device))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(eventually { recorder.context.duration >= 0.6 })
        try recorder.pause()
        let pausedAt = recorder.context.duration
        #expect(recorder.context.state == .paused)
        #expect(status { try recorder.pause() } == .misuse)
        #expect(try FileSystem.size(of: recorder.context.path) > 0)  // flushed: whole on disk while paused
        // Nothing is captured while paused, however long it lasts.
        _ = try server.play(try Fixtures.path(.wav))
        #expect(!eventually(seconds: 0.3) { recorder.context.duration != pausedAt })
        try recorder.resume()
        #expect(eventually { recorder.context.duration >= pausedAt + 0.6 })
        try recorder.stop()
        let result = try #require(log.finished())
        let decoded = try decode(result.path)
        // The file holds exactly the captured frames: paused time is in neither the duration nor the file.
        #expect(decoded.samples.count == Int((result.duration * 48_000).rounded()))
        #expect(result.duration >= pausedAt + 0.6 && result.duration < pausedAt + 3)
        let states = log.all.compactMap { if case .context(let c) = $0 { c.state } else { nil } }
        #expect(states.contains(.paused) && states.last == .stopped)
    }

    @Test func losingTheDeviceKeepsTheTakeThenFails() throws {
        let (server, device) = try microphone()
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: device))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(eventually { recorder.context.duration >= 0.5 })
        #expect(server.kill())
        #expect(log.wait { _ in log.stopped })
        let result = try #require(log.finished(seconds: 1))
        #expect(result.duration >= 0.5)
        #expect(try decode(result.path).samples.count == Int((result.duration * 48_000).rounded()))
        #expect(log.failures.map(\.status) == [.device])
        // finished comes before failed
        let order = log.all.compactMap { event -> String? in
            switch event { case .finished: "finished"; case .failed: "failed"; default: nil }
        }
        #expect(order == ["finished", "failed"])
        server.stop()
    }

    @Test func beginReturnsWithCaptureRunningAndStopFinishes() throws {
        let (server, device) = try microphone()
        defer { server.stop() }
        let directory = try Fixtures.temporaryDirectory()
        let recorder = try Recorder(configuration: configuration(directory: directory, device: device))
        let log = try EventLog(recorder)
        try recorder.begin()
        #expect(recorder.context.state == .recording)
        #expect(eventually { recorder.context.duration >= 1.0 })
        let steps = log.all.filter { if case .context(let c) = $0 { c.state == .recording } else { false } }
        #expect(steps.count >= 3)
        #expect(recorder.levels(last: 5).count == 5)
        #expect(recorder.context.averagePower > 0)
        try recorder.stop()
        let result = try #require(log.finished())
        #expect(result.duration >= 1.0)
        #expect(result.waveform.contains { $0 > 0.1 })
        #expect(status { try recorder.stop() } == .misuse)
    }
}
