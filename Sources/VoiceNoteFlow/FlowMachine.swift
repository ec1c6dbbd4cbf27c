import VoiceNoteCore

/// The recording flow's rules as a value: inputs in, what to do out. It holds no recorder, player, file or clock;
/// the `RecordingFlow` object carries out its commands and feeds back what they did, so every rule can be tested
/// input by input, and the state machine is one piece of code whatever drives it.
public struct FlowMachine: Sendable {
    /// What the user or the host does.
    public enum Input: Equatable, Sendable {
        case press(x: Double, y: Double)
        case release
        case move(x: Double, y: Double)
        case lock, cancel, stop, discard, send, confirm, play, pause, deactivate
        /// The user left the conversation: the take is kept as its draft and the flow goes idle.
        case park
        case seek(Double)
        /// Cuts the previewed take to `start ..< end` seconds.
        case trim(start: Double, end: Double)
        /// A key went down or up (only with `keyInputs` on).
        case keyDown(FlowKey), keyUp(FlowKey)
    }

    /// What the recorder, the player and the clock report back.
    public enum Outcome: Equatable, Sendable {
        case timerFired(FlowTimer)
        /// `beginRecording` succeeded: capture runs.
        case recordingBegan
        /// A step of the running take: its length and last levels.
        case recordingProgress(duration: Double, levels: [Float])
        /// The take ended: its file, or nil when nothing was kept (cancelled).
        case recordingFinished(FlowTake?)
        /// The recorder dropped the take: less audio than its minimum (none at all when released before any arrived).
        case recordingTooShort(duration: Double)
        /// The recorder failed (to begin, or during the take).
        case recordingFailed(VoiceNoteError)
        /// The preview's player moved or started or stopped playing.
        case previewProgress(position: Double, playing: Bool)
        /// `trimTake` rewrote the take (its new length and waveform), or failed or was cancelled (the take is as it
        /// was).
        case trimmed(FlowTake)
        case trimFailed(VoiceNoteError)
        /// A draft's take, to preview as if it had just been recorded (only while idle).
        case restored(FlowTake)
    }

    /// What the flow asks of its parts.
    public enum Command: Equatable, Sendable {
        /// Stop the player (before a take begins), then begin recording; report `recordingBegan` or
        /// `recordingFailed`.
        case beginRecording
        /// Finish the take; `recordingFinished` follows.
        case stopRecording
        /// Drop the take (the recorder deletes its file); `recordingFinished(nil)` follows.
        case cancelRecording
        /// Load the take into the player, paused at 0.
        case loadPreview(String)
        case playPreview, pausePreview, stopPreview
        case seekPreview(Double)
        /// Delete a finished take's file.
        case deleteFile(String)
        /// Stop the player and rewrite the take's file to `start ..< end` seconds; `trimmed` or `trimFailed` follows.
        case trimTake(path: String, start: Double, end: Double)
        /// Abandon the running `trimTake` (its file stays as it was); its `trimFailed` is then ignored.
        case cancelTrim
        case startTimer(FlowTimer, after: Double)
        case cancelTimer(FlowTimer)
    }

    /// What the flow tells its subscribers.
    public enum Event: Equatable, Sendable {
        /// The view after a transition or a step.
        case view(FlowView)
        /// A take is ready for the composer (sent by release, `send` or `confirm`).
        case attachmentReady(FlowTake)
        /// The take is to be published (after `attachmentReady`, when confirmation is not required, or on `confirm`).
        case publish(FlowTake)
        /// The recorder failed; the flow is idle (or stays in preview when the failure came after the take was kept).
        case failed(VoiceNoteError)
        /// The take was kept as the conversation's draft (by `park`); the flow is idle.
        case parked(FlowTake)
        /// A trim ended: the take as cut (the preview shows it next).
        case trimmed(FlowTake)
        /// A trim failed: the take as it was, and why.
        case trimFailed(FlowTake, VoiceNoteError)
        /// The recorder dropped the take as too short (released before any audio arrived, or shorter than the
        /// recorder's minimum): `duration` seconds were captured; the flow is idle. A client shows the tip.
        case tooShort(duration: Double)
    }

