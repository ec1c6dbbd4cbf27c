import VoiceNoteAttachments
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteRecorder
import VoiceNoteSources
import VoiceNoteWaveform
#if canImport(Glibc)
import Glibc
#endif

/// The hold-to-record button's state machine (`FlowMachine`) over a real recorder and player: a view forwards
/// pointer and key inputs, and draws what the events say. It has no thread of its own: inputs run on the caller's
/// thread, the recorder's and player's reports arrive on their event delivery, and timers on the clock's (a
/// `ManualClock` runs them inside `advance`). One lock orders all of them; no callback runs under it.
public final class RecordingFlow: @unchecked Sendable {
    /// The subscribers and their dispatcher.
    public let events: EventChannel<FlowMachine.Event>
    /// The number of live levels a view gets while recording.
    public static let liveLevelCount = 40

    private let recorder: Recorder
    private let player: Player
    private let clock: any VoiceNoteClock
    /// The flow's constants (the machine keeps its own copy; this one is read without the lock).
    private let configuration: FlowConfiguration
    private let driving = Monitor()
    // Guarded by `driving`:
    private var machine: FlowMachine
    private var closed = false
    /// Each timer's generation: an action of an older one does nothing (cancelling under the lock would wait for a
    /// running action that waits for the lock).
    private var timerGenerations: [FlowMachine.FlowTimer: UInt64] = [:]
    private var timers: [FlowMachine.FlowTimer: ClockTimer] = [:]
    /// The flow's subscriptions to the recorder's and the player's events.
    private var subscriptionIDs: [UInt64] = []
    /// The drafts directory, with a draft key.
    private let drafts: FlowDrafts?
    /// The key while this flow's take is its draft (recording, preview): no other flow takes it meanwhile.
    private var claim: FlowDrafts.Claim?
    /// The draft record this flow wrote last, the running take's `.part`, and whether the flow is idle because it
    /// parked its take (the record then stays).
    private var savedDraft: FlowDraft?
    private var runningPath: String?
    private var parked = false
    /// A take handed to the host (`attachmentReady` emitted) that no subscriber has received yet: a close before it
    /// arrives keeps the take as the draft, since the host never got it. Its own lock (set under `driving`, cleared
    /// on the delivery thread).
    private let undelivered = Locked<String?>(nil)

    /// A flow over `recorder` and `player` (the flow begins, stops and cancels takes and plays previews; the host
    /// keeps them for its own use otherwise). `.invalidArgument` for a bad configuration.
    public init(recorder: Recorder, player: Player, configuration: FlowConfiguration = FlowConfiguration(),
                clock: any VoiceNoteClock = MonotonicClock.shared,
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        try configuration.validate()
        self.recorder = recorder
        self.player = player
        self.clock = clock
        self.configuration = configuration
        machine = FlowMachine(configuration: configuration)
        drafts = configuration.draftKey.map { _ in FlowDrafts(directory: configuration.draftsDirectory) }
        events = EventChannel(dispatcher: dispatcher)
        let recorderID = try recorder.events.subscribe({ [weak self] event in self?.recorderReported(event) }, release: nil)
        do {
            let playerID = try player.subscribe({ [weak self] event in self?.playerReported(event) })
            subscriptionIDs = [recorderID, playerID]
        } catch {
            try? SubscriptionRegistry.shared.end(id: recorderID)
            throw error
        }
        restoreDraft()
    }

    deinit { close() }

    /// The view as of the last event.
    public var view: FlowView { driving.locked { machine.view } }

    /// Subscribes to the flow's events: the current view first, then every event in order. `registered` gets the
    /// id before the first event can be delivered.
    public func subscribe(_ handler: @escaping @Sendable (FlowMachine.Event) -> Void, release: (@Sendable () -> Void)? = nil,
                          registered: (UInt64) -> Void = { _ in }) throws(VoiceNoteError) -> UInt64 {
        let undelivered = self.undelivered
        let handing: @Sendable (FlowMachine.Event) -> Void = { event in
            if case .attachmentReady(let take) = event { undelivered.withLock { if $0 == take.path { $0 = nil } } }
            handler(event)
        }
        return try driving.locked { () throws(VoiceNoteError) -> UInt64 in
            try events.subscribe(handing, release: release, registered: registered, initial: .view(machine.view))
        }
    }

