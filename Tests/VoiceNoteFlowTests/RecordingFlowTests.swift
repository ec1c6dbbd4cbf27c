import Foundation
import Testing
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNotePlayer
import VoiceNoteRecorder
import VoiceNoteSources
import VoiceNoteTestSupport

/// Whole flows over a real recorder on a virtual microphone (ALSA's `file` plugin reading a tone, unpaced) and a
/// real player on a file speaker; the flow's time is a manual clock, so nothing sleeps.
@Suite struct RecordingFlowTests {
    /// Collects a flow's events as they arrive on the event thread.
    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [FlowMachine.Event] = []
        func add(_ event: FlowMachine.Event) { lock.withLock { events.append(event) } }
        var all: [FlowMachine.Event] { lock.withLock { events } }
        var states: [FlowState] { all.compactMap { if case .view(let view) = $0 { view.state } else { nil } } }
        var ready: [FlowTake] { all.compactMap { if case .attachmentReady(let take) = $0 { take } else { nil } } }
        var published: [FlowTake] { all.compactMap { if case .publish(let take) = $0 { take } else { nil } } }
        var failures: [VoiceNoteError] { all.compactMap { if case .failed(let error) = $0 { error } else { nil } } }
        var trimmed: [FlowTake] { all.compactMap { if case .trimmed(let take) = $0 { take } else { nil } } }
        var trimFailures: [VoiceNoteError] { all.compactMap { if case .trimFailed(_, let error) = $0 { error } else { nil } } }
        var tooShort: [Double] { all.compactMap { if case .tooShort(let duration) = $0 { duration } else { nil } } }

