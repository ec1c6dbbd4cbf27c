import Testing
import VoiceNoteCore
import VoiceNoteFlow

/// The flow's rules, input by input: a rig carries out the machine's commands the way `RecordingFlow` does (timers
/// on a manual clock; the recorder's and player's answers reported back), so no test sleeps.
@Suite struct FlowMachineTests {
    final class Rig: @unchecked Sendable {
        let clock = ManualClock()
        var machine: FlowMachine
        var commands: [FlowMachine.Command] = []
        var events: [FlowMachine.Event] = []
        var timers: [FlowMachine.FlowTimer: ClockTimer] = [:]
        /// What the recorder does when asked to begin: nil succeeds.
        var beginFailure: VoiceNoteError?
        /// Trims wait for the test's own `.trimmed` or `.trimFailed` report (else they are answered at once).
        var holdTrims = false
        /// The take a stop finishes with.
        var take = FlowTake(path: "/tmp/take.ogg", duration: 3.2, waveform: [0.5, 0.25])

        init(_ configure: (inout FlowConfiguration) -> Void = { _ in }) {
            var configuration = FlowConfiguration()
            configure(&configuration)
            machine = FlowMachine(configuration: configuration)
        }

        var state: FlowState { machine.state }
        var views: [FlowView] { events.compactMap { if case .view(let view) = $0 { view } else { nil } } }
        var states: [FlowState] { views.map(\.state) }

        @discardableResult
        func input(_ input: FlowMachine.Input) throws(VoiceNoteError) -> Rig {
            let (commands, events) = try machine.handle(input)
            apply(commands, events)
            return self
        }

        func report(_ outcome: FlowMachine.Outcome) {
            let (commands, events) = machine.handle(outcome)
            apply(commands, events)
        }

        func advance(_ seconds: Double) throws { try clock.advance(seconds) }

        private func apply(_ commands: [FlowMachine.Command], _ events: [FlowMachine.Event]) {
            self.commands += commands
            self.events += events
            for command in commands {
                switch command {
                case .startTimer(let timer, let after):
                    timers[timer]?.cancel()
                    timers[timer] = clock.schedule(after: after) { [self] in report(.timerFired(timer)) }
                case .cancelTimer(let timer):
                    timers[timer]?.cancel()
                case .beginRecording:
                    report(beginFailure.map { .recordingFailed($0) } ?? .recordingBegan)
                case .stopRecording:
                    report(.recordingFinished(take))
                case .cancelRecording:
                    report(.recordingFinished(nil))
                case .trimTake(let path, let start, let end):
                    if !holdTrims { report(.trimmed(FlowTake(path: path, duration: end - start, waveform: [1]))) }
                default:
                    break
                }
            }
        }
    }

    @Test func aTapShowsTheTipWhichHidesAfterTwoSeconds() throws {
        let rig = try Rig().input(.press(x: 10, y: 10))
        try rig.advance(0.3)
        try rig.input(.release)
        #expect(rig.state == .showingTip && rig.views.last?.tipVisible == true)
        #expect(rig.views.last?.accessibleDescription == "Hold to record, release to send")
        try rig.advance(1.9)
        #expect(rig.state == .showingTip)
        try rig.advance(0.1)
        #expect(rig.state == .idle && rig.views.last?.tipVisible == false)
        #expect(!rig.commands.contains(.beginRecording))
    }

    @Test func holdingRecordsAndReleasingSendsWithConfirmationRequired() throws {
        let rig = try Rig().input(.press(x: 200, y: 200))
        try rig.advance(0.49)
        #expect(!rig.commands.contains(.beginRecording))
        try rig.advance(0.01)
        #expect(rig.state == .recording)
        rig.report(.recordingProgress(duration: 7.2, levels: [0.1, 0.2]))
        #expect(rig.views.last?.accessibleDescription == "Recording, 0:07, slide left to cancel, slide up to lock")
        #expect(rig.views.last?.levels == [0.1, 0.2])
        try rig.input(.release)
        #expect(rig.state == .idle)
        #expect(rig.events.filter { if case .attachmentReady = $0 { true } else { false } } == [.attachmentReady(rig.take)])
        #expect(!rig.events.contains(.publish(rig.take)))
    }