    /// Ends the flow: a running take is cancelled (its file deleted), the preview's player stopped, timers
    /// cancelled; no event of this flow is delivered after this returns. A take being stopped (released, parked,
    /// sent) and a take in preview stay the conversation's draft. The recorder and player stay the host's.
    public func close() {
        let (subscriptionIDs, timers, running, stopping): ([UInt64], [ClockTimer], Bool, Bool) = driving.locked {
            guard !closed else { return ([], [], false, false) }
            closed = true
            defer { self.subscriptionIDs = []; self.timers = [:] }
            let recording = machine.state == .recording || machine.state == .locked
            return (self.subscriptionIDs, Array(self.timers.values), recording && !machine.isStopping, machine.isStopping)
        }
        for id in subscriptionIDs { try? SubscriptionRegistry.shared.end(id: id) }
        for timer in timers { timer.cancel() }
        if running {
            try? recorder.cancel()
        }
        driving.locked {
            if let drafts, let key = configuration.draftKey, claim != nil {
                if running {
                    drafts.forget(key: key)  // cancelled: no draft
                } else if stopping {
                    keepStoppedTake(drafts, key: key)
                }
            }
            claim?.release()
            claim = nil
        }
        events.close()
        keepUndeliveredTake()
    }

    /// After the subscriptions ended: a take handed over whose `attachmentReady` reached no subscriber stays the
    /// conversation's draft (the host never got it; the next flow previews it again).
    private func keepUndeliveredTake() {
        guard let path = undelivered.withLock({ $0 }), let drafts, let key = configuration.draftKey,
              FileSystem.exists(path), let held = try? drafts.claim(key: key) else { return }
        defer { held.release() }
        if (try? drafts.load(key: key)) ?? nil == nil {
            try? drafts.save(FlowDraft(key: key, path: path, duration: 0))
        }
    }

    /// Closing while a take's end is on its way (the recorder finished the file, its report has not arrived): the
    /// record names the whole file, so the next flow with the key previews it.
    private func keepStoppedTake(_ drafts: FlowDrafts, key: String) {
        guard let part = runningPath else { return }
        let finished = String(part.dropLast(RecordingRecovery.partSuffix.count))
        let kept = [finished, part].first { (path: String) in FileSystem.exists(path) }
        if let kept {
            try? drafts.save(FlowDraft(key: key, path: kept, duration: 0))
        } else {
            drafts.forget(key: key)  // too short: the recorder deleted it
        }
    }

    // MARK: - Inputs