        @discardableResult
        func wait(_ what: String, until condition: (Log) -> Bool) -> Bool {
            let met = eventually(seconds: 20, pollMicroseconds: 1000) { condition(self) }
            if !met { Issue.record("timed out waiting for \(what); events: \(all)") }
            return met
        }
    }

    struct Rig {
        let directory: String
        let clock = ManualClock()
        let recorder: Recorder
        let player: Player
        let flow: RecordingFlow
        let log = Log()

        init(microphone: String? = nil, format: RecordingFormat = .opus, minimumTake: Double = 0,
             _ configure: (inout FlowConfiguration) -> Void = { _ in }) throws {
            directory = try Fixtures.temporaryDirectory()
            let input = directory + "/mic.raw"
            // 30 s of tone: the unpaced microphone keeps a take running for the length of a test.
            try Fixtures.run(["sox", "-n", "-r", "48000", "-c", "1", "-b", "16", "-e", "signed-integer", "-L", "-t", "raw", input,
                              "synth", "30", "sine", "300", "vol", "0.3"])
            var recording = RecorderConfiguration()
            recording.directory = directory + "/takes"
            recording.device = DeviceSelection(name: microphone ?? "vn_flow_mic", configuration: microphone == nil ?
                "pcm.vn_flow_mic { type file slave.pcm { type null } file \"/dev/null\" infile \"\(input)\" format raw }" : nil)
            recording.focusGroup = nil
            recording.format = format
            recording.minimumDuration = minimumTake
            recorder = try Recorder(configuration: recording)
            var playing = PlayerConfiguration()
            playing.resumeStore = nil  // positions stay in this player: tests run in parallel
            playing.device = DeviceSelection(name: "vn_flow_spk", configuration:
                "pcm.vn_flow_spk { type file slave.pcm { type null } file \"\(directory)/heard.raw\" format raw perm 0644 }")
            playing.focusGroup = nil
            player = try Player(configuration: playing)
            var configuration = FlowConfiguration()
            configure(&configuration)
            flow = try RecordingFlow(recorder: recorder, player: player, configuration: configuration, clock: clock)
            _ = try flow.events.subscribe({ [log] event in log.add(event) }, release: nil)
        }

        func close() {
            flow.close()
            recorder.close()
            player.close()
        }

        /// Holds the button down long enough to begin a take, and waits until the take has some audio.
        func holdToRecord() throws {
            try flow.press(x: 200, y: 200)
            try clock.advance(0.5)
            log.wait("recording") { $0.states.contains(.recording) }
            #expect(eventually { recorder.context.duration > 0.5 })
        }

        /// Records over a second, locks, stops, and waits for the preview.
        func recordIntoPreview() throws {
            try holdToRecord()
            #expect(eventually { recorder.context.duration > 1.2 })
            try flow.lock()
            try flow.stop()
            log.wait("preview") { $0.states.last == .preview }
        }

        var takes: [String] { (try? FileSystem.entries(of: directory + "/takes")) ?? [] }
    }

    @Test func aTapShowsTheTipAndRecordsNothing() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.flow.press(x: 10, y: 10)
        try rig.clock.advance(0.2)
        try rig.flow.release()
        rig.log.wait("the tip") { $0.states == [.showingTip] }
        try rig.clock.advance(2)
        rig.log.wait("the tip hidden") { $0.states == [.showingTip, .idle] }
        #expect(rig.recorder.context.state == .stopped && rig.takes.isEmpty)
    }

    @Test func holdAndReleaseGivesExactlyOneAttachmentAndNoPublish() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.holdToRecord()
        try rig.flow.release()
        rig.log.wait("the attachment and idle") { $0.ready.count == 1 && $0.states.last == .idle }
        let take = try #require(rig.log.ready.first)
        #expect(take.duration > 0.5 && take.waveform.count == 100)
        #expect(FileManager.default.fileExists(atPath: take.path) && take.path.hasSuffix(".ogg"))
        let info = try Decoders.info(of: FileSource(path: take.path))
        #expect(abs(info.duration - take.duration) < 0.001)
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(take.payloadJSON.utf8)) as? [String: Any])
        #expect(payload["type"] as? String == "voiceRecording" && payload["mime_type"] as? String == "audio/ogg")
        #expect(payload["asset_url"] as? String == "file://" + take.path && (payload["waveform_data"] as? [Double])?.count == 100)
        #expect(abs((payload["duration"] as? Double ?? 0) - take.duration) < 0.001)
        #expect(rig.log.published.isEmpty)
    }

    @Test func withoutConfirmationReleasePublishes() throws {
        let rig = try Rig { $0.confirmationRequired = false }
        defer { rig.close() }
        try rig.holdToRecord()
        try rig.flow.release()
        rig.log.wait("publish") { $0.published.count == 1 && $0.states.last == .idle }
        #expect(rig.log.ready == rig.log.published)
    }

    @Test func slidingLeftCancelsAndDeletesTheTake() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.holdToRecord()
        try rig.flow.move(x: 100, y: 200)
        rig.log.wait("idle") { $0.states.last == .idle }
        #expect(eventually { rig.recorder.context.state == .stopped })
        #expect(rig.takes.isEmpty, "\(rig.takes)")
        #expect(rig.log.ready.isEmpty)
    }

    @Test func lockStopPreviewPlaySendAndDiscard() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.holdToRecord()
        try rig.flow.move(x: 200, y: 140)
        rig.log.wait("locked") { $0.states.last == .locked }
        try rig.flow.release()
        try rig.flow.stop()
        rig.log.wait("preview") { $0.states.last == .preview }
        let preview = rig.flow.view
        #expect(preview.duration > 0.5 && preview.waveform.count == 100)
        #expect(eventually { rig.player.context.state == .paused })
        try rig.flow.play()
        rig.log.wait("playing") { log in log.all.contains { if case .view(let view) = $0 { view.previewPlaying } else { false } } }
        try rig.flow.discard()
        rig.log.wait("idle") { $0.states.last == .idle }
        #expect(eventually { rig.takes.isEmpty }, "\(rig.takes)")  // deleted by the flow's worker, after the idle view
    }

    @Test func trimInPreviewRewritesTheTakeSampleExact() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.recordIntoPreview()
        try rig.flow.trim(start: 0.2, end: 0.7)
        rig.log.wait("the trimmed take in preview") { $0.trimmed.count == 1 && $0.states.last == .preview && rig.flow.view.duration < 0.6 }
        #expect(abs((rig.log.trimmed.first?.duration ?? 0) - 0.5) < 1e-9)
        let view = rig.flow.view
        #expect(view.state == .preview && abs(view.duration - 0.5) < 1e-9 && view.trimEnd == view.duration && view.waveform.count == 100)
        try rig.flow.send()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        let take = try #require(rig.log.ready.first)
        let decoded = try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", take.path, "-f", "s16le", "-ac", "1", "-"]).count / 2
        #expect(decoded == 24_000, "the trimmed take decodes to \(decoded) samples")
        _ = try Fixtures.run(["opusinfo", take.path])
        #expect(take.payloadJSON.contains("\"duration\":0.5"))
    }

    @Test func trimmingAnAACTakeReencodesTheRange() throws {
        let rig = try Rig(format: .aac)
        defer { rig.close() }
        try rig.recordIntoPreview()
        let original = try #require(rig.flow.view.duration as Double?)
        try rig.flow.trim(start: 0.2, end: 0.7)
        rig.log.wait("the trimmed take in preview") { $0.trimmed.count == 1 && rig.flow.view.duration < original }
        let view = rig.flow.view
        // The range, plus the encoder's 1024-sample priming and the last frame's padding (AAC frames are whole).
        #expect(view.state == .preview && view.duration >= 0.5 && view.duration <= 0.5 + 2048.0 / 48_000 + 1e-9,
                "\(original) s trimmed to \(view.duration) s")
        try rig.flow.send()
        rig.log.wait("the attachment") { $0.ready.count == 1 }
        let take = try #require(rig.log.ready.first)
        #expect(take.path.hasSuffix(".aac") && abs(take.duration - view.duration) < 1e-9)
        let probe = try Fixtures.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", take.path])
        #expect(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "aac")
        let decoded = try Fixtures.run(["ffmpeg", "-nostdin", "-v", "error", "-i", take.path, "-f", "s16le", "-ac", "1", "-ar", "48000", "-"]).count / 2
        #expect(abs(Double(decoded) / 48_000 - view.duration) < 0.001, "ffmpeg decodes \(decoded) samples")
    }

    /// The take comes through a real capture (ALSA's file plugin); the recorder drops it as shorter than its minimum,
    /// as it drops a take released before any audio arrived: the flow says so, with what was captured, and goes idle.
    @Test func aTakeTheRecorderDropsAsTooShortIsAnEvent() throws {
        let rig = try Rig(minimumTake: 3600)
        defer { rig.close() }
        try rig.holdToRecord()
        try rig.flow.release()
        rig.log.wait("too short, then idle") { $0.tooShort.count == 1 && $0.states.last == .idle }
        #expect((rig.log.tooShort.first ?? 0) > 0.5 && rig.log.ready.isEmpty && rig.takes.isEmpty, "\(rig.takes)")
        let order = rig.log.all.suffix(2).map { if case .tooShort = $0 { "tooShort" } else if case .view = $0 { "view" } else { "other" } }
        #expect(order == ["tooShort", "view"])
    }

    @Test func sendDuringATrimSendsTheCutTake() throws {
        let rig = try Rig()
        defer { rig.close() }
        try rig.recordIntoPreview()
        try rig.flow.trim(start: 0.2, end: 0.7)
        try rig.flow.send()  // while the trim runs, or just after: either way the cut take is sent
        rig.log.wait("the attachment") { $0.ready.count == 1 && $0.states.last == .idle }
        #expect(rig.log.trimmed.count == 1 && abs((rig.log.ready.first?.duration ?? 0) - 0.5) < 1e-9)
        let kinds = rig.log.all.compactMap { (event: FlowMachine.Event) -> String? in
            switch event { case .trimmed: "trimmed"; case .attachmentReady: "ready"; default: nil }
        }
        #expect(kinds == ["trimmed", "ready"])
    }

    @Test func aTrimAndPlayerInputsWhileATrimRunsAreMisuse() throws {
        let rig = try Rig(format: .aac)
        defer { rig.close() }
        try rig.recordIntoPreview()
        try rig.flow.trim(start: 0.1, end: 0.9)
        // Until the trimmed event (which this thread cannot have seen yet: it waits for the log below).
        if rig.log.trimmed.isEmpty && rig.flow.view.duration > 1 {
            for (name, input) in [("trim", { try rig.flow.trim(start: 0, end: 0.5) }), ("play", { try rig.flow.play() }),
                                  ("seek", { try rig.flow.seek(to: 0.2) })] as [(String, () throws -> Void)] {
                do {
                    try input()
                    if rig.log.trimmed.isEmpty { Issue.record("\(name) during a trim was accepted") }
                } catch let error as VoiceNoteError {
                    #expect(error.status == .misuse, "\(name): \(error)")
                }
            }
        }
        rig.log.wait("the trim's end") { $0.trimmed.count == 1 && $0.states.last == .preview }
        try rig.flow.play()  // the preview's again
    }

    @Test func discardDuringATrimDeletesTheTake() throws {
        let rig = try Rig(format: .aac)
        defer { rig.close() }
        try rig.recordIntoPreview()
        let path = try #require(rig.flow.view.state == .preview ? rig.recorder.context.path : nil)
        try rig.flow.trim(start: 0.1, end: 0.9)
        try rig.flow.discard()
        rig.log.wait("idle") { $0.states.last == .idle }
        #expect(eventually { !FileManager.default.fileExists(atPath: path) && rig.takes.isEmpty }, "\(rig.takes)")
        #expect(rig.log.ready.isEmpty)
    }

    /// A long AAC take: close during its trim returns within a bounded time and leaves a whole file, the take as it
    /// was (or as cut, when the cut was already in place).
    @Test func closeDuringATrimKeepsAWholeTake() throws {
        let rig = try Rig(format: .aac)
        try rig.holdToRecord()
        #expect(eventually(seconds: 30) { rig.recorder.context.duration > 20 })
        try rig.flow.lock()
        try rig.flow.stop()
        rig.log.wait("preview") { $0.states.last == .preview }
        let original = rig.flow.view.duration
        let path = rig.recorder.context.path
        try rig.flow.trim(start: 1, end: 2)
        let started = MonotonicClock.shared.now
        rig.flow.close()
        let waited = MonotonicClock.shared.now - started
        #expect(waited < 1, "close waited \(waited) s for the trim")
        let info = try Decoders.info(of: FileSource(path: path))
        #expect(abs(info.duration - original) < 0.05 || info.duration < 1.1, "\(info.duration) s of \(original) s")
        rig.recorder.close()
        rig.player.close()
    }

    @Test func aRecorderThatCannotBeginLeavesTheFlowIdleWithAFailure() throws {
        let rig = try Rig(microphone: "vn_no_such_microphone")
        defer { rig.close() }
        try rig.flow.press(x: 0, y: 0)
        try rig.clock.advance(0.5)
        rig.log.wait("the failure") { !$0.failures.isEmpty }
        #expect(rig.flow.view.state == .idle && !rig.log.states.contains(.recording))
    }

    @Test func noEventAfterClose() throws {
        let rig = try Rig()
        try rig.holdToRecord()
        rig.flow.close()
        let count = rig.log.all.count
        #expect(throws: VoiceNoteError.self) { try rig.flow.release() }
        #expect(eventually(seconds: 0.3) { rig.log.all.count != count } == false)
        #expect(eventually { rig.recorder.context.state == .stopped })
        rig.recorder.close()
        rig.player.close()
    }
}