    /// The flow's timers.
    public enum FlowTimer: Sendable {
        /// The minimum press: held this long, the button begins a take.
        case minimumPress
        /// The tip hides.
        case hideTip
    }

    /// What a take does once the recorder finished it.
    private enum AfterStop { case preview, send, park }

    public let configuration: FlowConfiguration
    public private(set) var view = FlowView()
    private var gesture: SlideGesture?
    private var pressed = false
    /// A take is being started or stopped, and what follows its end.
    private var beginning = false
    private var afterStop: AfterStop?
    private var lockWhenBegun = false
    /// An input that came while the take was starting, acted on once it runs.
    private var whenBegun: WhenBegun?
    private enum WhenBegun { case send, cancel }
    private var take: FlowTake?
    /// A `trimTake` is being carried out.
    private var trimming = false
    /// What a send, confirm or park during a trim does once the trim ended.
    private enum AfterTrim: Equatable { case send(publishing: Bool), park }
    private var afterTrim: AfterTrim?

    /// A machine at `idle`. `configuration` must be valid.
    public init(configuration: FlowConfiguration) {
        self.configuration = configuration
    }

    public var state: FlowState { view.state }

    /// The take in preview (or being trimmed), if any.
    public var currentTake: FlowTake? { take }

    /// Whether a trim is being carried out.
    public var isTrimming: Bool { trimming }

    /// Whether a take is being begun (`beginRecording` asked, `recordingBegan` not yet reported): the state is
    /// still idle or showing the tip.
    public var isBeginning: Bool { beginning }

    /// The commands and events one input leads to, in order; `.misuse` for a command that means nothing in this
    /// state (pointer and key inputs are ignored there instead, since a view sends them whatever the state).
    public mutating func handle(_ input: Input) throws(VoiceNoteError) -> ([Command], [Event]) {
        var out = Output()
        if case .press(let x, let y) = input, !(x.isFinite && y.isFinite) { throw nonFinitePoint(x, y) }
        if case .move(let x, let y) = input, !(x.isFinite && y.isFinite) { throw nonFinitePoint(x, y) }
        switch input {
        case .press(let x, let y): press(x, y, &out)
        case .release: release(&out)
        case .move(let x, let y): move(x, y, &out)
        case .keyDown(let key): keyDown(key, &out)
        case .keyUp(let key): if key == .record, configuration.keyInputs { release(&out) }
        case .cancel: cancel(&out)
        case .deactivate: deactivate(&out)
        case .park: park(&out)
        case .lock:
            guard state == .recording, !view.toggled else { throw misuse("lock") }
            transition(to: .locked, &out)
        case .stop:
            guard isRecording, afterStop == nil else { throw misuse("stop") }
            stopTake(then: .preview, &out)
        case .send, .confirm:
            try send(publishing: input == .confirm || !configuration.confirmationRequired, &out)
        case .discard:
            guard state != .idle, state != .showingTip else { throw misuse("discard") }
            discard(&out)
        case .trim(let start, let end):
            guard state == .preview, let take, !trimming else { throw trimming ? busyTrimming("trim") : misuse("trim") }
            guard start.isFinite, end.isFinite, start >= 0, end > start, end <= take.duration + 1e-9 else {
                throw VoiceNoteError(.invalidArgument, "trim to 0 ≤ start < end ≤ \(take.duration) s, not \(start)…\(end)")
            }
            trimming = true
            out.commands.append(.trimTake(path: take.path, start: start, end: min(end, take.duration)))
        case .play, .pause, .seek:
            guard state == .preview else { throw misuse("play, pause and seek") }
            guard !trimming else { throw busyTrimming("play, pause and seek") }
            if case .seek(let seconds) = input {
                guard seconds.isFinite else { throw VoiceNoteError(.invalidArgument, "seek to a finite time, not \(seconds)") }
                out.commands.append(.seekPreview(min(max(0, seconds), view.duration)))
            } else {
                out.commands.append(input == .play ? .playPreview : .pausePreview)
            }
        }
        return (out.commands, out.events)
    }