    /// The button pressed at (x, y), in the button's coordinates (the gestures are measured from here).
    public func press(x: Double, y: Double) throws(VoiceNoteError) { try drive(.press(x: x, y: y)) }
    /// The button released.
    public func release() throws(VoiceNoteError) { try drive(.release) }
    /// The pointer moved to (x, y) while the button is held.
    public func move(x: Double, y: Double) throws(VoiceNoteError) { try drive(.move(x: x, y: y)) }
    /// A key down or up (with `keyInputs` on; ignored otherwise).
    public func keyDown(_ key: FlowKey) throws(VoiceNoteError) { try drive(.keyDown(key)) }
    public func keyUp(_ key: FlowKey) throws(VoiceNoteError) { try drive(.keyUp(key)) }
    /// Locks a held take (recording only; `.misuse` otherwise).
    public func lock() throws(VoiceNoteError) { try drive(.lock) }
    /// Cancels a take (its file deleted) or discards a preview; nothing otherwise.
    public func cancel() throws(VoiceNoteError) { try drive(.cancel) }
    /// Stops a take into preview (recording or locked; `.misuse` otherwise).
    public func stop() throws(VoiceNoteError) { try drive(.stop) }
    /// Deletes the take or the preview and goes idle (`.misuse` when there is none).
    public func discard() throws(VoiceNoteError) { try drive(.discard) }
    /// Hands the take to the composer (`attachmentReady`, then `publish` when confirmation is not required),
    /// stopping a running take first (`.misuse` when there is none).
    public func send() throws(VoiceNoteError) { try drive(.send) }
    /// As `send`, always followed by `publish`.
    public func confirm() throws(VoiceNoteError) { try drive(.confirm) }
    /// Plays, pauses or seeks the preview (`.misuse` outside preview).
    public func play() throws(VoiceNoteError) { try drive(.play) }
    public func pause() throws(VoiceNoteError) { try drive(.pause) }
    public func seek(to seconds: Double) throws(VoiceNoteError) { try drive(.seek(seconds)) }
    /// Cuts the previewed take to `start ..< end` seconds (Ogg Opus: sample-exact, no re-encoding; the file is
    /// replaced only once the new one is whole), then previews it again (`.misuse` outside preview,
    /// `.invalidArgument` for a range outside the take; a failure to rewrite arrives as a `failed` event).
    public func trim(start: Double, end: Double) throws(VoiceNoteError) { try drive(.trim(start: start, end: end)) }
    /// The view was hidden: a take stops into preview, a playing preview pauses.
    public func deactivate() throws(VoiceNoteError) { try drive(.deactivate) }
    /// The user left the conversation: a running take is stopped, and the take (running or in preview) is kept as
    /// the conversation's draft (`parked`), moved into the drafts directory; the flow goes idle. The next flow with
    /// this draft key restores it into preview. `.misuse` without a draft key.
    /// `.busy` when the take is not this conversation's draft (another flow held the key when it began: its
    /// `failed` event said so); the take then stays in this flow, to be sent or discarded.
    public func park() throws(VoiceNoteError) {
        guard drafts != nil else { throw VoiceNoteError(.misuse, "park needs a flow with a draft key") }
        try driving.locked { () throws(VoiceNoteError) in
            let holdsTake = machine.state != .idle && machine.state != .showingTip
            if holdsTake && claim == nil && !closed {
                throw VoiceNoteError(.busy, "this take is not the draft of \(configuration.draftKey ?? ""): another flow held the key when it began")
            }
        }
        try drive(.park)
    }

    // MARK: - Driving the machine

    private func drive(_ input: FlowMachine.Input) throws(VoiceNoteError) {
        try driving.locked { () throws(VoiceNoteError) in
            guard !closed else { throw VoiceNoteError(.misuse, "the recording flow was closed") }
            let (commands, events) = try machine.handle(input)
            carryOut(commands, events)
            keepDraft()
        }
    }

    private func report(_ outcome: FlowMachine.Outcome) {
        driving.locked {
            guard !closed else { return }
            let (commands, events) = machine.handle(outcome)
            carryOut(commands, events)
            keepDraft()
        }
    }

    /// Emits `events`, then does `commands` in order, feeding what they report back at once (with `driving` held).
    private func carryOut(_ commands: [FlowMachine.Command], _ events: [FlowMachine.Event]) {
        for event in events { self.events.emit(draftEvent(event)) }
        for command in commands {
            switch command {
            case .beginRecording:
                try? player.stop()
                let outcome: FlowMachine.Outcome
                do {
                    try recorder.begin(in: claimForTake())
                    runningPath = recorder.context.path
                    outcome = .recordingBegan
                } catch {
                    outcome = .recordingFailed(error)
                }
                let (more, moreEvents) = machine.handle(outcome)
                carryOut(more, moreEvents)
            case .stopRecording:
                do { try recorder.stop() } catch {
                    let (more, moreEvents) = machine.handle(.recordingFailed(error))
                    carryOut(more, moreEvents)
                }
            case .cancelRecording:
                try? recorder.cancel()
            case .loadPreview(let path):
                attempt { () throws(VoiceNoteError) in try player.load(.file(path), autoplay: false) }
            case .playPreview: attempt { () throws(VoiceNoteError) in try player.play() }
            case .pausePreview: attempt { () throws(VoiceNoteError) in try player.pause() }
            case .stopPreview: try? player.stop()
            case .seekPreview(let seconds): attempt { () throws(VoiceNoteError) in try player.seek(to: seconds) }
            case .deleteFile(let path): try? FileSystem.remove(path)
            case .trimTake(let path, let start, let end):
                try? player.stop()
                let outcome: FlowMachine.Outcome
                do throws(VoiceNoteError) {
                    // By content: an Ogg Opus take is cut without re-encoding, an AAC one re-encoded.
                    let seconds: Double
                    if try Decoders.info(of: FileSource(path: path)).codec == "opus" {
                        seconds = Double(try OpusTrim.trim(path, start: start, end: end)) / 48_000
                    } else {
                        seconds = try AACTrim.trim(path, start: start, end: end, bitrate: recorder.configuration.encoder.bitrate)
                    }
                    outcome = .trimmed(try trimmedTake(path, seconds: seconds))
                } catch {
                    outcome = .trimFailed(error)
                }
                let (more, moreEvents) = machine.handle(outcome)
                carryOut(more, moreEvents)
            case .startTimer(let timer, let seconds):
                let generation = (timerGenerations[timer] ?? 0) + 1
                timerGenerations[timer] = generation
                timers[timer] = clock.schedule(after: seconds) { [weak self] in self?.timerFired(timer, generation) }
            case .cancelTimer(let timer):
                timerGenerations[timer] = (timerGenerations[timer] ?? 0) + 1
            }
        }
    }