    @Test func withoutConfirmationAReleasePublishes() throws {
        let rig = try Rig { $0.confirmationRequired = false }.input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.release)
        #expect(Array(rig.events.suffix(3)) == [.attachmentReady(rig.take), .publish(rig.take), .view(rig.views.last!)])
        #expect(rig.state == .idle)
    }

    @Test func slidingLeftPastTheDistanceCancels() throws {
        let rig = try Rig().input(.press(x: 200, y: 200))
        try rig.advance(0.5)
        try rig.input(.move(x: 150, y: 200))
        #expect(rig.views.last?.slideToCancelAlpha == (75 - 50) / 75.0)
        try rig.input(.move(x: 124, y: 200))
        #expect(rig.state == .idle && rig.commands.last == .cancelRecording)
        #expect(!rig.events.contains { if case .attachmentReady = $0 { true } else { false } })
        try rig.input(.release)  // the finger leaves after the cancel: nothing
        #expect(rig.state == .idle && rig.states.last == .idle)
    }

    @Test func liftLocksThenStopPreviewsAndSendDelivers() throws {
        let rig = try Rig().input(.press(x: 200, y: 200))
        try rig.advance(0.5)
        rig.report(.recordingProgress(duration: 1.2, levels: [0.1, 0.3]))
        try rig.input(.move(x: 200, y: 175))
        #expect(rig.views.last?.lockPadding == 25 && rig.views.last?.chevronAlpha == 0.5)
        try rig.input(.move(x: 200, y: 149))
        #expect(rig.state == .locked)
        #expect(rig.views.last?.duration == 1.2 && rig.views.last?.levels == [0.1, 0.3], "the lock keeps the take's bars")
        try rig.input(.release)  // the finger may leave: the take goes on
        #expect(rig.state == .locked)
        try rig.input(.stop)
        #expect(rig.state == .preview && rig.commands.contains(.loadPreview(rig.take.path)))
        let preview = try #require(rig.views.last)
        #expect(preview.duration == 3.2 && preview.waveform == [0.5, 0.25] && preview.trimEnd == 3.2 && preview.previewPosition == 0)
        try rig.input(.play).input(.seek(1)).input(.seek(99))
        #expect(Array(rig.commands.suffix(3)) == [.playPreview, .seekPreview(1), .seekPreview(3.2)])
        rig.report(.previewProgress(position: 1.5, playing: true))
        #expect(rig.views.last?.accessibleDescription == "Voice message, 0:03, playing at 0:01")
        try rig.input(.confirm)
        #expect(Array(rig.events.suffix(3)) == [.attachmentReady(rig.take), .publish(rig.take), .view(rig.views.last!)])
        #expect(rig.state == .idle && rig.commands.contains(.stopPreview))
    }

    @Test func trimInPreviewPreviewsTheNewTake() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock).input(.stop)
        #expect(throws: VoiceNoteError.self) { try rig.input(.trim(start: 1, end: 4)) }  // past the take's 3.2 s
        #expect(throws: VoiceNoteError.self) { try rig.input(.trim(start: 2, end: 1)) }
        try rig.input(.trim(start: 0.5, end: 2))
        #expect(rig.commands.suffix(2) == [.trimTake(path: rig.take.path, start: 0.5, end: 2), .loadPreview(rig.take.path)])
        let cut = FlowTake(path: rig.take.path, duration: 1.5, waveform: [1])
        #expect(rig.events.suffix(2) == [.trimmed(cut), .view(rig.views.last!)])
        let view = try #require(rig.views.last)
        #expect(view.state == .preview && view.duration == 1.5 && view.trimEnd == 1.5 && view.waveform == [1])
        try rig.input(.send)
        #expect(rig.events.contains(.attachmentReady(FlowTake(path: rig.take.path, duration: 1.5, waveform: [1]))))
    }

    @Test func sendAfterStopButBeforeTheFileIsFinishedSendsIt() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock)
        var machine = rig.machine
        let (stopCommands, _) = try machine.handle(.stop)  // the recorder has not finished the file yet
        #expect(stopCommands == [.stopRecording])
        let (sendCommands, sendEvents) = try machine.handle(.send)
        #expect(sendCommands.isEmpty && sendEvents.isEmpty)
        let (_, events) = machine.handle(.recordingFinished(rig.take))
        #expect(events.first == .attachmentReady(rig.take) && machine.state == .idle)
    }

    @Test func discardDeletesThePreviewedFile() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock).input(.stop).input(.discard)
        #expect(rig.state == .idle && rig.commands.suffix(2) == [.stopPreview, .deleteFile(rig.take.path)])
    }

    @Test func aRecorderThatCannotBeginLeavesTheFlowIdleWithAFailure() throws {
        let rig = Rig()
        rig.beginFailure = VoiceNoteError(.device, "no such device")
        try rig.input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        #expect(rig.state == .idle && rig.events.contains(.failed(rig.beginFailure!)))
        #expect(!rig.states.contains(.recording))
    }

    @Test func toggleModeStartsALockedTakeAndTheNextPressStopsIt() throws {
        let rig = try Rig { $0.toggleMode = true }.input(.press(x: 0, y: 0))
        try rig.advance(0.1)
        try rig.input(.release)
        #expect(rig.state == .locked && rig.views.last?.toggled == true)
        #expect(rig.views.last?.accessibleDescription == "Recording, 0:00, press again to stop; discard or send")
        try rig.advance(5)
        try rig.input(.press(x: 0, y: 0))
        #expect(rig.state == .preview)
        try rig.input(.release)
        #expect(rig.state == .preview)
    }

    @Test func keysActOnlyWhenTurnedOn() throws {
        let off = try Rig().input(.keyDown(.record))
        try off.advance(1)
        #expect(off.state == .idle && off.commands.isEmpty)
        let on = try Rig { $0.keyInputs = true }.input(.keyDown(.record))
        try on.advance(0.5)
        #expect(on.state == .recording)
        try on.input(.keyDown(.escape))
        #expect(on.state == .idle && on.commands.last == .cancelRecording)
        try on.input(.keyDown(.record))
        try on.advance(0.5)
        try on.input(.keyDown(.enter))
        #expect(on.state == .idle && on.events.contains(.attachmentReady(on.take)))
    }

    @Test func commandsThatMeanNothingAreMisuseAndPointerInputsAreIgnored() throws {
        let rig = Rig()
        for input: FlowMachine.Input in [.lock, .stop, .send, .confirm, .discard, .play, .pause, .seek(1)] {
            #expect(throws: VoiceNoteError.self, "\(input)") { try rig.input(input) }
        }
        try rig.input(.release).input(.move(x: 5, y: 5)).input(.cancel).input(.deactivate)
        #expect(rig.events.isEmpty && rig.commands.isEmpty)
    }

    @Test func deactivateStopsATakeIntoPreviewAndPausesThePlayer() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.deactivate)
        #expect(rig.state == .preview)
        try rig.input(.play).input(.deactivate)
        #expect(rig.commands.last == .pausePreview)
    }

    @Test func parkingARunningTakeKeepsItAndGoesIdle() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock).input(.park)
        #expect(rig.commands.contains(.stopRecording))
        #expect(rig.events.contains(.parked(rig.take)) && rig.state == .idle)
        #expect(!rig.commands.contains { if case .deleteFile = $0 { true } else { false } })
        #expect(!rig.events.contains { if case .attachmentReady = $0 { true } else { false } })
    }

    @Test func parkingAPreviewStopsThePlayerAndKeepsTheFile() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock).input(.stop).input(.play).input(.park)
        #expect(rig.commands.suffix(1) == [.stopPreview] && rig.events.contains(.parked(rig.take)) && rig.state == .idle)
        try rig.input(.park)  // idle: nothing
        #expect(rig.events.filter { if case .parked = $0 { true } else { false } }.count == 1)
    }

    @Test func aRestoredTakeIsPreviewedOnlyWhileIdle() throws {
        let draft = FlowTake(path: "/drafts/61.ogg", duration: 4.5, waveform: [0.3])
        let rig = Rig()
        rig.report(.restored(draft))
        #expect(rig.state == .preview && rig.views.last?.duration == 4.5 && rig.commands.last == .loadPreview(draft.path))
        #expect(rig.machine.currentTake == draft)
        let busy = try Rig().input(.press(x: 0, y: 0))
        try busy.advance(0.5)
        busy.report(.restored(draft))
        #expect(busy.state == .recording && busy.machine.currentTake == nil)
    }

    /// A rig in preview whose trims wait for the test's report.
    private func previewHoldingTrims() throws -> Rig {
        let rig = Rig()
        rig.holdTrims = true
        try rig.input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        try rig.input(.lock).input(.stop)
        #expect(rig.state == .preview)
        return rig
    }

    @Test func whileATrimRunsAnotherTrimAndThePlayerAreMisuseAndSendWaitsForIt() throws {
        let rig = try previewHoldingTrims()
        try rig.input(.trim(start: 0.5, end: 2))
        #expect(rig.machine.isTrimming && rig.state == .preview)
        for input: FlowMachine.Input in [.trim(start: 0, end: 1), .play, .pause, .seek(1)] {
            #expect(throws: VoiceNoteError.self, "\(input)") { try rig.input(input) }
        }
        let commands = rig.commands.count, events = rig.events.count
        try rig.input(.deactivate).input(.send)
        #expect(rig.commands.count == commands && rig.events.count == events && rig.state == .preview)
        let cut = FlowTake(path: rig.take.path, duration: 1.5, waveform: [1])
        rig.report(.trimmed(cut))
        #expect(Array(rig.events.suffix(3)) == [.trimmed(cut), .attachmentReady(cut), .view(rig.views.last!)])
        #expect(rig.state == .idle && !rig.machine.isTrimming)
    }

    @Test func aFailedTrimKeepsTheTakeAndAParkAskedMeanwhileParksIt() throws {
        let rig = try previewHoldingTrims()
        try rig.input(.trim(start: 0.5, end: 2)).input(.park)
        #expect(rig.state == .preview)
        let failure = VoiceNoteError(.noSpace, "disk full")
        rig.report(.trimFailed(failure))
        #expect(Array(rig.events.suffix(3)) == [.trimFailed(rig.take, failure), .parked(rig.take), .view(rig.views.last!)])
        #expect(rig.state == .idle)
    }

    @Test func aFailedTrimPreviewsTheTakeAsItWas() throws {
        let rig = try previewHoldingTrims()
        try rig.input(.trim(start: 0.5, end: 2))
        rig.report(.trimFailed(VoiceNoteError(.format, "damaged")))
        #expect(rig.state == .preview && rig.views.last?.duration == 3.2 && rig.commands.last == .loadPreview(rig.take.path))
        try rig.input(.play)  // the trim ended: the player is the preview's again
        #expect(rig.commands.last == .playPreview)
    }

    @Test func discardDuringATrimAbandonsItAndDeletesTheTake() throws {
        let rig = try previewHoldingTrims()
        try rig.input(.trim(start: 0.5, end: 2)).input(.discard)
        #expect(Array(rig.commands.suffix(3)) == [.cancelTrim, .stopPreview, .deleteFile(rig.take.path)] && rig.state == .idle)
        let events = rig.events.count
        rig.report(.trimFailed(VoiceNoteError(.cancelled, "the trim was cancelled")))  // the abandoned trim ends
        #expect(rig.events.count == events && rig.state == .idle)
    }

    @Test func aTakeReleasedBeforeAnyAudioSaysItWasTooShort() throws {
        let rig = try Rig().input(.press(x: 0, y: 0))
        try rig.advance(0.5)
        var machine = rig.machine
        _ = try machine.handle(.release)  // stopping to send; the recorder had no audio
        let (_, events) = machine.handle(.recordingTooShort(duration: 0))
        #expect(events.first == .tooShort(duration: 0) && machine.state == .idle)
        #expect(!events.contains { if case .attachmentReady = $0 { true } else { false } })
    }
}