    /// The commands and events a report from the parts leads to.
    public mutating func handle(_ outcome: Outcome) -> ([Command], [Event]) {
        var out = Output()
        switch outcome {
        case .timerFired(.minimumPress):
            if pressed, state == .idle || state == .showingTip { beginTake(locked: false, &out) }
        case .timerFired(.hideTip):
            if state == .showingTip { transition(to: .idle, &out) }
        case .recordingBegan:
            guard beginning else { break }
            beginning = false
            out.commands.append(.cancelTimer(.hideTip))
            transition(to: lockWhenBegun ? .locked : .recording, toggled: lockWhenBegun, &out)
            switch whenBegun {
            case .cancel: cancel(&out)
            case .send: stopTake(then: .send, &out)
            case nil: break
            }
            whenBegun = nil
        case .recordingProgress(let duration, let levels):
            guard isRecording else { break }
            view.duration = duration
            view.levels = levels
            emitView(&out)
        case .recordingFinished(let finished):
            finish(finished, &out)
        case .recordingTooShort(let duration):
            guard isRecording else { break }  // a cancelled take's end: already idle
            reset()
            out.events.append(.tooShort(duration: duration))
            transition(to: .idle, &out)
        case .recordingFailed(let error):
            beginning = false
            if isRecording || state == .idle || state == .showingTip {
                reset()
                out.events.append(.failed(error))
                transition(to: .idle, &out)
            } else {
                out.events.append(.failed(error))
            }
        case .trimmed(let trimmed):
            guard state == .preview, trimming else { break }
            trimming = false
            out.events.append(.trimmed(trimmed))
            take = trimmed
            endTrim(&out)
        case .trimFailed(let error):
            guard state == .preview, trimming, let take else { break }
            trimming = false
            out.events.append(.trimFailed(take, error))
            endTrim(&out)
        case .restored(let restored):
            guard state == .idle || state == .showingTip, !pressed, !beginning else { break }
            out.commands.append(.cancelTimer(.hideTip))
            preview(restored, &out)
        case .previewProgress(let position, let playing):
            guard state == .preview else { break }
            view.previewPosition = position
            view.previewPlaying = playing
            emitView(&out)
        }
        return (out.commands, out.events)
    }

    private func nonFinitePoint(_ x: Double, _ y: Double) -> VoiceNoteError {
        VoiceNoteError(.invalidArgument, "a pointer position must be finite, not (\(x), \(y))")
    }

    // MARK: - Inputs

    private var isRecording: Bool { state == .recording || state == .locked }

    /// A take is being stopped (into preview, to be sent or parked) and its end has not been reported yet.
    public var isStopping: Bool { isRecording && afterStop != nil }

    private mutating func press(_ x: Double, _ y: Double, _ out: inout Output) {
        switch state {
        case .idle, .showingTip:
            guard !pressed, !beginning else { return }
            pressed = true
            gesture = SlideGesture(pressX: x, pressY: y)
            out.commands.append(.startTimer(.minimumPress, after: configuration.minimumPressDuration))
        case .recording where view.toggled, .locked where view.toggled:
            if afterStop == nil { stopTake(then: .preview, &out) }
        default:
            break
        }
    }

    private mutating func release(_ out: inout Output) {
        guard pressed else { return }
        pressed = false
        if beginning {
            if !lockWhenBegun { whenBegun = .send }  // released while the take starts: sent once it runs
            return
        }
        switch state {
        case .idle, .showingTip:
            out.commands.append(.cancelTimer(.minimumPress))
            if configuration.toggleMode {
                beginTake(locked: true, &out)
            } else {
                view.tipVisible = true
                out.commands.append(.startTimer(.hideTip, after: configuration.hideTipDelay))
                transition(to: .showingTip, &out)
            }
        case .recording where !view.toggled:
            if afterStop == nil { stopTake(then: .send, &out) }
        default:
            break
        }
    }