    /// A player call whose failure is reported as a `failed` event (the flow's state stays).
    private func attempt(_ call: () throws(VoiceNoteError) -> Void) {
        do { try call() } catch { events.emit(.failed(error)) }
    }

    private func timerFired(_ timer: FlowMachine.FlowTimer, _ generation: UInt64) {
        driving.locked {
            guard !closed, timerGenerations[timer] == generation else { return }
            let (commands, events) = machine.handle(.timerFired(timer))
            carryOut(commands, events)
            keepDraft()
        }
    }

    // MARK: - Reports

    private func recorderReported(_ event: RecorderEvent) {
        switch event {
        case .context(let context) where context.state == .recording:
            report(.recordingProgress(duration: context.duration, levels: recorder.levels(last: Self.liveLevelCount)))
        case .finished(let result):
            report(.recordingFinished(take(of: result)))
        case .tooShort:
            report(.recordingFinished(nil))
        case .failed(let error):
            report(.recordingFailed(error))
        default:
            break
        }
    }

    private func playerReported(_ event: PlayerEvent) {
        switch event {
        case .context(let context):
            report(.previewProgress(position: context.currentTime, playing: context.state == .playing))
        case .finished:
            report(.previewProgress(position: 0, playing: false))
        default:
            break
        }
    }

    // MARK: - Drafts

    /// Claims the draft key for a take about to begin (with `driving` held): the drafts directory, where the take is
    /// then recorded, or nil (the recorder's own directory) when the take cannot be the draft — another flow holds
    /// the key, or the key has a draft this flow did not park (never replaced: restore, send or clear it first);
    /// a `failed` event says so. A take this flow parked gives way to the new one (one draft per key).
    private func claimForTake() -> String? {
        guard let drafts, let key = configuration.draftKey else { return nil }
        if claim == nil {
            do {
                claim = try drafts.claim(key: key)
            } catch {
                events.emit(.failed(error))
                return nil
            }
            guard claim != nil else {
                events.emit(.failed(VoiceNoteError(.busy, "another flow holds the draft of \(key) (a second window on the conversation?): this take is not kept as a draft")))
                return nil
            }
        }
        let onDisk = (try? drafts.load(key: key)) ?? nil
        if let onDisk {
            if parked, onDisk == savedDraft {
                try? FileSystem.remove(onDisk.path)  // one draft per key: the new take
            } else if onDisk != savedDraft {
                events.emit(.failed(VoiceNoteError(.busy, "\(key) has a draft kept by another flow (restore, send or clear it first): this take is not kept as a draft")))
                claim?.release()
                claim = nil
                return nil
            }
        }
        parked = false
        savedDraft = onDisk
        return drafts.directory
    }