    private mutating func move(_ x: Double, _ y: Double, _ out: inout Output) {
        guard state == .recording, !view.toggled, pressed, afterStop == nil, var gesture else { return }
        let reading = gesture.move(x: x, y: y, configuration)
        self.gesture = gesture
        switch reading {
        case .cancel:
            cancel(&out)
        case .lock:
            pressed = false
            transition(to: .locked, &out)
        case .sliding(let alpha):
            view.slideToCancelAlpha = alpha
            emitView(&out)
        case .lifting(let padding, let chevronAlpha):
            view.lockPadding = padding
            view.chevronAlpha = chevronAlpha
            emitView(&out)
        }
    }

    private mutating func keyDown(_ key: FlowKey, _ out: inout Output) {
        guard configuration.keyInputs else { return }
        switch key {
        case .record: press(0, 0, &out)
        case .escape: cancel(&out)
        case .enter: try? send(publishing: !configuration.confirmationRequired, &out)
        }
    }

    private mutating func cancel(_ out: inout Output) {
        switch state {
        case .recording, .locked:
            reset()
            out.commands.append(.cancelRecording)
            transition(to: .idle, &out)
        case .preview:
            discard(&out)
        case .idle, .showingTip:
            if beginning {
                whenBegun = .cancel  // cancelled once it runs
            } else if pressed {
                out.commands.append(.cancelTimer(.minimumPress))
                reset()
            }
        }
    }

    private mutating func deactivate(_ out: inout Output) {
        switch state {
        case .recording, .locked:
            if afterStop == nil { stopTake(then: .preview, &out) }
        case .preview:
            if !trimming { out.commands.append(.pausePreview) }  // a trim stopped the player already
        case .idle, .showingTip:
            cancel(&out)
        }
    }

    private mutating func park(_ out: inout Output) {
        switch state {
        case .recording, .locked:
            switch afterStop {
            case nil: stopTake(then: .park, &out)
            case .preview: afterStop = .park  // stopping already: kept as the draft instead of previewed
            case .send, .park: break
            }
        case .preview:
            guard let take else { return }
            if trimming {
                afterTrim = .park  // kept once the trim ended: the take as cut, or as it was
                return
            }
            out.commands.append(.stopPreview)
            out.events.append(.parked(take))
            reset()
            transition(to: .idle, &out)
        case .idle, .showingTip:
            cancel(&out)
        }
    }

    private mutating func send(publishing: Bool, _ out: inout Output) throws(VoiceNoteError) {
        switch state {
        case .recording, .locked:
            if afterStop == nil {
                stopTake(then: .send, &out)
            } else {
                afterStop = .send  // stopped into preview already: the file, once finished, is sent instead
            }
            publishOnSend = publishing
        case .preview:
            guard let take else { throw misuse("send") }
            if trimming {
                afterTrim = .send(publishing: publishing)  // sent once the trim ended: the take as cut, or as it was
                return
            }
            out.commands.append(.stopPreview)
            deliver(take, publishing: publishing, &out)
        case .idle, .showingTip:
            throw misuse("send and confirm")
        }
    }

    private mutating func discard(_ out: inout Output) {
        if state == .preview, let take {
            if trimming { out.commands.append(.cancelTrim) }  // the file is deleted once the trim let it go
            out.commands.append(.stopPreview)
            out.commands.append(.deleteFile(take.path))
        } else if isRecording {
            out.commands.append(.cancelRecording)
        }
        reset()
        transition(to: .idle, &out)
    }

    // MARK: - Takes

    private var publishOnSend = false

    private mutating func beginTake(locked: Bool, _ out: inout Output) {
        beginning = true
        lockWhenBegun = locked
        out.commands.append(.beginRecording)
    }

    private mutating func stopTake(then after: AfterStop, _ out: inout Output) {
        afterStop = after
        publishOnSend = !configuration.confirmationRequired
        out.commands.append(.stopRecording)
    }

    private mutating func finish(_ finished: FlowTake?, _ out: inout Output) {
        guard isRecording else { return }  // a cancelled take's end: already idle
        let after = afterStop ?? .preview    // ended by itself (its maximum length): kept for preview
        let publishing = publishOnSend
        reset()
        guard let finished else {
            transition(to: .idle, &out)
            return
        }
        switch after {
        case .send:
            deliver(finished, publishing: publishing, &out)
        case .preview:
            preview(finished, &out)
        case .park:
            out.events.append(.parked(finished))
            transition(to: .idle, &out)
        }
    }

    /// After a trim ended (with `take` as cut, or as it was): a send or park asked meanwhile is carried out; else the
    /// take is previewed again (the trim stopped the player).
    private mutating func endTrim(_ out: inout Output) {
        guard let take else { return }
        let after = afterTrim
        afterTrim = nil
        switch after {
        case .send(let publishing)?:
            deliver(take, publishing: publishing, &out)
        case .park?:
            out.events.append(.parked(take))
            reset()
            transition(to: .idle, &out)
        case nil:
            preview(take, &out)
        }
    }

    /// Enters preview with `take`: its length, waveform and whole range, the player loaded with it at 0.
    private mutating func preview(_ take: FlowTake, _ out: inout Output) {
        self.take = take
        view.duration = take.duration
        view.waveform = take.waveform
        view.trimStart = 0
        view.trimEnd = take.duration
        out.commands.append(.loadPreview(take.path))
        transition(to: .preview, &out)
    }

    private mutating func deliver(_ take: FlowTake, publishing: Bool, _ out: inout Output) {
        out.events.append(.attachmentReady(take))
        if publishing { out.events.append(.publish(take)) }
        reset()
        transition(to: .idle, &out)
    }

    /// Forgets the take and the gesture (the view is rebuilt by the next transition).
    private mutating func reset() {
        pressed = false
        gesture = nil
        beginning = false
        afterStop = nil
        lockWhenBegun = false
        whenBegun = nil
        trimming = false
        afterTrim = nil
        publishOnSend = false
        take = nil
    }

    // MARK: - Views

    private mutating func transition(to state: FlowState, toggled: Bool = false, _ out: inout Output) {
        let tip = state == .showingTip
        let kept = (duration: view.duration, waveform: view.waveform, trim: (view.trimStart, view.trimEnd), levels: view.levels)
        view = FlowView()
        view.state = state
        view.tipVisible = tip
        view.toggled = toggled
        if state == .preview {
            view.duration = kept.duration
            view.waveform = kept.waveform
            (view.trimStart, view.trimEnd) = kept.trim
        } else if state == .locked {
            view.duration = kept.duration
            view.levels = kept.levels  // the same take goes on: its bars must not blink empty at the lock
        }
        emitView(&out)
    }

    private mutating func refreshDescription() {
        view.accessibleDescription = FlowView.describe(state: view.state, duration: view.duration, toggled: view.toggled,
                                                       position: view.previewPosition, playing: view.previewPlaying)
    }

    private mutating func emitView(_ out: inout Output) {
        refreshDescription()
        out.events.append(.view(view))
    }

    private func busyTrimming(_ what: String) -> VoiceNoteError {
        VoiceNoteError(.misuse, "\(what) while a trim runs (its trimmed event ends it)")
    }

    private func misuse(_ what: String) -> VoiceNoteError {
        VoiceNoteError(.misuse, "\(what) in the \(state) state")
    }

    private struct Output {
        var commands: [Command] = []
        var events: [Event] = []
    }
}

/// The keys the flow understands (with `keyInputs` on).
public enum FlowKey: Int32, Sendable {
    /// Held like the record button.
    case record = 0
    /// Cancels a take or discards a preview.
    case escape = 1
    /// Sends.
    case enter = 2
}