    /// A parked take: its record names it (it was recorded in the drafts directory; it never moves). A take handed
    /// over is remembered until a subscriber receives it.
    private func draftEvent(_ event: FlowMachine.Event) -> FlowMachine.Event {
        if case .attachmentReady(let take) = event, claim != nil { undelivered.withLock { $0 = take.path } }
        guard case .parked(let take) = event, let drafts, let key = configuration.draftKey, claim != nil else { return event }
        let draft = FlowDraft(key: key, path: take.path, duration: take.duration)
        do { try drafts.save(draft) } catch { self.events.emit(.failed(error)) }
        savedDraft = draft
        parked = true
        return event
    }

    /// Makes the draft record say what the flow holds (with `driving` held): a running take's `.part`, the take in
    /// preview, the parked take, or nothing. Written only when that changes, and only while the flow holds the key;
    /// an idle flow lets the key go (a parked draft is then free for the next flow to restore).
    private func keepDraft() {
        guard let drafts, let key = configuration.draftKey, !closed, claim != nil else { return }
        let wanted: FlowDraft?
        let idle: Bool
        switch machine.state {
        case .recording, .locked:
            wanted = runningPath.map { FlowDraft(key: key, path: $0, duration: 0) }
            idle = false
        case .preview:
            wanted = machine.currentTake.map { FlowDraft(key: key, path: $0.path, duration: $0.duration) }
            idle = false
        case .idle, .showingTip:
            wanted = parked ? savedDraft : nil
            idle = true
        }
        if wanted != savedDraft {
            if let wanted {
                do { try drafts.save(wanted) } catch { events.emit(.failed(error)) }
            } else {
                drafts.forget(key: key)
            }
            savedDraft = wanted
        }
        if idle {
            claim?.release()
            claim = nil
        }
    }

    /// At creation: the draft of this flow's key, made whole and previewed. A draft that cannot be restored (another
    /// flow holds the key; a `.busy` take another recorder still writes; a damaged file) is left in place, and said
    /// through the log.
    private func restoreDraft() {
        guard let drafts, let key = configuration.draftKey else { return }
        do {
            guard let held = try drafts.claim(key: key) else {
                Log.write(.info, "the draft of \(key) is held by another flow: not restored here")
                return
            }
            guard let draft = try drafts.restore(key: key) else { return held.release() }
            let seconds = draft.duration > 0 ? draft.duration : try Decoders.info(of: FileSource(path: draft.path)).duration
            let take = try trimmedTake(draft.path, seconds: seconds)
            driving.locked {
                claim = held
                savedDraft = FlowDraft(key: key, path: draft.path, duration: seconds)
                let (commands, events) = machine.handle(.restored(take))
                carryOut(commands, events)
                keepDraft()
            }
        } catch {
            Log.write(.warning, "the draft of \(key) could not be restored: \(error.message)")
        }
    }

    /// A take read back from its file (trimmed, or a restored draft): its waveform and payload. The file is decoded
    /// once when the view's waveform has the payload's 100 values (the default), else once more for the payload's.
    private func trimmedTake(_ path: String, seconds: Double) throws(VoiceNoteError) -> FlowTake {
        let waveform = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: configuration.waveformSamples)
        let payloadWaveform = waveform.count == Waveform.defaultSampleCount ? waveform : nil
        let payload = try VoiceRecordingPayload.fromRecording(path: path, duration: seconds, waveform: payloadWaveform)
        return FlowTake(path: path, duration: seconds, waveform: waveform, payloadJSON: payload.json())
    }

    /// A finished take with the configuration's number of waveform values (the recorder's 100, or the file's) and
    /// its `voiceRecording` payload (the recorder's duration and 100 values).
    private func take(of result: RecordingResult) -> FlowTake {
        let samples = configuration.waveformSamples
        var waveform = result.waveform
        if waveform.count != samples, let source = try? FileSource(path: result.path),
           let values = try? WaveformAnalysis.waveform(of: source, samples: samples) {
            waveform = values
        }
        let payload = try? VoiceRecordingPayload.fromRecording(path: result.path, duration: result.duration, waveform: result.waveform)
        return FlowTake(path: result.path, duration: result.duration, waveform: waveform, payloadJSON: payload?.json() ?? "")
    }
}
